"""Annotator quality and the confidence rule (issue 26): a planted answer matrix (good annotators,
a spammer, an adversary) is ranked right; the per-item posteriors the queue computes on every
answer are crowd-kit's own E-steps on the same input; unanimous items close at the minimum and
split items want answers up to the maximum."""

from __future__ import annotations

import random

import numpy as np
import pandas as pd
import pytest
from crowdkit.aggregation import MACE, DawidSkene

from commonsense import annotators as A

N_OPTIONS = 5


def planted(seed: int = 7, n_items: int = 150) -> tuple[list[tuple[str, int, tuple[int, ...]]], list[tuple[int, ...]]]:
    """Five annotators answer every item: three good ones (accuracy 0.95, 0.9, 0.85 per verdict), a
    spammer who ticks each option at random (p 0.3) and an adversary who gives every option's
    verdict the wrong way."""
    rng = random.Random(seed)
    truth = []
    rows = []
    for item in range(n_items):
        t = [0] * N_OPTIONS
        t[rng.randrange(N_OPTIONS)] = 1
        truth.append((*t, 0))
        for name, acc in (("good95", 0.95), ("good90", 0.9), ("good85", 0.85)):
            bits = [b if rng.random() < acc else 1 - b for b in t]
            rows.append((name, item, (*bits, 0)))
        rows.append(("spammer", item, (*(int(rng.random() < 0.3) for _ in t), 0)))
        rows.append(("adversary", item, (*(1 - b for b in t), 0)))
    return rows, truth


def test_planted_matrix_ranks_good_spammer_adversary() -> None:
    rows, _ = planted()
    model = A.fit(rows, seed=0)
    w = model.workers
    by_j = sorted(w, key=lambda k: w[k].youden, reverse=True)
    assert by_j == ["good95", "good90", "good85", "spammer", "adversary"]
    assert w["adversary"].youden < -0.5
    assert abs(w["spammer"].youden) < A.SPAMMER_J
    assert [w[k].flag for k in by_j] == ["", "", "", "spammer", "adversary"]
    # MACE: every good annotator is more competent than the spammer and the adversary
    assert min(w[k].competence for k in ("good95", "good90", "good85")) > max(
        w["spammer"].competence, w["adversary"].competence
    )
    # the accuracies come out near the planted ones
    assert w["good95"].accuracy(model.prior) == pytest.approx(0.95, abs=0.03)
    assert w["good85"].accuracy(model.prior) == pytest.approx(0.85, abs=0.04)


def _frame(rows: list[tuple[str, int, tuple[int, ...]]]) -> pd.DataFrame:
    cells = [(wk, f"{item}\x1f{j}", b) for wk, item, bits in rows for j, b in enumerate(bits)]
    return pd.DataFrame(cells, columns=["worker", "task", "label"])


def test_fit_is_crowdkit_and_item_posteriors_are_its_e_steps() -> None:
    """The fit stores crowd-kit's parameters, and the one-item E-steps the queue runs give the
    posteriors crowd-kit's own E-steps give under those parameters, item by item."""
    rows, _ = planted(seed=3, n_items=60)
    model = A.fit(rows, seed=0)
    df = _frame(rows)
    ds = DawidSkene(n_iter=100).fit(df)
    assert model.prior == pytest.approx(float(ds.priors_[1]))
    assert model.workers["good90"].sensitivity == pytest.approx(float(ds.errors_.loc[("good90", 1), 1]))
    reference = DawidSkene._e_step(df, ds.priors_.copy(), ds.errors_)
    mace = MACE(n_restarts=1, n_iter=50, random_state=0).fit(df)
    by_item: dict[int, list[tuple[str, tuple[int, ...]]]] = {}
    for wk, item, bits in rows:
        by_item.setdefault(item, []).append((wk, bits))
    for item, votes in by_item.items():
        mine = A.ds_posterior([(model.worker(wk), b) for wk, b in votes], model.prior)
        theirs = [float(reference.loc[f"{item}\x1f{j}", 1]) for j in range(N_OPTIONS + 1)]
        np.testing.assert_allclose(mine, theirs, atol=1e-9)
        mine_mace = A.mace_posterior([(model.worker(wk), b) for wk, b in votes])
        theirs_mace = [float(mace.probas_.loc[f"{item}\x1f{j}", 1]) for j in range(N_OPTIONS + 1)]
        np.testing.assert_allclose(mine_mace, theirs_mace, atol=1e-9)


def test_weighted_labels_outvote_the_adversary_and_spammer() -> None:
    """Three of five against two: majority and Dawid–Skene agree; with only the spammer, the
    adversary and one good annotator, the majority follows the bad pair and the weighted label the
    good one."""
    rows, truth = planted()
    model = A.fit(rows, seed=0)
    wrong_majority = right_weighted = 0
    for item in range(len(truth)):
        answers = [
            (wk, {"plausible": [i for i in range(N_OPTIONS) if bits[i]], "bad_context": False})
            for wk, it, bits in rows
            if it == item and wk in ("good95", "spammer", "adversary")
        ]
        maj = A.judge(answers, n_options=N_OPTIONS, model=model, rule="majority", min_answers=3, max_answers=5)
        ds = A.judge(answers, n_options=N_OPTIONS, model=model, rule="dawid_skene", min_answers=3, max_answers=5)
        gold = [i for i in range(N_OPTIONS) if truth[item][i]]
        wrong_majority += maj.label.label["plausible"] != gold
        right_weighted += ds.label.label["plausible"] == gold
    assert wrong_majority > 0.5 * len(truth)
    assert right_weighted > 0.85 * len(truth)


def _answer(*ticked: int) -> dict[str, object]:
    return {"plausible": list(ticked), "bad_context": False}


def test_unanimous_items_close_at_the_minimum_and_split_items_want_up_to_the_maximum() -> None:
    model = A.COLD_START

    def judge(ans: list[dict[str, object]]) -> A.Settlement:
        pairs = list(enumerate(ans))
        return A.judge(pairs, n_options=N_OPTIONS, model=model, min_answers=3, max_answers=5).settlement

    assert judge([_answer(1)] * 2) == A.Settlement("below_min", judge([_answer(1)] * 2).confidence, 3)
    s = judge([_answer(1)] * 3)
    assert s.state == "unanimous"
    assert s.settled
    assert s.wanted == 3
    split = [_answer(1), _answer(1), _answer(2)]
    assert judge(split).state == "open"
    assert judge(split).wanted == 4
    assert judge([*split, _answer(1)]).wanted == 5
    assert not judge([*split, _answer(1)]).settled
    s = judge([*split, _answer(2), _answer(1)])  # 3-2 at the maximum: no more answers, not settled
    assert s.state == "exhausted"
    assert s.wanted == 5
    assert not s.settled
    # a confident (not unanimous) item settles: good annotators outvote one who ticked a second option
    good = A.Worker(0.97, 0.97, 0.95, 0.2, 0.8, verdicts=100)
    m2 = A.AnnotatorModel(prior=0.19, default=good)
    s = A.judge(
        list(enumerate([_answer(1), _answer(1), _answer(1), _answer(1, 3)])),
        n_options=N_OPTIONS,
        model=m2,
        min_answers=3,
        max_answers=5,
    ).settlement
    assert s.state == "confident"
    assert s.confidence is not None
    assert s.confidence >= A.THRESHOLD


def test_one_answer_is_never_unanimous() -> None:
    s = A.judge([(0, _answer(2))], n_options=N_OPTIONS, model=A.COLD_START, min_answers=1, max_answers=3).settlement
    assert s.state == "open"
    assert s.wanted == 2


def test_too_little_data_keeps_the_cold_start_model() -> None:
    assert A.fit([]) is A.COLD_START
    assert A.fit([("a", 1, (0, 0, 0)), ("b", 1, (0, 0, 0))]) is A.COLD_START
    with pytest.raises(ValueError, match="label rule"):
        A.judge([], n_options=3, model=A.COLD_START, rule="vibes", min_answers=3, max_answers=5)
