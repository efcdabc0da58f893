"""Readable 2p and 2in wording (issue 27 item 5) through the production build path (``build_com2``
on a planted CSKB-style graph), golden where the papers print the chain, and the query space that
tells a short build's funnel how many queries the graph holds at all."""

from __future__ import annotations

import random

import pytest

from commonsense.kg.index import GraphIndex, IndexOptions
from commonsense.queries.rules import DEFAULT_RULES, PAPER_RULES
from commonsense.queries.sampling import QuerySampler
from commonsense.queries.space import query_space
from commonsense.questions import funnel, verbalize
from commonsense.questions.chain_phrasing import negated, two_hop
from commonsense.questions.com2 import DEFAULT_COM2_HOPS, BuildParams, BuildReport, build_com2
from commonsense.questions.record import BuiltQuestion
from commonsense.questions.wellformed import build_edges
from tests.commonsense.test_build_funnel import Row, _rows
from tests.commonsense.test_paper_patterns import PAPER_TRIPLES

# a chain of the real CSKB slice (lemmatised ASER text, as CSKB-Population stores it), planted in the
# demo graph: xEffect then xWant, and a 2in whose negated branch is a plain event of PersonX
CHAIN: list[Row] = [
    ("PersonX start work again", "xEffect", "PersonX earn money", 1.0, None, "test_set"),
    ("PersonX earn money", "xWant", "PersonX want to spend money", 1.0, None, "test_set"),
]
# a chain the demo graph does not hold (the two above are in it already)
FRESH: list[Row] = [
    ("PersonX win the race", "xEffect", "PersonX get a medal", 1.0, None, "test_set"),
    ("PersonX get a medal", "xReact", "PersonX be proud", 1.0, None, "test_set"),
]
NEGATED: list[Row] = [
    ("PersonX remain in bed", "xWant", "PersonX fall back to sleep", 1.0, None, "test_set"),
    ("PersonX finally get up", "HinderedBy", "PersonX fall back to sleep", 1.0, None, "test_set"),
]


def _index(extra: list[Row]) -> GraphIndex:
    return funnel.tallied_index([*_rows(), *extra], build_edges(), IndexOptions(normalize=True))


def _build(index: GraphIndex, kind: str, phrasing: str = "step", count: int = 200, **kw: object) -> list[BuiltQuestion]:
    params = BuildParams(
        kind=kind,
        count=count,
        seed=3,
        near_duplicate=None,
        person_names=False,
        chain_phrasing=phrasing,
        **kw,  # type: ignore[arg-type]
    )
    return build_com2(index, params)


def _planted(qs: list[BuiltQuestion], head: str) -> BuiltQuestion:
    got = [q for q in qs if q.chain[0][0] == head]
    assert len(got) == 1, [q.chain for q in qs]
    return got[0]


@pytest.fixture(scope="module")
def chained() -> GraphIndex:
    return _index(CHAIN + NEGATED)


def test_a_built_2p_tells_the_middle_step_in_the_context_and_asks_one_question(chained: GraphIndex) -> None:
    q = _planted(_build(chained, "2p"), "PersonX start work again")
    assert q.context == "PersonX starts working again. This has an effect on PersonX."
    assert q.question == "What does PersonX want to do after that effect?"
    # the demo graph gives "PersonX earn money" two xWant tails (fixtures/ckbp_demo.csv); which one the
    # seeded build draws depends on which texts the English rules accept
    assert q.options[q.answer_index] in {"PersonX wants to spend money", "PersonX wants to be successful"}
    # the middle event is neither told nor offered
    assert "earn" not in q.context + q.question
    assert "PersonX earns money" not in q.options


def test_named_names_the_middle_event_and_stacked_keeps_the_papers_words(chained: GraphIndex) -> None:
    step = _planted(_build(chained, "2p"), "PersonX start work again")
    named = _planted(_build(chained, "2p", "named"), "PersonX start work again")
    stacked = _planted(_build(chained, "2p", "stacked"), "PersonX start work again")
    assert named.context == "PersonX starts working again. As a result, PersonX earns money."
    assert named.question == "What does PersonX want to do after PersonX earns money?"
    assert stacked.context == "PersonX starts working again."
    assert stacked.question == (
        "What event or state is what PersonX wants to do after the effect on PersonX after PersonX starts working again?"
    )
    # one item, three wordings: the options and the gold do not move
    assert step.options == named.options == stacked.options
    assert step.answer_index == named.answer_index == stacked.answer_index


def test_every_2p_of_the_graph_reads_as_one_question_and_no_other_kind_changes(chained: GraphIndex) -> None:
    qs = _build(chained, "2p")
    assert len(qs) > 5
    for q in qs:
        assert "What event or state" not in q.question, q.question
        assert q.question.count("?") == 1, q.question
        assert q.context.count(".") == 2, q.context
    step, stacked = _build(chained, "2i", count=10), _build(chained, "2i", "stacked", count=10)
    assert [(q.context, q.question) for q in step] == [(q.context, q.question) for q in stacked]


def test_the_2in_context_negates_the_event_as_com2s_prompt_asks(chained: GraphIndex) -> None:
    q = _planted(_build(chained, "2in"), "PersonX remain in bed")
    assert q.context == "PersonX remains in bed, but PersonX does not finally get up."
    assert q.question.endswith("what hindered PersonX from finally getting up?")
    # the papers' bare procedure (no fluent text) keeps COM2's template words
    bare = _planted(_build(chained, "2in", fluent=False), "PersonX remain in bed")
    assert bare.context == "PersonX remain in bed, but it did not happen that PersonX finally get up."


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("PersonX goes shopping", "PersonX does not go shopping"),  # COM2's own example, present tense
        ("PersonX finally gets up", "PersonX does not finally get up"),
        ("PersonX is at school", "PersonX is not at school"),
        ("PersonX can swim", "PersonX cannot swim"),
        ("PersonX will leave", "PersonX will not leave"),
        ("PersonX has a car", "PersonX does not have a car"),
        ("PersonX has finished the work", None),  # a perfect: keep "it did not happen that"
        ("PersonX does not go", None),  # negative already
        ("the bank is closed", None),  # no person's event
    ],
)
def test_negated(text: str, want: str | None) -> None:
    assert negated(text) == want


def test_golden_coco_table_12_2p_in_each_wording() -> None:
    """CoCo Table 12 prints the stacked question; the step wording asks the same chain."""
    index = GraphIndex.build(PAPER_TRIPLES, IndexOptions(normalize=True))
    sampler = QuerySampler(index, relations=["xEffect", "xNeed"], rules=PAPER_RULES)
    start = index.node("PersonX does PersonX's hair and makeup")
    got = None
    for j in range(500):
        q = sampler.sample("2p", random.Random(j))
        if q is not None and q.anchors() == [start]:
            got = q
            break
    assert got is not None
    text, rel = index.names.__getitem__, index.rel_names.__getitem__
    assert verbalize.question(got, text, rel) == (
        "What event or state is what PersonX needed to do before the effect on PersonX after PersonX does "
        "PersonX's hair and makeup?"
    )
    assert two_hop(got, text, rel, "step") == (
        "PersonX does PersonX's hair and makeup. This has an effect on PersonX.",
        "What did PersonX need to do before that effect?",
    )
    assert two_hop(got, text, rel, "named") == (
        "PersonX does PersonX's hair and makeup. As a result, PersonX looks pretty.",
        "What does PersonX need to do before PersonX looks pretty?",
    )
    assert two_hop(got, text, rel, "stacked") is None
    with pytest.raises(ValueError, match="chain phrasing"):
        two_hop(got, text, rel, "poetic")
    with pytest.raises(ValueError, match="chain phrasing"):
        BuildParams(kind="2p", count=1, seed=0, chain_phrasing="poetic")


def _sampled(sampler: QuerySampler, kind: str, attempts: int = 60000) -> int:
    """Distinct usable queries that many random draws find (what the build loop can reach)."""
    seen = set()
    for j in range(attempts):
        q = sampler.sample(kind, random.Random(j))
        if q is None:
            continue
        a = sampler.answers(q)
        if q.answer in a and not a.intersection(q.anchors()):
            seen.add(q.signature())
    return len(seen)


@pytest.mark.slow  # 60,000 draws per kind and rule set: 4-5 s CPU per kind
@pytest.mark.parametrize("kind", ["2p", "2in", "2i"])
def test_the_query_space_is_what_exhaustive_sampling_finds(chained: GraphIndex, kind: str) -> None:
    for rules in (DEFAULT_RULES, None):
        sampler = QuerySampler(chained, relations=list(DEFAULT_COM2_HOPS), rules=rules)
        space = query_space(sampler, kind)
        assert not space.capped
        assert space.usable == _sampled(sampler, kind), (kind, rules)
    assert query_space(QuerySampler(chained, relations=list(DEFAULT_COM2_HOPS)), "2i", cap=3).capped


def test_a_short_build_names_the_graphs_query_space_as_the_limit() -> None:
    """Planting one more chain raises the space and the yield by one; the funnel says all were drawn."""
    got = {}
    for extra in ([], FRESH):
        report = BuildReport()
        params = BuildParams(kind="2p", count=200, seed=3, near_duplicate=None, person_names=False)
        qs = build_com2(_index(extra), params, report=report)
        f = report.as_dict()["funnel"]
        space = f["space"]  # type: ignore[index]
        assert space["rules"]["usable"] == len(qs), space  # every query the graph holds was built
        assert space["no rules"]["usable"] > space["rules"]["usable"]  # the composition rules' share
        line = [s for s in funnel.lines("2p", f) if "query space" in s]  # type: ignore[arg-type]
        assert len(line) == 1
        assert "the build drew all" in line[0], line
        assert funnel.check(f) == []  # type: ignore[arg-type]
        got[bool(extra)] = len(qs)
    assert got[True] == got[False] + 1
    # a build that reached its count computes no space
    report = BuildReport()
    build_com2(_index(CHAIN), BuildParams(kind="2p", count=2, seed=3, near_duplicate=None), report=report)
    assert "space" not in report.as_dict()["funnel"]  # type: ignore[operator]
