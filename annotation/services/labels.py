"""The final label of every answered regular item (issue 17 item 11; issue 26): the latest
adjudication if any, else the answers' label - the majority, or for MCQA the campaign's label rule
with its posteriors and settlement (:func:`annotation.selectors.quality.item_judge`) - and, for an
MCQA item, the answers it wants now (``Item.answers_wanted``, the queue's cap). Stored by the writes
that change votes (submit, undo, ratings import, adjudication, a refit), never by a page view."""

from __future__ import annotations

import json
import threading
from functools import cache, partial
from typing import Any

from django.conf import settings
from django.db import connection, transaction

from annotation.models import Adjudication, Campaign, FinalLabel, Item
from annotation.selectors.agreement import campaign_item_labels, needs_adjudication
from annotation.selectors.quality import item_judge
from commonsense.annotators import Judged
from commonsense.validation import ItemLabel, item_label


def final_labels_refresh(campaign: Campaign, *, item_ids: list[int] | None = None) -> int:
    """Store every answered regular item's final label: the latest adjudication if any, else the
    majority (``unanimous`` when all of at least two answers agree). Idempotent. Called by the
    writes that change votes (submit, undo, ratings import, adjudication) for the items they touch,
    never by a page view: a GET does not rewrite labels. An item left with no answer loses its label."""
    rows = campaign_item_labels(campaign, item_ids=item_ids)
    latest: dict[int, Adjudication] = {}
    adjudications = Adjudication.objects.filter(item__campaign=campaign)
    if item_ids is not None:
        adjudications = adjudications.filter(item_id__in=item_ids)
        answered = {row.item_id for row in rows}
        FinalLabel.objects.filter(item_id__in=[i for i in item_ids if i not in answered]).delete()
    for adj in adjudications.order_by("decided_at", "id"):
        latest[adj.item_id] = adj
    labels = []
    wanted: dict[int, int] = {}
    if item_ids is not None and campaign.adaptive:
        wanted.update((i, campaign.redundancy) for i in item_ids)  # an item left with no answer wants the minimum
    for row in rows:
        last = latest.get(row.item_id)
        fl = _final_label(
            row.item_id,
            row.label,
            row.below_threshold,
            last.pk if last else None,
            last.label if last else None,
            row.judged,
        )
        labels.append(fl)
        w = _wanted(campaign, fl, row.judged)
        if w is not None:
            wanted[row.item_id] = w
    _final_labels_store(labels)
    _wanted_store(campaign, wanted)
    return len(labels)


def _wanted(campaign: Campaign, fl: FinalLabel, judged: Judged | None) -> int | None:
    """The answers an item wants after this label (None: not an adaptive campaign): an adjudicated
    item is settled by a person and closes at the answers it has."""
    if judged is None or not campaign.adaptive:
        return None
    if fl.adjudication_id is not None:
        return max(fl.n_answers, 1)
    return judged.settlement.wanted


def _wanted_store(campaign: Campaign, wanted: dict[int, int]) -> None:
    by_value: dict[int, list[int]] = {}
    for item_id, w in wanted.items():
        by_value.setdefault(w, []).append(item_id)
    for w, ids in by_value.items():
        for start in range(0, len(ids), 2000):
            Item.objects.filter(pk__in=ids[start : start + 2000]).exclude(answers_wanted=w).update(answers_wanted=w)


def _final_label(
    item_id: int,
    lab: ItemLabel,
    below: bool,
    adjudication_id: int | None,
    decided: dict[str, Any] | None,
    judged: Judged | None = None,
) -> FinalLabel:
    if adjudication_id is not None:
        provenance, label = FinalLabel.Provenance.ADJUDICATED, decided or {}
    elif lab.unanimous and lab.n >= 2:
        provenance, label = FinalLabel.Provenance.UNANIMOUS, lab.label
    else:
        provenance, label = FinalLabel.Provenance.MAJORITY, lab.label
    settled, settlement, confidence, posteriors = False, "", None, []
    if judged is not None:
        settlement, confidence, posteriors = judged.settlement.state, judged.settlement.confidence, judged.posteriors
        settled = judged.settlement.settled
    if adjudication_id is not None:
        settled, settlement = True, "adjudicated"
    return FinalLabel(
        item_id=item_id,
        label=label,
        provenance=provenance,
        agreement=lab.agreement,
        votes=lab.votes,
        n_answers=lab.n,
        below_threshold=below,
        adjudication_id=adjudication_id,
        settled=settled,
        settlement=settlement,
        confidence=confidence,
        posteriors=posteriors,
    )


@cache
def _item_votes_sql() -> str:
    latest = "FROM annotation_adjudication d WHERE d.item_id = r.item_id ORDER BY d.decided_at DESC, d.id DESC LIMIT 1"
    return (
        f"SELECT r.answer, (SELECT d.id {latest}), (SELECT d.label {latest}), r.user_id FROM annotation_response r "
        "WHERE r.item_id = %s ORDER BY r.id"
    )


@cache
def _final_label_upsert_sql() -> str:
    qn = connection.ops.quote_name
    cols = [qn(str(f.column)) for f in FinalLabel._meta.concrete_fields if not f.primary_key]
    updates = ", ".join(f"{c} = EXCLUDED.{c}" for c in cols if c != qn("item_id"))
    return (
        f"INSERT INTO {qn(FinalLabel._meta.db_table)} ({', '.join(cols)}) VALUES ({', '.join(['%s'] * len(cols))}) "
        f"ON CONFLICT ({qn('item_id')}) DO UPDATE SET {updates}"
    )


def _json(value: Any) -> Any:
    return json.loads(value) if isinstance(value, str) else value  # JSON columns come back as text


def final_label_refresh_item(campaign: Campaign, item: Item) -> None:
    """:func:`final_labels_refresh` of one regular item in two statements - its answers with the
    latest decision, then the upsert - for the submit and undo paths. Both are compiled once per
    process (this runs on every answer): the values are adapted by the model's fields, as the ORM
    would, and the upsert is the same ``INSERT … ON CONFLICT DO UPDATE`` as the bulk path's."""
    if item.role != Item.Role.REGULAR:
        return
    with connection.cursor() as cur:
        cur.execute(_item_votes_sql(), (item.pk,))
        rows = cur.fetchall()
    if not rows:
        FinalLabel.objects.filter(item=item).delete()
        if campaign.adaptive:
            _wanted_store(campaign, {item.pk: campaign.redundancy})
        return
    label, wanted = final_label_compute(campaign, item, [(_json(r[0]), r[1], _json(r[2]), r[3]) for r in rows])
    fields = [f for f in FinalLabel._meta.concrete_fields if not f.primary_key]
    params = [f.get_db_prep_save(f.pre_save(label, add=True), connection) for f in fields]
    with connection.cursor() as cur:
        cur.execute(_final_label_upsert_sql(), params)
    if wanted is not None and wanted != item.answers_wanted:
        Item.objects.filter(pk=item.pk).update(answers_wanted=wanted)
        item.answers_wanted = wanted


def final_label_compute(
    campaign: Campaign, item: Item, rows: list[tuple[Any, Any, Any, int]]
) -> tuple[FinalLabel, int | None]:
    """The final label (unsaved) of a regular item from its ``(answer, latest adjudication id,
    its label, user id)`` rows, oldest answer first, as :func:`final_labels_refresh` computes it,
    and the answers the item wants now (None: not an adaptive campaign). Counts the answer for
    the campaign's next refit of its annotator models (:func:`_refit_maybe`)."""
    judged = None
    if campaign.adaptive:
        judged = item_judge(campaign, item.n_options, [(r[3], r[0]) for r in rows])
        lab = judged.label
        _refit_maybe(campaign)
    else:
        lab = item_label(campaign.kind, [r[0] for r in rows], n_options=item.n_options)
    below = needs_adjudication(lab, campaign.agreement_threshold)
    fl = _final_label(item.pk, lab, below, rows[0][1], rows[0][2], judged)
    return fl, _wanted(campaign, fl, judged)


def _final_labels_store(labels: list[FinalLabel]) -> None:
    FinalLabel.objects.bulk_create(
        labels,
        batch_size=1000,
        update_conflicts=True,
        unique_fields=["item"],
        update_fields=[
            "label",
            "provenance",
            "agreement",
            "votes",
            "n_answers",
            "below_threshold",
            "adjudication",
            "settled",
            "settlement",
            "confidence",
            "posteriors",
            "computed_at",
        ],
    )


_refits_since: dict[int, int] = {}
_refits_lock = threading.Lock()


def _refit_maybe(campaign: Campaign) -> bool:
    """Count an answer this process stored; every ``COCOWEB_QUALITY_REFIT_EVERY`` of a campaign's
    answers, send a refit of its annotator models (:mod:`annotation.services.quality`) to the
    housekeeping queue once the answer commits. No query."""
    every = settings.COCOWEB_QUALITY_REFIT_EVERY
    if not campaign.adaptive or every <= 0:
        return False
    with _refits_lock:
        n = _refits_since.get(campaign.pk, 0) + 1
        _refits_since[campaign.pk] = 0 if n >= every else n
    if n < every:
        return False
    from annotation.tasks import annotator_quality_task

    transaction.on_commit(partial(annotator_quality_task.apply_async, (campaign.pk,), queue="housekeeping"))
    return True
