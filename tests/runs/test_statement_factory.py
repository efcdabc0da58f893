"""``tests.runs.factories.predict_statement`` makes a statement run's prediction as the yes/no scorers
make it: options ("no", "yes"), so ``chosen`` 1 = yes at P(yes) >= 0.5, correct when it is the human
majority (session 18 found ``chosen`` inverted: P(yes) 0.9 stored as "no")."""

from __future__ import annotations

import pytest

from commonsense.scoring.yesno import YESNO_OPTIONS
from tests.explorer.factories import StatementFactory, StatementSetFactory
from tests.runs.factories import make_run, predict_statement

pytestmark = pytest.mark.django_db


def test_a_statement_prediction_means_what_its_probability_says() -> None:
    sset = StatementSetFactory(name="yes-no")
    agreed, refused, unknown = (
        StatementFactory(statement_set=sset, position=i, human_majority=m) for i, m in enumerate((1, 0, None))
    )
    run = make_run(statement_set=sset, scoring="yesno")
    said_yes = predict_statement(run, agreed, 0.9, 0.3)
    assert YESNO_OPTIONS[said_yes.chosen] == "yes"
    assert said_yes.correct is True  # people agree, so does the model
    assert (said_yes.extra["q1"]["chosen"], said_yes.extra["q2"]["chosen"]) == (1, 0)
    assert said_yes.extra["q1"]["p_yes"] == pytest.approx(0.9)
    assert said_yes.scores == pytest.approx([0.1, 0.9])  # P(no), P(yes): the options' order
    other = make_run(statement_set=sset, scoring="yesno")
    assert (predict_statement(other, agreed, 0.2).chosen, predict_statement(other, refused, 0.2).correct) == (0, True)
    assert predict_statement(run, refused, 0.5).correct is False  # 0.5 is a yes (NWW's threshold)
    assert predict_statement(run, unknown, 0.7).correct is None  # no majority: neither right nor wrong
