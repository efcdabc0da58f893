"""The drawer: the items behind any bar or point of the model-error pages (a page of predictions,
filtered by the bar's facets or a CoCo cell, with the other runs' answers beside each)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from django.db.models import (
    Count,
    Prefetch,
    QuerySet,
    Window,
    prefetch_related_objects,
)

from explorer.selectors import sources
from explorer.selectors.errors import coco_cell_filter, prediction_filter
from explorer.selectors.rows import FinalLabelRow
from knowledge.models import Triple
from runs.models import Prediction, Run

# Each dimension is a column copied from the question when the prediction was stored
# (runs.item_facets), read from the covering index ``prediction_item_facets``.


@dataclass(frozen=True, slots=True)
class OtherAnswer:
    """Another run's prediction on a drawer item: which run, and whether it was right."""

    run_id: int
    correct: bool | None


@dataclass(frozen=True, slots=True)
class DrawerRow:
    """One prediction in the drawer: its item (question or statement) with provenance, the other
    runs' predictions on the same item, and the item's final human label."""

    p: Prediction
    item: Any
    others: list[OtherAnswer]
    votes: FinalLabelRow | None


# What the drawer shows of a prediction and its item (templates/explorer/_drawer.html), read alone:
# the scores, outputs and JSON metadata of 500 predictions and questions cost more than the page.
_DRAWER_FIELDS = {
    "question": (
        "position",
        "chosen",
        "correct",
        "question",
        "question__position",
        "question__stem",
        "question__options",
        "question__answer_index",
        "question__structure",
        "question__role",
        "question__question_set",
        "question__question_set__name",
    ),
    "statement": (
        "position",
        "chosen",
        "correct",
        "extra",
        "statement",
        "statement__position",
        "statement__text",
        "statement__human_majority",
        "statement__statement_set",
        "statement__statement_set__name",
    ),
}


@dataclass(frozen=True, slots=True)
class DrawerItems:
    total: int
    rows: list[DrawerRow]


def drawer_items(
    run: Run, params: Mapping[str, str], coco_cell: tuple[bool, bool] | None, limit: int, offset: int = 0
) -> DrawerItems:
    """The predictions of ``run`` that ``params`` (:func:`prediction_filter`) and the CoCo cell
    (knows, solves) select, wrong ones first, at most ``limit`` after the first ``offset``; ``total``
    counts them all."""
    qs = Prediction.objects.filter(run=run).filter(prediction_filter(params))
    if coco_cell is not None:
        qs = qs.filter(coco_cell_filter(run, *coco_cell))
    rel = "statement" if run.is_statement_run else "question"

    def with_items(preds: QuerySet[Prediction]) -> QuerySet[Prediction]:
        return preds.select_related(rel, f"{rel}__{rel}_set").only(*_DRAWER_FIELDS[rel]).order_by("correct", "position")

    preds: list[Prediction]
    if coco_cell is not None:
        # finding the cell's sets is the cost: done once, the page's ids in order with the count beside them
        # (COUNT(*) OVER ()), then only the page's rows joined to their items (joining every prediction of
        # the cell - 3,000 of a 58,200-item run - before the sort cost twice the rest of the statement)
        counted = qs.annotate(total=Window(Count("*"))).order_by("correct", "position").values_list("pk", "total")
        found = list(counted[offset : offset + max(limit, 1)])
        # past the end no row carries the count: counted once more (a page beyond the last only)
        total = found[0][1] if found else (qs.count() if offset else 0)
        ids = [pk for pk, _ in found[:limit]]
        preds = list(with_items(Prediction.objects.filter(pk__in=ids))) if ids else []
    else:
        total = qs.count()
        preds = list(with_items(qs)[offset : offset + limit])
    if not run.is_statement_run:  # into a list (to_attr): a manager's queryset per question costs ~0.1 ms each
        prefetch_related_objects(
            preds,
            Prefetch(
                "question__triples",
                queryset=Triple.objects.select_related("head", "relation", "tail", "source"),
                to_attr="source_triples",
            ),
        )
    item_ids = [getattr(p, f"{rel}_id") for p in preds]
    others: dict[int, list[OtherAnswer]] = {}
    for item_id, run_id, correct in (
        Prediction.objects.filter(**{f"{rel}_id__in": item_ids})
        .exclude(run=run)
        .order_by("run_id")
        .values_list(f"{rel}_id", "run_id", "correct")
    ):
        others.setdefault(item_id, []).append(OtherAnswer(run_id=run_id, correct=correct))
    votes = sources.question_votes(item_ids) if rel == "question" else sources.statement_votes(item_ids)
    rows = [
        DrawerRow(
            p=p,
            item=getattr(p, rel),
            others=others.get(getattr(p, f"{rel}_id"), []),
            votes=votes.get(getattr(p, f"{rel}_id")),
        )
        for p in preds
    ]
    return DrawerItems(total=total, rows=rows)
