"""The build funnel (issue 27 item 5): on a planted graph every stage's counts add up, and the
triples planted to fail a stage are the ones that stage drops, no more and no fewer."""

from __future__ import annotations

from functools import lru_cache

from commonsense.io.triples import read_cskb_csv
from commonsense.kg.index import GraphIndex, IndexOptions
from commonsense.questions import funnel
from commonsense.questions.com2 import BuildParams, BuildReport, OptionCandidate, build_com2
from commonsense.questions.wellformed import build_edges
from tests.conftest import FIXTURES

Row = tuple[str, str, str, float | None, None, str | None]

# triples planted to fail one stage each: (the rows, the stage that drops them, its reason)
PLANTED: list[tuple[list[Row], str, str]] = [
    (
        [("PersonX uses tool", "ObjectUse", "hammer", 1.0, None, None)] * 7,
        "relations",
        "other relations",
    ),
    (
        [("PersonX eats an apple", "xEffect", "PersonX is full", 0.0, None, None)] * 5,
        "labels",
        "labelled implausible",
    ),
    ([("PersonX sings a song", "xWant", "none", 1.0, None, None)] * 3, "labels", "a 'none' tail"),
    (
        [("PersonX reads a book", "xReact", "PersonX be happy", 1.0, None, "cs_head")] * 4,
        "labels",
        "a candidate populated from ASER",
    ),
    (
        [("PersonX xqzt blorf", "xEffect", "PersonX go home", 1.0, None, None)] * 6,
        "readable",
        "head unreadable",
    ),
    (
        [("PersonX gets a gift", "xReact", "PersonX go home", 1.0, None, None)] * 2,
        "readable",
        "tail does not answer the relation",
    ),
]


@lru_cache(maxsize=1)
def _rows() -> list[Row]:
    return [
        (r.head, r.relation, r.tail, r.plausibility, None, dict(r.extra).get("class"))
        for r in read_cskb_csv(FIXTURES / "ckbp_demo.csv")
    ]


def _index(planted: bool) -> GraphIndex:
    rows = list(_rows()) + ([row for rows, _, _ in PLANTED for row in rows] if planted else [])
    return funnel.tallied_index(rows, build_edges(), IndexOptions(normalize=True))


def _graph(index: GraphIndex) -> dict[str, dict[str, object]]:
    report = BuildReport()
    build_com2(index, BuildParams(kind="2i", count=6, seed=1, near_duplicate=None), report=report)
    return {s["stage"]: s for s in report.as_dict()["funnel"]["graph"]}  # type: ignore[index,union-attr]


def test_planted_triples_are_dropped_by_their_stage_and_only_there() -> None:
    base, planted = _graph(_index(False)), _graph(_index(True))
    n = sum(len(rows) for rows, _, _ in PLANTED)
    assert planted["relations"]["considered"] == base["relations"]["considered"] + n
    for rows, stage, reason in PLANTED:
        got = planted[stage]["dropped"].get(reason, 0) - base[stage]["dropped"].get(reason, 0)  # type: ignore[union-attr]
        assert got == len(rows), (stage, reason, got)
    # nothing planted reaches the index
    assert planted["graph index"]["kept"] == base["graph index"]["kept"]
    assert planted["readable"]["kept"] == base["readable"]["kept"]


def test_every_stage_adds_up_and_the_last_kept_is_what_was_built() -> None:
    report = BuildReport()
    params = BuildParams(kind="2p", count=10, seed=4, near_duplicate=None, state_distractors=False)  # a check runs
    qs = build_com2(_index(True), params, report=report)
    f = report.as_dict()["funnel"]
    assert funnel.check(f) == []  # type: ignore[arg-type]
    sampling = f["sampling"]  # type: ignore[index]
    assert sampling[0]["considered"] == report.attempts
    assert sampling[-1]["kept"] == len(qs) == report.built
    assert sum(sampling[0]["dropped"].values()) == report.dropped["no query from the sampled answer"]
    cand = f["candidates"]  # type: ignore[index]
    assert cand["considered"] == cand["kept"] + sum(cand["dropped"].values())
    assert cand["considered"] > 0
    # a broken report is caught: the check can fail
    sampling[1]["kept"] += 1
    assert funnel.check(f)  # type: ignore[arg-type]


def test_a_query_that_runs_out_of_distractors_is_charged_to_the_check_that_refused_them() -> None:
    def veto(c: OptionCandidate) -> str | None:
        return "planted veto"

    report = BuildReport()
    qs = build_com2(
        _index(False),
        BuildParams(kind="2i", count=3, seed=1, near_duplicate=None, state_distractors=True),
        report=report,
        extra_checks=[veto],
    )
    f = report.as_dict()["funnel"]
    distractors = {s["stage"]: s for s in f["sampling"]}["distractors"]  # type: ignore[index]
    assert qs == []
    assert distractors["kept"] == 0
    assert distractors["considered"] > 0
    assert distractors["dropped"] == {"too few distractors: most refused as planted veto": distractors["considered"]}
    assert f["candidates"]["dropped"]["planted veto"] == f["candidates"]["considered"]  # type: ignore[index]
    assert funnel.check(f) == []  # type: ignore[arg-type]


def test_the_sampler_names_the_composition_rules_when_they_refuse() -> None:
    report = BuildReport()
    build_com2(_index(False), BuildParams(kind="2p", count=10, seed=4, near_duplicate=None), report=report)
    curated = report.sampling.no_query
    report = BuildReport()
    build_com2(_index(False), BuildParams(kind="2p", count=10, seed=4, near_duplicate=None, rules="any"), report=report)
    assert curated["refused by the composition rules"] > 0
    assert report.sampling.no_query["refused by the composition rules"] == 0  # no rules, none refused
