"""CoCo rows beside MEM/COM/REA/FAI/APP (commonsense.metrics.coco_tables): the five-metric
Average of Table 3, the ↑/↓ mark of every per-relation / per-query-type value against the run's
own overall score (Tables 4–5), and the error category of each wrong or unanswered prediction of a
generative run (§6.4), stored on the prediction (``extra["error_category"]``; a reviewer's
``extra["error_category_override"]`` wins) and counted per category."""

from __future__ import annotations

from collections import Counter
from typing import Any

from commonsense.metrics.coco_tables import (
    CATEGORIES,
    SUBTASK_CATEGORIES,
    error_category,
    five_average,
    marks,
    subtask_errors,
)
from runs.models import Prediction, Run

Row = tuple[str, str, float | None, float | None, float | None, int, dict[str, Any]]
GENERATIVE = ("generate", "cot", "knowcot")


def coco_table_rows(rows: list[Row]) -> list[Row]:
    """``rows`` with the Average added and each ``aspect=`` row's data carrying its mark."""
    val = {(n, s): v for n, s, v, *_ in rows}
    if ("MEM", "overall") not in val:
        return rows
    # Table 3: MEM and COM pooled, REA / FAI / APP macro over query types (spec A4, derived)
    overall = {m: val.get((m, "overall")) for m in ("MEM", "COM")}
    overall |= {m: val.get((f"{m}_macro", "aspect"), val.get((m, "overall"))) for m in ("REA", "FAI", "APP")}
    out: list[Row] = []
    for n, s, v, lo, hi, k, data in rows:
        if s.startswith("aspect=") and n in overall:
            mark = marks({s: v}, overall[n]).get(s)
            data = {**data, "vs_overall": mark} if mark else data
        out.append((n, s, v, lo, hi, k, data))
    avg = five_average(*(overall[m] for m in ("MEM", "COM", "REA", "FAI", "APP")))
    out.append(("coco_average", "overall", avg, None, None, 0, {"of": overall}))
    return out


def error_rows(run: Run) -> list[Row]:
    if run.scoring not in GENERATIVE:
        return []
    preds = list(Prediction.objects.filter(run=run, question__isnull=False).select_related("question"))
    counts: Counter[str] = Counter()
    for p in preds:
        rule = error_category(p.chosen, p.question.answer_index, p.raw_output or "")  # type: ignore[union-attr]
        x = dict(p.extra or {})
        x["error_category"] = rule
        p.extra = x
        final = x.get("error_category_override") or rule
        if final:
            counts[final] += 1
    Prediction.objects.bulk_update(preds, ["extra"], batch_size=1000)
    wrong = sum(counts.values())
    return [
        ("error_share", f"category={c}", counts[c] / wrong if wrong else None, None, None, counts[c], {"errors": wrong})
        for c in CATEGORIES
    ] + _subtask_rows(preds)


def _subtask_rows(preds: list[Prediction]) -> list[Row]:
    """``subtask_error_share`` rows, scope ``<REA|FAI|APP>:<category>``: each subtask's errors by
    category (CoCo §6.4, commonsense.metrics.coco_tables.subtask_errors), over the application sets
    (a group with one reasoning question and its atomic ones)."""
    groups: dict[str, list[Prediction]] = {}
    for p in preds:
        if p.item_group and (p.item_role == "reasoning" or p.item_role.startswith("atomic_")):
            groups.setdefault(p.item_group, []).append(p)
    sets = []
    for rows in groups.values():
        reasoning = [p for p in rows if p.item_role == "reasoning"]
        atomic = [p.correct is True for p in rows if p.item_role.startswith("atomic_")]
        if len(reasoning) != 1 or not atomic:
            continue
        r = reasoning[0]
        x = r.extra or {}
        sets.append((r.correct is True, atomic, x.get("error_category_override") or x.get("error_category")))
    if not sets:
        return []
    out: list[Row] = []
    for subtask, counts in subtask_errors(sets).items():
        total = sum(counts.values())
        out += [
            (
                "subtask_error_share",
                f"{subtask}:{c}",
                counts[c] / total if total else None,
                None,
                None,
                counts[c],
                {"errors": total},
            )
            for c in SUBTASK_CATEGORIES[subtask]
        ]
    return out


def error_category_review(prediction: Prediction, category: str) -> None:
    """A reviewer's category for one prediction (one of CATEGORIES, or "" to go back to the rule);
    the run's ``error_share`` rows are recounted."""
    from django.db import transaction

    from runs.models import RunMetric

    if category and category not in CATEGORIES:
        raise ValueError(f"unknown error category {category!r}; one of {', '.join(CATEGORIES)}")
    x = dict(prediction.extra or {})
    if category:
        x["error_category_override"] = category
    else:
        x.pop("error_category_override", None)
    prediction.extra = x
    with transaction.atomic():
        prediction.save(update_fields=["extra"])
        run = prediction.run
        rows = error_rows(run)
        RunMetric.objects.filter(run=run, name__in=("error_share", "subtask_error_share")).delete()
        RunMetric.objects.bulk_create(
            RunMetric(run=run, name=n, scope=s, value=v, ci_low=lo, ci_high=hi, n=k, data=d)
            for n, s, v, lo, hi, k, d in rows
        )
