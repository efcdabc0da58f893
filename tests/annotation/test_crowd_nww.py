"""NWW statistics on crowd data, against hand counts on a small matrix entered through the
production path (a ratings import into a survey campaign):

- rater consensus C, awareness A and commonsensicality M exactly as Eqs. 9–11 (the rater's own
  vote counts in the majority), and with the named ``leave_one_out`` option;
- a model's percentile among the campaign's humans (Fig. 2E), each pair scored on the statements
  that human rated, and the explorer's "rated above X % of humans" sentence;
- the per-statement human rates d^a, d^b the silicon analyses use.

The matrix (1 = yes, · = not rated; three statements s1..s3):

    rater   (a) agree   (b) most agree
    r1      1 1 0       1 1 1
    r2      1 0 0       0 0 1
    r3      · 1 1       · 0 0

Majority (own votes in): s1 2/2 → 1, s2 2/3 → 1, s3 1/3 → 0.
"""

from __future__ import annotations

import math

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from annotation.selectors.agreement import campaign_nww
from annotation.services.campaigns import campaign_create
from annotation.services.ratings_import import ratings_import
from explorer.panels.base import run_label
from explorer.selectors.human_compare import latest_survey, model_standings
from knowledge.models import Statement
from runs.models import Prediction, Run
from tests.annotation.conftest import login

pytestmark = pytest.mark.django_db

A = {"r1": [1, 1, 0], "r2": [1, 0, 0], "r3": [None, 1, 1]}
B = {"r1": [1, 1, 1], "r2": [0, 0, 1], "r3": [None, 0, 0]}


def _campaign(statement_set):  # type: ignore[no-untyped-def]
    c = campaign_create(name="nww3", title="NWW", kind="survey", statement_set=statement_set, redundancy=3)
    keys = [i.key for i in c.items.order_by("position")[:3]]
    header = ["rater"] + [f"{k}:{q}" for k in keys for q in ("a", "b")]
    lines = [",".join(header)]
    yn = {1: "yes", 0: "no", None: ""}
    for r in A:
        lines.append(",".join([r] + [yn[v] for j in range(3) for v in (A[r][j], B[r][j])]))
    ratings_import(c, "\n".join(lines) + "\n", create_raters=True)
    return c, keys


def _scores(c, **kw):  # type: ignore[no-untyped-def]
    res = campaign_nww(c, n_boot=20, **kw)
    names = dict(get_user_model().objects.values_list("pk", "username"))
    rs = res.raters
    return {
        names[u]: (float(rs.consensus[i]), float(rs.awareness[i]), float(rs.commonsensicality[i]))
        for i, u in enumerate(res.rater_ids)
    }


def test_rater_scores_are_eqs_9_to_11_with_own_vote(statement_set) -> None:
    c, _ = _campaign(statement_set)
    got = _scores(c)  # the default is the paper's definition
    hand = {
        "r1": (3 / 3, 2 / 3),  # (a) hits s1 s2 s3; (b) hits s1 s2
        "r2": (2 / 3, 0 / 3),  # (a) hits s1 s3; (b) hits none
        "r3": (1 / 2, 1 / 2),  # (a) hits s2; (b) hits s3 (s1 not rated)
    }
    for r, (cc, aa) in hand.items():
        assert got[r] == pytest.approx((cc, aa, math.sqrt(cc * aa))), r


def test_rater_scores_leave_one_out_is_a_named_option(statement_set) -> None:
    c, _ = _campaign(statement_set)
    got = _scores(c, leave_one_out=True)
    # Majority of the others: r1 sees s1 [1] → 1, s2 [0,1] → 1 (tie = agree), s3 [0,1] → 1;
    # r2 sees s1 [1] → 1, s2 [1,1] → 1, s3 [0,1] → 1; r3 sees s2 [1,0] → 1, s3 [0,0] → 0.
    hand = {"r1": (2 / 3, 3 / 3), "r2": (1 / 3, 1 / 3), "r3": (1 / 2, 1 / 2)}
    for r, (cc, aa) in hand.items():
        assert got[r] == pytest.approx((cc, aa, math.sqrt(cc * aa))), r
    assert got != _scores(c)


def _run(statement_set, keys, qa, qb, model):  # type: ignore[no-untyped-def]
    """A statement run's predictions as runs.evaluation stores a yes/no scorer's (extra q1/q2)."""
    run = Run.objects.create(statement_set=statement_set, backend="replay", scoring="yesno", model=model, state="done")
    for k, pa, pb in zip(keys, qa, qb, strict=True):
        st = Statement.objects.get(statement_set=statement_set, external_id=k)
        Prediction.objects.create(
            run=run,
            statement=st,
            position=st.position,
            chosen=int(pa >= 0.5),
            extra={"q1": {"p_yes": pa, "chosen": int(pa >= 0.5)}, "q2": {"p_yes": pb, "chosen": int(pb >= 0.5)}},
        )
    return run


def test_fig_2e_percentile_on_a_hand_made_matrix(statement_set, people) -> None:
    c, keys = _campaign(statement_set)
    # The model answers (a) 1 0 0 and (b) 1 1 0 (as P(yes), binarised at 0.5).
    run = _run(statement_set, keys, [0.9, 0.2, 0.1], [0.8, 0.7, 0.3], "model-x")
    # On r1's statements s1..s3: C = 2/3, A = 3/3, M = 0.816 = r1's M (a tie).
    # On r2's statements s1..s3: the same 0.816 > r2's M = 0 (above).
    # On r3's statements s2, s3: C = 1/2, A = 2/2, M = 0.707 > r3's M = 0.5 (above).
    sm = latest_survey(statement_set)
    assert sm is not None
    assert sm.campaign == c
    (s,) = model_standings([run], sm)
    assert (s.above, s.ties, s.n_humans) == (pytest.approx(2 / 3), pytest.approx(1 / 3), 3)
    # The per-statement human rates d^a, d^b for the silicon analyses (Eqs. 3 and 5).
    ids = [Statement.objects.get(statement_set=statement_set, external_id=k).pk for k in keys]
    assert sm.rates() == {
        ids[0]: (1.0, 0.5, 2),
        ids[1]: (pytest.approx(2 / 3), pytest.approx(1 / 3), 3),
        ids[2]: (pytest.approx(1 / 3), pytest.approx(2 / 3), 3),
    }
    # The explorer shows the sentence for the run, and every yes/no run on the set in its table.
    other = _run(statement_set, keys, [0.1, 0.9, 0.9], [0.1, 0.1, 0.9], "model-y")  # below everyone
    people("researcher", "res")
    page = login("res").get(reverse("explorer:run_errors", args=[run.pk])).content.decode()
    assert f"{run_label(run)} rated above 67 % of humans (3 compared)" in page  # runs are labelled by name
    assert run_label(run) == f"#{run.pk} model-x yesno"
    assert f"#{other.pk} model-y yesno" in page
