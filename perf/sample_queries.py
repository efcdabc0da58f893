"""Query-sampling benchmark (issue 3) on the 1.33 M-triple synthetic graph (perf/synth_graph.py).

Prints the index build time (normalised tails, cold and from the disk cache), then for every query
kind the time to sample 10,000 queries with their full answer sets, and the time to build 10,000
complete MCQA questions (distractors, verbalisation, names); finally the peak memory (ru_maxrss).

With the issue-11 checks on (the builders' defaults): plausible-only and well-formed edges (none tails out),
COM2's relations, composition rules, fluent display text, ___ heads filled or left out, no state
distractor where a state answers. The MiniLM
near-duplicate check is timed separately: --minilm N questions of 2i built with and without it,
reported as seconds per 1,000 questions.

The node texts' verdicts (the English rules with the Link Grammar parse) are computed before the
index reads the edges, in ``--processes`` forked workers (``commonsense.questions.wellformed.prejudged``;
the same verdicts: tests/commonsense/test_prejudged.py); ``--processes 1`` judges them inside the
index's own loop, as before.

    .venv/bin/python perf/sample_queries.py [--triples 1330000] [--queries 10000] [--seed 0] [--minilm 1000] [--processes 2]
"""

from __future__ import annotations

import argparse
import random
import resource
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from commonsense.kg.edges import edge_filter  # noqa: E402
from commonsense.kg.index import GraphIndex, IndexOptions, file_fingerprint  # noqa: E402
from commonsense.kg.normalize import minilm_encoder  # noqa: E402
from commonsense.queries import KINDS, QuerySampler  # noqa: E402
from commonsense.queries.rules import DEFAULT_RULES  # noqa: E402
from commonsense.questions.com2 import DEFAULT_COM2_HOPS, StateDistractorCheck, sample_questions  # noqa: E402
from commonsense.questions.display import Display  # noqa: E402
from commonsense.questions.neardup import NearDuplicates  # noqa: E402
from commonsense.questions.node_text import judge  # noqa: E402
from commonsense.questions.record import derive_seed  # noqa: E402
from commonsense.questions.wellformed import build_edges, prejudged  # noqa: E402
from perf.synth_graph import synthesize  # noqa: E402


def _records(path: Path):  # type: ignore[no-untyped-def]
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            h, r, t = line.rstrip("\n").split("\t")
            yield h, r, t


def _cpu() -> float:
    """CPU seconds (user + system) of this process and its finished workers: on a shared machine
    the wall time says how busy the others are, the CPU time what the build costs."""
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--triples", type=int, default=1_330_000)
    ap.add_argument("--queries", type=int, default=10_000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--minilm", type=int, default=1000, help="2i questions to time the near-duplicate check on")
    ap.add_argument("--processes", type=int, default=2, help="workers judging node texts (1: in the index's loop)")
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="cocoweb-queries-"))
    path = work / "synthetic_atomic.tsv"
    t0 = time.perf_counter()
    synthesize(path, n_triples=args.triples, seed=args.seed)
    print(f"synthesized {args.triples:,} triples in {time.perf_counter() - t0:.1f} s")
    opts = IndexOptions(normalize=True)
    cpu0 = _cpu()
    t0 = time.perf_counter()
    edges = build_edges()  # the builders' default: label filter and the well-formed check
    fp = file_fingerprint(path) + edges.name

    def records():  # type: ignore[no-untyped-def]
        if args.processes <= 1:
            return edges(_records(path))
        got = prejudged(lambda: _records(path), edge_filter(False, False), args.processes)
        print(f"node texts judged before the index: {len(got):,} in {time.perf_counter() - t0:.1f} s")
        return build_edges(texts=lambda t: got.get(t) or judge(t))(_records(path))

    index = GraphIndex.cached(work / "cache", fp, records, opts)
    build = time.perf_counter() - t0
    cpu = _cpu() - cpu0
    t0 = time.perf_counter()
    index = GraphIndex.cached(work / "cache", fp, lambda: edges(_records(path)), opts)
    reload = time.perf_counter() - t0
    print(
        f"index: {index.n_nodes:,} nodes, {index.n_edges:,} edges; build+save {build:.1f} s "
        f"(incl. reading and normalising the TSV; CPU {cpu:.1f} s in this process and its workers, "
        f"--processes {args.processes}), reload from cache {reload:.2f} s"
    )
    t0 = time.perf_counter()
    display = Display(index)
    sampler = QuerySampler(index, relations=DEFAULT_COM2_HOPS, rules=DEFAULT_RULES, node_ok=display.usable())
    sampler.rule_tables  # noqa: B018 (built once per sampler)
    state = StateDistractorCheck(index)
    print(f"quality tables (blank fills, usable nodes, rule tables, state nodes): {time.perf_counter() - t0:.1f} s")
    print(f"{'kind':<5}{'queries':>9}{'attempts':>10}{'sample s':>10}{'q/s':>9}{'MCQA':>7}{'MCQA s':>8}{'MCQA/s':>9}")
    for kind in KINDS:
        t0 = time.perf_counter()
        got = attempts = 0
        while got < args.queries and attempts < 50 * args.queries:
            q = sampler.sample(kind, random.Random(derive_seed(args.seed, kind, attempts)))
            attempts += 1
            if q is not None:
                sampler.answers(q)
                got += 1
        ts = time.perf_counter() - t0
        t0 = time.perf_counter()
        built = sample_questions(index, kind, args.queries, args.seed, sampler=sampler, display=display, checks=[state])
        tb = time.perf_counter() - t0
        print(
            f"{kind:<5}{got:>9,}{attempts:>10,}{ts:>10.2f}{got / ts:>9,.0f}{len(built):>7,}{tb:>8.2f}{len(built) / tb:>9,.0f}"
        )
    if args.minilm:
        from commonsense.questions.com2 import near_duplicate_check

        n = args.minilm
        t0 = time.perf_counter()
        plain = sample_questions(index, "2i", n, args.seed + 1, sampler=sampler, display=display)
        t_plain = time.perf_counter() - t0
        nd = NearDuplicates(minilm_encoder())
        nd.vectors(["warm-up"])  # model load is not per-question cost
        t0 = time.perf_counter()
        checked = sample_questions(
            index, "2i", n, args.seed + 1, sampler=sampler, display=display, checks=[near_duplicate_check(nd)]
        )
        t_checked = time.perf_counter() - t0
        per_k = (t_checked - t_plain) / max(len(checked), 1) * 1000
        print(
            f"MiniLM near-duplicate check, 2i: {len(plain):,} questions {t_plain:.1f} s without, "
            f"{len(checked):,} {t_checked:.1f} s with ({nd.encoded:,} texts embedded, cold cache): "
            f"{per_k:.1f} s per 1,000 questions"
        )
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024 / 1024
    print(f"peak memory (ru_maxrss): {rss:.2f} GB")


if __name__ == "__main__":
    main()
