"""Cost of reporting a browser build's progress on its BuildJob row (issue 3).

On the synthetic ATOMIC-sized graph (perf/synth_graph.py) it times ``build_com2`` for ``--count``
questions of each ``--kinds`` three ways, alternating, ``--repeats`` times:

* ``none``      no progress callback (what ``build_questions -v0`` does),
* ``job``       the job's :class:`knowledge.services.build_execution.Reporter` as used by the worker (a lease-
                guarded UPDATE of the row at most every COCOWEB_BUILD_PROGRESS_SECONDS, 0.5 s),
* ``every``     the same Reporter unthrottled (an UPDATE at every callback, i.e. every 50 questions),

and prints the medians, the row writes, the ratios ``job/none`` and ``every/none``, and the time
spent inside the progress callback itself (``cb s``: the direct cost, less sensitive than the ratios
to the load of a shared machine). The
database is a fresh SQLite file in a temporary folder (``--database-url`` for another one: it
gets migrated and one graph + one job row are written to it).

    .venv/bin/python perf/build_job_progress.py [--triples 1330000] [--count 10000] [--kinds 2i,3p] [--repeats 3]
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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--triples", type=int, default=1_330_000)
    ap.add_argument("--count", type=int, default=10_000)
    ap.add_argument("--kinds", default="2i,3p")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--database-url", default="")
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="cocoweb-buildjob-"))
    os.environ["COCOWEB_VAR_DIR"] = str(work / "var")
    os.environ["DATABASE_URL"] = args.database_url or f"sqlite:///{work / 'perf.sqlite3'}"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cocoweb.test_settings")
    import django

    django.setup()
    from django.core.management import call_command

    from commonsense.kg.index import GraphIndex, IndexOptions, file_fingerprint
    from commonsense.questions.com2 import BuildParams, build_com2
    from knowledge.models import BuildJob, Graph
    from knowledge.services.build_execution import Reporter, build_job_claim
    from perf.synth_graph import synthesize

    call_command("migrate", verbosity=0)
    path = work / "synthetic_atomic.tsv"
    synthesize(path, n_triples=args.triples, seed=args.seed)

    def records():  # type: ignore[no-untyped-def]
        with path.open(encoding="utf-8") as fh:
            for line in fh:
                h, r, t = line.rstrip("\n").split("\t")
                yield h, r, t

    t0 = time.perf_counter()
    index = GraphIndex.cached(work / "cache", file_fingerprint(path), records, IndexOptions(normalize=True))
    print(
        f"{args.triples:,} synthetic triples; index {index.n_edges:,} edges in {time.perf_counter() - t0:.1f} s; "
        f"database {os.environ['DATABASE_URL'].split(':', 1)[0]}"
    )
    graph = Graph.objects.create(name=f"perf-{os.getpid()}")
    job = BuildJob.objects.create(kind="com2", graph=graph, name=f"perf-{os.getpid()}", seed=args.seed)
    token = build_job_claim(job.pk, "perf")
    assert token is not None

    print(
        f"{'kind':<5}{'questions':>10}{'none s':>8}{'job s':>8}{'writes':>7}{'cb s':>7}{'every s':>9}{'writes':>7}"
        f"{'cb s':>7}{'job/none':>10}{'every/none':>11}"
    )
    for kind in args.kinds.split(","):
        params = BuildParams(kind=kind, count=args.count, seed=args.seed)
        times: dict[str, list[float]] = {"none": [], "job": [], "every": []}
        writes: dict[str, int] = {"job": 0, "every": 0}
        in_cb: dict[str, list[float]] = {"job": [], "every": []}
        n = 0
        for _ in range(args.repeats):
            for mode in ("none", "job", "every"):
                rep = Reporter(job.pk, token, min_interval=0.0 if mode == "every" else None)
                spent = [0.0]

                def timed(done: int, total: int, rep: Reporter = rep, spent: list[float] = spent) -> None:
                    t = time.perf_counter()
                    rep.progress(done, total)
                    spent[0] += time.perf_counter() - t

                t0 = time.perf_counter()
                qs = build_com2(index, params, progress=None if mode == "none" else timed)
                times[mode].append(time.perf_counter() - t0)
                n = len(qs)
                if mode != "none":
                    writes[mode] = rep.writes
                    in_cb[mode].append(spent[0])
        med = {m: statistics.median(v) for m, v in times.items()}
        cb = {m: statistics.median(v) for m, v in in_cb.items()}
        print(
            f"{kind:<5}{n:>10,}{med['none']:>8.2f}{med['job']:>8.2f}{writes['job']:>7}{cb['job']:>7.3f}"
            f"{med['every']:>9.2f}{writes['every']:>7}{cb['every']:>7.3f}"
            f"{med['job'] / med['none']:>10.3f}{med['every'] / med['none']:>11.3f}"
        )


if __name__ == "__main__":
    main()
