"""``--rules paper`` samples every query pattern the papers print, from the papers' own triples (CoCo
Table 12 and Figures 1/8, COM2 Appendix D and Figure 1), and verbalises it as printed; the curated
rules do not sample the patterns they leave out; each mode is stored with the set it builds."""

from __future__ import annotations

import random
from collections import defaultdict

import pytest

from commonsense.kg.index import GraphIndex, IndexOptions
from commonsense.queries.rules import (
    DEFAULT_RULES,
    PAPER_PATTERNS,
    PAPER_RULES,
    RULES_MODES,
    CompositionRules,
    rules_for,
)
from commonsense.queries.sampling import QInter, QNode, QProj, Query, QuerySampler
from commonsense.questions import verbalize

# The papers' triples as ATOMIC stores them (tails without a subject; the normalisation of COM2
# Table 5 / CoCo Table 7 gives them theirs, so that a tail is the next hop's head). Where the
# papers print a tail in another form than the head it becomes (CoCo's "feel tired" / "PersonX feels
# tired", COM2's "has" / "to have success in life"), the triple is given the form that merges.
PAPER_TRIPLES = [
    # CoCo Table 12, 2i: "PersonX is tipsy"
    ("PersonX fills PersonY's glass", "xAttr", "tipsy"),
    ("PersonX gets beer", "xReact", "tipsy"),
    # CoCo Table 12, 2p: "PersonX curl hair"
    ("PersonX does PersonX's hair and makeup", "xEffect", "looks pretty"),
    ("PersonX looks pretty", "xNeed", "to curl hair"),
    # CoCo Table 12, ip: V = "PersonX gets promoted", answer "PersonX learns a new language"
    ("PersonX work hard and well", "xNeed", "PersonX gets promoted"),
    ("PersonX is deserving", "xAttr", "PersonX gets promoted"),
    ("PersonX gets promoted", "xEffect", "learns a new language"),
    # CoCo Table 12, pi: "PersonX is attractive"
    ("PersonX asks PersonY out on a date", "xEffect", "gets a date with PersonY"),
    ("PersonX gets a date with PersonY", "xAttr", "attractive"),
    ("PersonX loses twenty pounds", "xEffect", "is attractive"),
    # CoCo Figures 1 and 8, 2p: "PersonX take a rest"
    ("PersonX plays a football game", "xEffect", "feels tired"),
    ("PersonX feels tired", "xWant", "to take a rest"),
    # COM2 Appendix D, 2p: "be financially independent"
    ("PersonX updates PersonX's resume", "xIntent", "to get a new job"),
    ("PersonX get a new job", "xIntent", "to be financially independent"),
    # COM2 Appendix D, 2i-neg: "PersonX gets tired from working hard"
    ("PersonX go to work every day", "xEffect", "gets tired from working hard"),
    ("PersonX work hard on it", "HinderedBy", "PersonX gets tired from working hard"),
    # COM2 Appendix D, 2i: "to have success in life"
    ("PersonX is hardworking", "xEffect", "have success in life"),
    ("PersonX leads a good life", "xWant", "to have success in life"),
    # COM2 Appendix D, ip: "take a car for test drive" (V: the car PersonX wants and needed)
    ("PersonX is looking for a new car", "xWant", "to buy a car"),
    ("PersonX is driving to school", "xNeed", "to buy a car"),
    ("PersonX buy a car", "xNeed", "to take a car for test drive"),
    # COM2 Figure 1, 2i (abduction): "finding new things to do"
    ("PersonX gets tired of it", "xWant", "to find new things to do"),
    ("PersonX goes skydiving", "xIntent", "to find new things to do"),
]
# The printed questions these triples give word for word (the others print names, a gerund head or a
# tail in another form than the merged node)
VERBATIM = {
    ("2i", "CoCo Table 12"),
    ("2p", "CoCo Table 12"),
    ("ip", "CoCo Table 12"),
    ("pi", "CoCo Table 12"),
    ("2i", "COM2 Figure 1"),
}


def _index() -> GraphIndex:
    return GraphIndex.build(PAPER_TRIPLES, IndexOptions(normalize=True))


def _pattern(index: GraphIndex, q: Query) -> tuple[str, tuple[tuple[str, str], ...], frozenset[str]]:
    """(kind, the chained (inner, outer) pairs, the intersected relations) of a sampled query."""
    chains: list[tuple[str, str]] = []
    inter: set[str] = set()

    def walk(n: QNode, outer: str | None) -> None:
        if isinstance(n, QProj):
            name = index.rel_names[n.rel]
            if outer is not None:
                chains.append((name, outer))
            walk(n.child, name)
        elif isinstance(n, QInter):
            for b in n.branches:
                if isinstance(b, QProj):
                    inter.add(index.rel_names[b.rel])
                walk(b, outer)

    walk(q.root, None)
    return q.kind, tuple(sorted(chains)), frozenset(inter)


def _sampled(rules: CompositionRules | None, tries: int = 400) -> dict[tuple[object, ...], set[str]]:
    """Every pattern the sampler draws on the papers' graph, with the questions it verbalised."""
    index = _index()
    sampler = QuerySampler(index, rules=rules)
    got: dict[tuple[object, ...], set[str]] = defaultdict(set)
    kinds = sorted({p.kind for p in PAPER_PATTERNS})
    for kind in kinds:
        for seed in range(tries):
            q = sampler.sample(kind, random.Random(seed))
            if q is not None:
                text = verbalize.question(q, index.names.__getitem__, index.rel_names.__getitem__)
                got[_pattern(index, q)].add(text)
    return got


def _key(p: object) -> tuple[object, ...]:
    from commonsense.queries.rules import PaperPattern

    assert isinstance(p, PaperPattern)
    return p.kind, tuple(sorted(p.chains)), p.intersection


PRINTED = [p for p in PAPER_PATTERNS if p.question]


@pytest.mark.parametrize("pattern", PRINTED, ids=lambda p: f"{p.kind}-{p.source}")
def test_paper_rules_sample_each_printed_pattern_from_the_papers_triples(pattern) -> None:
    got = _sampled(PAPER_RULES)
    assert _key(pattern) in got, sorted(got)
    if (pattern.kind, pattern.source) in VERBATIM:
        assert pattern.question in got[_key(pattern)]


def test_the_exemplars_chains_and_intersections_are_allowed_by_paper_rules() -> None:
    for p in PAPER_PATTERNS:
        for inner, outer in p.chains:
            assert PAPER_RULES.composes(inner, outer), (p.source, inner, outer)
        if len(p.intersection) > 1:
            assert PAPER_RULES.intersectable(sorted(p.intersection)), (p.source, p.intersection)


def test_curated_rules_never_sample_what_they_leave_out() -> None:
    refused = [
        p
        for p in PAPER_PATTERNS
        if not all(DEFAULT_RULES.composes(i, o) for i, o in p.chains)
        or (len(p.intersection) > 1 and not DEFAULT_RULES.intersectable(sorted(p.intersection)))
    ]
    # the patterns issue 27 names: CoCo Table 12's four and COM2 Appendix D's 2i
    assert {(p.kind, p.source) for p in refused} >= {
        ("2i", "CoCo Table 12"),
        ("2p", "CoCo Table 12"),
        ("ip", "CoCo Table 12"),
        ("pi", "CoCo Table 12"),
        ("2i", "COM2 Appendix D"),
    }
    curated, paper = _sampled(DEFAULT_RULES), _sampled(PAPER_RULES)
    for p in refused:
        assert _key(p) not in curated, p
    printed_refused = [p for p in refused if p.question]
    assert all(_key(p) in paper for p in printed_refused)  # the graph holds them: not vacuous
    assert set(curated) <= set(paper)


def test_any_is_the_bare_sampler_and_unknown_modes_are_named() -> None:
    assert rules_for("any") is None
    assert rules_for("curated") is DEFAULT_RULES
    assert rules_for("paper") is PAPER_RULES
    assert set(RULES_MODES) == {"curated", "paper", "any"}
    with pytest.raises(ValueError, match="choose one of curated, paper, any"):
        rules_for("papers")
    # a feeling of PersonY used as the head of what PersonX wants: no paper prints it, "any" samples it
    extra = [("PersonX gives PersonY a gift", "oReact", "happy"), ("PersonY is happy", "xWant", "to hug PersonY")]
    index = GraphIndex.build([*PAPER_TRIPLES, *extra], IndexOptions(normalize=True))
    chains = {"any": set(), "paper": set()}
    for mode in chains:
        sampler = QuerySampler(index, rules=rules_for(mode))
        for seed in range(300):
            q = sampler.sample("2p", random.Random(seed))
            if q is not None:
                chains[mode].update(_pattern(index, q)[1])
    assert ("oReact", "xWant") in chains["any"]
    assert ("oReact", "xWant") not in chains["paper"]
    assert chains["paper"]


def test_paper_mode_draws_com2s_random_negatives_from_the_whole_graph_unless_asked() -> None:
    from commonsense.questions.com2 import BuildParams

    assert BuildParams(kind="2i", count=1, seed=0, rules="paper").random_negatives == "whole-graph"
    assert BuildParams(kind="2i", count=1, seed=0).random_negatives == "relation"
    assert (
        BuildParams(kind="2i", count=1, seed=0, rules="paper", random_negatives="shared").random_negatives == "shared"
    )
    assert BuildParams(kind="2i", count=1, seed=0, rules="paper").as_dict()["random_negatives"] == "whole-graph"
