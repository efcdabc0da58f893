"""PostgreSQL single-statement forms of the two hot queue operations, used by :mod:`.operations` when
the database is PostgreSQL (SQLite keeps the ORM path, which takes the same decisions in several
statements). Each is one data-modifying ``WITH`` statement, so it is atomic on its own and costs one
round trip instead of five or six (``BEGIN``, the reads and writes, ``COMMIT``):

- :func:`reserve_regular`: pick an unseen item under the answers it wants, unsettled items that
  want more than the minimum first, then the most-answered, skipping rows other transactions hold
  (``FOR UPDATE SKIP LOCKED``), take one slot with the same conditional
  ``slots_taken < answers_wanted`` and insert the reservation.
- :func:`answer_store`: move a *live* reservation to ``answered``, insert the response and bump
  the item's and the person's counters (returning the person's membership as updated, which the
  next reservation needs) — or do nothing when the reservation was not live (a double click's twin
  already answered it, or it expired): the caller then takes the general path.
- :func:`answer_store_read` and the ``label`` argument of :func:`reserve_regular`: the answer with
  the item's final-label input read in the same statement, and the label stored (upserted in the
  same statement as the next reservation), so that an htmx submit - answer, final label, next
  item - is one transaction of two statements with one commit (:func:`.operations.response_submit_next`).
  The statement locks the item's row; when the version it locked is not its snapshot's (a
  concurrent answer committed in between, see :data:`_ANSWER_READ`) the answers are read again
  (:func:`label_rows`) after the lock. Either way the label counts every answer committed before,
  and a concurrent answer to the same item waits for this commit, then counts this one.

Unique constraints still guard everything (one assignment and one response per item and person,
one live reservation per person, unique idempotency keys): a violation raises ``IntegrityError``
and the whole statement leaves nothing behind.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from typing import Any

from django.db import connection, transaction

from accounts.people import User
from annotation.models import Adjudication, Assignment, Campaign, FinalLabel, Item, Membership, Response
from annotation.queue.order import rater_salt, serve_order
from cocoweb import rowselect

LabelRows = list[
    tuple[Any, Any, Any, int]
]  # final_label_compute's input: (answer, adjudication id, its label, user id)

_ITEM_COLUMNS = [f.column for f in Item._meta.concrete_fields]
_MEMBERSHIP_COLUMNS = [str(f.column) for f in Membership._meta.concrete_fields]
_ITEM_ATTNAMES = [f.attname for f in Item._meta.concrete_fields]
_MEMBERSHIP_ATTNAMES = [f.attname for f in Membership._meta.concrete_fields]

_RESERVE = f"""
WITH cand AS (
    SELECT i.id FROM annotation_item i
    WHERE i.campaign_id = %(campaign)s AND i.role = '{Item.Role.REGULAR.value}' AND i.slots_taken < i.answers_wanted
      AND NOT EXISTS (SELECT 1 FROM annotation_assignment a WHERE a.item_id = i.id AND a.user_id = %(user)s)
    ORDER BY {{order}}
    LIMIT 1
    FOR UPDATE OF i SKIP LOCKED
), took AS (
    UPDATE annotation_item i SET slots_taken = i.slots_taken + 1
    FROM cand WHERE i.id = cand.id AND i.slots_taken < i.answers_wanted
    RETURNING {", ".join(f"i.{c}" for c in _ITEM_COLUMNS)}
), res AS (
    INSERT INTO annotation_assignment (campaign_id, item_id, user_id, state, reserved_at, expires_at)
    SELECT %(campaign)s, took.id, %(user)s, 'reserved', %(now)s, %(expires)s FROM took
    RETURNING id, item_id
)
SELECT res.id, {", ".join(f"took.{c}" for c in _ITEM_COLUMNS)} FROM res JOIN took ON took.id = res.item_id
"""

# unsettled items that want more than the minimum first, then (when the campaign asks) those a model's
# vote disagrees with, then the campaign's order (:func:`.order.serve_order`: by answers taken, then ties)
_BY_TAKEN = {"most": ", i.slots_taken DESC", "least": ", i.slots_taken", "": ""}
_TIE = {"position": ", i.position", "rater": ", md5(%(salt)s || i.uid)"}
_RESERVE_BY_ORDER = {
    (taken, tie): _RESERVE.replace("{order}", "i.answers_wanted DESC, i.priority DESC" + by + _TIE[tie])
    for taken, by in _BY_TAKEN.items()
    for tie in _TIE
}
# ("most", "position"), the default outside surveys, is the item_queue_wanted index order

# The answered item's final label, upserted by the statement that reserves the next item (a
# data-modifying WITH runs to completion whether or not a row is reserved).
_LABEL_FIELDS = [
    "label",
    "provenance",
    "agreement",
    "votes",
    "n_answers",
    "below_threshold",
    "adjudication_id",
    "settled",
    "settlement",
    "confidence",
    "posteriors",
]
# and the answers the item wants now (adaptive redundancy): its row is locked by the answer already
_LABEL_CTE = f"""fl AS (
    INSERT INTO {FinalLabel._meta.db_table} (item_id, {", ".join(_LABEL_FIELDS)}, computed_at)
    VALUES (%(fl_item)s, %(fl_label)s::jsonb, %(fl_provenance)s, %(fl_agreement)s, %(fl_votes)s::jsonb,
            %(fl_n_answers)s, %(fl_below_threshold)s, %(fl_adjudication_id)s, %(fl_settled)s, %(fl_settlement)s,
            %(fl_confidence)s, %(fl_posteriors)s::jsonb, %(now)s)
    ON CONFLICT (item_id) DO UPDATE SET {", ".join(f"{c} = EXCLUDED.{c}" for c in [*_LABEL_FIELDS, "computed_at"])}
), wanted AS (
    UPDATE {Item._meta.db_table} SET answers_wanted = %(fl_wanted)s::smallint
    WHERE id = %(fl_item)s AND %(fl_wanted)s::smallint > 0 AND answers_wanted <> %(fl_wanted)s::smallint
), """
_RESERVE_LABELLED = {
    sql: sql.replace("WITH cand AS", "WITH " + _LABEL_CTE + "cand AS", 1) for sql in _RESERVE_BY_ORDER.values()
}
_LABEL_ONLY = "WITH " + _LABEL_CTE.rstrip(", ") + " SELECT 1"

_ANSWER = f"""
WITH a AS (
    UPDATE annotation_assignment SET state = 'answered', finished_at = %(now)s
    WHERE id = %(assignment)s AND state = 'reserved'
      AND EXISTS (  -- a regular item is answered only by an active member: never a blocked person's
          SELECT 1 FROM annotation_membership
          WHERE campaign_id = %(campaign)s AND user_id = %(user)s AND state = 'active'
      )
    RETURNING id
), r AS (
    INSERT INTO annotation_response
        (campaign_id, item_id, user_id, assignment_id, answer, time_ms, idempotency_key, source, created_at)
    SELECT %(campaign)s, %(item)s, %(user)s, a.id, %(answer)s::jsonb, %(time_ms)s, %(key)s, %(source)s, %(now)s FROM a
    RETURNING id
), i AS (
    UPDATE annotation_item SET answer_count = answer_count + 1 WHERE id = %(item)s AND EXISTS (SELECT 1 FROM r)
), m AS (
    UPDATE annotation_membership SET regular_answered = regular_answered + 1
    WHERE campaign_id = %(campaign)s AND user_id = %(user)s AND EXISTS (SELECT 1 FROM r)
    RETURNING {", ".join(_MEMBERSHIP_COLUMNS)}
)
SELECT r.id, {", ".join(f"m.{c}" for c in _MEMBERSHIP_COLUMNS)} FROM r LEFT JOIN m ON true
"""


# The answer of the one-transaction submit (:func:`.operations.response_submit_next`), which also
# reads the item's final-label input in the same statement, from its snapshot: the item's earlier
# answers and its latest adjudication. That read is complete only if nothing changed the item's
# answers between the snapshot and the moment the statement holds the item's row. Every change of
# an item's answers updates the item's row in the same transaction (the answer here and in the ORM
# path, an undo, an import: ``answer_count``), so the row version tells: ``lk`` locks the row (the
# counter's update, ``i``, is not read by the final SELECT, so it runs last) and says whether the
# version it locked - after a wait, the one a concurrent transaction committed (READ COMMITTED
# re-reads it) - is the snapshot's (``xmin``).
# When it is not, the caller reads the answers again (:func:`label_rows`) in the same transaction,
# after the lock, as every answer did before.
_ANSWER_READ = f"""
WITH a AS (
    UPDATE annotation_assignment SET state = 'answered', finished_at = %(now)s
    WHERE id = %(assignment)s AND state = 'reserved'
      AND EXISTS (  -- a regular item is answered only by an active member: never a blocked person's
          SELECT 1 FROM annotation_membership
          WHERE campaign_id = %(campaign)s AND user_id = %(user)s AND state = 'active'
      )
    RETURNING id
), lk AS (  -- after the assignment (a), as every writer locks them (an expiry sweep too: no deadlock)
    SELECT xmin = (SELECT s.xmin FROM annotation_item s WHERE s.id = %(item)s) AS same
    FROM annotation_item WHERE id = %(item)s AND EXISTS (SELECT 1 FROM a)
    FOR NO KEY UPDATE
), r AS (
    INSERT INTO annotation_response
        (campaign_id, item_id, user_id, assignment_id, answer, time_ms, idempotency_key, source, created_at)
    SELECT %(campaign)s, %(item)s, %(user)s, a.id, %(answer)s::jsonb, %(time_ms)s, %(key)s, %(source)s, %(now)s FROM a
    RETURNING id
), i AS (
    UPDATE annotation_item SET answer_count = answer_count + 1 WHERE id = %(item)s AND EXISTS (SELECT 1 FROM r)
), m AS (
    UPDATE annotation_membership SET regular_answered = regular_answered + 1
    WHERE campaign_id = %(campaign)s AND user_id = %(user)s AND EXISTS (SELECT 1 FROM r)
    RETURNING {", ".join(_MEMBERSHIP_COLUMNS)}
), earlier AS (
    SELECT array_agg(e.answer::text ORDER BY e.id) AS answers, array_agg(e.user_id ORDER BY e.id) AS users
    FROM {Response._meta.db_table} e WHERE e.item_id = %(item)s
), adj AS (
    SELECT d.id, d.label FROM {Adjudication._meta.db_table} d WHERE d.item_id = %(item)s
    ORDER BY d.decided_at DESC, d.id DESC LIMIT 1
)
SELECT lk.same, earlier.answers, earlier.users, adj.id, adj.label,
       r.id, {", ".join(f"m.{c}" for c in _MEMBERSHIP_COLUMNS)}
FROM r LEFT JOIN m ON true CROSS JOIN lk CROSS JOIN earlier LEFT JOIN adj ON true
"""

_LABEL_ROWS = f"""
SELECT r.answer, adj.id, adj.label, r.user_id FROM {Response._meta.db_table} r
LEFT JOIN LATERAL (
    SELECT d.id, d.label FROM {Adjudication._meta.db_table} d WHERE d.item_id = %(item)s
    ORDER BY d.decided_at DESC, d.id DESC LIMIT 1
) adj ON true
WHERE r.item_id = %(item)s ORDER BY r.id
"""


def _one(sql: str, params: dict[str, Any], *, savepoint: bool = True) -> tuple[Any, ...] | None:
    """Run one statement and return its first row. Outside a transaction the statement commits
    on its own (autocommit); inside one it runs under a savepoint, so a constraint violation does
    not break the caller's transaction (``savepoint=False``: the caller rolls the whole
    transaction back on a violation)."""
    if savepoint and connection.in_atomic_block:
        with transaction.atomic(), rowselect.cursor() as cur:
            cur.execute(sql, params)
            return cur.fetchone()
    with rowselect.cursor() as cur:
        cur.execute(sql, params)
        return cur.fetchone()


def _label_params(label: FinalLabel, wanted: int | None) -> dict[str, Any]:
    return {
        "fl_settled": label.settled,
        "fl_settlement": label.settlement,
        "fl_confidence": label.confidence,
        "fl_posteriors": json.dumps(label.posteriors),
        "fl_wanted": wanted or 0,
        "fl_item": label.item_id,
        "fl_label": json.dumps(label.label),
        "fl_provenance": label.provenance,
        "fl_agreement": label.agreement,
        "fl_votes": json.dumps(label.votes),
        "fl_n_answers": label.n_answers,
        "fl_below_threshold": label.below_threshold,
        "fl_adjudication_id": label.adjudication_id,
    }


def label_rows(item: Item) -> LabelRows:
    """``(answer, latest adjudication id, its label, user id)`` of each answer to ``item``, oldest first:
    the input of :func:`annotation.services.labels.final_label_compute`, in one precompiled statement."""
    with rowselect.cursor() as cur:
        cur.execute(_LABEL_ROWS, {"item": item.pk})
        rows = cur.fetchall()
    # jsonb arrives as text through Django's cursor
    return [
        (json.loads(a) if isinstance(a, str) else a, d, json.loads(lab) if isinstance(lab, str) else lab, u)
        for a, d, lab, u in rows
    ]


def label_store(label: FinalLabel, wanted: int | None, now: datetime) -> None:
    """Upsert one final label and the answers its item wants (``None``: unchanged) - the
    statement :func:`reserve_regular` runs with ``label``, alone."""
    _one(_LABEL_ONLY, {**_label_params(label, wanted), "now": now}, savepoint=False)


def reserve_regular(
    campaign: Campaign,
    user: User,
    now: datetime,
    *,
    label: FinalLabel | None = None,
    wanted: int | None = None,
    savepoint: bool = True,
) -> Assignment | None:
    """One slot of the first free unseen regular item, reserved for ``user``; None when no item
    is free (all full, seen, or locked by concurrent reservations at this instant). ``label``: a
    final label to upsert in the same statement (stored whether or not an item is reserved), and
    ``wanted`` the answers its item wants now (None: unchanged)."""
    expires = now + timedelta(seconds=campaign.reservation_ttl_seconds)
    order = serve_order(campaign)
    sql, salt = _RESERVE_BY_ORDER[order], rater_salt(campaign, user.pk) if order[1] == "rater" else ""
    params = {
        "campaign": campaign.pk,
        "user": user.pk,
        "now": now,
        "expires": expires,
        "salt": salt,
    }
    if label is not None:
        sql, params = _RESERVE_LABELLED[sql], {**params, **_label_params(label, wanted)}
    row = _one(sql, params, savepoint=savepoint)
    if row is None:
        return None
    values = dict(zip(_ITEM_COLUMNS, row[1:], strict=True))
    for name in ("payload", "gold"):  # jsonb arrives as text through Django's cursor
        if isinstance(values[name], str):
            values[name] = json.loads(values[name])
    item = rowselect.from_db(Item, _ITEM_ATTNAMES, list(values.values()))
    item.campaign = campaign
    a = rowselect.from_db(
        Assignment,
        ["id", "campaign_id", "item_id", "user_id", "state", "reserved_at", "expires_at", "finished_at"],
        [row[0], campaign.pk, item.pk, user.pk, Assignment.State.RESERVED, now, expires, None],
    )
    a.item = item
    return a


def _answer_params(
    a: Assignment, item: Item, user: User, clean: dict[str, Any], key: str, time_ms: int, source: str, now: datetime
) -> dict[str, Any]:
    return {
        "assignment": a.pk,
        "campaign": item.campaign.pk,
        "item": item.pk,
        "user": user.pk,
        "answer": json.dumps(clean),
        "time_ms": time_ms,
        "key": key,
        "source": source,
        "now": now,
    }


def _answered(
    row: tuple[Any, ...],
    a: Assignment,
    item: Item,
    user: User,
    clean: dict[str, Any],
    key: str,
    time_ms: int,
    source: str,
    now: datetime,
) -> tuple[Response, Membership | None]:
    """The response a row of :data:`_ANSWER` (from its response id on) stored, and the membership."""
    resp = rowselect.from_db(
        Response,
        [
            "id",
            "campaign_id",
            "item_id",
            "user_id",
            "assignment_id",
            "answer",
            "time_ms",
            "idempotency_key",
            "source",
            "created_at",
        ],
        [row[0], item.campaign.pk, item.pk, user.pk, a.pk, clean, time_ms, key, source, now],
    )
    a.state, a.finished_at = Assignment.State.ANSWERED, now
    resp.assignment = a
    m = None
    if row[1] is not None:
        m = rowselect.from_db(Membership, _MEMBERSHIP_ATTNAMES, list(row[1:]))
    return resp, m


def answer_store(
    a: Assignment,
    item: Item,
    user: User,
    clean: dict[str, Any],
    *,
    key: str,
    time_ms: int,
    source: str,
    now: datetime,
    savepoint: bool = True,
) -> tuple[Response, Membership | None] | None:
    """Answer a live reservation of a regular item in one statement; None when it was not live or
    the person's membership is not active (blocked, failed, back to the qualification).
    Returns the response and the person's membership as the statement left it."""
    params = _answer_params(a, item, user, clean, key, time_ms, source, now)
    row = _one(_ANSWER, params, savepoint=savepoint)
    if row is None:
        return None
    return _answered(row, a, item, user, clean, key, time_ms, source, now)


def answer_store_read(
    a: Assignment,
    item: Item,
    user: User,
    clean: dict[str, Any],
    *,
    key: str,
    time_ms: int,
    source: str,
    now: datetime,
) -> tuple[Response, Membership | None, LabelRows] | None:
    """:func:`answer_store`, and the input of :func:`annotation.services.labels.final_label_compute`
    read in the same statement (:data:`_ANSWER_READ`), inside the caller's transaction: ``(answer,
    latest adjudication id, its label, user id)`` of each answer to the item, oldest first, this one
    last - read again after the lock (:func:`label_rows`) when the item's row changed since the
    statement's snapshot. None when nothing was answered (not live, not an active member)."""
    params = _answer_params(a, item, user, clean, key, time_ms, source, now)
    row = _one(_ANSWER_READ, params, savepoint=False)
    if row is None:
        return None
    same, answers, users, adj_id, adj_label = row[:5]
    stored = _answered(row[5:], a, item, user, clean, key, time_ms, source, now)
    if not same:  # a concurrent change committed before the lock: the snapshot may lack it
        return (*stored, label_rows(item))
    if isinstance(adj_label, str):  # jsonb arrives as text through Django's cursor
        adj_label = json.loads(adj_label)
    rows: LabelRows = [(json.loads(x), adj_id, adj_label, u) for x, u in zip(answers or [], users or [], strict=True)]
    rows.append((clean, adj_id, adj_label, user.pk))  # this answer: the newest, so the last by id
    return (*stored, rows)
