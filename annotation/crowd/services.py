"""Crowd participants: the study link's identity, joining (one participant per platform id and
campaign, even when the same id arrives twice at once), one browser session at a time, the
participant's stages, qualification retries, and the completion code.

A participant is a user without a role: every annotator, researcher and admin page refuses them;
the crowd pages (:mod:`annotation.crowd.views.participant`) admit them for their own campaign only.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import quote

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone

from annotation.crowd.selectors import crowd_study
from annotation.models import (
    DEMOGRAPHIC_FIELDS,
    Assignment,
    Campaign,
    CrowdStudy,
    Item,
    Membership,
    Participant,
    Response,
)
from annotation.queue import operations as queue

# How long a browser keeps a participant after its last request: a second browser (or a second
# device) with the same id is refused until then; after it, the new browser takes over (the first
# one crashed or was closed).
SESSION_HOLD = timedelta(minutes=5)
TOUCH_EVERY = timedelta(seconds=20)  # last_seen_at is written at most this often per participant
MTURK_PREVIEW = "ASSIGNMENT_ID_NOT_AVAILABLE"
MAX_ID = 200
CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I: codes are typed by hand
CODE_LENGTH = 12  # 32**12 = 2**60 codes


@dataclass(frozen=True, slots=True)
class Identity:
    platform: str
    external_id: str
    study_ref: str = ""
    session_ref: str = ""
    preview: bool = False  # MTurk shows the HIT before it is accepted: no participant yet


def _clean_id(value: str, name: str) -> str:
    v = value.strip()
    if not v:
        raise ValidationError(f"{name} is empty")
    if len(v) > MAX_ID:
        raise ValidationError(f"{name} is longer than {MAX_ID} characters")
    if not v.isprintable():
        raise ValidationError(f"{name} contains control characters")
    return v


def _clean_ref(query: Any, name: str) -> str:
    """An optional platform field (study, session, HIT, assignment): absent or empty is "", any
    other value is held to ``_clean_id``'s rules (it is stored and shown to researchers)."""
    value = query.get(name)
    return _clean_id(value, name) if value is not None and value.strip() else ""


def identity_from_query(query: Any) -> Identity:
    """The participant's identity from a study link's query string: Prolific (``PROLIFIC_PID``,
    ``STUDY_ID``, ``SESSION_ID``), MTurk (``workerId``, ``assignmentId``, ``hitId``) or a plain
    ``participant`` for any other panel."""
    if query.get("PROLIFIC_PID") is not None:
        return Identity(
            Participant.Platform.PROLIFIC,
            _clean_id(query["PROLIFIC_PID"], "PROLIFIC_PID"),
            _clean_ref(query, "STUDY_ID"),
            _clean_ref(query, "SESSION_ID"),
        )
    if query.get("assignmentId") == MTURK_PREVIEW:
        return Identity(Participant.Platform.MTURK, "", _clean_ref(query, "hitId"), "", preview=True)
    if query.get("workerId") is not None:
        return Identity(
            Participant.Platform.MTURK,
            _clean_id(query["workerId"], "workerId"),
            _clean_ref(query, "hitId"),
            _clean_ref(query, "assignmentId"),
        )
    if query.get("participant") is not None:
        return Identity(Participant.Platform.OTHER, _clean_id(query["participant"], "participant"))
    raise ValidationError(
        "this study link has no participant id: it needs PROLIFIC_PID (Prolific), workerId (MTurk) or participant"
    )


def crowd_study_enable(campaign: Campaign, **settings: Any) -> CrowdStudy:
    """Open a campaign to crowd participants (or update its study settings). Crowd campaigns give
    each participant the least-answered items first, so every item reaches its redundancy evenly."""
    unknown = set(settings.get("demographics") or []) - set(DEMOGRAPHIC_FIELDS)
    if unknown:
        raise ValidationError(f"unknown demographic fields {sorted(unknown)}; choose from {list(DEMOGRAPHIC_FIELDS)}")
    study = CrowdStudy.objects.filter(campaign=campaign).first() or CrowdStudy(campaign=campaign)
    for name, value in settings.items():
        setattr(study, name, value)
    study.full_clean()  # before anything is written: a javascript: completion URL is never stored
    study.save()
    Campaign.objects.filter(pk=campaign.pk).update(assign_order="even")
    campaign.assign_order = "even"
    return study


@dataclass(frozen=True, slots=True)
class Joined:
    participant: Participant
    outcome: str  # new | resumed | busy


def _new_participant(campaign: Campaign, ident: Identity, claim: str, now: datetime) -> Participant | None:
    """Create the participant and its role-less, password-less user, held by the browser that
    brought it (``claim``); None if a concurrent request of the same id created it first."""
    try:
        with transaction.atomic():
            user = get_user_model().objects.create_user(f"crowd-{secrets.token_hex(10)}", password=None)
            return Participant.objects.create(
                campaign=campaign,
                user=user,
                platform=ident.platform,
                external_id=ident.external_id,
                study_ref=ident.study_ref,
                session_ref=ident.session_ref,
                claim=claim,
                last_seen_at=now,
            )
    except IntegrityError:
        return None


def participant_known(campaign: Campaign, ident: Identity) -> bool:
    """Whether this participant id has joined the study before."""
    return Participant.objects.filter(
        campaign=campaign, platform=ident.platform, external_id=ident.external_id
    ).exists()


ENDED_STAGES = (Participant.Stage.FINISHED, Participant.Stage.RETURNED, Participant.Stage.SCREENED_OUT)


def _may_take_over(p: Participant, ident: Identity) -> bool:
    """Whether a browser that does not hold ``p`` may take them over (once the holder is silent):
    never a participant whose study has ended (their completion code stays with the browser that
    holds them); on Prolific and MTurk only with the session reference stored at the join (Prolific
    ``SESSION_ID``, MTurk ``assignmentId``), which the platform gives the person and nobody else
    sees, so their platform id alone is not enough. Other panels have no such reference: their
    ids are the secret (docs/crowd-studies.md)."""
    if p.stage in ENDED_STAGES:
        return False
    if p.platform == Participant.Platform.OTHER:
        return True
    return bool(p.session_ref) and secrets.compare_digest(p.session_ref.encode(), ident.session_ref.encode())


def participant_join(campaign: Campaign, ident: Identity, held_claim: str, now: datetime | None = None) -> Joined:
    """The participant of this id in this campaign, created on the first visit. ``held_claim`` is
    the claim this browser holds (empty if none). A browser that holds the participant resumes; a
    different browser takes it over only when :func:`_may_take_over` allows it and the holder has
    been silent for ``SESSION_HOLD``, otherwise it is refused (``busy``, whatever the reason, so the
    answer does not tell whether an id is active). The take-over is one conditional UPDATE, so two
    browsers arriving at once cannot both win."""
    now = now or timezone.now()
    key = {"campaign": campaign, "platform": ident.platform, "external_id": ident.external_id}
    p = Participant.objects.filter(**key).first()
    claim = secrets.token_hex(16)
    if p is None:
        p = _new_participant(campaign, ident, claim, now)
        if p is not None:  # created, and held by this browser from the start
            return Joined(p, "new")
        p = Participant.objects.filter(**key).first()
        if p is None:  # not a concurrent twin of this id: the platform session belongs to another id
            raise ValidationError(
                "this study session already belongs to another participant id: one participant per platform session"
            )
    if held_claim and p.claim == held_claim:
        return Joined(p, "resumed")
    if not _may_take_over(p, ident):
        return Joined(p, "busy")
    free = Q(claim="") | Q(last_seen_at__isnull=True) | Q(last_seen_at__lt=now - SESSION_HOLD)
    if not Participant.objects.filter(free, pk=p.pk, claim=p.claim).update(claim=claim, last_seen_at=now):
        return Joined(p, "busy")
    p.claim, p.last_seen_at = claim, now
    return Joined(p, "resumed")


def participant_touch(p: Participant, now: datetime | None = None) -> None:
    now = now or timezone.now()
    if p.last_seen_at is None or now - p.last_seen_at > TOUCH_EVERY:
        Participant.objects.filter(pk=p.pk, claim=p.claim).update(last_seen_at=now)
        p.last_seen_at = now


def _stage_set(p: Participant, stage: str, **fields: Any) -> Participant:
    for k, v in {"stage": stage, **fields}.items():
        setattr(p, k, v)
    Participant.objects.filter(pk=p.pk).update(stage=stage, **fields)
    return p


def study_of(campaign: Campaign) -> CrowdStudy:
    return crowd_study(campaign) or CrowdStudy(campaign=campaign)


def consent_record(
    p: Participant,
    agreed: bool,
    study: CrowdStudy,
    answers: dict[str, str] | None = None,
    now: datetime | None = None,
) -> Participant:
    """The consent page's answer. It shows the instructions and the demographics questions too (one
    page, one request, instead of three): agreeing stores the asked fields only (anything else in
    ``answers`` is dropped; empty = no answer) and goes straight to the items; declining stores
    nothing of them. The separate instructions and demographics stages remain for participants who
    reached them before."""
    if p.stage != Participant.Stage.CONSENT:
        return p
    if not agreed:
        return _stage_set(p, Participant.Stage.RETURNED, finished_at=now or timezone.now())
    kept = {f: (answers or {})[f] for f in study.demographics if (answers or {}).get(f)}
    return _stage_set(p, Participant.Stage.ITEMS, consented_at=now or timezone.now(), demographics=kept)


def instructions_done(p: Participant, study: CrowdStudy) -> Participant:
    if p.stage != Participant.Stage.INSTRUCTIONS:
        return p
    return _stage_set(p, Participant.Stage.DEMOGRAPHICS if study.demographics else Participant.Stage.ITEMS)


def demographics_record(p: Participant, study: CrowdStudy, answers: dict[str, str]) -> Participant:
    """Store the asked fields only (anything else in ``answers`` is dropped); empty = no answer."""
    if p.stage != Participant.Stage.DEMOGRAPHICS:
        return p
    kept = {f: answers[f] for f in study.demographics if answers.get(f)}
    return _stage_set(p, Participant.Stage.ITEMS, demographics=kept)


def qualification_attempts_left(p: Participant, study: CrowdStudy) -> int:
    """Attempts still allowed after the current (graded) one."""
    return max(0, study.qualification_attempts - len(p.qualification_scores) - 1)


@transaction.atomic
def qualification_reset(campaign: Campaign, user: Any, *, keep_history: bool = True) -> None:
    """Start the person's qualification again: their qualification answers and assignments go,
    their membership is back to ``qualifying``. With ``keep_history`` (a participant's own retry)
    the failed score is kept and counts as an attempt; a researcher's reset clears it."""
    m = Membership.objects.select_for_update().filter(campaign=campaign, user=user).first()
    if m is None:
        return
    p = Participant.objects.filter(campaign=campaign, user=user).first()
    if p is not None:
        scores = list(p.qualification_scores) if keep_history else []
        if keep_history and m.qualification_score is not None:
            scores.append(m.qualification_score)
        fields: dict[str, Any] = {"qualification_scores": scores}
        if p.stage == Participant.Stage.SCREENED_OUT:
            fields["stage"], fields["finished_at"] = Participant.Stage.ITEMS, None
        Participant.objects.filter(pk=p.pk).update(**fields)
    quals = Item.objects.filter(campaign=campaign, role=Item.Role.QUALIFICATION)
    Response.objects.filter(item__in=quals, user=user).delete()
    Assignment.objects.filter(item__in=quals, user=user).delete()
    queue.reservations_release(campaign, user)  # a live regular reservation is not theirs to answer now
    Membership.objects.filter(pk=m.pk).update(state=Membership.State.QUALIFYING, qualification_score=None)


def _code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def participant_finish(p: Participant, now: datetime | None = None) -> Participant:
    """Finish the study: a fresh unguessable completion code, unique across all participants."""
    if p.stage == Participant.Stage.FINISHED and p.completion_code:
        return p
    for _ in range(5):
        try:
            with transaction.atomic():
                return _stage_set(
                    p, Participant.Stage.FINISHED, completion_code=_code(), finished_at=now or timezone.now()
                )
        except IntegrityError:  # a code collision (2**-60 per pair): draw again
            continue
    raise RuntimeError("could not draw a unique completion code")


def screen_out(p: Participant, now: datetime | None = None) -> Participant:
    if p.stage in (Participant.Stage.SCREENED_OUT, Participant.Stage.FINISHED):
        return p
    return _stage_set(p, Participant.Stage.SCREENED_OUT, finished_at=now or timezone.now())


def completion_link(study: CrowdStudy, p: Participant) -> str:
    """The campaign's completion URL with ``{code}`` replaced by the participant's code."""
    url = study.completion_url
    if not url or not p.completion_code:
        return ""
    return url.replace("{code}", quote(p.completion_code))


def screenout_link(study: CrowdStudy) -> str:
    """The study's screen-out URL with ``{code}`` replaced by its screen-out code (issue 29 item 2)."""
    return study.screenout_url.replace("{code}", quote(study.screenout_code))


def membership_block(campaign: Campaign, user: Any, blocked: bool) -> None:
    """A researcher blocks (or lets back) one person; a blocked participant is screened out."""
    m = Membership.objects.filter(campaign=campaign, user=user)
    p = Participant.objects.filter(campaign=campaign, user=user).first()
    if blocked:
        m.update(state=Membership.State.BLOCKED)
        queue.reservations_release(campaign, user)  # no live reservation outlives the block
        if p is not None:
            screen_out(p)
        return
    m.filter(state=Membership.State.BLOCKED).update(state=Membership.State.ACTIVE)
    if p is not None and p.stage == Participant.Stage.SCREENED_OUT:
        _stage_set(p, Participant.Stage.ITEMS, finished_at=None)
