"""Time every explorer page server-side on CoCo-sized data.

Builds, in a fresh SQLite database (or ``--db-url``): a 1.33 M-triple synthetic graph
(``perf/synth_graph.py``, imported through ``knowledge.services.graph_import``), a CoCo-shaped
question set of 40,000 questions with two runs of 40,000 predictions each, and a 4,000-statement
set with a statement run. Then requests every explorer page with Django's test client: one
untimed warm-up request per page (imports, template compilation), then ``--repeat`` timed
requests with the Django cache cleared before each (so the graph-overview cache never hides the
cost), then ``--repeat`` requests with the cache kept (what a second viewer of a finished run
gets). Prints the median times and the SQL query count per page, slowest first, and the search
timings.

    .venv/bin/python perf/explorer_pages.py [--triples 1330000] [--predictions 40000] [--repeat 3]

Pages over issue 16 item 5's bounds (150 ms, 12 queries) are flagged.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
from perf.synth_sets import coco_shaped_set  # noqa: E402

MAX_MS, MAX_QUERIES = 150, 12  # issue 16 item 5: every page under 150 ms server-side, at most 12 queries


def _django(db_url: str) -> None:
    os.environ["DATABASE_URL"] = db_url
    os.environ.setdefault("DJANGO_SECRET_KEY", "perf-only-not-secret")
    os.environ.setdefault("DJANGO_DEBUG", "false")
    os.environ.setdefault("DJANGO_SECURE_SSL_REDIRECT", "false")
    os.environ.setdefault("DJANGO_ALLOWED_HOSTS", "testserver,localhost")
    os.environ["DJANGO_SETTINGS_MODULE"] = "cocoweb.settings"
    import django

    django.setup()
    from django.conf import settings

    # production settings, except static files: no collectstatic manifest is needed to render pages
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def build_graph(triples: int, cache_dir: Path) -> object:
    from knowledge.services import graph_import
    from perf.synth_graph import synthesize

    tsv = cache_dir / f"synth-{triples}.tsv"
    if not tsv.exists():
        t = time.perf_counter()
        synthesize(tsv, n_triples=triples, seed=0)
        print(f"synthesized {triples:,} triples in {time.perf_counter() - t:.1f} s")
    t = time.perf_counter()
    res = graph_import(tsv, name="perf-graph", fmt="atomic-tsv")
    print(f"imported: {res.summary()} in {time.perf_counter() - t:.1f} s (FTS5 triggers included)")
    return res.graph


def build_questions(n: int) -> tuple[object, list[object]]:
    """The CoCo-shaped set of perf/synth_sets.py, with a d(Q) per question, and two finished runs on it."""
    from django.db import transaction
    from django.utils import timezone

    from knowledge.models import Question
    from runs.item_facets import question_facets
    from runs.models import Prediction, Run

    qset, rng = coco_shaped_set("perf-coco", n, difficulty=True)
    questions = list(Question.objects.filter(question_set=qset).order_by("position"))
    runs = []
    for skill in (0.55, 0.75):
        run = Run.objects.create(
            question_set=qset,
            backend="random",
            scoring="loglik",
            model=f"synthetic-{skill}",
            state=Run.State.DONE,
            items_total=n,
            items_done=n,
            finished_at=timezone.now(),  # as runs.execution ends a run: its aggregates may be cached
        )
        preds = []
        for pos, q in enumerate(questions):
            ans = q.answer_index
            chosen = ans if rng.random() < skill else rng.randrange(5)
            # stored as runs.execution stores a prediction: with the question's facets copied
            preds.append(
                Prediction(
                    run=run,
                    question_id=q.pk,
                    position=pos,
                    chosen=chosen,
                    correct=chosen == ans,
                    scores=[rng.random() for _ in range(5)],
                    **question_facets(q),
                )
            )
        with transaction.atomic():
            Prediction.objects.bulk_create(preds, batch_size=5000)
        runs.append(run)
    return qset, runs


def build_statements(n: int) -> object:
    from django.db import transaction
    from django.utils import timezone

    from knowledge.models import Statement, StatementSet
    from runs.models import Prediction, Run, RunMetric

    rng = random.Random(1)
    sset = StatementSet.objects.create(name="perf-statements", statement_count=n, models_answered=["M1", "M2"])
    Statement.objects.bulk_create(
        [
            Statement(
                statement_set=sset,
                position=i,
                text=f"Statement {i} is common sense.",
                features={"behavior": rng.randrange(2), "opinion": rng.randrange(2)},
                human_majority=rng.randrange(2),
                model_answers={m: {"q1": rng.randrange(2), "q2": rng.randrange(2)} for m in ("M1", "M2")},
            )
            for i in range(n)
        ],
        batch_size=5000,
    )
    run = Run.objects.create(
        statement_set=sset, backend="random", scoring="yesno", state=Run.State.DONE, finished_at=timezone.now()
    )
    with transaction.atomic():
        Prediction.objects.bulk_create(
            [
                Prediction(
                    run=run,
                    statement_id=sid,
                    position=pos,
                    chosen=0,
                    correct=True,
                    extra={q: {"p_yes": (v := rng.random()), "chosen": int(v >= 0.5)} for q in ("q1", "q2")},
                )
                for pos, sid in enumerate(Statement.objects.filter(statement_set=sset).values_list("id", flat=True))
            ],
            batch_size=5000,
        )
    for name, v in (("consensus", 0.7), ("awareness", 0.75), ("commonsensicality", 0.72)):
        RunMetric.objects.create(run=run, name=name, scope="overall", value=v, n=n)
    RunMetric.objects.create(run=run, name="commonsensicality", scope="feature:behavior=1", value=0.7, n=n // 2)
    return run


def time_pages(
    urls: list[str], repeat: int, show_sql: int = 0
) -> list[tuple[str, float, float, int, int, float, float, int]]:
    from django.contrib.auth import get_user_model
    from django.core.cache import cache
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    from accounts.services import role_groups_sync, user_create_with_role

    role_groups_sync()
    User = get_user_model()
    user = User.objects.filter(username="perf").first() or user_create_with_role(
        "perf", "researcher", "perf-password-123"
    )
    c = Client()
    c.force_login(user)
    out = []
    for url in urls:
        c.get(url)  # warm-up: imports and template compilation, not timed
        times, cpu, queries, status = [], [], 0, 0
        for _ in range(repeat):
            cache.clear()
            with CaptureQueriesContext(connection) as ctx:
                t, t_cpu = time.perf_counter(), time.process_time()
                r = c.get(url)
                times.append(time.perf_counter() - t)
                cpu.append(time.process_time() - t_cpu)
            queries, status = len(ctx.captured_queries), r.status_code
        if show_sql and queries > show_sql:
            print(f"\n{queries} statements for {url}:")
            for q in ctx.captured_queries:
                print("   ", q["sql"][:220])
        # warm: the same page again with the cache the last request filled (a finished run's
        # aggregates, the graph overview), as a second viewer gets it
        warm, warm_cpu = [], []
        for _ in range(repeat):
            with CaptureQueriesContext(connection) as ctx:
                t, t_cpu = time.perf_counter(), time.process_time()
                c.get(url)
                warm.append(time.perf_counter() - t)
                warm_cpu.append(time.process_time() - t_cpu)
        out.append(
            (
                url,
                statistics.median(times) * 1000,
                statistics.median(cpu) * 1000,
                queries,
                status,
                statistics.median(warm) * 1000,
                statistics.median(warm_cpu) * 1000,
                len(ctx.captured_queries),
            )
        )
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--triples", type=int, default=1_330_000)
    ap.add_argument("--predictions", type=int, default=40_000)
    ap.add_argument("--statements", type=int, default=4_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--db-url", default="")
    ap.add_argument("--cache-dir", default=str(Path(tempfile.gettempdir()) / "cocoweb-perf"))
    ap.add_argument(
        "--show-sql", type=int, default=0, metavar="N", help="print the SQL of pages with more than N statements"
    )
    args = ap.parse_args()
    cache_dir = Path(args.cache_dir)
    cache_dir.mkdir(parents=True, exist_ok=True)
    db = cache_dir / f"explorer-{os.getpid()}.sqlite3"
    _django(args.db_url or f"sqlite:///{db}")
    try:
        _run(args, cache_dir)
    finally:
        if not args.db_url:
            for suffix in ("", "-wal", "-shm"):
                Path(f"{db}{suffix}").unlink(missing_ok=True)


def _run(args: argparse.Namespace, cache_dir: Path) -> None:
    from django.db import connection
    from django.urls import reverse

    from explorer.selectors.graph import graph_top_nodes, node_search
    from knowledge.graph_stats import stats_current
    from knowledge.models import Node

    graph = build_graph(args.triples, cache_dir)
    t = time.perf_counter()
    qset, runs = build_questions(args.predictions)
    srun = build_statements(args.statements)
    print(
        f"built {args.predictions:,} questions, 2 runs × {args.predictions:,} predictions and "
        f"{args.statements:,} statements in {time.perf_counter() - t:.1f} s"
    )
    if connection.vendor == "postgresql":  # as autovacuum leaves a settled database: statistics, visibility map
        with connection.cursor() as cur:
            cur.execute("VACUUM ANALYZE")
    graph.refresh_from_db()
    print(f"degree statistics materialised at import and current: {stats_current(graph)}")
    hub_id = graph_top_nodes(graph, limit=1)[0][0]  # the worst node page: the most connected node
    some = Node.objects.filter(graph=graph).order_by("id")[1000]
    urls = [
        reverse("explorer:index"),
        reverse("explorer:graph", args=[graph.name]),
        reverse("explorer:search", args=[graph.name]) + "?q=PersonX",
        reverse("explorer:search", args=[graph.name]) + "?q=goes+to+the+st",
        reverse("explorer:node", args=[graph.name, hub_id]),
        reverse("explorer:node", args=[graph.name, hub_id]) + "?hops=2",
        reverse("explorer:node", args=[graph.name, some.pk]) + "?hops=2",
        reverse("explorer:questions"),
        reverse("explorer:questions") + f"?set={qset.name}&relation=xWant&kind=2p&page=3",
        reverse("explorer:questions") + "?answers=1&validation=unvalidated",
        reverse("explorer:question", args=[qset.questions.order_by("-position").first().pk]),
        reverse("explorer:run_errors", args=[runs[0].pk]),
        reverse("explorer:run_errors", args=[runs[0].pk]) + "?csv=coco",
        reverse("explorer:run_items", args=[runs[0].pk]) + "?relation=xWant&correct=0",
        reverse("explorer:run_items", args=[runs[0].pk]) + "?coco=0,1",
        reverse("explorer:compare") + f"?run={runs[0].pk}&run={runs[1].pk}",
        reverse("explorer:run_errors", args=[srun.pk]),
        reverse("explorer:run_items", args=[srun.pk]) + "?human=1",  # a statement run's drawer
    ]
    print(f"load average before timing: {_loadavg()}")
    results = time_pages(urls, args.repeat, args.show_sql)
    _check_content(
        reverse("explorer:run_errors", args=[runs[0].pk]),
        ('id="fig-by-relation"', 'id="fig-coco"', 'id="fig-difficulty"', "xWant"),
    )
    print(f"\n{connection.vendor}; median of {args.repeat} cold-cache requests per page, warm-up excluded")
    print("(cpu = CPU time of this process, database included on SQLite: what the page costs on an idle core;")
    print(" warm = the same page again with the cache its last request filled, as a second viewer gets it)")
    print(f"{'ms':>8} {'cpu ms':>7} {'SQL':>4} {'HTTP':>4} {'warm ms':>8} {'cpu':>6} {'SQL':>4}  page")
    for url, ms, cpu, q, status, warm, warm_cpu, warm_q in sorted(results, key=lambda r: -r[1]):
        flag = f"  <-- over {MAX_MS} ms" if ms > MAX_MS else ""
        flag += f"  <-- over {MAX_QUERIES} queries" if q > MAX_QUERIES else ""
        print(f"{ms:8.1f} {cpu:7.1f} {q:4d} {status:4d} {warm:8.1f} {warm_cpu:6.1f} {warm_q:4d}  {url}{flag}")
    print("\ngraph search (selector only, median of 5):")
    for term in ("PersonX", "goes", "goes to the st", "ticket", "zzzz"):
        ts, cs = [], []
        for _ in range(5):
            t, t_cpu = time.perf_counter(), time.process_time()
            n = len(node_search(graph, term))
            ts.append(time.perf_counter() - t)
            cs.append(time.process_time() - t_cpu)
        print(
            f"{statistics.median(ts) * 1000:8.1f} ms (cpu {statistics.median(cs) * 1000:6.1f})  {n:3d} hits  q={term!r}"
        )
    worst = max(results, key=lambda r: r[1])
    print(f"\nslowest page: {worst[1]:.1f} ms {worst[0]}; most queries: {max(r[3] for r in results)}")
    print(f"load average after timing: {_loadavg()}")


def _check_content(url: str, needles: tuple[str, ...]) -> None:
    """The timed pages must show what they claim (fast because empty would prove nothing)."""
    from django.contrib.auth import get_user_model
    from django.test import Client

    c = Client()
    c.force_login(get_user_model().objects.get(username="perf"))
    html = c.get(url).content.decode()
    missing = [n for n in needles if n not in html]
    print(f"content check {url}: " + ("all panels present" if not missing else f"MISSING {missing}"))


def _loadavg() -> str:
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "unknown"


if __name__ == "__main__":
    main()
