"""A verified item keeps the answer the build drew from the graph only when every answer accepted it
(issue 26, session 19: ``verified_set``'s ``require_built_answer``, the default). Planted: an item whose
three annotators all tick another option (the rewrite would publish a distractor no chain supports as
the gold), one where one annotator of three leaves the built answer out, and one where all three
answer "None of the answers are correct."; the unanimous item stays. ``--any-gold`` keeps them all."""

from __future__ import annotations

from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command

from annotation.models import Campaign, VerifiedSet
from annotation.services.campaigns import campaign_create, campaign_status_set
from commonsense.validation import NONE_CORRECT
from knowledge.models import Question
from knowledge.services.set_quality import quality_lines
from tests.annotation.validation_helpers import answer_all, demo_2i_set

pytestmark = pytest.mark.django_db


def _other(q: Question) -> int:
    return (q.answer_index + 1) % len(q.options)


# what each of three annotators ticks, by item position (the rule of the loop: majority labels,
# all_verdicts without agreement required, so that a 2-1 split still settles and is kept)
PLAN: dict[int, Any] = {
    0: lambda q, n: {"plausible": [q.answer_index]},  # unanimous on the built answer: kept
    1: lambda q, n: {"plausible": [_other(q)]},  # everyone rejects it, ticks a distractor
    2: lambda q, n: {"plausible": [q.answer_index] if n < 2 else [_other(q)]},  # one of three leaves it out
    3: lambda q, n: {"none_correct": True},  # the gold becomes "None of the answers are correct."
}


@pytest.fixture
def campaign(tmp_path: Path, people) -> Campaign:  # type: ignore[no-untyped-def]
    qset = demo_2i_set(tmp_path, 4)
    c = campaign_create(
        name="built-c",
        title="t",
        kind="mcqa",
        question_set=qset,
        redundancy=3,
        agreement_threshold=0.5,
        settlement_rule="all_verdicts",
        require_agreement=False,
    )
    campaign_status_set(c, "open")
    answer_all(c, people("annotator", "b1", "b2", "b3"), lambda item, n: PLAN[item.position](item.question, n))
    campaign_status_set(c, "closed")
    return c


def test_items_whose_answers_rejected_the_built_answer_are_left_out(campaign: Campaign) -> None:
    out = StringIO()
    # unsettled included: the 2-1 split would otherwise wait for a fourth answer; this test is of the built answer
    call_command("verified_set", "built-c", "--include-unsettled", name="built-v", stdout=out)
    text = out.getvalue()
    assert "3 left out because not every answer accepted the built answer" in text
    v = VerifiedSet.objects.get(question_set__name="built-v")
    assert (v.counts["kept"], v.counts["built_answer_rejected"]) == (1, 3)
    (q,) = v.question_set.questions.all()
    src = Question.objects.get(pk=q.metadata["verified"]["source_question_id"])
    assert q.options[q.answer_index] == src.options[src.answer_index]  # the graph's answer is the gold
    assert v.question_set.params["verified_from"]["require_built_answer"] is True
    assert any("built answer required" in line for line in quality_lines(v.question_set.quality))  # the set page


def test_any_gold_keeps_the_rewritten_items(campaign: Campaign) -> None:
    call_command("verified_set", "built-c", "--any-gold", "--include-unsettled", name="any-v", stdout=StringIO())
    v = VerifiedSet.objects.get(question_set__name="any-v")
    assert v.counts["kept"] == 4
    assert "built_answer_rejected" not in v.counts
    golds = {q.options[q.answer_index] for q in v.question_set.questions.all()}
    assert NONE_CORRECT in golds  # item 3's rewrite
    assert v.question_set.params["verified_from"]["require_built_answer"] is False
    assert not any("built answer required" in line for line in quality_lines(v.question_set.quality))
