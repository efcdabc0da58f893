"""The assignment queue: what a person sees next, and what happens when they submit, skip or
undo. Every capacity decision is a conditional ``UPDATE`` (``… WHERE slots_taken < answers_wanted``,
``… WHERE state = 'reserved'``), so the invariants hold on SQLite and PostgreSQL alike under
concurrent requests; on PostgreSQL the candidate item is picked with ``SELECT … FOR UPDATE SKIP
LOCKED`` so concurrent annotators spread over different items instead of queueing on one row, and
the two hot paths (reserve a regular item, answer a live reservation) run as one statement each
(:mod:`annotation.queue.pg`)."""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.core.exceptions import ValidationError
from django.db import IntegrityError, connection, transaction
from django.db.models import Exists, F, OuterRef, Value
from django.db.models.functions import MD5, Concat
from django.utils import timezone

from accounts.people import User
from annotation.models import Assignment, Campaign, Item, Membership, Response
from annotation.queue import pg as queue_pg
from annotation.queue.order import rater_salt, serve_order
from annotation.selectors.work import item_counts, live_reservation, membership_of
from annotation.services.labels import final_label_compute, final_label_refresh_item
from annotation.services.qualification import attention_offset, person_order, qualification_item_ids
from annotation.services.reviews import (
    REVIEW_WAIT,
    REVIEWER_REFUSED,
    review_items_sync,
    review_may_grow,
    reviewer_refused,
)
from commonsense.validation import answer_normalise, gold_passed, items_needed, qualification_grade

RESERVED, ANSWERED, SKIPPED, EXPIRED = (
    Assignment.State.RESERVED,
    Assignment.State.ANSWERED,
    Assignment.State.SKIPPED,
    Assignment.State.EXPIRED,
)


@dataclass(frozen=True, slots=True)
class Step:
    """What the person gets next: an assignment to answer, or a state with a message."""

    state: str  # item | wait | done | closed | failed | blocked
    assignment: Assignment | None = None
    message: str = ""
    membership: Membership | None = None


def membership_get(campaign: Campaign, user: User) -> Membership:
    m = membership_of(campaign, user)
    if m is not None:
        return m
    has_qual = bool(item_counts(campaign).get(Item.Role.QUALIFICATION))
    state = Membership.State.QUALIFYING if has_qual else Membership.State.ACTIVE
    # INSERT … ON CONFLICT DO NOTHING: a concurrent first request of the same person may win.
    Membership.objects.bulk_create([Membership(campaign=campaign, user=user, state=state)], ignore_conflicts=True)
    return Membership.objects.get(campaign=campaign, user=user)


def _release(assignment_ids: list[int], new_state: str, now: datetime) -> int:
    """Move live reservations to ``new_state`` and give their regular items' slots back."""
    released = 0
    for pk, item_id, role in Assignment.objects.filter(pk__in=assignment_ids).values_list(
        "pk", "item_id", "item__role"
    ):
        with transaction.atomic():
            if Assignment.objects.filter(pk=pk, state=RESERVED).update(state=new_state, finished_at=now):
                released += 1
                if role == Item.Role.REGULAR:
                    Item.objects.filter(pk=item_id).update(slots_taken=F("slots_taken") - 1)
    return released


def reservations_release(campaign: Campaign, user: User, now: datetime | None = None) -> int:
    """End the person's live reservations in ``campaign`` (their slots go back to the pool): what a
    block or a qualification reset does, so that no reservation outlives the state that made it."""
    ids = list(Assignment.objects.filter(campaign=campaign, user=user, state=RESERVED).values_list("pk", flat=True))
    return _release(ids, EXPIRED, now or timezone.now()) if ids else 0


RECLAIM_EVERY = 5.0  # seconds between sweeps per campaign and process (a sweep is one indexed query)
_last_sweep: dict[int, float] = {}


def reservations_reclaim(campaign: Campaign, now: datetime | None = None, *, throttle: bool = False) -> int:
    """Expire reservations past their TTL and return their slots to the pool. With ``throttle``
    a process sweeps a campaign at most every ``RECLAIM_EVERY`` seconds (the queue sweeps again
    anyway when it finds no free slot)."""
    if throttle:
        tick = time.monotonic()
        if tick - _last_sweep.get(campaign.pk, -1e9) < RECLAIM_EVERY:
            return 0
        _last_sweep[campaign.pk] = tick
    now = now or timezone.now()
    ids = list(
        Assignment.objects.filter(campaign=campaign, state=RESERVED, expires_at__lte=now).values_list("pk", flat=True)[
            :500
        ]
    )
    return _release(ids, EXPIRED, now) if ids else 0


def _reserve(campaign: Campaign, user: User, item: Item, now: datetime) -> Assignment:
    return Assignment.objects.create(
        campaign=campaign,
        item=item,
        user=user,
        state=RESERVED,
        reserved_at=now,
        expires_at=now + timedelta(seconds=campaign.reservation_ttl_seconds),
    )


def _unseen(campaign: Campaign, user: User, role: str) -> Any:
    seen = Assignment.objects.filter(item=OuterRef("pk"), user=user)
    return Item.objects.filter(campaign=campaign, role=role).exclude(Exists(seen))


def _reserve_regular(campaign: Campaign, user: User, now: datetime) -> Assignment | None:
    """Take one slot of an item this person has not seen, in the campaign's order
    (:func:`annotation.queue.order.serve_order`): by default the most-answered first (items are completed early, so
    agreement and adjudication can start before the campaign ends); a survey in each rater's own order."""
    swept = False
    for _attempt in range(8):
        if connection.vendor == "postgresql":  # the same steps as below, in one statement
            a = queue_pg.reserve_regular(campaign, user, now)
            if a is not None:
                return a
            if swept or not reservations_reclaim(campaign, now):
                return None
            swept = True
            continue
        with transaction.atomic():
            qs = _unseen(campaign, user, Item.Role.REGULAR).filter(slots_taken__lt=F("answers_wanted"))
            # unsettled items that want more than the minimum first, then those a model's vote disagrees with
            first = ("-answers_wanted", "-priority")
            taken, tie = serve_order(campaign)  # then by answers taken, ties in the source's or the person's order
            by_taken = {"most": ("-slots_taken",), "least": ("slots_taken",), "": ()}[taken]
            last = MD5(Concat(Value(rater_salt(campaign, user.pk)), "uid")) if tie == "rater" else "position"
            item = qs.order_by(*first, *by_taken, last).first()  # fill: the item_queue_wanted index order
            if item is None:
                if swept or not reservations_reclaim(campaign, now):
                    return None
                swept = True  # expired reservations gave slots back: look again
                continue
            took = Item.objects.filter(pk=item.pk, slots_taken__lt=F("answers_wanted")).update(
                slots_taken=F("slots_taken") + 1
            )
            if took:
                item.slots_taken += 1
                return _reserve(campaign, user, item, now)
    return None


def _reserve_gold(campaign: Campaign, user: User, role: str, now: datetime) -> Assignment | None:
    """The person's next check or qualification item: of their own draw, in their own order (a
    forged participant learns nothing of where another's items are)."""
    seen = set(
        Assignment.objects.filter(campaign=campaign, user=user, item__role=role).values_list("item_id", flat=True)
    )
    if role == Item.Role.QUALIFICATION:
        ids = qualification_item_ids(campaign, user.pk)
    else:
        rows = dict(Item.objects.filter(campaign=campaign, role=role).values_list("uid", "pk"))
        ids = [rows[u] for u in person_order("attention", campaign.pk, user.pk, list(rows))]
    nxt = next((i for i in ids if i not in seen), None)
    return _reserve(campaign, user, Item.objects.get(pk=nxt), now) if nxt is not None else None


def _attention_due(campaign: Campaign, m: Membership) -> bool:
    """One check in each block of ``attention_every`` regular answers, at a place in the block drawn
    for this person (issue 31: the same place for everyone told a forged participant where it was);
    as many checks as before the budget's last answer, as far as the pool goes."""
    every = campaign.attention_every
    if not every or m.regular_answered == 0:
        return False
    block = m.attention_passed + m.attention_failed
    counts = item_counts(campaign)
    regular = counts.get(Item.Role.REGULAR, 0)
    budget = min(regular, campaign.max_items_per_annotator or regular)
    if block >= min(counts.get(Item.Role.ATTENTION, 0), max(0, budget - 1) // every):
        return False
    return m.regular_answered >= block * every + attention_offset(campaign.pk, m.user_id, block, every)


def _qualification_finish(campaign: Campaign, m: Membership) -> Membership:
    """Grade the qualification once every item of the person's draw is answered."""
    items = list(Item.objects.filter(pk__in=qualification_item_ids(campaign, m.user_id)))
    answers = dict(Response.objects.filter(item__in=items, user_id=m.user_id).values_list("item_id", "answer"))
    if len(answers) < len(items):
        return m
    grade = qualification_grade(
        campaign.kind, [(answers[i.pk], i.gold or {}, i.n_options) for i in items], campaign.qualification_pass_mark
    )
    state = Membership.State.ACTIVE if grade.passed else Membership.State.FAILED
    Membership.objects.filter(pk=m.pk, state=Membership.State.QUALIFYING).update(
        state=state, qualification_score=grade.score
    )
    m.refresh_from_db()
    return m


BLOCKED_BY_RESEARCHER = "The researchers running this campaign have ended it for you. Thank you for your time."
STOP_MESSAGES: dict[str, str] = {
    Membership.State.FAILED: "You did not pass the qualification for this campaign, so it has ended for you. Thank you for your time.",
    Membership.State.BLOCKED: "Too many attention checks were missed, so this campaign has ended for you.",
}


def stop_message(campaign: Campaign, m: Membership) -> str:
    """Why the campaign has ended for this person. A failed qualification is the last attempt here
    (an annotator account has one; a researcher may reset it), so it says how many items were right
    and how many were needed (which ones were wrong stays private: the questions are the test)."""
    if m.state == Membership.State.FAILED and m.qualification_score is not None:
        n = len(qualification_item_ids(campaign, m.user_id))
        return (
            f"You did not pass the qualification for this campaign: you answered {round(m.qualification_score * n)} "
            f"of its {n} questions exactly right, and {items_needed(campaign.qualification_pass_mark, n)} were needed. "
            "The campaign has ended for you. Thank you for your time."
        )
    if m.state == Membership.State.BLOCKED and m.attention_failed <= campaign.attention_max_failures:
        return BLOCKED_BY_RESEARCHER  # not the attention checks: do not blame them
    return STOP_MESSAGES[m.state]


def next_step(campaign: Campaign, user: User, now: datetime | None = None, *, after: Submitted | None = None) -> Step:
    """The person's live reservation if they have one, else a new one: qualification items
    first, an attention item when one is due, else a regular item (the most-answered first).
    ``after``: the submit this request just made. When it answered the person's live reservation
    there is none to look up (a concurrent one would still be found: reserving then fails on the
    one-live-reservation index and the live one is returned), and its membership is current."""
    now = now or timezone.now()
    if not campaign.is_open:
        return Step("closed", message="This campaign is not open.")
    if campaign.kind == Campaign.Kind.REVIEW and reviewer_refused(campaign, user):
        return Step("done", message=REVIEWER_REFUSED)
    no_live = after is not None and after.was_live
    m = (after.membership if after is not None and no_live else None) or membership_get(campaign, user)
    if m.state in STOP_MESSAGES:
        return Step(m.state, message=stop_message(campaign, m), membership=m)
    live = None if no_live else live_reservation(campaign, user)
    if live is not None and live.expires_at > now:
        return Step("item", live, membership=m)
    if live is not None:
        _release([live.pk], EXPIRED, now)
    reservations_reclaim(campaign, now, throttle=True)
    try:
        assignment = _choose(campaign, user, m, now)
    except IntegrityError:  # a concurrent request of the same person reserved first
        live = live_reservation(campaign, user)
        return Step("item", live, membership=m) if live else Step("done", message="Nothing left for you right now.")
    if assignment is None and campaign.kind == Campaign.Kind.REVIEW and review_items_sync(campaign):
        assignment = _choose(campaign, user, m, now)  # items settled since: they are under review now
    if isinstance(assignment, Step):
        return assignment
    if m.state == Membership.State.QUALIFYING:
        m.refresh_from_db()  # graded inside _choose
    if assignment is None:
        if _may_free_up(campaign, user, m):
            return Step("wait", message=WAIT_MESSAGE, membership=m)
        if campaign.kind == Campaign.Kind.REVIEW and review_may_grow(campaign):
            return Step("wait", message=REVIEW_WAIT, membership=m)
        return Step("done", message="You have answered everything available to you. Thank you!", membership=m)
    return Step("item", assignment, membership=m)


WAIT_MESSAGE = (
    "Every item you have not answered is being answered by someone else right now. Slots come back "
    "when someone skips or their time runs out: this box looks again every few seconds."
)


def _may_free_up(campaign: Campaign, user: User, m: Membership) -> bool:
    """No slot is free for this person, but an item they have not seen still lacks answers: its
    remaining slots are reserved by others and come back on a skip or when a reservation expires.
    Saying "done" then would lose that work (people leave)."""
    if campaign.max_items_per_annotator is not None and m.regular_answered >= campaign.max_items_per_annotator:
        return False
    return _unseen(campaign, user, Item.Role.REGULAR).filter(answer_count__lt=F("answers_wanted")).exists()


def _choose(campaign: Campaign, user: User, m: Membership, now: datetime) -> Assignment | Step | None:
    if m.state == Membership.State.QUALIFYING:
        a = _reserve_gold(campaign, user, Item.Role.QUALIFICATION, now)
        if a is not None:
            return a
        m = _qualification_finish(campaign, m)
        if m.state in STOP_MESSAGES:
            return Step(m.state, message=stop_message(campaign, m))
    if campaign.max_items_per_annotator is not None and m.regular_answered >= campaign.max_items_per_annotator:
        return None
    if _attention_due(campaign, m):
        a = _reserve_gold(campaign, user, Item.Role.ATTENTION, now)
        if a is not None:
            return a
    return _reserve_regular(campaign, user, now)


@dataclass(frozen=True, slots=True)
class Submitted:
    response: Response
    created: bool  # False: a retried / double-clicked submit that found the stored answer
    was_live: bool = False  # True: it answered the person's live reservation (so none is left)
    membership: Membership | None = None  # the person's membership just after, when the store read it


def _existing(item: Item, user: User) -> Submitted | None:
    r = Response.objects.filter(item=item, user=user).first()
    return Submitted(r, False) if r else None


def response_submit(
    item: Item,
    user: User,
    answer: dict[str, Any],
    *,
    idempotency_key: str | None = None,
    time_ms: int | None = None,
    source: str = Response.Source.WEB,
    now: datetime | None = None,
    assignment: Assignment | None = None,
) -> Submitted:
    """Store one answer for an item shown to this person. Idempotent: the same key, or a second
    answer to the same item, returns the stored response instead of adding one. ``assignment``:
    this person's assignment of the item when the caller has read it already (else it is looked up)."""
    now = now or timezone.now()
    key = (idempotency_key or "").strip()[:64] or uuid.uuid4().hex
    campaign = item.campaign
    try:
        clean = answer_normalise(campaign.kind, answer, n_options=item.n_options, ask_common=campaign.ask_common_sense)
    except ValueError as exc:
        raise ValidationError(str(exc)) from None
    a = assignment
    if a is None or a.item_id != item.pk or a.user_id != user.pk:
        a = Assignment.objects.filter(item=item, user=user).first()
    if a is None:
        raise ValidationError("this item was not given to you")
    if a.state == ANSWERED:  # a retry or a double click: the stored answer stands
        done = _by_key(key, item, user) or _existing(item, user)
        if done:
            return done
    one_statement = a.state == RESERVED and item.role == Item.Role.REGULAR and connection.vendor == "postgresql"
    if not one_statement:  # (the one statement checks the membership itself)
        _membership_allows(campaign, item, user)
    server_ms = max(0, int((now - a.reserved_at).total_seconds() * 1000))
    ms = time_ms if time_ms is not None and 0 <= time_ms <= server_ms + 5000 else server_ms
    if one_statement:
        # The common case: the answer in one statement and the item's final label, committed together
        # (the label is read with the item's row locked, so a concurrent answer cannot be left out of
        # it); None: no longer live, take the general path.
        try:
            with transaction.atomic():
                stored = queue_pg.answer_store(
                    a, item, user, clean, key=key, time_ms=ms, source=source, now=now, savepoint=False
                )
                if stored is not None:
                    final_label_refresh_item(campaign, item)
        except IntegrityError:
            done = _by_key(key, item, user) or _existing(item, user)
            if done is None:
                raise
            return done
        if stored is not None:
            return Submitted(stored[0], True, was_live=True, membership=stored[1])
        _membership_allows(campaign, item, user)  # not stored: a stopped person is told why
    try:
        with transaction.atomic():
            if not Assignment.objects.filter(pk=a.pk, state=RESERVED).update(state=ANSWERED, finished_at=now):
                if not Assignment.objects.filter(pk=a.pk, state=EXPIRED).update(state=ANSWERED, finished_at=now):
                    done = _by_key(key, item, user) or _existing(item, user)
                    if done:
                        return done
                    raise ValidationError("you skipped this item")
                if item.role == Item.Role.REGULAR and not Item.objects.filter(
                    pk=item.pk, slots_taken__lt=F("answers_wanted")
                ).update(slots_taken=F("slots_taken") + 1):
                    raise ValidationError("your reservation expired and this item has all its answers now")
            resp = Response.objects.create(
                campaign=campaign,
                item=item,
                user=user,
                assignment=a,
                answer=clean,
                time_ms=ms,
                idempotency_key=key,
                source=source,
            )
            Item.objects.filter(pk=item.pk).update(answer_count=F("answer_count") + 1)
            _membership_after(campaign, item, user, clean)
            final_label_refresh_item(campaign, item)  # the votes changed: so does the label
    except IntegrityError:  # a concurrent twin won the race, or the key was used before
        done = _by_key(key, item, user) or _existing(item, user)
        if done is None:
            raise
        return done
    return Submitted(resp, True)


class _NotFast(Exception):
    """The one-transaction submit does not apply: roll it back and take the general path."""


def response_submit_next(
    item: Item,
    user: User,
    answer: dict[str, Any],
    *,
    assignment: Assignment | None,
    idempotency_key: str | None = None,
    time_ms: int | None = None,
    now: datetime | None = None,
) -> tuple[Submitted, Step]:
    """:func:`response_submit`, then :func:`next_step` after it: what an htmx submit does. On
    PostgreSQL the common case - a live reservation of a regular item, answered by an active person
    whose next item is a regular one - is one transaction of two statements with one commit: the
    answer with the item's answers read for its final label (:func:`annotation.queue.pg.answer_store_read`),
    and the label's upsert together with the next reservation (:func:`annotation.queue.pg.reserve_regular`).
    Anything else (a retry, an expired reservation, a check item due, a constraint violation, no
    free item) rolls that transaction back, if it began, and takes the general path."""
    now = now or timezone.now()
    campaign = item.campaign
    a = assignment
    if (
        connection.vendor == "postgresql"
        and a is not None
        and a.state == RESERVED
        and a.item_id == item.pk
        and a.user_id == user.pk
        and item.role == Item.Role.REGULAR
        and campaign.is_open
    ):
        try:
            clean = answer_normalise(
                campaign.kind, answer, n_options=item.n_options, ask_common=campaign.ask_common_sense
            )
        except ValueError as exc:
            raise ValidationError(str(exc)) from None
        key = (idempotency_key or "").strip()[:64] or uuid.uuid4().hex
        server_ms = max(0, int((now - a.reserved_at).total_seconds() * 1000))
        ms = time_ms if time_ms is not None and 0 <= time_ms <= server_ms + 5000 else server_ms
        reservations_reclaim(campaign, now, throttle=True)  # as next_step does; outside the transaction
        step: Step | None = None
        try:
            with transaction.atomic():
                stored = queue_pg.answer_store_read(
                    a, item, user, clean, key=key, time_ms=ms, source=Response.Source.WEB, now=now
                )
                if stored is None:
                    raise _NotFast
                resp, m, rows = stored
                if m is None:
                    raise _NotFast
                label, wanted = final_label_compute(campaign, item, rows)
                if (
                    m.state == Membership.State.ACTIVE
                    and (
                        campaign.max_items_per_annotator is None
                        or m.regular_answered < campaign.max_items_per_annotator
                    )
                    and not _attention_due(campaign, m)
                ):
                    nxt = queue_pg.reserve_regular(campaign, user, now, label=label, wanted=wanted, savepoint=False)
                    if nxt is not None:
                        step = Step("item", nxt, membership=m)
                else:  # a check item or a stop is next: the answer and its label commit, next_step decides
                    queue_pg.label_store(label, wanted, now)
        except (_NotFast, IntegrityError):  # rolled back: nothing of it is stored
            a.state, a.finished_at = RESERVED, None
        else:
            done = Submitted(resp, True, was_live=True, membership=m)
            # no free item at this instant (the label is stored): next_step sweeps and says why
            return done, step or next_step(campaign, user, now, after=done)
    done = response_submit(item, user, answer, idempotency_key=idempotency_key, time_ms=time_ms, now=now, assignment=a)
    return done, next_step(campaign, user, now, after=done)


def _membership_allows(campaign: Campaign, item: Item, user: User) -> None:
    """A blocked person, or one who failed the qualification, answers nothing more - not even to an
    old reservation; a person still qualifying answers only qualification items."""
    state = Membership.objects.filter(campaign=campaign, user=user).values_list("state", flat=True).first()
    if state in STOP_MESSAGES:
        raise ValidationError("this campaign has ended for you; the answer was not stored")
    if state == Membership.State.QUALIFYING and item.role != Item.Role.QUALIFICATION:
        raise ValidationError("finish the qualification first")


def _by_key(key: str, item: Item, user: User) -> Submitted | None:
    prior = Response.objects.filter(idempotency_key=key).first()
    if prior is None:
        return None
    if prior.user_id != user.pk or prior.item_id != item.pk:
        raise ValidationError("this idempotency key belongs to another answer")
    return Submitted(prior, False)


def _membership_after(campaign: Campaign, item: Item, user: User, answer: dict[str, Any]) -> None:
    ms = Membership.objects.filter(campaign=campaign, user=user)
    if item.role == Item.Role.REGULAR:
        ms.update(regular_answered=F("regular_answered") + 1)
    elif item.role == Item.Role.ATTENTION:
        if gold_passed(campaign.kind, answer, item.gold or {}, n_options=item.n_options):
            ms.update(attention_passed=F("attention_passed") + 1)
        else:
            ms.update(attention_failed=F("attention_failed") + 1)
            ms.filter(attention_failed__gt=campaign.attention_max_failures).update(state=Membership.State.BLOCKED)
    else:
        m = ms.first()
        if m is not None and m.state == Membership.State.QUALIFYING:
            _qualification_finish(campaign, m)


def assignment_skip(campaign: Campaign, user: User, item: Item, now: datetime | None = None) -> bool:
    """Skip an item: its slot returns to the pool; the person will not see it again. An attention
    item is skipped like any other (Skip must not tell it apart); the server counts that skip as a
    missed check. Qualification items are announced as such and cannot be skipped."""
    if item.role == Item.Role.QUALIFICATION:
        raise ValidationError("qualification items cannot be skipped")
    a = Assignment.objects.filter(campaign=campaign, user=user, item=item, state=RESERVED).first()
    skipped = bool(a and _release([a.pk], SKIPPED, now or timezone.now()))
    if skipped and item.role == Item.Role.ATTENTION:
        ms = Membership.objects.filter(campaign=campaign, user=user)
        ms.update(attention_failed=F("attention_failed") + 1)
        ms.filter(attention_failed__gt=campaign.attention_max_failures).update(state=Membership.State.BLOCKED)
    return skipped


def _give_back(campaign: Campaign, user: User) -> None:
    """Put the person's live reservation back as if it had never been made: its slot returns to
    the pool and the item stays unseen, so it is offered to them again after the undone one (an
    expired row would hide it from them for good)."""
    for pk, item_id, role in Assignment.objects.filter(campaign=campaign, user=user, state=RESERVED).values_list(
        "pk", "item_id", "item__role"
    ):
        if Assignment.objects.filter(pk=pk, state=RESERVED).delete()[0] and role == Item.Role.REGULAR:
            Item.objects.filter(pk=item_id).update(slots_taken=F("slots_taken") - 1)


def response_undo(campaign: Campaign, user: User, now: datetime | None = None) -> Assignment | None:
    """Withdraw the person's last answer and give that item back to them (their current
    reservation, if any, is released). An attention item's answer is undone like any other (a
    refusal would tell it apart), its pass or failure withdrawn with it; qualification answers (the
    page announces those) cannot be undone, nor can anything once the campaign has ended for them."""
    now = now or timezone.now()
    last = (
        Response.objects.filter(campaign=campaign, user=user)
        .exclude(source=Response.Source.IMPORT)
        .select_related("item", "assignment")
        .order_by("-created_at", "-id")
        .first()
    )
    if last is None:
        return None
    role = last.item.role
    if (
        role == Item.Role.QUALIFICATION
        or Membership.objects.filter(campaign=campaign, user=user, state=Membership.State.QUALIFYING).exists()
    ):
        raise ValidationError("qualification answers cannot be undone")
    if Membership.objects.filter(campaign=campaign, user=user, state__in=list(STOP_MESSAGES)).exists():
        raise ValidationError("this campaign has ended for you")
    counter = "regular_answered"
    if role == Item.Role.ATTENTION:
        item = last.item
        passed = gold_passed(campaign.kind, last.answer, item.gold or {}, n_options=item.n_options)
        counter = "attention_passed" if passed else "attention_failed"
    with transaction.atomic():
        _give_back(campaign, user)
        a = last.assignment
        if a is None or not Response.objects.filter(pk=last.pk).delete()[0]:
            return None
        Assignment.objects.filter(pk=a.pk).update(
            state=RESERVED,
            finished_at=None,
            reserved_at=now,
            expires_at=now + timedelta(seconds=campaign.reservation_ttl_seconds),
        )
        Item.objects.filter(pk=last.item_id).update(answer_count=F("answer_count") - 1)
        Membership.objects.filter(campaign=campaign, user=user).update(**{counter: F(counter) - 1})
        final_label_refresh_item(campaign, last.item)
    a.refresh_from_db()
    a.previous_answer = last.answer  # type: ignore[attr-defined]
    return a
