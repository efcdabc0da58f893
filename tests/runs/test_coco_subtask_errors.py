"""CoCo's error categories split by subtask (issue 28 item 6, §6.4 / Fig. 4): REA and APP errors in
the rule's categories, FAI errors as No / Partial Knowledge, counted by hand on stored predictions."""

from __future__ import annotations

import pytest

from commonsense.metrics.coco_tables import fai_category, subtask_errors
from runs.models import Prediction
from runs.reports.coco import error_rows
from tests.explorer.factories import QuestionFactory, QuestionSetFactory, make_run, predict


def test_subtask_errors_by_hand() -> None:
    sets = [
        (False, [True, True], "Reasoning Error"),  # REA and APP (all atomic right)
        (False, [True, False], "No Answer"),  # REA only
        (True, [False, False], None),  # FAI: No Knowledge
        (True, [True, False, True], None),  # FAI: Partial Knowledge
        (True, [True, True], None),  # no error
    ]
    got = subtask_errors(sets)
    assert got["REA"] == {"Reasoning Error": 1, "No Answer": 1}
    assert got["APP"] == {"Reasoning Error": 1}
    assert got["FAI"] == {"No Knowledge": 1, "Partial Knowledge": 1}
    assert fai_category([False]) == "No Knowledge"
    assert fai_category([False, True]) == "Partial Knowledge"


@pytest.mark.django_db
def test_stored_rows_split_by_subtask() -> None:
    qset = QuestionSetFactory(name="coco-sub", kind="coco")
    run = make_run(question_set=qset, scoring="generate")
    plan = {  # group: (atomic right..., reasoning chosen: 0 right, 1 wrong, None no answer)
        "s1": ((True, True), 1),
        "s2": ((True, False), None),
        "s3": ((False, False), 0),
        "s4": ((True, False, True), 0),
    }
    for g, (atoms, chosen) in plan.items():
        for k, ok in enumerate(atoms, 1):
            predict(
                run, QuestionFactory(question_set=qset, group=g, role=f"atomic_{k}", answer_index=0), 0 if ok else 1
            )
        predict(
            run, QuestionFactory(question_set=qset, group=g, role="reasoning", structure="2p", answer_index=0), chosen
        )
    Prediction.objects.filter(run=run, chosen__isnull=True).update(raw_output="")
    rows = {(n, s): (v, k) for n, s, v, _, _, k, _ in error_rows(run)}
    assert rows[("subtask_error_share", "REA:Reasoning Error")] == (0.5, 1)
    assert rows[("subtask_error_share", "REA:No Answer")] == (0.5, 1)
    assert rows[("subtask_error_share", "APP:Reasoning Error")] == (1.0, 1)
    assert rows[("subtask_error_share", "FAI:No Knowledge")] == (0.5, 1)
    assert rows[("subtask_error_share", "FAI:Partial Knowledge")] == (0.5, 1)
