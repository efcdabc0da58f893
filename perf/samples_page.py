"""Time the per-sample log viewer (``/runs/<id>/samples/``) on a small and a CoCo-sized run.

Builds, in a fresh SQLite database (or ``--db-url``), two CoCo-shaped question sets
(``perf/synth_sets.py``) of ``--small`` and ``--large`` questions, each with one finished run of
one prediction per question stored as ``runs.evaluation`` stores them (facets copied). Then
requests the viewer with several filter combinations (one untimed warm-up, then ``--repeat``
timed requests) and prints, per URL, the median time and query count at each size and the ratio
large / small: a page that scales with the run, not the page size, shows a ratio near the size
ratio.

    .venv/bin/python perf/samples_page.py [--small 400] [--large 40000] [--repeat 5]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
from perf.explorer_pages import _django  # noqa: E402
from perf.synth_sets import coco_shaped_set  # noqa: E402

QUERIES = (
    "",
    "?page=last",
    "?correct=0",
    "?relation=xWant&kind=2i",
    "?chosen=2&correct=0&page=3",
    "?q=item+12",
    "?q=e399",
)


def build_run(name: str, n: int) -> object:
    from django.db import transaction

    from knowledge.models import Question
    from runs.item_facets import question_facets
    from runs.models import Prediction, Run

    qset, rng = coco_shaped_set(name, n)
    run = Run.objects.create(
        question_set=qset, backend="random", scoring="loglik", state=Run.State.DONE, items_total=n, items_done=n
    )
    preds = []
    for pos, q in enumerate(Question.objects.filter(question_set=qset).order_by("position")):
        chosen = q.answer_index if rng.random() < 0.6 else rng.randrange(5)
        preds.append(
            Prediction(
                run=run,
                question_id=q.pk,
                position=pos,
                chosen=chosen,
                correct=chosen == q.answer_index,
                scores=[rng.random() for _ in range(5)],
                **question_facets(q),
            )
        )
    with transaction.atomic():
        Prediction.objects.bulk_create(preds, batch_size=5000)
    return run


def time_urls(urls: list[str], repeat: int) -> list[tuple[float, int]]:
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    from accounts.services import role_groups_sync, user_create_with_role

    role_groups_sync()
    from django.contrib.auth import get_user_model

    user = get_user_model().objects.filter(username="perf").first() or user_create_with_role(
        "perf", "researcher", "perf-password-123"
    )
    c = Client()
    c.force_login(user)
    out = []
    for url in urls:
        assert c.get(url).status_code == 200, url
        times, queries = [], 0
        for _ in range(repeat):
            with CaptureQueriesContext(connection) as ctx:
                t = time.perf_counter()
                c.get(url)
                times.append(time.perf_counter() - t)
            queries = len(ctx.captured_queries)
        out.append((statistics.median(times) * 1000, queries))
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--small", type=int, default=400)
    ap.add_argument("--large", type=int, default=40_000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--db-url", default="")
    args = ap.parse_args()
    db = Path(tempfile.gettempdir()) / f"cocoweb-samples-{os.getpid()}.sqlite3"
    _django(args.db_url or f"sqlite:///{db}")
    small, large = build_run("perf-small", args.small), build_run("perf-large", args.large)
    print(f"runs: {args.small:,} and {args.large:,} predictions; median of {args.repeat} requests")
    a = time_urls([f"/runs/{small.pk}/samples/{q}" for q in QUERIES], args.repeat)  # type: ignore[attr-defined]
    b = time_urls([f"/runs/{large.pk}/samples/{q}" for q in QUERIES], args.repeat)  # type: ignore[attr-defined]
    print(f"{'filters':32} {'small ms':>9} {'large ms':>9} {'ratio':>6} {'queries':>8}")
    for q, (ta, qa), (tb, qb) in zip(QUERIES, a, b, strict=True):
        print(f"{q or '(none)':32} {ta:9.1f} {tb:9.1f} {tb / ta:6.2f} {qa:>3}/{qb:<3}")
    print(f"size ratio {args.large / args.small:.0f}")
    if not args.db_url:
        db.unlink(missing_ok=True)


if __name__ == "__main__":
    main()
