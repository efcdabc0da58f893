"""Node texts judged before the index reads the edges, in forked workers (issue 27 item 8,
``commonsense.questions.wellformed.prejudged``): the fast path keeps the same edges for the same
reasons as the edge filter judging each text in its own loop, on the demo graphs' own triples."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from commonsense.io.triples import read_atomic_tsv, read_cskb_csv
from commonsense.kg.edges import edge_filter
from commonsense.questions.node_text import TextVerdict, judge, judge_many
from commonsense.questions.wellformed import build_edges, prejudged

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
N = 600  # triples per graph: enough texts for several chunks in two workers


def _records(name: str) -> list[tuple[str, str, str, float | None]]:
    read = read_cskb_csv if name.endswith(".csv") else read_atomic_tsv
    out = []
    for r in read(FIXTURES / name):
        out.append((r.head, r.relation, r.tail, r.plausibility))
        if len(out) == N:
            break
    return out


@pytest.mark.parametrize("name", ["ckbp_demo.csv", "atomic2020_demo.tsv"])
def test_the_fast_path_keeps_the_same_edges_for_the_same_reasons(name: str) -> None:
    records = _records(name)
    slow_tally: Counter[tuple[str, str, str]] = Counter()
    slow = list(build_edges()(records, slow_tally))

    got = prejudged(lambda: records, edge_filter(False), processes=2, chunk=20)

    def stored(text: str) -> TextVerdict:
        return got[text]  # a text the prepass missed fails here (KeyError), never judged on the side

    fast_tally: Counter[tuple[str, str, str]] = Counter()
    fast = list(build_edges(texts=stored)(records, fast_tally))
    assert fast == slow
    assert fast_tally == slow_tally
    assert slow  # the demo graph has edges the rules keep
    assert sum(n for (_, _, reason), n in slow_tally.items() if "unreadable" in reason) > 0
    # and every verdict a worker computed is the one this process computes
    assert all(judge(t) == v for t, v in got.items())
    assert len(got) >= 2 * 20  # several chunks: the workers ran


def test_workers_give_each_text_its_own_verdict_in_order() -> None:
    texts = [h for h, _, _, _ in _records("atomic2020_demo.tsv")][:300]
    texts = sorted(set(texts))
    assert len(texts) >= 2 * 10  # several chunks: the workers run
    forked = list(judge_many(texts, processes=2, chunk=10))
    assert [t for t, _ in forked] == texts
    assert forked == [(t, judge(t)) for t in texts]
    assert len({v.rule for _, v in forked}) > 1  # some rejected, some read as English
