"""Reads for following a crowd study live: how many participants started, finished, returned or
were screened out; median time per item; attention and qualification pass rates; items still short
of their redundancy; one row per participant (and per named account) with what a payment or bonus
upload needs."""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from datetime import datetime
from functools import cache
from typing import Any, cast

from django.db.models import Count, F, Q, QuerySet, Sum

from accounts.people import User
from annotation.models import (
    AnnotatorQuality,
    Assignment,
    Campaign,
    CrowdStudy,
    Item,
    Membership,
    Participant,
    Response,
)
from annotation.selectors.work import Progress, assignment_with_item, work_progress
from cocoweb import rowselect


def crowd_study(campaign: Campaign) -> CrowdStudy | None:
    """The campaign's crowd study settings (None: never saved)."""
    return CrowdStudy.objects.filter(campaign=campaign).first()


def campaign_memberships(campaign: Campaign) -> QuerySet[Membership]:
    return Membership.objects.filter(campaign=campaign)


def crowd_progress(campaign: Campaign, m: Membership) -> Progress:
    """A participant's progress, as an annotator's (:func:`selectors.work.work_progress`): the
    qualification's questions answered of the number consent stated, then every answer, a check's
    too (so the count cannot single out an attention item), of the total consent stated."""
    return work_progress(campaign, m)


# The participant's hot path (every crowd page, every answer): precompiled statements whose rows
# come back as the instances the ORM would build (:mod:`cocoweb.rowselect`), so no queryset is
# compiled per request.
@cache
def _participant_sql() -> str:
    return (
        f"SELECT {rowselect.columns(Participant, 'p')}, {rowselect.columns(Campaign, 'c')}, "
        f"{rowselect.columns(User, 'u')}, {rowselect.columns(CrowdStudy, 's')} FROM annotation_participant p "
        f"JOIN annotation_campaign c ON c.id = p.campaign_id JOIN {User._meta.db_table} u ON u.id = p.user_id "
        "LEFT JOIN annotation_crowdstudy s ON s.campaign_id = c.id WHERE p.user_id = %s"
    )


def participant_of(user_id: int) -> tuple[Participant, Campaign, CrowdStudy] | None:
    """The participant this user is (with ``p.user`` loaded), their campaign and its study settings
    (the defaults when the campaign has none), in one statement (prepared once per connection)."""
    with rowselect.cursor() as cur:
        cur.execute(_participant_sql(), (user_id,))
        row = cur.fetchone()
    if row is None:
        return None
    parts = (Participant, Campaign, User)
    n = sum(len(m._meta.concrete_fields) for m in parts)
    p, campaign, user = rowselect.instances(row[:n], parts)
    assert isinstance(p, Participant)
    assert isinstance(campaign, Campaign)
    assert isinstance(user, User)
    p.user = user
    study = rowselect.instances(row[n:], (CrowdStudy,))[0] if row[n] is not None else CrowdStudy()
    assert isinstance(study, CrowdStudy)
    p.campaign = study.campaign = campaign
    return p, campaign, study


@cache
def _assignment_sql() -> str:
    return (
        f"SELECT {rowselect.columns(Assignment, 'a')}, {rowselect.columns(Item, 'i')} FROM annotation_assignment a "
        "JOIN annotation_item i ON i.id = a.item_id WHERE a.campaign_id = %s AND a.user_id = %s AND i.uid = %s"
    )


def assignment_of(campaign: Campaign, user_id: int, uid: str) -> Assignment | None:
    """This person's assignment of the item with this opaque uid, with its item, in one statement."""
    got = rowselect.fetch_one(_assignment_sql(), (campaign.pk, user_id, uid), (Assignment, Item))
    return assignment_with_item(got, campaign)


@dataclass(frozen=True, slots=True)
class CrowdOverview:
    started: int
    in_progress: int
    finished: int
    returned: int
    screened_out: int
    median_item_seconds: float | None
    attention_pass_rate: float | None  # share of answered checks passed (a skipped check is missed)
    attention_checks: int
    qualification_pass_rate: float | None  # share of graded people who passed (last attempt)
    qualification_graded: int
    items_short: int  # regular items still short of the answers they want
    answers_missing: int  # answers the items want now (the minimum, one more per unsettled item)
    answers_missing_max: int  # at most, if every unsettled item needs the campaign's maximum (adaptive redundancy)


def crowd_overview(campaign: Campaign) -> CrowdOverview:
    by_stage = dict(
        Participant.objects.filter(campaign=campaign).values_list("stage").annotate(n=Count("id")).order_by()
    )
    started = sum(by_stage.values())
    times = cast(  # time_ms__isnull=False: every time is an int
        list[int],
        list(
            Response.objects.filter(campaign=campaign, item__role=Item.Role.REGULAR, time_ms__isnull=False).values_list(
                "time_ms", flat=True
            )
        ),
    )
    att = Membership.objects.filter(campaign=campaign).aggregate(
        passed=Sum("attention_passed"), failed=Sum("attention_failed")
    )
    checks = (att["passed"] or 0) + (att["failed"] or 0)
    graded = Membership.objects.filter(campaign=campaign).filter(
        Q(qualification_score__isnull=False) | Q(state=Membership.State.FAILED)
    )
    g = graded.aggregate(n=Count("id"), failed=Count("id", filter=Q(state=Membership.State.FAILED)))
    short = Item.objects.filter(campaign=campaign, role=Item.Role.REGULAR, answer_count__lt=F("answers_wanted"))
    s = short.aggregate(n=Count("id"), have=Sum("answer_count"), want=Sum("answers_wanted"))
    # adaptive redundancy: an item not settled yet may want up to the maximum
    unsettled = Item.objects.filter(campaign=campaign, role=Item.Role.REGULAR).exclude(final_label__settled=True)
    if campaign.adaptive and campaign.answers_max > campaign.redundancy:
        unsettled = unsettled.exclude(final_label__settlement__in=("exhausted", "disputed"))
    u = unsettled.aggregate(n=Count("id"), have=Sum("answer_count"))
    return CrowdOverview(
        started=started,
        in_progress=sum(
            by_stage.get(k, 0)
            for k in (
                Participant.Stage.CONSENT,
                Participant.Stage.INSTRUCTIONS,
                Participant.Stage.DEMOGRAPHICS,
                Participant.Stage.ITEMS,
            )
        ),
        finished=by_stage.get(Participant.Stage.FINISHED, 0),
        returned=by_stage.get(Participant.Stage.RETURNED, 0),
        screened_out=by_stage.get(Participant.Stage.SCREENED_OUT, 0),
        median_item_seconds=statistics.median(times) / 1000 if times else None,
        attention_pass_rate=(att["passed"] or 0) / checks if checks else None,
        attention_checks=checks,
        qualification_pass_rate=(g["n"] - g["failed"]) / g["n"] if g["n"] else None,
        qualification_graded=g["n"],
        items_short=s["n"],
        answers_missing=(s["want"] or 0) - (s["have"] or 0),
        answers_missing_max=(u["n"] * campaign.answers_max - (u["have"] or 0))
        if campaign.answers_max > campaign.redundancy
        else (s["want"] or 0) - (s["have"] or 0),
    )


@dataclass(frozen=True, slots=True)
class PersonRow:
    user_id: int
    participant_id: int | None  # the Participant row (None: a named account)
    who: str  # the platform's participant id, or the account's username
    platform: str
    study_ref: str
    session_ref: str
    stage: str
    membership_state: str
    started: datetime | None
    finished: datetime | None
    items_answered: int
    time_on_items_s: float
    attention_passed: int
    attention_failed: int
    qualification_score: float | None
    qualification_attempts: int
    completion_code: str
    demographics: dict[str, Any]
    quality: AnnotatorQuality | None = None  # the latest Dawid-Skene / MACE estimates (MCQA campaigns)

    @property
    def stage_shown(self) -> str:
        """What the table says they are at: "qualification" while the items stage is still the
        qualification (issue 29 item 4), else the stage (a named account: its membership state)."""
        if self.stage == Participant.Stage.ITEMS and self.membership_state == Membership.State.QUALIFYING:
            return "qualification"
        return self.stage or self.membership_state

    @property
    def actions(self) -> tuple[str, ...]:
        return person_actions(self.membership_state, self.stage)


# What a researcher may do to a person of a campaign, by their membership state (issue 29 item 5):
# block whom could still answer, unblock whom is blocked (the attention checks screened them out,
# or a researcher did), a fresh qualification for whom failed it (screened out by it).
PERSON_ACTIONS = ("block", "unblock", "reset-qualification")
_ENDED = (Participant.Stage.FINISHED, Participant.Stage.RETURNED)


def person_actions(membership_state: str, stage: str = "") -> tuple[str, ...]:
    """The actions that apply to a person in this membership state (and, for a crowd participant,
    this stage: nobody who finished or returned the study is blocked)."""
    if membership_state == Membership.State.BLOCKED:
        return ("unblock",)
    if membership_state == Membership.State.FAILED:
        return ("reset-qualification",)
    if membership_state in (Membership.State.ACTIVE, Membership.State.QUALIFYING) and stage not in _ENDED:
        return ("block",)
    return ()


def person_actions_of(campaign: Campaign, m: Membership) -> tuple[str, ...]:
    """:func:`person_actions` of one member (the view checks a posted action against it)."""
    stage = Participant.objects.filter(campaign=campaign, user_id=m.user_id).values_list("stage", flat=True).first()
    return person_actions(m.state, stage or "")


def _answer_stats(campaign: Campaign) -> dict[int, tuple[int, float]]:
    rows = (
        Response.objects.filter(campaign=campaign, item__role=Item.Role.REGULAR)
        .values("user_id")
        .annotate(n=Count("id"), ms=Sum("time_ms"))
        .order_by()
    )
    return {r["user_id"]: (r["n"], (r["ms"] or 0) / 1000) for r in rows}


def person_rows(campaign: Campaign, *, named: bool = False) -> list[PersonRow]:
    """One row per crowd participant (``named=False``) or per named account with a membership."""
    stats = _answer_stats(campaign)
    members = {m.user_id: m for m in Membership.objects.filter(campaign=campaign)}
    quality = {q.user_id: q for q in AnnotatorQuality.objects.filter(campaign=campaign)}
    rows: list[PersonRow] = []
    if not named:
        for p in Participant.objects.filter(campaign=campaign).order_by("started_at", "id"):
            m = members.get(p.user_id)
            n, secs = stats.get(p.user_id, (0, 0.0))
            graded = 1 if m is not None and m.qualification_score is not None else 0
            rows.append(
                PersonRow(
                    p.user_id,
                    p.pk,
                    p.external_id,
                    p.platform,
                    p.study_ref,
                    p.session_ref,
                    p.stage,
                    m.state if m else "",
                    p.started_at,
                    p.finished_at,
                    n,
                    secs,
                    m.attention_passed if m else 0,
                    m.attention_failed if m else 0,
                    m.qualification_score if m else None,
                    len(p.qualification_scores) + graded,
                    p.completion_code or "",
                    p.demographics,
                    quality.get(p.user_id),
                )
            )
        return rows
    crowd = set(Participant.objects.filter(campaign=campaign).values_list("user_id", flat=True))
    for m in Membership.objects.filter(campaign=campaign).select_related("user").order_by("joined_at", "id"):
        if m.user_id in crowd:
            continue
        n, secs = stats.get(m.user_id, (0, 0.0))
        rows.append(
            PersonRow(
                m.user_id,
                None,
                m.user.get_username(),
                "account",
                "",
                "",
                "",
                m.state,
                m.joined_at,
                None,
                n,
                secs,
                m.attention_passed,
                m.attention_failed,
                m.qualification_score,
                1 if m.qualification_score is not None else 0,
                "",
                {},
                quality.get(m.user_id),
            )
        )
    return rows
