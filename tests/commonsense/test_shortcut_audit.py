"""Issue 25 item 2: the shortcut audit. Each baseline is planted (a set it must flag) and checked
on a set it must not flag; the option-only baseline runs a tiny model through the hf backend."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from commonsense.metrics.shortcuts import baseline, fitted_choice, pick_expected, position_baseline, wilson
from commonsense.questions.audit import (
    AuditItem,
    audit_item,
    fits,
    kept_by_form,
    option_only,
    score_options,
    shortcut_audit,
    shortcut_lines,
)

NAMES = {"PersonX": "Sara", "PersonY": "Tom"}
EVENTS = ["Sara goes to the store", "Sara calls Tom", "Sara cleans the house", "Sara reads a book", "Sara runs home"]
STATES = ["Sara is happy", "Sara is tired", "Sara is proud", "Sara is bored", "Sara is calm"]


def _item(options: list[str], gold: int, relation: str = "xReact", kind: str = "2i") -> AuditItem:
    chain = [["PersonX wins", relation, "g"], ["PersonX smiles", relation, "g"]]
    got = audit_item(options, gold, {"chain": chain, "names": NAMES}, kind=kind, answers=[options[gold]])
    assert got is not None
    return got


def test_wilson_and_the_flag() -> None:
    low, high = wilson(8, 10)
    assert low is not None
    assert high is not None
    assert 0.44 < low < 0.5
    assert 0.94 < high < 0.97
    assert baseline([1.0] * 10, [0.2] * 10).flagged
    b = baseline([0.2] * 40, [0.2] * 40)
    assert b.value == 0.2
    assert not b.flagged
    assert b.n == 40
    assert baseline([], []).value is None


def test_ties_share_the_expected_accuracy() -> None:
    assert pick_expected([1, 3, 3], 1) == 0.5
    assert pick_expected([1, 3, 3], 0) == 0.0
    assert pick_expected([1, 3, 3], 0, highest=False) == 1.0


def test_a_set_whose_gold_is_mostly_at_one_letter_is_flagged() -> None:
    planted = position_baseline([0] * 30 + [1, 2, 3, 4] * 3, [5] * 42)
    assert planted["flagged"]
    assert planted["value"] > 0.6
    assert planted["counts"][0] == 30
    assert planted["p_uniform"] < 0.001
    spread = position_baseline([i % 5 for i in range(40)], [5] * 40)
    assert not spread["flagged"]
    assert spread["value"] <= 0.2


def test_option_forms_read_through_the_names_and_raw_tails() -> None:
    assert fits("Sara is happy", "xReact", NAMES)
    assert not fits("Sara goes to the store", "xReact", NAMES)
    assert not fits("Tom is happy", "xReact", NAMES)  # PersonY: not what Sara feels
    assert fits("happy", "xReact", {})  # a CoCo memorization option (raw ATOMIC tail)
    assert fits("to go home", "xWant", {})
    assert fits("Sara wants to go home", "xWant", NAMES)


def test_answer_type_flags_a_lone_state_among_events_and_not_states_among_states() -> None:
    rng = random.Random(0)
    planted, fair = [], []
    for _ in range(40):
        g = rng.randrange(5)
        opts = rng.sample(EVENTS, 4)
        opts.insert(g, rng.choice(STATES))
        planted.append(_item(opts, g))
        fair.append(_item(rng.sample(STATES, 5), g))
    a = shortcut_audit(planted)
    assert a["answer_type"]["value"] == 1.0
    assert a["answer_type"]["flagged"]
    assert "answer_type" in a["flagged"]
    b = shortcut_audit(fair)
    assert b["answer_type"]["value"] == pytest.approx(0.2)
    assert not b["answer_type"]["flagged"]


def test_wants_prefer_the_options_that_say_wants_to() -> None:
    opts = ["Sara wants to rest", "Sara goes home", "Sara reads a book", "Sara calls Tom", "Sara runs home"]
    assert kept_by_form(_item(opts, 0, "xWant")) == [0]
    assert kept_by_form(_item(opts, 0, "isAfter")) == [0, 1, 2, 3, 4]  # no rule: every option fits


def test_an_item_without_a_known_relation_is_not_counted() -> None:
    it = audit_item(["a", "b", "c"], 1, {}, kind="csqa")
    assert it is not None
    assert kept_by_form(it) is None
    a = shortcut_audit([it])
    assert a["answer_type"]["n"] == 0
    assert a["answer_type"]["value"] is None
    assert any("not applicable" in line for line in shortcut_lines(a))
    assert audit_item(["a", "b"], None, {}) is None


def test_a_mixed_set_is_audited_per_kind() -> None:
    items = [_item(STATES, 0, kind="2i"), _item(STATES, 1, kind="1p")]
    a = shortcut_audit(items)
    assert set(a["by_kind"]) == {"1p", "2i"}
    assert a["by_kind"]["1p"]["items"] == 1


def test_fitted_choice_learns_a_feature_on_held_out_folds() -> None:
    import numpy as np

    rng = random.Random(1)
    feats, golds = [], []
    for _ in range(50):
        f = np.array([[rng.random(), rng.random()] for _ in range(5)])
        g = int(f[:, 1].argmax())  # the gold has the largest second feature
        feats.append(f)
        golds.append(g)
    assert sum(fitted_choice(feats, golds)) / 50 > 0.9
    noise = [int(rng.randrange(5)) for _ in range(50)]
    assert sum(fitted_choice(feats, noise)) / 50 < 0.4


@pytest.fixture(scope="module")
def tiny_backend(tiny_gpt2: Path):  # type: ignore[no-untyped-def]
    from commonsense.scoring.hf import HFBackend

    return tiny_gpt2, HFBackend(tiny_gpt2, dtype="float32")


def _sentences(n: int, seed: int) -> list[str]:
    words = "the a dog cat house store friend book home walks runs reads calls finds big small old new".split()
    rng = random.Random(seed)
    return [" ".join(rng.choice(words) for _ in range(rng.randint(2, 12))).capitalize() for _ in range(n)]


@pytest.mark.slow  # a tiny GPT-2 built and scored on CPU (~10 s)
def test_option_only_on_a_tiny_model_is_reproducible_and_flags_a_longest_gold_set(tiny_backend) -> None:  # type: ignore[no-untyped-def]
    from commonsense.scoring.hf import HFBackend

    folder, backend = tiny_backend
    rng = random.Random(3)
    items = []
    for i in range(60):
        by_length = {len(s): s for s in _sentences(40, i)}  # five options of five different lengths
        opts = [by_length[k] for k in sorted(rng.sample(sorted(by_length), 5))]
        gold = opts[-1]  # the planted shortcut: the gold is always the longest option
        rng.shuffle(opts)
        items.append(_item(opts, opts.index(gold), relation="isAfter"))
    first = option_only(items, score_options(backend, items), model="tiny")
    again = option_only(items, score_options(HFBackend(folder, dtype="float32"), items), model="tiny")
    assert first == again  # the same figures on a second computation, with a fresh backend
    assert first["fitted"]["flagged"]
    assert first["fitted"]["value"] > 0.8
    audit = shortcut_audit(items, option_only_report=first)
    assert "option only fitted" in audit["flagged"]
    assert "length longest" in audit["flagged"]
    assert any("option-only fitted (tiny)" in line for line in shortcut_lines(audit))
    # the same options with the gold drawn at random: nothing to learn
    fair = [_item(it["options"], rng.randrange(5), relation="isAfter") for it in items]
    got = option_only(fair, score_options(backend, fair), model="tiny")
    assert not got["fitted"]["flagged"]
