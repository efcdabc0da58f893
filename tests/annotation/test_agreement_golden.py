"""NWW worked examples as golden values, through the app (ratings import -> selectors ->
export), and campaign agreement equal to the reference libraries (statsmodels, krippendorff)
on the same matrices, missing values included."""

from __future__ import annotations

import json

import krippendorff
import numpy as np
import pytest
from statsmodels.stats import inter_rater

from annotation.models import Campaign, Item
from annotation.selectors.agreement import campaign_agreement, campaign_matrices, campaign_nww
from annotation.selectors.campaigns import adjudication_queue
from annotation.services import campaign_exports as exports
from annotation.services.campaigns import campaign_create, campaign_status_set
from annotation.services.ratings_import import ratings_import
from commonsense.metrics import nww

pytestmark = pytest.mark.django_db


def test_nww_silicon_example() -> None:
    s = nww.scores_from_rates([0.95], [0.40])  # GPT-3.5: d^a = 0.95, d^b = 0.40
    assert s.consensus[0] == pytest.approx(0.90)
    assert s.awareness[0] == pytest.approx(0.40)
    assert round(float(s.commonsensicality[0]), 2) == 0.60


def _csv(keys: list[str], rows: list[tuple[str, dict[str, tuple[int, int] | None]]]) -> str:
    header = ["rater"] + [f"{k}:{q}" for k in keys for q in ("a", "b")]
    lines = [",".join(header)]
    for name, ans in rows:
        cells = [name]
        for k in keys:
            v = ans.get(k)
            cells += ["", ""] if v is None else ["yes" if v[0] else "no", "yes" if v[1] else "no"]
        lines.append(",".join(cells))
    return "\n".join(lines) + "\n"


def test_nww_worked_example_through_import_dashboard_and_export(statement_set, people) -> None:  # type: ignore[no-untyped-def]
    c = campaign_create(name="nww", title="NWW", kind="survey", statement_set=statement_set, redundancy=22)
    key = Item.objects.filter(campaign=c).order_by("position").first().key
    # 22 raters, 19 agree, 21 think most people agree
    rows = [(f"r{j}", {key: (int(j < 19), int(j < 21))}) for j in range(22)]
    result = ratings_import(c, _csv([key], rows), create_raters=True)
    assert (result.raters, result.responses, result.created_raters) == (22, 22, 22)
    res = campaign_nww(c, n_boot=50)
    assert res is not None
    assert round(float(res.statements.consensus[0]), 3) == 0.727
    assert round(float(res.statements.awareness[0]), 3) == 0.955
    assert round(float(res.statements.commonsensicality[0]), 3) == 0.833
    rec = next(iter(exports.campaign_records(c)))
    assert rec["nww"]["consensus"] == pytest.approx(2 * abs(19 / 22 - 0.5), abs=1e-6)
    assert rec["nww"]["awareness"] == pytest.approx(21 / 22, abs=1e-6)
    assert rec["label"] == {"agree": 1}
    assert rec["provenance"] == "majority"
    assert rec["n_answers"] == 22
    assert rec["votes"] == {"agree_yes": 19, "predict_yes": 21, "n": 22}
    assert json.loads(json.dumps(rec))["answers"][0]["rater"] == "r0"


def _random_campaign(statement_set, seed: int, n_raters: int = 9, n_items: int = 15, p_missing: float = 0.3):  # type: ignore[no-untyped-def]
    c = campaign_create(name=f"ref{seed}", title="ref", kind="survey", statement_set=statement_set, redundancy=n_raters)
    keys = [i.key for i in Item.objects.filter(campaign=c).order_by("position")[:n_items]]
    rng = np.random.default_rng(seed)
    truth = rng.random(n_items) < 0.6
    rows = []
    for j in range(n_raters):
        ans = {}
        for k, t in zip(keys, truth, strict=True):
            if rng.random() < p_missing:
                continue
            a = int(t if rng.random() < 0.8 else not t)
            ans[k] = (a, int(rng.random() < 0.7))
        rows.append((f"s{seed}r{j}", ans))
    ratings_import(c, _csv(keys, rows), create_raters=True)
    return c


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_agreement_equals_reference_libraries_with_missing_values(statement_set, seed: int) -> None:  # type: ignore[no-untyped-def]
    c = _random_campaign(statement_set, seed)
    m = campaign_matrices(c)
    assert np.isnan(m.primary).any()  # missing values present
    got = campaign_agreement(c, m)
    # Krippendorff: the package on the raw rater x item matrix with NaN
    ref_alpha = krippendorff.alpha(reliability_data=m.primary, level_of_measurement="nominal")
    assert got.krippendorff == pytest.approx(ref_alpha, abs=1e-12)
    # Fleiss: statsmodels on the items that carry the most common number of ratings
    counts = np.sum(~np.isnan(m.primary), axis=0)
    vals, freq = np.unique(counts[counts > 0], return_counts=True)
    keep = counts == vals[np.argmax(freq)]
    table = np.stack([np.sum(m.primary[:, keep] == v, axis=0) for v in (0, 1)], axis=1)
    assert got.fleiss == pytest.approx(inter_rater.fleiss_kappa(table, method="fleiss"), abs=1e-12)
    assert got.fleiss_items == int(keep.sum())
    # pairwise agreement by hand, per item
    for col, item in enumerate(m.items):
        x = m.primary[:, col][~np.isnan(m.primary[:, col])]
        n, y = len(x), int(x.sum())
        if n >= 2:
            assert got.per_item[item] == pytest.approx((y * (y - 1) + (n - y) * (n - y - 1)) / (n * (n - 1)))


def test_mcqa_per_option_agreement_and_kappa_match_references(csqa_set, people) -> None:  # type: ignore[no-untyped-def]
    c = campaign_create(name="mref", title="m", kind="mcqa", question_set=csqa_set, redundancy=3)
    keys = [i.key for i in Item.objects.filter(campaign=c).order_by("position")[:12]]
    rng = np.random.default_rng(7)
    lines = ["rater," + ",".join(f"{k}:{o}" for k in keys for o in range(1, 6))]
    for j in range(4):  # 4 raters, each skips some items: 2 or 3 ratings per item
        cells = []
        for i in range(len(keys)):
            seen = (i + j) % 4 != 0
            cells += [("yes" if rng.random() < 0.35 else "no") if seen else "" for _ in range(5)]
        lines.append(f"m{j}," + ",".join(cells))
    ratings_import(c, "\n".join(lines) + "\n", create_raters=True)
    m = campaign_matrices(c)
    got = campaign_agreement(c, m)
    flat = m.selections.reshape(len(m.raters), -1)
    assert got.krippendorff == pytest.approx(
        krippendorff.alpha(reliability_data=flat, level_of_measurement="nominal"), abs=1e-12
    )
    counts = np.sum(~np.isnan(flat), axis=0)
    keep = counts == 3
    table = np.stack([np.sum(flat[:, keep] == v, axis=0) for v in (0, 1)], axis=1)
    assert got.fleiss == pytest.approx(inter_rater.fleiss_kappa(table, method="fleiss"), abs=1e-12)
    # COM2 per-option IAA: with 3 binary raters every option scores 1 or 1/3
    per_cell = []
    for q in range(len(m.items)):
        for o in range(5):
            x = m.selections[:, q, o][~np.isnan(m.selections[:, q, o])]
            n, y = len(x), int(x.sum())
            per_cell.append((y * (y - 1) + (n - y) * (n - y - 1)) / (n * (n - 1)))
    assert got.pairwise == pytest.approx(np.mean(per_cell))
    assert c.kind == Campaign.Kind.MCQA


def test_com2_tied_item_goes_to_adjudication_and_threshold_is_strict(csqa_set, people) -> None:  # type: ignore[no-untyped-def]
    """Issue 14 bug 7, through the submit path: two annotators tick options 5 and 2 -> the item is
    not labelled "none correct" and is in the adjudication queue although its agreement is 0.600;
    an untied item at exactly 0.6 is not ("IAA lower than 0.6", A.4), one below it is."""
    from annotation.models import FinalLabel
    from annotation.queue import operations as queue
    from annotation.services import labels as services

    c = campaign_create(name="tie", title="t", kind="mcqa", question_set=csqa_set, redundancy=3)
    campaign_status_set(c, "open")
    a, b, d = people("annotator", "a", "b", "d")
    first = queue.next_step(c, a).assignment.item
    queue.response_submit(first, a, {"plausible": [4]})
    assert queue.next_step(c, b).assignment.item_id == first.pk  # most-answered first
    queue.response_submit(first, b, {"plausible": [1]})
    services.final_labels_refresh(c)
    fl = FinalLabel.objects.get(item=first)
    assert fl.label["none_correct"] is None
    assert fl.label["plausible"] == []
    assert fl.agreement == pytest.approx(0.6)
    assert fl.below_threshold
    assert list(adjudication_queue(c).values_list("item_id", flat=True)) == [first.pk]

    assert queue.next_step(c, d).assignment.item_id == first.pk
    queue.response_submit(first, d, {"plausible": [0]})  # the third answer: 1/3 each, agreement exactly 0.6
    services.final_labels_refresh(c)
    fl.refresh_from_db()
    assert fl.label["none_correct"] is True
    assert fl.agreement == pytest.approx(0.6)
    assert not fl.below_threshold


def test_survey_matrices_read_each_answer_as_stored(statement_set) -> None:  # type: ignore[no-untyped-def]
    # the (a)/(b) answers are read out of the JSON by the database: a number on SQLite, text on
    # PostgreSQL; the import stores 0/1, but a true/false or a JSON null stored by other means must
    # read as 1/0 and as missing (SQLite names a null's type, 'null': it once made the page fail)
    c = _random_campaign(statement_set, 4, n_raters=3, n_items=4, p_missing=0.0)
    m = campaign_matrices(c)
    from annotation.models import Response

    stored = {(r.user_id, r.item_id): r.answer for r in Response.objects.filter(campaign=c)}
    for (user, item), ans in stored.items():
        r, col = m.raters.index(user), m.items.index(item)
        assert (m.primary[r, col], m.predict[r, col]) == (ans["agree"], ans["predict"])
    odd = list(Response.objects.filter(campaign=c).order_by("id")[:3])
    for resp, answer in zip(
        odd, ({"agree": True, "predict": False}, {"agree": None, "predict": 1}, {"predict": 0}), strict=True
    ):
        Response.objects.filter(pk=resp.pk).update(answer=answer)
    m = campaign_matrices(c)
    got = [
        (
            m.primary[m.raters.index(o.user_id), m.items.index(o.item_id)],
            m.predict[m.raters.index(o.user_id), m.items.index(o.item_id)],
        )
        for o in odd
    ]
    assert got[0] == (1.0, 0.0)
    assert np.isnan(got[1][0])
    assert got[1][1] == 1.0
    assert np.isnan(got[2][0])
    assert got[2][1] == 0.0
