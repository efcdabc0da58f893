"""Answers as rater × item matrices and what they agree on (per-option pairwise, Fleiss' kappa,
Krippendorff's alpha, majority vote — computed by :mod:`commonsense.agreement`), NWW
commonsensicality for surveys."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
from django.db.models import QuerySet
from django.db.models.fields.json import KT

from annotation.models import Campaign, Item, Response
from annotation.selectors.quality import item_judge
from commonsense import agreement
from commonsense.annotators import Judged
from commonsense.metrics import nww
from commonsense.metrics.bootstrap import mean_ci
from commonsense.review import N_CATEGORIES as REVIEW_CATEGORIES
from commonsense.review import review_category
from commonsense.validation import JUDGEMENTS, ItemLabel, item_label

# NWW scores each rater against the majority of the *other* raters and each statement by how
# far its raters agree: with fewer than two raters there is nothing to agree or disagree with.
NWW_MIN_RATERS = 2


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
    judged: Judged | None = None  # MCQA: posteriors and settlement under the campaign's annotator model


def needs_adjudication(lab: ItemLabel, threshold: float) -> bool:
    """COM2 A.4: the authors "manually checked the QA pairs with an IAA lower than 0.6" - strictly
    lower, compared without float noise (a mean of thirds is not exactly 0.6); and every item whose
    majority is tied, whatever its agreement, since no label follows from the votes."""
    if not lab.decided and lab.n > 0:
        return True
    return lab.agreement is not None and round(lab.agreement, 9) < round(threshold, 9)


def campaign_item_labels(campaign: Campaign, *, item_ids: list[int] | None = None) -> list[ItemLabelRow]:
    """Every answered regular item's final label from its answers; an MCQA item's under the
    campaign's label rule, with its posteriors and settlement (``judged``)."""
    items = Item.objects.filter(campaign=campaign, role=Item.Role.REGULAR)
    if item_ids is not None:
        items = items.filter(pk__in=item_ids)
    n_options = dict(items.values_list("id", "payload__options"))
    by_item: dict[int, list[tuple[int, dict[str, Any]]]] = {}
    for user, item, answer in regular_answers(campaign, item_ids):
        by_item.setdefault(item, []).append((user, answer))
    rows = []
    for item_id, answers in by_item.items():
        n_opts = len(n_options.get(item_id) or [])
        judged = item_judge(campaign, n_opts, answers) if campaign.adaptive else None
        lab = (
            judged.label if judged is not None else item_label(campaign.kind, [a for _, a in answers], n_options=n_opts)
        )
        rows.append(ItemLabelRow(item_id, lab, needs_adjudication(lab, campaign.agreement_threshold), judged))
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
        elif campaign.kind == Campaign.Kind.REVIEW:
            m.primary[r, c] = review_category(ans)
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
    k = {"generation": len(JUDGEMENTS), "review": REVIEW_CATEGORIES}.get(str(campaign.kind), 2)
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
