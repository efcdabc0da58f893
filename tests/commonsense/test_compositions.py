"""The chains read blind as nonsense (rules.NONSENSE_COMPOSITIONS, evidence in
perf/soundness_compositions.py) are never sampled by default; the other chains of the papers still
are, and PAPER_RULES still samples the left-out ones."""

from __future__ import annotations

import random
from collections import Counter
from functools import lru_cache

from commonsense.io.triples import read_cskb_csv
from commonsense.kg.index import GraphIndex, IndexOptions
from commonsense.queries.rules import (
    COMPOSES,
    DEFAULT_RULES,
    NONSENSE_COMPOSITIONS,
    PAPER_RULES,
    CompositionRules,
    composes,
)
from commonsense.queries.sampling import QProj, QuerySampler
from commonsense.questions.com2 import DEFAULT_COM2_HOPS, BuildParams, BuildReport, build_com2
from commonsense.questions.display import Display
from commonsense.questions.wellformed import build_edges
from tests.conftest import FIXTURES


@lru_cache(maxsize=1)
def _demo() -> GraphIndex:
    """The CSKB-Population demo graph as the builders see it (well-formed, plausible edges)."""
    rows = [(r.head, r.relation, r.tail, r.plausibility) for r in read_cskb_csv(FIXTURES / "ckbp_demo.csv")]
    return GraphIndex.build(build_edges()(rows), IndexOptions(normalize=True))


def _pairs(rules: CompositionRules, n: int = 1500) -> Counter[tuple[str, str]]:
    """(inner, outer) of the 2p queries the builders' sampler draws (COM2 hops, usable nodes)."""
    idx = _demo()
    sampler = QuerySampler(idx, relations=DEFAULT_COM2_HOPS, rules=rules, node_ok=Display(idx).usable())
    rng = random.Random(5)
    got: Counter[tuple[str, str]] = Counter()
    for _ in range(n):
        q = sampler.sample("2p", rng)
        if q is not None and isinstance(q.root, QProj) and isinstance(q.root.child, QProj):
            got[(idx.rel_names[q.root.child.rel], idx.rel_names[q.root.rel])] += 1
    return got


def test_left_out_pairs_are_papers_chains_and_only_they_differ() -> None:
    for inner, outer in NONSENSE_COMPOSITIONS:
        assert composes(inner, outer)
        assert PAPER_RULES.composes(inner, outer)
        assert not DEFAULT_RULES.composes(inner, outer)
    kept = {(i, o) for i, outs in COMPOSES.items() for o in outs} - NONSENSE_COMPOSITIONS
    assert all(DEFAULT_RULES.composes(i, o) for i, o in kept)
    assert DEFAULT_RULES.name != PAPER_RULES.name  # builds record which rules made them


def test_default_sampler_never_chains_a_left_out_pair_and_still_chains_the_others() -> None:
    default, paper = _pairs(DEFAULT_RULES), _pairs(PAPER_RULES)
    assert sum(default.values()) > 100
    assert not set(default) & NONSENSE_COMPOSITIONS, default
    assert set(paper) & NONSENSE_COMPOSITIONS  # the demo graph holds them: the check above is not vacuous
    assert set(default) - NONSENSE_COMPOSITIONS >= {("xEffect", "xReact"), ("xNeed", "xNeed")}, default


def test_default_2p_build_has_no_left_out_chain() -> None:
    report = BuildReport()
    params = BuildParams(kind="2p", count=15, seed=3, near_duplicate=None)
    qs = build_com2(_demo(), params, report=report)
    assert len(qs) == 15, report.as_dict()
    assert params.as_dict()["composition_rules"] == DEFAULT_RULES.name
    for q in qs:
        (_, inner, _), (_, outer, _) = q.chain
        assert (inner, outer) not in NONSENSE_COMPOSITIONS, q.question
