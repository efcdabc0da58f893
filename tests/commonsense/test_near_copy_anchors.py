"""Near-copy anchors (issue 26, session 20; commonsense/queries/near_copy.py): an intersection whose events
say the same thing twice is not built. Planted: heads that are near-copies of each other ("grabs Y by hair" /
"grabs Y's hair", "breaks the news to Y" / "breaks the news") sharing their tails; the curated build leaves
every such query out and the funnel counts it; the papers' bare sampler (no rules) keeps them."""

from __future__ import annotations

from commonsense.io.triples import read_cskb_csv
from commonsense.kg.index import IndexOptions
from commonsense.queries.near_copy import content_words, near_copy_pair
from commonsense.questions import funnel
from commonsense.questions.com2 import BuildParams, BuildReport, build_com2
from commonsense.questions.wellformed import build_edges
from tests.conftest import FIXTURES

PAIRS = [
    ("PersonX grab PersonY by hair", "PersonX grab PersonY 's hair", "PersonX be violent"),
    ("PersonX break the news to PersonY", "PersonX break the news", "PersonX be honest"),
    ("PersonX wash the dishes", "PersonX wash the dishes after dinner", "PersonX be tidy"),
    ("PersonX call PersonY", "PersonX call PersonY on the phone", "PersonX be friendly"),
]


def test_loop20s_near_copies_and_loop19s_distinct_anchors() -> None:
    # the two items loop20's readers found unsound for it, and items they did not
    assert near_copy_pair(["PersonX grabs PersonY by hair", "PersonX grabs PersonY's hair"]) == (0, 1)
    assert near_copy_pair(["X breaks the news to Y", "X throws Y overboard", "X breaks the news"]) == (0, 2)
    assert near_copy_pair(["PersonX takes the stand", "PersonX makes the shot"]) is None
    assert near_copy_pair(["PersonX scrambles eggs", "PersonX makes bread", "PersonX sends a letter"]) is None
    assert content_words("PersonX grabs PersonY's hair") == {"grab", "persony", "hair"}


def _index():  # type: ignore[no-untyped-def]
    rows = [(r.head, r.relation, r.tail, r.plausibility, None, None) for r in read_cskb_csv(FIXTURES / "ckbp_demo.csv")]
    for a, b, tail in PAIRS:
        rows += [(a, "xAttr", tail, 1.0, None, None), (b, "xAttr", tail, 1.0, None, None)]
    return funnel.tallied_index(rows, build_edges(), IndexOptions(normalize=True))


def test_the_curated_build_drops_near_copy_anchors_and_the_funnel_counts_them() -> None:
    index = _index()
    report = BuildReport()
    params = BuildParams(kind="2i", count=400, seed=3, near_duplicate=None)
    qs = build_com2(index, params, report=report)
    refused = report.sampling.no_query["near-copy anchors"]
    assert refused > 0
    assert all(near_copy_pair(q.anchors) is None for q in qs)
    f = report.as_dict()["funnel"]
    queries = {s["stage"]: s for s in f["sampling"]}["queries"]  # type: ignore[index]
    assert queries["dropped"]["near-copy anchors"] == refused
    assert funnel.check(f) == []  # type: ignore[arg-type]
    # without rules (the papers' bare sampler) nothing is dropped for it
    bare = BuildReport()
    build_com2(index, BuildParams(kind="2i", count=400, seed=3, near_duplicate=None, rules="any"), report=bare)
    assert bare.sampling.no_query["near-copy anchors"] == 0
