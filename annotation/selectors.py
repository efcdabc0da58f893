"""Reads: campaigns visible to a person, progress, answers as rater × item matrices, agreement
(per-option pairwise, Fleiss' kappa, Krippendorff's alpha, majority vote — computed by
:mod:`commonsense.agreement`), NWW commonsensicality for surveys, and the adjudication queue."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any, Literal, NotRequired, TypedDict

import numpy as np
from django.contrib.auth import get_user_model
from django.db import models
from django.db.models import Count, Q, QuerySet
from django.db.models.fields.json import KT

from accounts.people import User, Visitor
from accounts.roles import RESEARCHER, has_role
from cocoweb import rowselect
from commonsense import agreement
from commonsense.metrics import nww
from commonsense.metrics.bootstrap import mean_ci
from commonsense.validation import JUDGEMENTS, ItemLabel, JudgementShares, item_label, judgement_shares
from knowledge.models import QuestionSet

from .models import Assignment, Campaign, FinalLabel, Item, Membership, Response


def campaign_list_for(user: Visitor) -> QuerySet[Campaign]:
    """The campaigns this person may open (the rule :func:`campaign_visible_to` applies to one)."""
    qs = Campaign.objects.select_related("statement_set", "question_set")
    return qs if has_role(user, RESEARCHER) else qs.filter(status=Campaign.Status.OPEN)


def campaign_visible_to(campaign: Campaign, user: Visitor) -> bool:
    """Whether :func:`campaign_list_for` would list this campaign for this person."""
    return has_role(user, RESEARCHER) or campaign.status == Campaign.Status.OPEN


def campaign_for_work(slug: str, user: Visitor) -> Campaign | None:
    """The campaign named ``slug`` if this person may open it, without its sets (the work pages
    never show them: no joins)."""
    return campaign_list_for(user).select_related(None).filter(name=slug).first()


def campaigns_closed() -> QuerySet[Campaign]:
    """Closed campaigns, with only what their closing notice shows."""
    return Campaign.objects.only("name", "title").filter(status=Campaign.Status.CLOSED)


def campaign_items(campaign: Campaign) -> QuerySet[Item]:
    return Item.objects.filter(campaign=campaign)


def campaign_with_sets() -> QuerySet[Campaign]:
    """Campaigns with their statement or question set (the researcher pages name them)."""
    return Campaign.objects.select_related("statement_set", "question_set")


def regular_items(campaign: Campaign) -> QuerySet[Item]:
    return Item.objects.filter(campaign=campaign, role=Item.Role.REGULAR)


def regular_answer_counts(campaign: Campaign) -> list[int]:
    """How many answers each regular item has (the dashboard's histogram)."""
    return list(regular_items(campaign).values_list("answer_count", flat=True))


def answered_items(campaign: Campaign, limit: int) -> QuerySet[Item]:
    """The first ``limit`` regular items (by position) with at least one answer."""
    return regular_items(campaign).filter(answer_count__gt=0).order_by("position")[:limit]


def usernames(user_ids: list[int]) -> dict[int, str]:
    """user id -> username (the dashboard names its raters)."""
    return dict(get_user_model().objects.filter(pk__in=user_ids).values_list("pk", "username"))


def adjudicated_labels(campaign: Campaign, limit: int) -> QuerySet[FinalLabel]:
    """The latest ``limit`` labels a researcher decided, with the decision and its author."""
    return (
        FinalLabel.objects.filter(item__campaign=campaign, provenance=FinalLabel.Provenance.ADJUDICATED)
        .select_related("item", "adjudication__decided_by")
        .order_by("-adjudication__decided_at")[:limit]
    )


def final_label_of(item: Item) -> FinalLabel | None:
    return FinalLabel.objects.filter(item=item).first()


@dataclass(frozen=True, slots=True)
class CampaignRow:
    """A campaign on an annotator's list, with their membership in it (None: not joined yet)."""

    campaign: Campaign
    membership: Membership | None


def campaign_rows_for(user: User) -> list[CampaignRow]:
    """The campaigns this person may open, each with their membership. Two queries."""
    mine = {m.campaign_id: m for m in Membership.objects.filter(user=user)}
    return [CampaignRow(c, mine.get(c.pk)) for c in campaign_list_for(user)]


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
        done = m.user.annotation_responses.filter(item__campaign=campaign, item__role=Item.Role.QUALIFICATION).count()
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
    assert isinstance(a, Assignment) and isinstance(item, Item) and isinstance(campaign, Campaign)
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
    assert isinstance(a, Assignment) and isinstance(item, Item)
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


def answered_progress(campaign: Campaign, m: Membership) -> Progress:
    """The work page's progress bar: every answer moves it by one, a check's like any other, and
    no skip moves it (an attention item must not give itself away by the count). The total is the
    person's budget (or every regular item) plus the checks that come with it: one after every
    ``attention_every`` regular answers, before the last, as far as there are attention items."""
    counts = item_counts(campaign)
    regular, attention = counts.get(Item.Role.REGULAR, 0), counts.get(Item.Role.ATTENTION, 0)
    budget = min(regular, campaign.max_items_per_annotator or regular)
    every = campaign.attention_every
    checks = min(attention, (budget - 1) // every) if every and budget else 0
    # A skipped check counts as missed (attention_failed) but was not answered: only then one query.
    skipped = 0
    if m.attention_failed:
        skipped = Assignment.objects.filter(
            campaign=campaign, user_id=m.user_id, state=Assignment.State.SKIPPED, item__role=Item.Role.ATTENTION
        ).count()
    done = m.regular_answered + m.attention_passed + m.attention_failed - skipped
    return Progress("Answered", done, budget + checks)


class CampaignProgress(TypedDict):
    """A campaign's regular items and answers, and its annotators (``members_<state>``: per
    membership state, present when someone is in it)."""

    items: int
    complete: int
    answers: int
    target: int
    reserved: int
    annotators: int
    members_qualifying: NotRequired[int]
    members_active: NotRequired[int]
    members_failed: NotRequired[int]
    members_blocked: NotRequired[int]


def campaign_progress(campaign: Campaign) -> CampaignProgress:
    agg = Item.objects.filter(campaign=campaign, role=Item.Role.REGULAR).aggregate(
        items=Count("id"),
        complete=Count("id", filter=Q(answer_count__gte=campaign.redundancy)),
    )
    answers = Response.objects.filter(campaign=campaign, item__role=Item.Role.REGULAR).count()
    members = Membership.objects.filter(campaign=campaign).values("state").annotate(n=Count("id"))
    by_state = {m["state"]: m["n"] for m in members}
    live = Assignment.objects.filter(campaign=campaign, state=Assignment.State.RESERVED).count()
    out = CampaignProgress(
        items=agg["items"],
        complete=agg["complete"],
        answers=answers,
        target=agg["items"] * campaign.redundancy,
        reserved=live,
        annotators=sum(by_state.values()),
    )
    out.update({f"members_{k}": v for k, v in by_state.items()})  # type: ignore[typeddict-item]
    return out


def regular_answers(campaign: Campaign, item_ids: list[int] | None = None) -> list[tuple[int, int, dict[str, Any]]]:
    """``(user_id, item_id, answer)`` of every regular item's responses, oldest first."""
    return list(_regular_responses(campaign, item_ids).values_list("user_id", "item_id", "answer"))


def _regular_responses(campaign: Campaign, item_ids: list[int] | None = None) -> QuerySet[Response]:
    qs = Response.objects.filter(campaign=campaign, item__role=Item.Role.REGULAR)
    if item_ids is not None:
        qs = qs.filter(item_id__in=item_ids)
    return qs.order_by("id")


@dataclass(frozen=True, slots=True)
class ItemLabelRow:
    item_id: int
    label: ItemLabel
    below_threshold: bool


def needs_adjudication(lab: ItemLabel, threshold: float) -> bool:
    """COM2 A.4: the authors "manually checked the QA pairs with an IAA lower than 0.6" - strictly
    lower, compared without float noise (a mean of thirds is not exactly 0.6); and every item whose
    majority is tied, whatever its agreement, since no label follows from the votes."""
    if not lab.decided and lab.n > 0:
        return True
    return lab.agreement is not None and round(lab.agreement, 9) < round(threshold, 9)


def campaign_item_labels(campaign: Campaign, *, item_ids: list[int] | None = None) -> list[ItemLabelRow]:
    items = Item.objects.filter(campaign=campaign, role=Item.Role.REGULAR)
    if item_ids is not None:
        items = items.filter(pk__in=item_ids)
    n_options = dict(items.values_list("id", "payload__options"))
    by_item: dict[int, list[dict[str, Any]]] = {}
    for _user, item, answer in regular_answers(campaign, item_ids):
        by_item.setdefault(item, []).append(answer)
    rows = []
    for item_id, answers in by_item.items():
        lab = item_label(campaign.kind, answers, n_options=len(n_options.get(item_id) or []))
        rows.append(ItemLabelRow(item_id, lab, needs_adjudication(lab, campaign.agreement_threshold)))
    return rows


@dataclass
class Matrices:
    """Rater × item matrices (NaN = not rated) of one campaign's regular answers."""

    raters: list[int]
    items: list[int]
    primary: np.ndarray  # survey: (a) agree; rica: valid
    predict: np.ndarray | None = None  # survey (b)
    selections: np.ndarray | None = None  # mcqa: rater × item × option, 1 ticked
    n_options: int = 0
    statements: list[int | None] | None = None  # survey: each item's statement (read with the answers)


_BITS: dict[Any, float] = {1: 1.0, 0: 0.0, "1": 1.0, "0": 0.0, "true": 1.0, "false": 0.0, "null": float("nan")}


def _bit(value: Any) -> float:
    """A 0/1 answer as the database reads it out of the JSON: a number on SQLite, text on
    PostgreSQL (``->>``), ``true``/``false`` if stored as a boolean; NaN when absent or JSON
    ``null`` (SQLite names the type of a null, true or false value: ``'null'``)."""
    if value is None:
        return float("nan")
    bit = _BITS.get(value)
    return float(value) if bit is None else bit


def campaign_matrices(campaign: Campaign) -> Matrices:
    statement_of: dict[int, int | None] = {}
    rows: list[tuple[int, int, Any]]
    if campaign.kind == Campaign.Kind.SURVEY:  # each item's statement in the same statement
        # the two answers read out of the JSON by the database (a survey has tens of thousands of
        # answers: decoding each whole answer in Python was most of a statement page's cost)
        rows = []
        for user, item, agree, predict, statement in _regular_responses(campaign).values_list(
            "user_id", "item_id", KT("answer__agree"), KT("answer__predict"), "item__statement_id"
        ):
            rows.append((user, item, (_bit(agree), _bit(predict))))
            statement_of[item] = statement
    else:
        rows = regular_answers(campaign)
    raters = sorted({r[0] for r in rows})
    items = sorted({r[1] for r in rows})
    ri, ii = {r: i for i, r in enumerate(raters)}, {t: i for i, t in enumerate(items)}
    shape = (len(raters), len(items))
    m = Matrices(raters, items, np.full(shape, np.nan))
    if campaign.kind == Campaign.Kind.SURVEY:
        m.predict = np.full(shape, np.nan)
        m.statements = [statement_of[i] for i in items]
    if campaign.kind == Campaign.Kind.MCQA:
        lens = Item.objects.filter(pk__in=items).values_list("payload__options", flat=True)
        m.n_options = max((len(x or []) for x in lens), default=0)
        m.selections = np.full((*shape, m.n_options), np.nan)
    for user, item, ans in rows:
        r, c = ri[user], ii[item]
        if campaign.kind == Campaign.Kind.SURVEY:
            m.primary[r, c], m.predict[r, c] = ans  # type: ignore[index]
        elif campaign.kind == Campaign.Kind.RICA:
            m.primary[r, c] = ans["valid"]
        elif campaign.kind == Campaign.Kind.GENERATION:
            m.primary[r, c] = JUDGEMENTS.index(ans["judgement"])
        else:
            sel = m.selections
            assert sel is not None
            sel[r, c, :] = 0.0
            sel[r, c, ans.get("plausible", [])] = 1.0
            m.primary[r, c] = float(bool(ans.get("none_correct")))
    return m


@dataclass
class AgreementSummary:
    n_raters: int = 0
    n_items: int = 0
    pairwise: float | None = None  # mean pairwise (per-option for MCQA) agreement
    fleiss: float | None = None
    fleiss_items: int = 0
    fleiss_dropped: int = 0
    fleiss_note: str = ""
    krippendorff: float | None = None
    per_item: dict[int, float] = field(default_factory=dict)
    majority: dict[int, Any] = field(default_factory=dict)


def _kappa(values: np.ndarray, summary: AgreementSummary, n_categories: int = 2) -> None:
    try:
        k = agreement.fleiss_kappa(values, n_categories=n_categories, unequal="drop")
    except ValueError as exc:
        summary.fleiss_note = str(exc)
        return
    summary.fleiss, summary.fleiss_items, summary.fleiss_dropped = k.kappa, k.n_items, k.dropped_items


def campaign_agreement(campaign: Campaign, m: Matrices | None = None) -> AgreementSummary:
    """Campaign-level agreement. MCQA: the rated cells are (question, option) pairs, ticked or
    not (COM2's per-option IAA and Fleiss' kappa); surveys: question (a); RICA: the choice."""
    m = m or campaign_matrices(campaign)
    s = AgreementSummary(len(m.raters), len(m.items))
    if not m.items:
        return s
    if campaign.kind == Campaign.Kind.MCQA and m.selections is not None:
        opt = agreement.option_agreement(m.selections)
        s.pairwise = opt.overall
        s.per_item = {item: float(v) for item, v in zip(m.items, opt.per_question, strict=True) if np.isfinite(v)}
        flat = m.selections.reshape(len(m.raters), -1)
        flat = flat[:, ~np.all(np.isnan(flat), axis=0)]
        _kappa(flat, s)
        s.krippendorff = agreement.krippendorff_alpha(flat, n_categories=2)
        return s
    pair = agreement.pairwise_agreement(m.primary)
    s.pairwise = float(np.nanmean(pair)) if np.isfinite(pair).any() else None
    s.per_item = {item: float(v) for item, v in zip(m.items, pair, strict=True) if np.isfinite(v)}
    k = len(JUDGEMENTS) if campaign.kind == Campaign.Kind.GENERATION else 2
    _kappa(m.primary, s, k)
    s.krippendorff = agreement.krippendorff_alpha(m.primary, n_categories=k)
    tie: Literal["high", "none"] = "high" if campaign.kind == Campaign.Kind.SURVEY else "none"  # NWW: tie = agree
    vote = agreement.majority_vote(m.primary, tie=tie, n_categories=k)
    s.majority = {item: (None if np.isnan(v) else int(v)) for item, v in zip(m.items, vote.labels, strict=True)}
    return s


@dataclass
class NwwSummary:
    statements: nww.StatementScores
    raters: nww.RaterScores
    summary: dict[str, Any]
    rater_ids: list[int]
    item_ids: list[int]


def campaign_nww(
    campaign: Campaign, m: Matrices | None = None, *, n_boot: int = 1000, leave_one_out: bool = False
) -> NwwSummary | None:
    """NWW statement and annotator scores with bootstrap intervals; None if not a survey or
    nothing answered. Annotators as NWW Eqs. 9–11 define them: against the majority of all raters,
    their own vote included; ``leave_one_out=True`` scores each against the majority of the
    *other* raters instead."""
    if campaign.kind != Campaign.Kind.SURVEY:
        return None
    m = m or campaign_matrices(campaign)
    if not m.items or m.predict is None:
        return None
    st = nww.statement_scores(m.primary, m.predict)
    rs = nww.rater_scores(m.primary, m.predict, leave_one_out=leave_one_out)
    summary = {k: v.as_dict() for k, v in st.summary(n_boot=n_boot, seed=campaign.seed).items()}
    summary["annotator_M"] = mean_ci(rs.commonsensicality, n_boot=n_boot, seed=campaign.seed).as_dict()
    return NwwSummary(st, rs, summary, m.raters, m.items)


def adjudication_queue(campaign: Campaign) -> QuerySet[FinalLabel]:
    """Items under the agreement threshold without a decision, lowest agreement first."""
    return (
        FinalLabel.objects.filter(item__campaign=campaign, below_threshold=True, adjudication__isnull=True)
        .select_related("item")
        .order_by("agreement", "item__position")
    )


def recent_responses(campaign: Campaign, limit: int = 50) -> QuerySet[Response]:
    return (
        Response.objects.filter(campaign=campaign).select_related("item", "user").order_by("-created_at", "-id")[:limit]
    )


def item_responses(item: Item) -> QuerySet[Response]:
    return Response.objects.filter(item=item).select_related("user").order_by("created_at", "id")


@dataclass
class SurveyMatrix:
    """A survey campaign's answers by statement: rater × statement (a) and (b), NaN = not rated."""

    campaign: Campaign
    statement_ids: list[int]
    rater_ids: list[int]
    agree: np.ndarray
    predict: np.ndarray

    def rates(self) -> dict[int, tuple[float, float, int]]:
        """Per statement: the human rates d^a and d^b (NWW Eqs. 3 and 5) and the number of raters."""
        n = np.sum(~np.isnan(self.agree), axis=0)
        with np.errstate(invalid="ignore", divide="ignore"):
            da, db = np.nansum(self.agree, axis=0) / n, np.nansum(self.predict, axis=0) / n
        return {s: (float(da[i]), float(db[i]), int(n[i])) for i, s in enumerate(self.statement_ids) if n[i]}


def survey_matrix(campaign: Campaign, m: Matrices | None = None) -> SurveyMatrix | None:
    """The campaign's regular answers with statement ids for columns; None if not a survey or empty.
    ``m``: its :func:`campaign_matrices` when read already."""
    if campaign.kind != Campaign.Kind.SURVEY:
        return None
    m = m if m is not None else campaign_matrices(campaign)
    if not m.items or m.predict is None or m.statements is None:
        return None
    return SurveyMatrix(campaign, m.statements, m.raters, m.primary, m.predict)  # type: ignore[arg-type]


class HumanQuality(TypedDict):
    """What the latest MCQA validation campaign of a question set says about its items."""

    campaign: str
    items: int
    accepted: int
    share_accepted: float
    gold_confirmed: int
    agreement: float | None


def question_set_human_quality(qset: QuestionSet) -> HumanQuality | None:
    """Issue 11 item 8: what the latest MCQA validation campaign of ``qset`` says about it. An item
    is accepted when the majority found the context sensible and at least one option plausible
    (COM2 keeps such items); its gold is confirmed when the gold option is among the plausible."""
    campaign = (
        Campaign.objects.filter(question_set=qset, kind=Campaign.Kind.MCQA, items__final_label__isnull=False)
        .distinct()
        .order_by("-created_at")
        .first()
    )
    if campaign is None:
        return None
    rows = FinalLabel.objects.filter(item__campaign=campaign, item__role=Item.Role.REGULAR).values_list(
        "label", "item__question__answer_index"
    )
    items = accepted = confirmed = 0
    for label, gold in rows.iterator(chunk_size=2000):
        items += 1
        plausible = list(label.get("plausible") or [])
        ok = bool(plausible) and not label.get("bad_context")
        accepted += ok
        confirmed += ok and gold in plausible
    agreement = campaign_agreement(campaign).pairwise
    return HumanQuality(
        campaign=campaign.name,
        items=items,
        accepted=accepted,
        share_accepted=round(accepted / items, 4) if items else 0.0,
        gold_confirmed=confirmed,
        agreement=None if agreement is None else round(float(agreement), 4),
    )


def generation_judgements(campaign: Campaign) -> list[JudgementShares]:
    """COM2 Table 4 of a generation campaign: the final labels (majority, or a reviewer's
    decision) of its judged generations per query kind and overall, with n. Items nobody judged
    yet are left out; tied ones are counted as undecided."""
    rows = FinalLabel.objects.filter(item__campaign=campaign, item__role=Item.Role.REGULAR, n_answers__gt=0)
    return judgement_shares(
        [(str(s or ""), lab.get("judgement")) for s, lab in rows.values_list("item__payload__structure", "label")]
    )


def run_generation_campaigns(run_ids: list[int]) -> list[Campaign]:
    """The generation campaigns judging these runs, newest first."""
    return list(
        Campaign.objects.filter(kind=Campaign.Kind.GENERATION, run_id__in=run_ids).order_by("-created_at", "-pk")
    )
