"""Close the loop (issue 11 item 7): a COM2 set built from the CSKB demo graph → an MCQA
validation campaign answered by test annotators through the queue → ``verified_set`` → a run on
the verified set → metrics; the dashboard button makes the same set; the lm-eval export of the
verified set runs in the real ``lm_eval`` CLI."""

from __future__ import annotations

from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse

from annotation.models import Campaign, Item, VerifiedSet
from annotation.queue import operations as queue
from annotation.services.campaigns import campaign_create, campaign_status_set
from commonsense.validation import NONE_CORRECT
from knowledge.models import Question, QuestionSet
from runs.evaluation import run_execute
from runs.models import Prediction, Run, RunMetric
from runs.services import run_create
from tests.annotation.conftest import login
from tests.annotation.validation_helpers import answer_all, demo_2i_set

OLD_RULE: dict[str, Any] = {"settlement_rule": "all_verdicts", "require_agreement": False}
pytestmark = pytest.mark.django_db

# What the three annotators tick, by item position: a list of answers, one per annotator.
GOLD = "gold"  # tick the builder's answer
GOLD_PLUS = "gold+"  # tick the builder's answer and the next option (a minority vote for that one)
PLAN: dict[int, list[Any]] = {
    0: [GOLD, GOLD, GOLD],  # unanimous: kept, the gold is the answer
    1: [{"none_correct": True}] * 3,  # kept, answer "None of the answers are correct."
    2: [{"bad_context": True}] * 3,  # the context made no sense: left out
    3: [{"plausible": [0]}, {"plausible": [1]}, {"plausible": [2]}],  # no agreement: awaits adjudication
}


def _answer(plan: Any, q: Question) -> dict[str, Any]:
    if plan == GOLD:
        return {"plausible": [q.answer_index]}
    if plan == GOLD_PLUS:
        return {"plausible": sorted({q.answer_index, (q.answer_index + 1) % len(q.options)})}
    return plan


@pytest.fixture
def answered(tmp_path: Path, people) -> Campaign:  # type: ignore[no-untyped-def]
    qset = demo_2i_set(tmp_path, 8, "ckbp-2i")
    c = campaign_create(
        name="val",
        title="COM2 validation",
        kind="mcqa",
        question_set=qset,
        redundancy=3,
        agreement_threshold=0.7,
        settlement_rule="all_verdicts",  # the rule of these tests (and of test_publication_hf's figures)
        require_agreement=False,
    )
    campaign_status_set(c, "open")
    # beyond the plan: a majority, agreement 0.87
    answer_all(
        c,
        people("annotator", "a1", "a2", "a3"),
        lambda item, n: _answer(PLAN.get(item.position, [GOLD, GOLD, GOLD_PLUS])[n], item.question),
    )
    return c


def test_answered_campaign_gives_a_verified_set_that_runs_evaluate(answered: Campaign, people) -> None:  # type: ignore[no-untyped-def]
    c = answered
    assert Item.objects.filter(campaign=c, role="regular", answer_count=3).count() == 8
    campaign_status_set(c, "open")
    # every item has its 3 answers: finished; any_gold: these tests are of A.4's rewrite (a gold moved to "none")
    call_command("verified_set", "val", name="val-verified", any_gold=True, verbosity=0)
    v = VerifiedSet.objects.get(question_set__name="val-verified")
    assert v.campaign == c
    assert v.source_set.name == "ckbp-2i"
    assert v.counts == {
        "items": 8,
        "kept": 6,
        "none_correct": 1,
        "needs_manual_negatives": 0,
        "topped_up": 0,
        "not_well_formed": 1,
        "awaiting_adjudication": 1,
    }
    src = {q.pk: q for q in Question.objects.filter(question_set__name="ckbp-2i")}
    # the build keeps spare checked distractors for COM2 A.4's top-up (issue 25), none among the shown options
    pools = [s.metadata.get("distractor_pool") or [] for s in src.values()]
    assert any(pools)
    assert all(not set(p) & set(s.options) for p, s in zip(pools, src.values(), strict=True))
    verified = list(Question.objects.filter(question_set=v.question_set).order_by("position"))
    assert len(verified) == 6 == v.question_set.question_count
    by_pos = {}
    for q in verified:
        meta = q.metadata["verified"]
        s = src[meta["source_question_id"]]
        by_pos[s.position] = q
        assert q.stem == s.stem
        assert q.context == s.context
        assert q.metadata["chain"] == s.metadata["chain"]
        assert len(q.options) == 5
        assert q.options[4] == NONE_CORRECT
        assert meta["votes"]["n"] == 3
        assert meta["agreement"] is not None
        assert meta["provenance"] in ("unanimous", "majority")
        assert set(q.triples.values_list("id", flat=True)) == set(s.triples.values_list("id", flat=True))
        if s.position == 1:
            assert q.answer_index == 4
            assert q.answers == [NONE_CORRECT]
        else:  # the majority ticked the gold only: it stays the answer, three of the four distractors are negatives
            assert q.options[q.answer_index] == s.options[s.answer_index]
            assert set(q.options[:4]) - {q.options[q.answer_index]} <= set(s.options)
    assert sorted(by_pos) == [0, 1, 4, 5, 6, 7]
    assert by_pos[0].metadata["verified"]["provenance"] == "unanimous"

    # A run evaluates it like any set and reports accuracy over the six items.
    run = run_create(question_set=v.question_set, backend="random", scoring="loglik", seed=5, enqueue=False)
    assert run_execute(run.pk) == Run.State.DONE
    preds = list(Prediction.objects.filter(run=run).select_related("question"))
    acc = RunMetric.objects.get(run=run, name="accuracy", scope="overall").value
    assert len(preds) == 6
    assert acc == pytest.approx(sum(p.chosen == p.question.answer_index for p in preds) / 6)

    # The explorer shows the model's accuracy on the built set beside the verified one.
    built = run_create(question_set=v.source_set, backend="random", scoring="loglik", seed=5, enqueue=False)
    assert run_execute(built.pk) == Run.State.DONE
    built_acc = RunMetric.objects.get(run=built, name="accuracy", scope="overall").value
    people("researcher", "res")
    page = login("res").get(reverse("explorer:index")).content.decode()
    row = page[page.index('id="verified-accuracy"') :]
    row = row[row.index("<td>val-verified</td>") : row.index("</tr>", row.index("<td>val-verified</td>"))]
    assert "<td>ckbp-2i</td>" in row
    assert "random:" in row
    assert f">{built_acc:.3f}</a>" in row
    assert f">{acc:.3f}</a>" in row

    with pytest.raises(CommandError, match="already exists"):
        call_command("verified_set", "val", name="val-verified", verbosity=0)


def test_campaign_with_missing_answers_is_refused_until_closed(people, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    qset = demo_2i_set(tmp_path, 3, "small")
    c = campaign_status_set(
        campaign_create(name="half", title="t", kind="mcqa", question_set=qset, redundancy=2, **OLD_RULE), "open"
    )
    (u,) = people("annotator", "only")
    item = queue.next_step(c, u).assignment.item
    queue.response_submit(item, u, {"plausible": [item.question.answer_index]}, idempotency_key="k")
    with pytest.raises(CommandError, match="not finished: 0 of 3 items"):
        call_command("verified_set", "half", name="half-v", verbosity=0)
    assert not QuestionSet.objects.filter(name="half-v").exists()
    campaign_status_set(c, "closed")
    # closed: the answers it has - but the one answered item has one vote, below the minimum of two
    with pytest.raises(CommandError, match="1 fall short of the minimum of 2 answers"):
        call_command("verified_set", "half", name="half-v", verbosity=0)
    assert not QuestionSet.objects.filter(name="half-v").exists()
    campaign_status_set(c, "open")
    (v,) = people("annotator", "second")
    while (step := queue.next_step(c, v)).assignment is not None and step.assignment.item_id != item.pk:
        queue.assignment_skip(c, v, step.assignment.item)
    queue.response_submit(item, v, {"plausible": [item.question.answer_index]}, idempotency_key="k2")
    campaign_status_set(c, "closed")
    out = StringIO()
    call_command("verified_set", "half", name="half-v", stdout=out)
    assert "1 of 3 items would be kept" in out.getvalue()
    assert "unanswered 2" in out.getvalue()
    assert QuestionSet.objects.get(name="half-v").question_count == 1


def test_dashboard_button_makes_the_set(answered: Campaign, people) -> None:  # type: ignore[no-untyped-def]
    people("researcher", "res")
    client = login("res")
    page = client.get(reverse("annotation:dashboard", args=["val"])).content.decode()
    assert "Make verified set" in page
    assert 'name="any_gold"' in page
    # by default the item whose answers rejected the built answer (gold rewritten to "none") is left out
    r = client.post(reverse("annotation:verified_set", args=["val"]), {"name": "from-button"})
    assert r.status_code == 302
    assert r["Location"] == reverse("knowledge:question_set", args=["from-button"])
    v = VerifiedSet.objects.get(question_set__name="from-button")
    assert (v.counts["kept"], v.counts["built_answer_rejected"]) == (5, 1)
    assert v.question_set.params["verified_from"]["require_built_answer"] is True
    r = client.post(reverse("annotation:verified_set", args=["val"]), {"name": "any-gold", "any_gold": "on"})
    assert VerifiedSet.objects.get(question_set__name="any-gold").counts["kept"] == 6
    page = client.get(reverse("annotation:dashboard", args=["val"])).content.decode()
    assert "from-button</a>: 5 of 8 items" in page
    assert "any-gold</a>: 6 of 8 items" in page
    people("annotator", "ann")
    assert login("ann").post(reverse("annotation:verified_set", args=["val"]), {"name": "nope"}).status_code == 403


@pytest.mark.slow
@pytest.mark.once
def test_lm_eval_cli_runs_the_verified_set(answered: Campaign, tmp_path: Path, tiny_gpt2: Path) -> None:
    from tests.lm_eval_cli import lm_eval_samples

    call_command("verified_set", "val", name="val-verified", any_gold=True, verbosity=0)
    call_command("export_questions", "val-verified", fmt="lm-eval", out=str(tmp_path / "task"), verbosity=0)
    samples = lm_eval_samples(tmp_path / "task", "cocoweb_val_verified", tiny_gpt2, tmp_path)
    questions = list(Question.objects.filter(question_set__name="val-verified").order_by("position"))
    assert len(samples) == len(questions) == 6
    for s in samples:
        q = questions[s["doc_id"]]
        assert int(s["target"]) == q.answer_index
        assert s["doc"]["options"][4] == NONE_CORRECT
