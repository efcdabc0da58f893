"""ReComSBench d(Q) shared across models: a run started with the parameter ``difficulty_run``
(the id of a finished recoms run on the same question set) adopts that run's d(Q) for every
question when it ends, so its difficulty windows are cut on the same ranking as the reference run's
and comparable across models. Its own d(Q), if it computed one, is kept as ``difficulty_own``."""

from __future__ import annotations

from typing import Any, cast

from django.core.exceptions import ValidationError

import commonsense.metrics as M
from runs.models import Prediction, Run

Row = tuple[str, str, float | None, float | None, float | None, int, dict[str, Any]]


def difficulty_run_check(value: Any, question_set: Any) -> None:
    """``run_create``'s check of the parameter (a located, readable refusal)."""
    try:
        ref = Run.objects.get(pk=int(value))
    except (TypeError, ValueError, Run.DoesNotExist):
        raise ValidationError(f"difficulty_run={value!r}: no such run") from None
    if ref.scoring != "recoms" or ref.state != Run.State.DONE:
        raise ValidationError(
            f"difficulty_run={ref.pk}: needs a finished recoms run (it is {ref.scoring}, {ref.state})"
        )
    if question_set is None or ref.question_set_id != question_set.pk:
        raise ValidationError(f"difficulty_run={ref.pk}: it scored another set ({ref.set_name})")


def difficulty_adopt(run: Run) -> int:
    """Copy the reference run's d(Q) onto this run's predictions; returns how many changed."""
    ref_id = (run.params or {}).get("difficulty_run")
    if not ref_id:
        return 0
    # question id -> d(Q); keyed by a nullable id so ``p.question_id`` can look it up as is
    ref: dict[int | None, int | None] = dict(
        Prediction.objects.filter(run_id=int(ref_id), question__isnull=False).values_list(
            "question_id", "item_difficulty"
        )
    )
    preds = list(Prediction.objects.filter(run=run, question__isnull=False))
    for p in preds:
        x = dict(p.extra or {})
        if "difficulty" in x and "difficulty_own" not in x:
            x["difficulty_own"] = x["difficulty"]
        x["difficulty"] = ref.get(p.question_id)
        p.extra, p.item_difficulty = x, ref.get(p.question_id)
    Prediction.objects.bulk_update(preds, ["extra", "item_difficulty"], batch_size=1000)
    return len(preds)


def window_rows(run: Run) -> list[Row]:
    """Accuracy per difficulty window (ReComSBench's definition) for a run that is not a recoms run
    but adopted a reference d(Q)."""
    if run.scoring == "recoms" or not (run.params or {}).get("difficulty_run"):
        return []
    rows = list(
        Prediction.objects.filter(
            run=run, item_difficulty__isnull=False, question__answer_index__isnull=False, error=""
        )
        .order_by("position")
        .values_list("item_difficulty", "correct")
    )
    # item_difficulty__isnull=False above: every d is an int
    wins = M.sliding_windows([cast(int, d) for d, _ in rows], [bool(c) for _, c in rows])
    return [
        (
            "accuracy",
            f"window={i + 1}",
            w.accuracy,
            None,
            None,
            w.stop - w.start,
            {
                "start": w.start,
                "stop": w.stop,
                "mean_d": w.mean_difficulty,
                "difficulty_run": run.params["difficulty_run"],
            },
        )
        for i, w in enumerate(wins)
    ]
