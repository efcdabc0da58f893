"""Runs and predictions stored as ``runs.evaluation`` stores them (factory helpers)."""

from __future__ import annotations


def make_run(question_set=None, statement_set=None, **kw):  # type: ignore[no-untyped-def]
    from runs.models import Run

    defaults = {"backend": "random", "scoring": "loglik", "state": Run.State.DONE, "model": "m"}
    defaults.update(kw)
    return Run.objects.create(question_set=question_set, statement_set=statement_set, **defaults)


def predict(run, question, chosen, **kw):  # type: ignore[no-untyped-def]
    """A stored prediction as runs.evaluation stores one: with the question's facets copied."""
    from runs.item_facets import kba_correct, question_facets
    from runs.models import Prediction

    facets = question_facets(question, kw.get("extra"))
    kw.setdefault("kba_correct", kba_correct(kw.get("extra")))
    return Prediction.objects.create(
        run=run,
        question=question,
        position=question.position,
        chosen=chosen,
        correct=(chosen is not None and chosen == question.answer_index),
        **facets,
        **kw,
    )


def predict_statement(run, statement, p_yes_q1, p_yes_q2=None):  # type: ignore[no-untyped-def]
    from runs.models import Prediction

    chosen = 0 if p_yes_q1 >= 0.5 else 1
    return Prediction.objects.create(
        run=run,
        statement=statement,
        position=statement.position,
        chosen=chosen,
        correct=(chosen == 0) == (statement.human_majority == 1),
        # the shape the yes/no scorers store (commonsense.scoring.yesno, runs.scorers)
        extra={
            q: {"p_yes": float(v), "chosen": int(v >= 0.5)}
            for q, v in (("q1", p_yes_q1), ("q2", p_yes_q2))
            if v is not None
        },
    )
