"""Reads on the annotators' hot path: a person's membership, live reservation and progress bar, and
the submit's precompiled lookup (:mod:`cocoweb.rowselect`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

from django.db import models
from django.db.models import Count

from accounts.people import Visitor
from annotation.models import Assignment, Campaign, Item, Membership, Response
from annotation.selectors.campaigns import campaign_visible_to
from cocoweb import rowselect


@dataclass(frozen=True, slots=True)
class Progress:
    """What the work page's progress line says: ``done`` of ``total`` (None: not shown)."""

    label: str
    done: int | None
    total: int | None


def qualification_item_count(campaign: Campaign) -> int:
    """How many qualification items each person answers: the campaign's size, of its pool."""
    pool = Item.objects.filter(campaign=campaign, role=Item.Role.QUALIFICATION).count()
    return min(campaign.qualification_size or pool, pool)


def work_progress(campaign: Campaign, m: Membership) -> Progress:
    """An annotator's progress: qualification items answered of all, then :func:`answered_progress`."""
    if m.state == Membership.State.QUALIFYING:
        done = Response.objects.filter(
            user_id=m.user_id, item__campaign=campaign, item__role=Item.Role.QUALIFICATION
        ).count()  # by id: no query for the user
        return Progress("Qualification", done, qualification_item_count(campaign))
    return answered_progress(campaign, m)


@cache
def _submit_sql() -> str:
    return (
        f"SELECT {rowselect.columns(Assignment, 'a')}, {rowselect.columns(Item, 'i')}, "
        f"{rowselect.columns(Campaign, 'c')} FROM annotation_assignment a "
        "JOIN annotation_campaign c ON c.id = a.campaign_id JOIN annotation_item i ON i.id = a.item_id "
        "WHERE c.name = %s AND a.user_id = %s AND i.uid = %s"
    )


def submit_target(slug: str, user: Visitor, uid: str) -> Assignment | None:
    """This person's assignment of the item (by its opaque ``uid``) in the campaign named ``slug``, with its item and
    campaign loaded, when the campaign is visible to them (else None). The submit's hot path:
    one precompiled statement (:mod:`cocoweb.rowselect`) instead of an ORM join compiled per request."""
    got = rowselect.fetch_one(_submit_sql(), (slug, user.pk, uid), (Assignment, Item, Campaign))
    if got is None:
        return None
    a, item, campaign = got
    assert isinstance(a, Assignment)
    assert isinstance(item, Item)
    assert isinstance(campaign, Campaign)
    if not campaign_visible_to(campaign, user):
        return None
    a.item, a.campaign, item.campaign = item, campaign, campaign
    return a


@cache
def _membership_sql() -> str:
    return (
        f"SELECT {rowselect.columns(Membership, 'm')} FROM {Membership._meta.db_table} m "
        "WHERE m.campaign_id = %s AND m.user_id = %s"
    )


@cache
def _live_sql() -> str:
    return (
        f"SELECT {rowselect.columns(Assignment, 'a')}, {rowselect.columns(Item, 'i')} "
        f"FROM {Assignment._meta.db_table} a JOIN {Item._meta.db_table} i ON i.id = a.item_id "
        f"WHERE a.campaign_id = %s AND a.user_id = %s AND a.state = '{Assignment.State.RESERVED.value}'"
    )


def membership_of(campaign: Campaign, user: Visitor) -> Membership | None:
    """This person's membership of the campaign (unique per campaign and person), in one
    precompiled statement: the item box reads it at every request."""
    got = rowselect.fetch_one(_membership_sql(), (campaign.pk, user.pk), (Membership,))
    if got is None:
        return None
    m = got[0]
    assert isinstance(m, Membership)
    return m


def live_reservation(campaign: Campaign, user: Visitor) -> Assignment | None:
    """This person's live reservation in the campaign (at most one: a unique index), with its
    item, in one precompiled statement."""
    return assignment_with_item(rowselect.fetch_one(_live_sql(), (campaign.pk, user.pk), (Assignment, Item)), campaign)


def assignment_with_item(got: Sequence[models.Model] | None, campaign: Campaign) -> Assignment | None:
    """An (assignment, item) row of a precompiled statement, linked to each other and to their
    (already loaded) campaign, or None."""
    if got is None:
        return None
    a, item = got
    assert isinstance(a, Assignment)
    assert isinstance(item, Item)
    a.item, a.campaign, item.campaign = item, campaign, campaign
    return a


_ITEM_COUNTS: dict[tuple[int, float], dict[str, int]] = {}  # items never change after creation: once per process


def item_counts(campaign: Campaign) -> dict[str, int]:
    """The campaign's number of items per role, counted once per process."""
    key = (campaign.pk, campaign.created_at.timestamp())
    counts = _ITEM_COUNTS.get(key)
    if counts is None:
        rows = Item.objects.filter(campaign=campaign).values_list("role").annotate(n=Count("id")).order_by()
        counts = _ITEM_COUNTS[key] = dict(rows)
    return counts


def answers_total(campaign: Campaign) -> int:
    """How many items a person answers after any qualification, as the progress bar and the crowd
    consent page count them (issue 29 item 3): the person's budget (or every regular item) plus the
    checks that come with it: one after every ``attention_every`` regular answers, before the last,
    as far as there are attention items."""
    counts = item_counts(campaign)
    regular, attention = counts.get(Item.Role.REGULAR, 0), counts.get(Item.Role.ATTENTION, 0)
    budget = min(regular, campaign.max_items_per_annotator or regular)
    every = campaign.attention_every
    return budget + (min(attention, (budget - 1) // every) if every and budget else 0)


def answered_progress(campaign: Campaign, m: Membership) -> Progress:
    """The work page's progress bar: every answer moves it by one, a check's like any other, and
    no skip moves it (an attention item must not give itself away by the count). The total is
    :func:`answers_total`."""
    # A skipped check counts as missed (attention_failed) but was not answered: only then one query.
    skipped = 0
    if m.attention_failed:
        skipped = Assignment.objects.filter(
            campaign=campaign, user_id=m.user_id, state=Assignment.State.SKIPPED, item__role=Item.Role.ATTENTION
        ).count()
    done = m.regular_answered + m.attention_passed + m.attention_failed - skipped
    return Progress("Answered", done, answers_total(campaign))
