"""factory_boy factories for runs and predictions, stored as ``runs.evaluation`` stores them (a
prediction carries its item's facets, copied by ``runs.item_facets``); ``make_run``, ``predict`` and
``predict_statement`` are the short forms most tests call."""

from __future__ import annotations

from typing import Any

import factory

from commonsense.scoring.yesno import result_from_records, yes_no_record
from knowledge.models import Question, QuestionSet, Statement, StatementSet
from runs.evaluation import _prediction
from runs.item_facets import kba_correct, question_facets
from runs.models import Prediction, Run


class RunFactory(factory.django.DjangoModelFactory):
    """A finished random-backend run; give it a ``question_set`` or a ``statement_set``."""

    class Meta:
        model = Run

    backend = "random"
    scoring = "loglik"
    state = Run.State.DONE
    model = "m"


class PredictionFactory(factory.django.DjangoModelFactory):
    """A prediction of ``run`` on ``question``: correct when ``chosen`` is the gold, with the
    question's facets copied (and ``kba_correct`` from ``extra``) as the loop does."""

    class Meta:
        model = Prediction

    run = factory.SubFactory(RunFactory)
    chosen = 0

    @classmethod
    def _create(cls, model_class: type[Prediction], *args: Any, **kw: Any) -> Prediction:
        question: Question | None = kw.get("question")
        if question is not None:
            for k, v in question_facets(question, kw.get("extra")).items():
                kw.setdefault(k, v)
            kw.setdefault("kba_correct", kba_correct(kw.get("extra")))
            kw.setdefault("position", question.position)
            chosen = kw.get("chosen")
            kw.setdefault("correct", chosen is not None and chosen == question.answer_index)
        return super()._create(model_class, *args, **kw)


def make_run(question_set: QuestionSet | None = None, statement_set: StatementSet | None = None, **kw: Any) -> Run:
    run: Run = RunFactory(question_set=question_set, statement_set=statement_set, **kw)
    return run


def predict(run: Run, question: Question, chosen: int | None, **kw: Any) -> Prediction:
    """A stored prediction as runs.evaluation stores one: with the question's facets copied."""
    pred: Prediction = PredictionFactory(run=run, question=question, chosen=chosen, **kw)
    return pred


def predict_statement(run: Run, statement: Statement, p_yes_q1: float, p_yes_q2: float | None = None) -> Prediction:
    """A statement run's prediction as a yes/no scorer makes it (``commonsense.scoring.yesno``: options
    ("no", "yes"), so ``chosen`` 1 = yes, at P(yes) >= 0.5) and ``runs.evaluation`` stores it (correct when
    it is the human majority). P(yes) of questions 1 and 2."""

    def record(p: float) -> dict[str, Any]:
        return yes_no_record({"yes": p, "no": 1.0 - p})

    q2 = None if p_yes_q2 is None else record(p_yes_q2)
    pred = _prediction(run, statement.position, statement, result_from_records(str(statement.pk), record(p_yes_q1), q2))
    pred.save()
    return pred
