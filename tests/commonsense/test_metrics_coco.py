"""CoCo scores: a hand-made example for the pooled Eqs. 4–8, the macro aggregation against the
paper's Table 3 (built from Table 5's per-query-type values), and the consistency 2×2."""

from __future__ import annotations

import numpy as np
import pytest

from commonsense.metrics import (
    CocoAnswer,
    CocoSets,
    assemble_sets,
    coco_report,
    coco_scores_by_aspect,
    coco_scores_macro,
    coco_scores_micro,
    consistency_table,
    set_consistency,
)


def _answers() -> list[CocoAnswer]:
    A = CocoAnswer
    return [
        # memorization sets (relation aspect)
        A("m1", "memorization", True, "xWant"),
        A("m2", "memorization", False, "xWant"),
        A("m3", "memorization", True, "oEffect"),
        # comprehension sets: base + 3 conceptualizations
        A("c1", "memorization", True, "xAttr"),
        A("c1", "conceptualization_1", True, "xAttr"),
        A("c1", "conceptualization_2", False, "xAttr"),
        A("c1", "conceptualization_3", True, "xAttr"),
        A("c2", "memorization", False, "xAttr"),
        A("c2", "conceptualization_1", True, "xAttr"),
        A("c2", "conceptualization_2", True, "xAttr"),
        A("c2", "conceptualization_3", True, "xAttr"),
        A("c3", "memorization", True, "xNeed"),
        A("c3", "conceptualization_1", True, "xNeed"),
        A("c3", "conceptualization_2", True, "xNeed"),
        A("c3", "conceptualization_3", True, "xNeed"),
        # application sets: atomic sub-questions + reasoning (query-kind aspect)
        A("a1", "atomic_1", True, "2p"),
        A("a1", "atomic_2", True, "2p"),
        A("a1", "reasoning", True, "2p"),
        A("a2", "atomic_1", True, "2p"),
        A("a2", "atomic_2", False, "2p"),
        A("a2", "reasoning", True, "2p"),
        A("a3", "atomic_1", True, "2i"),
        A("a3", "atomic_2", True, "2i"),
        A("a3", "reasoning", False, "2i"),
        A("a4", "atomic_1", True, "ip"),
        A("a4", "atomic_2", True, "ip"),
        A("a4", "atomic_3", True, "ip"),
        A("a4", "reasoning", True, "ip"),
    ]


def test_pooled_equations_on_a_hand_made_example() -> None:
    micro = coco_scores_micro(assemble_sets(_answers()), n_boot=200, seed=0)
    assert micro.MEM.value == pytest.approx(2 / 3)  # Eq. 4: m1, m3 of 3 memorization sets
    # Eq. 5: only c1 and c3 count (base correct): (2/3 + 3/3) / 2
    assert micro.COM.value == pytest.approx((2 / 3 + 1) / 2)
    assert micro.COM.n == 2
    assert micro.REA.value == pytest.approx(3 / 4)  # Eq. 6: a1, a2, a4
    assert micro.FAI.value == pytest.approx(2 / 3)  # Eq. 7: of a1, a2, a4, all atomic right in a1, a4
    assert micro.APP.value == pytest.approx(2 / 3)  # Eq. 8: of a1, a3, a4 (all atomic), reasoning right in a1, a4
    assert micro.average == pytest.approx(np.mean([2 / 3, 5 / 6, 3 / 4, 2 / 3, 2 / 3]))
    macro = coco_scores_macro(assemble_sets(_answers()), n_boot=200, seed=0)
    assert macro.MEM.value == pytest.approx((1 / 2 + 1) / 2)  # xWant 1/2, oEffect 1
    assert macro.COM.value == pytest.approx((2 / 3 + 1) / 2)  # xAttr (c1 only) 2/3, xNeed 1
    assert macro.REA.value == pytest.approx((1 + 0 + 1) / 3)  # 2p 1, 2i 0, ip 1
    assert macro.FAI.value == pytest.approx((1 / 2 + 1) / 2)  # 2i has no correct reasoning: left out
    assert macro.APP.value == pytest.approx((1 + 0 + 1) / 3)


def test_intervals_are_seeded_and_bracket_the_value() -> None:
    a = coco_scores_micro(assemble_sets(_answers()), n_boot=300, seed=7)
    b = coco_scores_micro(assemble_sets(_answers()), n_boot=300, seed=7)
    assert a == b
    assert a.REA.low is not None
    assert a.REA.high is not None
    assert a.REA.low <= 0.75 <= a.REA.high


def test_malformed_sets_are_refused() -> None:
    with pytest.raises(ValueError, match="unknown role"):
        assemble_sets([CocoAnswer("g", "question", True)])
    with pytest.raises(ValueError, match="application set"):
        assemble_sets(
            [
                CocoAnswer("g", "atomic_1", True),
                CocoAnswer("g", "conceptualization_1", True),
                CocoAnswer("g", "reasoning", True),
            ]
        )
    with pytest.raises(ValueError, match="mixes aspects"):
        assemble_sets([CocoAnswer("g", "atomic_1", True, "2p"), CocoAnswer("g", "reasoning", True, "2i")])
    with pytest.raises(ValueError, match="needs its memorization"):
        assemble_sets([CocoAnswer("g", "conceptualization_1", True)])


# CoCo Table 5 (REA, FAI, APP per query type) and Table 3 (REA, FAI, APP), per model and method.
KINDS = ("2i", "2p", "ip", "pi")
TABLE5: dict[tuple[str, str], tuple[tuple[float, float, float], ...]] = {
    ("Mistral-7B", "Vanilla"): ((67.8, 47.0, 82.0), (40.0, 56.2, 52.7), (42.1, 35.7, 61.3), (59.5, 32.9, 76.7)),
    ("Mistral-7B", "CoT"): ((66.8, 48.9, 83.6), (41.6, 56.3, 53.0), (42.1, 37.1, 63.8), (60.7, 35.1, 78.2)),
    ("Mistral-7B", "KnowCoT"): ((69.7, 49.5, 84.5), (42.4, 59.9, 54.8), (43.4, 38.1, 65.9), (61.8, 36.1, 80.7)),
    ("Llama3-8B", "Vanilla"): ((62.0, 47.5, 73.8), (39.6, 51.7, 47.9), (46.5, 33.6, 56.9), (54.1, 28.7, 66.2)),
    ("Llama3-8B", "CoT"): ((61.1, 48.9, 75.9), (38.6, 54.3, 48.7), (47.8, 36.3, 58.2), (56.0, 29.7, 68.8)),
    ("Llama3-8B", "KnowCoT"): ((64.0, 50.8, 77.1), (42.2, 55.3, 51.1), (48.7, 36.8, 60.0), (56.5, 32.3, 70.2)),
    ("Qwen2.5-7B", "Vanilla"): ((62.0, 48.0, 69.4), (36.7, 53.6, 43.0), (44.2, 31.9, 55.5), (52.3, 27.2, 66.2)),
    ("Qwen2.5-7B", "CoT"): ((62.0, 47.2, 70.2), (36.5, 55.2, 42.6), (45.6, 32.8, 57.0), (51.7, 29.4, 66.1)),
    ("Qwen2.5-7B", "KnowCoT"): ((64.5, 51.4, 71.5), (39.4, 56.8, 45.4), (47.2, 34.5, 58.0), (54.4, 29.6, 69.0)),
    ("Llama2-13B", "Vanilla"): ((70.6, 47.4, 80.4), (40.6, 56.4, 50.6), (48.5, 37.8, 63.5), (64.8, 34.4, 78.5)),
    ("Llama2-13B", "CoT"): ((71.6, 48.2, 82.6), (40.8, 57.1, 53.6), (49.9, 39.7, 65.9), (65.7, 36.2, 80.9)),
    ("Llama2-13B", "KnowCoT"): ((73.9, 49.6, 83.3), (43.4, 59.7, 54.4), (50.7, 40.2, 66.9), (66.9, 38.3, 81.1)),
    ("Qwen2.5-14B", "Vanilla"): ((71.1, 48.9, 81.5), (42.4, 57.3, 51.7), (48.1, 36.4, 64.8), (66.4, 33.6, 79.4)),
    ("Qwen2.5-14B", "CoT"): ((72.0, 51.4, 81.8), (44.3, 59.7, 54.0), (49.7, 36.8, 66.6), (66.8, 34.1, 79.6)),
    ("Qwen2.5-14B", "KnowCoT"): ((73.1, 54.1, 85.6), (44.9, 62.6, 55.9), (50.8, 41.2, 69.3), (69.9, 37.7, 83.7)),
    ("GPT-3.5-turbo", "Vanilla"): ((79.4, 50.0, 87.1), (43.1, 59.9, 53.5), (55.3, 41.3, 68.9), (73.7, 36.7, 80.1)),
    ("GPT-3.5-turbo", "CoT"): ((82.9, 52.8, 88.8), (45.8, 62.6, 56.9), (57.4, 44.2, 71.0), (77.0, 38.5, 83.1)),
    ("GPT-3.5-turbo", "KnowCoT"): ((84.6, 55.0, 90.5), (46.2, 65.5, 56.7), (61.2, 45.6, 72.4), (76.8, 40.5, 84.7)),
    ("GPT-4o", "Vanilla"): ((81.7, 54.7, 90.9), (45.5, 63.3, 53.9), (57.9, 43.3, 72.0), (75.5, 37.5, 83.6)),
    ("GPT-4o", "CoT"): ((82.6, 58.8, 91.6), (46.3, 65.3, 55.3), (59.7, 46.3, 72.9), (77.9, 39.8, 84.9)),
    ("GPT-4o", "KnowCoT"): ((83.5, 60.1, 94.6), (53.0, 69.5, 60.0), (60.5, 49.4, 78.8), (78.3, 43.0, 88.3)),
}
TABLE3: dict[tuple[str, str], tuple[float, float, float]] = {
    ("Mistral-7B", "Vanilla"): (52.35, 42.94, 68.18),
    ("Mistral-7B", "CoT"): (52.82, 44.34, 69.65),
    ("Mistral-7B", "KnowCoT"): (54.32, 45.91, 71.48),
    ("Llama3-8B", "Vanilla"): (50.53, 40.37, 61.21),
    ("Llama3-8B", "CoT"): (50.88, 42.29, 62.89),
    ("Llama3-8B", "KnowCoT"): (52.87, 43.81, 64.59),
    ("Qwen2.5-7B", "Vanilla"): (48.76, 40.18, 58.52),
    ("Qwen2.5-7B", "CoT"): (48.95, 41.16, 58.97),
    ("Qwen2.5-7B", "KnowCoT"): (51.37, 43.06, 60.94),
    ("Llama2-13B", "Vanilla"): (56.16, 44.00, 68.26),
    ("Llama2-13B", "CoT"): (57.00, 45.32, 70.75),
    ("Llama2-13B", "KnowCoT"): (58.73, 46.97, 71.43),
    ("Qwen2.5-14B", "Vanilla"): (56.99, 44.10, 69.36),
    ("Qwen2.5-14B", "CoT"): (58.20, 45.53, 70.52),
    ("Qwen2.5-14B", "KnowCoT"): (59.67, 48.87, 73.64),
    ("GPT-3.5-turbo", "Vanilla"): (62.87, 46.97, 72.38),
    ("GPT-3.5-turbo", "CoT"): (65.78, 49.52, 74.96),
    ("GPT-3.5-turbo", "KnowCoT"): (67.19, 51.63, 76.07),
    ("GPT-4o", "Vanilla"): (65.16, 49.68, 75.12),
    ("GPT-4o", "CoT"): (66.64, 52.57, 76.17),
    ("GPT-4o", "KnowCoT"): (68.84, 55.49, 80.44),
}
# Table 1 set counts per query kind: the sample-weighted (pooled) mean must NOT reproduce Table 3.
COUNTS = {"2i": 2490, "2p": 2125, "ip": 1998, "pi": 1329}


def _application_sets(rea: float, fai: float, app: float, n: int) -> list[tuple[bool, bool]]:
    """n sets of (reasoning correct, all atomic correct) whose REA/FAI/APP are the given percents
    (up to integer rounding): R reasoning-correct, B both, T atomic-correct."""
    r = round(rea / 100 * n)
    b = round(fai / 100 * r)
    t = round(b / (app / 100))
    assert b <= r, (rea, fai, app)
    assert b <= t, (rea, fai, app)
    assert r + t - b <= n, (rea, fai, app)
    return (
        [(True, True)] * b + [(True, False)] * (r - b) + [(False, True)] * (t - b) + [(False, False)] * (n - r - t + b)
    )


def _sets(model: str, method: str, sizes: dict[str, int]) -> CocoSets:
    app = [
        (kind, rc, ac)
        for kind, vals in zip(KINDS, TABLE5[(model, method)], strict=True)
        for rc, ac in _application_sets(*vals, n=sizes[kind])
    ]
    return CocoSets.build(app=app)


@pytest.mark.parametrize(("model", "method"), sorted(TABLE3))
def test_macro_over_query_kinds_reproduces_table3(model: str, method: str) -> None:
    sets = _sets(model, method, {k: 20_000 for k in KINDS})
    # Construction check: each kind's pooled scores are Table 5's up to integer rounding.
    by_kind = coco_scores_by_aspect(sets, n_boot=0)
    for kind, vals in zip(KINDS, TABLE5[(model, method)], strict=True):
        for name, want in zip(("REA", "FAI", "APP"), vals, strict=True):
            assert 100 * float(by_kind[name][kind].value) == pytest.approx(want, abs=0.01)  # type: ignore[arg-type]
    macro = coco_scores_macro(sets, n_boot=0)
    for name, want in zip(("REA", "FAI", "APP"), TABLE3[(model, method)], strict=True):
        got = 100 * float(getattr(macro, name).value)
        assert abs(got - want) <= 0.05 + 0.01, f"{model} {method} {name}: macro {got:.3f} vs Table 3 {want}"


def test_pooled_micro_does_not_reproduce_table3() -> None:
    # The spec's [derived] check: weighting by Table 1's set counts gives Mistral Vanilla REA 52.51.
    micro = coco_scores_micro(_sets("Mistral-7B", "Vanilla", COUNTS), n_boot=0)
    assert 100 * float(micro.REA.value) == pytest.approx(52.51, abs=0.02)  # type: ignore[arg-type]
    assert abs(100 * float(micro.REA.value) - 52.35) > 0.1  # type: ignore[arg-type]


def test_report_and_consistency_2x2() -> None:
    rep = coco_report(_answers(), n_boot=100)
    assert set(rep.by_aspect["REA"]) == {"2i", "2p", "ip"}
    assert rep.by_aspect["MEM"]["xWant"].value == pytest.approx(0.5)
    sets = {s.group: s for s in set_consistency(_answers())}
    assert set(sets) == {"c1", "c2", "c3", "a1", "a2", "a3", "a4"}  # memorization-only sets have no 2x2
    assert sets["a1"].category == "consistent"
    assert sets["a2"].category == "right_wrong_reason"
    assert sets["a3"].category == "knows_cannot_compose"
    assert sets["c1"].category == "knows_cannot_compose"  # base right, one conceptualization wrong
    assert sets["c2"].category == "right_wrong_reason"
    assert (sets["a2"].parts_correct, sets["a2"].parts_total) == (1, 2)
    lenient = {s.group: s for s in set_consistency(_answers(), strict=False)}
    assert lenient["c1"].category == "consistent"
    assert consistency_table(sets.values()) == {
        "consistent": 3,
        "knows_cannot_compose": 2,
        "right_wrong_reason": 2,
        "neither": 0,
    }
