"""Where the explorer's data from other apps comes from, behind one named function per need.

``runs`` provides runs and predictions; ``annotation`` provides human votes, agreement and final
labels (``FinalLabel`` per campaign ``Item``, which points at a question or a statement). This
module is the only place the explorer reads annotation data. When several campaigns labelled the
same item, the most recently computed label counts.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from functools import cached_property
from typing import Any, TypeVar

from django.apps import apps
from django.db import connection
from django.db.models import Count, Exists, FloatField, Max, OuterRef, Q, QuerySet, Sum
from django.db.models.fields.json import KeyTextTransform
from django.db.models.functions import Cast

from .rows import FinalLabelRow, GroupAccuracy, VerifiedAccuracyRow
from .run_aggregates import entry, kept

AGREEMENT_PENDING = (
    "No question of this run has a final human label yet: levels come from the annotation app's "
    "MCQA validation campaigns."
)
HUMAN_SCORES_PENDING = (
    "No survey answers on this statement set yet: the raters' commonsensicality comes from a "
    "survey campaign in the annotation app."
)
HUMAN_RATES_NOTE = (
    "Human side: the share of survey raters who agree, where a survey campaign has answers; else the "
    "stored human majority (0/1)."
)
VALIDATION_STATUSES = ("unvalidated", "in-progress", "validated", "contested", "adjudicated", "rejected")
AGREEMENT_LEVELS = ("unanimous", "majority", "contested", "adjudicated")


def runs_available() -> bool:
    return apps.is_installed("runs") and _has_model("runs", "Prediction")


def annotation_available() -> bool:
    return apps.is_installed("annotation") and _has_model("annotation", "FinalLabel")


def _has_model(app: str, model: str) -> bool:
    try:
        apps.get_model(app, model)
    except LookupError:
        return False
    return True


def _labels(**item_filter: Any) -> QuerySet[Any]:
    FinalLabel = apps.get_model("annotation", "FinalLabel")
    regular = apps.get_model("annotation", "Item").Role.REGULAR
    return FinalLabel.objects.filter(item__role=regular, **{f"item__{k}": v for k, v in item_filter.items()})


def validation_choices() -> list[str]:
    return list(VALIDATION_STATUSES) if annotation_available() else ["unvalidated"]


def questions_with_validation(qs: QuerySet[Any], status: str) -> QuerySet[Any]:
    """Filter questions by validation status: unvalidated (in no campaign), in-progress (in a
    campaign, no final label yet), rejected (majority: no option plausible, or a senseless
    context), adjudicated, contested (under the agreement threshold, undecided), validated."""
    if not annotation_available():
        return qs if status == "unvalidated" else qs.none()
    Item = apps.get_model("annotation", "Item")
    in_campaign = Exists(Item.objects.filter(question=OuterRef("pk"), role=Item.Role.REGULAR))
    label = _labels(question=OuterRef("pk"))
    rejected = Q(label__none_correct=True) | Q(label__bad_context=True)
    if status == "unvalidated":
        return qs.filter(~in_campaign)
    if status == "in-progress":
        return qs.filter(in_campaign, ~Exists(label))
    if status == "rejected":
        return qs.filter(Exists(label.filter(rejected)))
    if status == "adjudicated":
        return qs.filter(Exists(label.filter(provenance=_provenance().ADJUDICATED)))
    if status == "contested":
        return qs.filter(Exists(label.filter(below_threshold=True, adjudication__isnull=True)))
    if status == "validated":
        return qs.filter(Exists(label.filter(below_threshold=False).exclude(rejected)))
    return qs.none()


# What the drawer shows of a final label, read as plain values: 500 labels as model instances with their
# item and campaign (every column, the posteriors' JSON included) cost more CPU than the rest of a drawer page.
_LABEL_COLUMNS = ("n_answers", "agreement", "provenance", "label", "votes", "item__campaign__name", "below_threshold")


def _label_rows(item_column: str, ids: list[int]) -> dict[int, FinalLabelRow]:
    """item id -> its final label (the latest computed where an item has several)."""
    if not annotation_available() or not ids:
        return {}
    out: dict[int, FinalLabelRow] = {}
    rows = (
        _labels(**{f"{item_column}__in": ids})
        .order_by("computed_at")
        .values_list(f"item__{item_column}", *_LABEL_COLUMNS)
    )
    for item_id, raters, agreement, provenance, label, votes, campaign, below in rows:
        out[item_id] = FinalLabelRow(
            raters=raters,
            agreement=agreement,
            provenance=provenance,
            label=label,
            votes=votes,
            campaign=campaign,
            below_threshold=below,
        )
    return out


def question_votes(question_ids: list[int]) -> dict[int, FinalLabelRow]:
    """question id -> its final label: raters, agreement, provenance, label, votes, campaign."""
    return _label_rows("question", question_ids)


def statement_votes(statement_ids: list[int]) -> dict[int, FinalLabelRow]:
    return _label_rows("statement", statement_ids)


def _provenance() -> Any:
    """annotation's FinalLabel.Provenance (unanimous, majority, adjudicated)."""
    return apps.get_model("annotation", "FinalLabel").Provenance


def _level_of(provenance: str | None, below: bool | None) -> str | None:
    if provenance is None:
        return None
    p = _provenance()
    if provenance == p.ADJUDICATED:
        return "adjudicated"
    if provenance == p.UNANIMOUS:
        return "unanimous"
    return "contested" if below else "majority"


def agreement_level_q(level: str) -> Q:
    """Q over Prediction: the question's final label is at ``level`` (for the drawer)."""
    if not annotation_available() or level not in AGREEMENT_LEVELS:
        return Q(pk__in=[])
    p = _provenance()
    cond = {
        "unanimous": Q(provenance=p.UNANIMOUS),
        "adjudicated": Q(provenance=p.ADJUDICATED),
        "majority": Q(provenance=p.MAJORITY, below_threshold=False),
        "contested": Q(provenance=p.MAJORITY, below_threshold=True),
    }[level]
    return Q(Exists(_labels(question=OuterRef("question_id")).filter(cond)))


def agreement_levels_for_run(run: Any) -> list[GroupAccuracy]:
    """[{run, group: agreement level, n, ok}] over the run's questions that have a final label (the
    latest label of a question counts; equal times: the later row). One query driven from the
    labels, so a run whose questions nobody labelled costs nothing, whatever its size."""
    if not annotation_available():
        return []
    Prediction = apps.get_model("runs", "Prediction")
    FinalLabel = apps.get_model("annotation", "FinalLabel")
    Item = apps.get_model("annotation", "Item")
    fl, item, pred = FinalLabel._meta.db_table, Item._meta.db_table, Prediction._meta.db_table
    sql = f"""
    SELECT l.provenance, l.below_threshold, COUNT(*), SUM(CASE WHEN p.correct THEN 1 ELSE 0 END)
    FROM {fl} l JOIN {item} i ON i.id = l.item_id
    JOIN {pred} p ON p.run_id = %s AND p.question_id = i.question_id
    WHERE i.role = '{Item.Role.REGULAR.value}' AND i.question_id IS NOT NULL AND NOT EXISTS (
        SELECT 1 FROM {fl} l2 JOIN {item} i2 ON i2.id = l2.item_id
        WHERE i2.question_id = i.question_id AND i2.role = '{Item.Role.REGULAR.value}'
          AND (l2.computed_at > l.computed_at OR (l2.computed_at = l.computed_at AND l2.id > l.id)))
    GROUP BY l.provenance, l.below_threshold"""
    with connection.cursor() as cur:
        cur.execute(sql, [run.pk])
        rows = cur.fetchall()
    merged: dict[str, GroupAccuracy] = {}
    for prov, below, n, ok in rows:
        level = _level_of(prov, bool(below))
        if level:
            m = merged.setdefault(level, GroupAccuracy(run=run.pk, group=level, n=0, ok=0))
            m["n"] += int(n)
            m["ok"] += int(ok or 0)
    return [merged[lv] for lv in AGREEMENT_LEVELS if lv in merged]


def statement_agree_rates(statement_set: Any) -> dict[int, float]:
    """statement id -> share of survey raters answering "yes" to (a), from final labels. One query."""
    if not annotation_available() or statement_set is None:
        return {}
    rate = Cast(KeyTextTransform("agree_yes", "votes"), FloatField()) / Cast(
        KeyTextTransform("n", "votes"), FloatField()
    )
    rows = (
        _labels(
            statement__statement_set=statement_set, campaign__kind=apps.get_model("annotation", "Campaign").Kind.SURVEY
        )
        .filter(n_answers__gt=0)
        .order_by("computed_at")
        .annotate(rate=rate)
        .values_list("item__statement_id", "rate")
    )
    return {sid: float(r) for sid, r in rows if r is not None}


T = TypeVar("T")
SURVEY_CAMPAIGNS_READ = 5  # how far back human_compare.latest_survey looks for a campaign with answers


class SurveyReads:
    """A statement set's survey campaigns (newest first, at most ``SURVEY_CAMPAIGNS_READ``) and
    their answers, each read at most once per instance. A statement run's page makes one and
    passes it to every panel that asks (the percentile, the raters' M, the population panels)."""

    def __init__(self, statement_set: Any) -> None:
        self.statement_set = statement_set
        self._matrices: dict[int, Any] = {}

    @cached_property
    def campaigns(self) -> list[Any]:
        if not annotation_available() or self.statement_set is None:
            return []
        Campaign = apps.get_model("annotation", "Campaign")
        qs = (
            Campaign.objects.filter(kind="survey", statement_set=self.statement_set)
            .annotate(answers_n=Count("responses"), answers_last=Max("responses__id"), answers_ids=Sum("responses__id"))
            .order_by("-created_at")
        )
        return list(qs[:SURVEY_CAMPAIGNS_READ])

    @property
    def version(self) -> str:
        """The state of every answer of :attr:`campaigns`, read with them: a response is only ever
        added or deleted (never changed), so a campaign's (answers, last answer id, sum of the ids)
        changes with any of its answers - the sum also when an earlier id commits after a later one
        (PostgreSQL hands out ids before commit). The campaign's creation time keeps a database
        recreated under a running cache (ids counted again from 1) from matching. What a page
        computes from the survey is cached under it; "" when the set has no survey campaign."""
        return ";".join(
            f"{c.pk}.{c.created_at.timestamp():.6f}.{c.answers_n}.{c.answers_last}.{c.answers_ids}.{c.name}"
            for c in self.campaigns
        )  # the name too: the figures say whose answers they are

    def cached(self, name: str, compute: Callable[[], T], runs: Sequence[Any] = ()) -> T:
        """``compute()`` kept under :attr:`version` (and, with ``runs``, while every run is
        finished), in the cache and the database (:mod:`run_aggregates`); computed afresh without a
        survey."""
        version = self.version
        if not version:
            return compute()
        return kept(entry(runs, name, state=version, campaigns=[c.pk for c in self.campaigns]), compute)

    @property
    def latest(self) -> Any:
        """The latest survey campaign over the set, or None."""
        return self.campaigns[0] if self.campaigns else None

    def matrices(self, campaign: Any) -> Any:
        """annotation.selectors.agreement.campaign_matrices of one of :attr:`campaigns`, read once."""
        if campaign.pk not in self._matrices:
            from annotation.selectors.agreement import campaign_matrices

            self._matrices[campaign.pk] = campaign_matrices(campaign)
        return self._matrices[campaign.pk]


def _reads(statement_set: Any, reads: SurveyReads | None) -> SurveyReads:
    return reads if reads is not None else SurveyReads(statement_set)


def latest_survey_campaign(statement_set: Any, reads: SurveyReads | None = None) -> Any:
    """The latest survey campaign over this statement set (None: none)."""
    return _reads(statement_set, reads).latest


def survey_raters(statement_set: Any, reads: SurveyReads | None = None) -> tuple[str, int] | None:
    """(name, raters with answers) of the latest survey campaign over this statement set, or None
    without one: what an empty human-side figure says it is waiting for."""
    if not annotation_available() or statement_set is None:
        return None
    Response = apps.get_model("annotation", "Response")
    campaign = latest_survey_campaign(statement_set, reads)
    if campaign is None:
        return None
    raters = Response.objects.filter(campaign=campaign, item__role="regular").values("user_id").distinct().count()
    return campaign.name, raters


def human_scores_pending(statement_set: Any, reads: SurveyReads | None = None) -> str:
    """Why there are no human commonsensicality scores, with the number of raters there are."""
    from annotation.selectors.agreement import NWW_MIN_RATERS

    found = survey_raters(statement_set, reads)
    if found is None:
        return HUMAN_SCORES_PENDING
    name, raters = found
    if raters == 0:
        return f"The survey campaign {name} has no answers yet."
    return (
        f"The raters' commonsensicality M needs at least {NWW_MIN_RATERS} raters (a single rater is the whole "
        f"majority and would score 1); survey campaign {name} has {raters} rater{'s' if raters != 1 else ''} so far."
    )


def human_commonsensicality(statement_set: Any, reads: SurveyReads | None = None) -> list[float]:
    """Every rater's commonsensicality M_j (NWW Eqs. 9–11, own vote in the majority) on the latest
    survey campaign over this statement set, computed by the annotation app."""
    if not annotation_available() or statement_set is None:
        return []
    reads = _reads(statement_set, reads)
    campaign = reads.latest
    if campaign is None:
        return []
    from annotation.selectors.agreement import NWW_MIN_RATERS, campaign_nww

    def compute() -> list[float]:
        nww = campaign_nww(campaign, reads.matrices(campaign), n_boot=50)
        if nww is None or len(nww.raters.commonsensicality) < NWW_MIN_RATERS:  # one rater is their own majority
            return []
        return [float(m) for m in nww.raters.commonsensicality if not math.isnan(float(m))]

    return reads.cached("raters-m", compute)


def survey_ratings(statement_set: Any, reads: SurveyReads | None = None) -> Any:
    """The statement set's rater × statement matrices from its latest survey campaign
    (runs.selectors.nww_population.HumanRatings), or None."""
    if not annotation_available() or statement_set is None:
        return None
    from annotation.selectors.surveys import campaign_survey_ratings

    reads = _reads(statement_set, reads)
    campaign = reads.latest
    return None if campaign is None else campaign_survey_ratings(campaign, reads.matrices(campaign))


def verified_accuracy() -> list[VerifiedAccuracyRow]:
    """Per verified set (issue 11) and per model (backend, model, scoring): accuracy of the latest
    finished run on the unverified source set beside the one on the verified set."""
    if not (annotation_available() and runs_available() and _has_model("annotation", "VerifiedSet")):
        return []
    VerifiedSet = apps.get_model("annotation", "VerifiedSet")
    Run, RunMetric = apps.get_model("runs", "Run"), apps.get_model("runs", "RunMetric")
    out: list[VerifiedAccuracyRow] = []
    for v in VerifiedSet.objects.select_related("question_set", "source_set", "campaign").order_by("-created_at")[:20]:
        sets = {"source": v.source_set_id, "verified": v.question_set_id}
        runs = Run.objects.filter(question_set_id__in=sets.values(), state="done").order_by("id")
        latest: dict[tuple[str, str, str], dict[str, Any]] = {}
        for r in runs:
            side = "source" if r.question_set_id == v.source_set_id else "verified"
            latest.setdefault((r.backend, r.model, r.scoring), {})[side] = r
        acc = dict(
            RunMetric.objects.filter(
                run__in=[r for d in latest.values() for r in d.values()], name="accuracy", scope="overall"
            ).values_list("run_id", "value")
        )
        for (backend, model, scoring), d in sorted(latest.items()):
            src, ver = d.get("source"), d.get("verified")
            out.append(
                VerifiedAccuracyRow(
                    verified=v.question_set.name,
                    source=v.source_set.name,
                    campaign=v.campaign.name,
                    model=f"{backend}:{model or '–'} · {scoring}",
                    source_run=src.pk if src else None,
                    verified_run=ver.pk if ver else None,
                    source_accuracy=acc.get(src.pk) if src else None,
                    verified_accuracy=acc.get(ver.pk) if ver else None,
                )
            )
    return out
