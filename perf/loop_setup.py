"""The verification loop measured end to end (issue 26, perf/RESULTS.md "verification loop"), step 1 of 3:
a fresh SQLite database in ``VAR_DIR`` with six MCQA validation campaigns and annotator accounts.

    .venv/bin/python perf/loop_setup.py VAR_DIR --seed 2611 [--count 40] [--annotators 4]

Every step goes through the production commands, in this process (``COCOWEB_VAR_DIR=VAR_DIR``, no
``DATABASE_URL``: SQLite in ``VAR_DIR``):

1. ``migrate``;
2. ``import_graph`` of ../shared/data's CSKB-Population evaluation set and ATOMIC-2020 sample (the
   files ``perf/soundness.py`` builds from) as graphs ``cskb`` and ``atomic``;
3. ``build_questions`` with the builders' defaults: CSKB 2i, 2p, 3i, 2in and ATOMIC 2i, 3i, ``--count``
   each, ``--seed``, sets ``loop-cskb-2i`` ...;
4. ``campaign_create --type mcqa`` on each set with the campaign defaults (3 to 5 answers, majority
   labels, the settlement rule ``needs`` at 0.95 with agreement required - a dissent on what an item
   publishes closes it, disputed - and the standard instructions with "Not well formed") and no
   qualification, opened: campaigns ``val-cskb-2i`` ...;
5. ``annotator_accounts N``: annotator accounts with API tokens, ``name<TAB>password<TAB>token`` lines in
   ``VAR_DIR/annotators.tsv`` (mode 0600);
6. the review stage (``--reviews K``, default 2; issue 26, session 20): each campaign gets its review
   campaign ``val-...-review`` (``campaign_create --reviews K``), which serves every settled item, as it
   will be published, to K reviewers in a reader's framing; ``--reviewers M`` further accounts
   (``VAR_DIR/reviewers.tsv``, prefix ``reviewer``) who must not annotate, and answer with
   ``perf/loop_review.py``. ``--reviews 0``: no review stage.

``VAR_DIR/loop.json`` records the campaigns (in the order readers are served), the seed, the commit and
the commands. Then start the server on that database and give each reader one token:

    COCOWEB_VAR_DIR=VAR_DIR DJANGO_DEBUG=true .venv/bin/python manage.py runserver 127.0.0.1:8765 --noreload
    COCOWEB_VAR_DIR=VAR_DIR DJANGO_DEBUG=true .venv/bin/celery -A cocoweb worker -Q default,housekeeping,eval --pool=solo
    LOOP_URL=http://127.0.0.1:8765 LOOP_TOKEN=... .venv/bin/python perf/loop_reader.py next
    LOOP_URL=http://127.0.0.1:8765 LOOP_TOKEN=<a reviewer's token> .venv/bin/python perf/loop_review.py next

(the Celery worker refits the annotator models every ``COCOWEB_QUALITY_REFIT_EVERY`` answers; without
it the campaigns judge items with the cold-start annotator model until ``perf/loop_finish.py`` refits;
it also serves queue ``eval``, where a verified set's option-only baseline is computed - the audits
``perf/loop_finish.py`` reports - since no eval worker runs beside a loop).
"""

from __future__ import annotations

import argparse
import io
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared" / "data"
GRAPHS = (
    ("cskb", "cskb-csv", SHARED / "ckbp_eval" / "evaluation_set.csv", ("2i", "2p", "3i", "2in")),
    ("atomic", "atomic-tsv", SHARED / "atomic2020_sample" / "atomic2020_triples.tsv", ("2i", "3i")),
)


def django_for(var_dir: Path) -> None:
    """Django on the SQLite database of ``var_dir`` (for this process only), whatever the caller's
    environment says of the database."""
    os.environ["COCOWEB_VAR_DIR"] = str(var_dir.resolve())
    os.environ.pop("DATABASE_URL", None)
    os.environ.setdefault("DJANGO_DEBUG", "true")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cocoweb.settings")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    import django

    django.setup()


def commit() -> str:
    out = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    return out.stdout.strip() or "unknown"


def run(commands: list[str], *args: Any) -> str:
    """``manage.py ARGS`` (as on the command line) in this process; its output is printed and returned."""
    from django.core.management import call_command

    out = io.StringIO()
    t = time.time()
    call_command(*[str(a) for a in args], stdout=out)
    text = out.getvalue().strip()
    shown = " ".join(str(a) for a in args)
    commands.append(shown)
    print(f"$ manage.py {shown}  ({time.time() - t:.0f} s)\n{text}", flush=True)
    return text


def setup(
    var_dir: Path, *, seed: int, count: int, annotators: int, prefix: str, reviews: int = 2, reviewers: int = 0
) -> dict[str, Any]:
    db = var_dir / "cocoweb.sqlite3"
    if db.exists():
        raise SystemExit(f"{db} exists: loop_setup makes a fresh database; give another VAR_DIR")
    for _, _, path, _ in GRAPHS:
        if not path.is_file():
            raise SystemExit(f"{path} is absent: the loop's sets are built from ../shared/data")
    var_dir.mkdir(parents=True, exist_ok=True)
    django_for(var_dir)
    from annotation.models import Campaign

    commands: list[str] = []
    run(commands, "migrate", "-v0")
    campaigns = []
    for graph, fmt, path, kinds in GRAPHS:
        run(commands, "import_graph", path, "--name", graph, "--format", fmt, "-v0")
        for kind in kinds:
            name = f"loop-{graph}-{kind}"
            build = ["--graph", graph, "--kind", kind, "--count", count, "--seed", seed, "--name", name]
            run(commands, "build_questions", *build, "-v0")
            campaign = f"val-{graph}-{kind}"
            run(commands, "campaign_create", "--type", "mcqa", "--set", name, "--name", campaign, "--reviews", reviews)
            campaigns.append(campaign)
    tsv = var_dir / "annotators.tsv"
    run(commands, "annotator_accounts", annotators, "--prefix", prefix, "--out", tsv)
    reviewers_tsv = var_dir / "reviewers.tsv"
    if reviews and reviewers:
        run(commands, "annotator_accounts", reviewers, "--prefix", "reviewer", "--out", reviewers_tsv)
    rows = sorted(Campaign.objects.filter(name__in=campaigns), key=lambda c: campaigns.index(c.name))
    defaults = {
        c.name: {
            "items": c.items.count(),
            "min_answers": c.redundancy,
            "max_answers": c.answers_max,
            "label_rule": c.label_rule,
            "settle_threshold": c.settle_threshold,
            "settlement_rule": c.settlement_rule,
            "require_agreement": c.require_agreement,
            "reviews": c.reviews,
        }
        for c in rows
    }
    meta = {
        "var_dir": str(var_dir.resolve()),
        "seed": seed,
        "count": count,
        "commit": commit(),
        "campaigns": campaigns,
        "campaign_settings": defaults,
        "annotators": str(tsv),
        "reviewers": str(reviewers_tsv) if reviews and reviewers else None,
        "commands": commands,
        "created": time.strftime("%Y-%m-%d %H:%M:%S"),
    }
    (var_dir / "loop.json").write_text(json.dumps(meta, indent=1))
    return meta


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("var_dir", type=Path, help="a new folder (or one without cocoweb.sqlite3)")
    ap.add_argument("--seed", type=int, required=True, help="the builds' seed (a held-out seed for a measurement)")
    ap.add_argument("--count", type=int, default=40, help="questions per set (default 40)")
    ap.add_argument("--annotators", type=int, default=4, help="annotator accounts with API tokens (default 4)")
    ap.add_argument("--prefix", default="reader", help="their names: PREFIX01, PREFIX02 ...")
    ap.add_argument("--reviews", type=int, default=2, help="blind reviews per settled item (default 2; 0: none)")
    ap.add_argument("--reviewers", type=int, default=4, help="reviewer accounts (reviewers.tsv; default 4)")
    a = ap.parse_args()
    t = time.time()
    meta = setup(
        a.var_dir,
        seed=a.seed,
        count=a.count,
        annotators=a.annotators,
        prefix=a.prefix,
        reviews=a.reviews,
        reviewers=a.reviewers,
    )
    print(f"\n{len(meta['campaigns'])} campaigns, tokens in {meta['annotators']}; {time.time() - t:.0f} s")
    for name, s in meta["campaign_settings"].items():
        print(f"  {name}: {s}")
    print(
        f"\nserver:  COCOWEB_VAR_DIR={meta['var_dir']} DJANGO_DEBUG=true .venv/bin/python manage.py runserver "
        "127.0.0.1:8765 --noreload\n"
        f"worker:  COCOWEB_VAR_DIR={meta['var_dir']} DJANGO_DEBUG=true .venv/bin/celery -A cocoweb worker "
        "-Q default,housekeeping,eval --pool=solo\n"
        f"reader:  LOOP_URL=http://127.0.0.1:8765 LOOP_TOKEN=<a token of {meta['annotators']}> "
        ".venv/bin/python perf/loop_reader.py next"
        + (
            f"\nreviewer: LOOP_URL=http://127.0.0.1:8765 LOOP_TOKEN=<a token of {meta['reviewers']}> "
            ".venv/bin/python perf/loop_review.py next"
            if meta["reviewers"]
            else ""
        )
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
