"""Statement-run aggregates for the NWW views (consensus, awareness, commonsensicality), and the
statements each run's are over (the consensus panel's warning when they differ)."""

from __future__ import annotations

import hashlib
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, TypedDict

from django.db.models import Count, FloatField, Q
from django.db.models.fields.json import KT
from django.db.models.functions import Cast, Coalesce

from knowledge.models import Statement, StatementSet
from runs.models import Prediction, Run, RunMetric

from .run_aggregates import each_finished_run, per_finished_runs

NWW = ("consensus", "awareness", "commonsensicality")


class NwwScores(TypedDict, total=False):
    """A statement run's overall NWW scores; a score the run did not store is absent."""

    consensus: float | None
    awareness: float | None
    commonsensicality: float | None


FeatureScore = tuple[int, str, str, float | None, int]  # (run, feature, pole, commonsensicality, n)
FeatureIntervals = dict[tuple[int, str], tuple[float, float]]  # (run, "feature=pole") -> (low, high)


@dataclass(frozen=True, slots=True)
class NwwMetrics:
    """The runs' stored NWW metrics (computed by the runs app when a run ends): ``scores`` the
    overall consensus / awareness / commonsensicality (a score the run did not store is absent),
    ``features`` the ``feature:<name>=<pole>`` commonsensicality scopes ordered by scope and run,
    ``intervals`` their stored 95% bootstrap intervals where both bounds are stored."""

    scores: dict[int, NwwScores]
    features: list[FeatureScore]
    intervals: FeatureIntervals

    def for_runs(self, runs: Sequence[Run]) -> NwwMetrics:
        """The same figures restricted to ``runs`` (a subset of the runs read)."""
        ids = {r.pk for r in runs}
        return NwwMetrics(
            {r.pk: self.scores.get(r.pk, NwwScores()) for r in runs},
            [f for f in self.features if f[0] in ids],
            {k: v for k, v in self.intervals.items() if k[0] in ids},
        )


def nww_run_metrics(runs: Sequence[Run]) -> NwwMetrics:
    """The runs' NWW scores, feature scores and feature intervals. One query."""
    scores: dict[int, NwwScores] = {r.pk: NwwScores() for r in runs}
    features: list[FeatureScore] = []
    intervals: FeatureIntervals = {}
    rows = (
        RunMetric.objects.filter(run__in=runs, name__in=NWW)
        .filter(Q(scope="overall") | Q(name="commonsensicality", scope__startswith="feature:"))
        .values_list("run_id", "name", "scope", "value", "n", "ci_low", "ci_high")
        .order_by("scope", "run_id")  # the order of nww_feature_scores
    )
    for run_id, name, scope, value, n, lo, hi in rows:
        if scope == "overall":
            scores[run_id][name] = value  # type: ignore[literal-required]
            continue
        feature, _, pole = scope.removeprefix("feature:").partition("=")
        features.append((run_id, feature, pole, value, n))
        if lo is not None and hi is not None:
            intervals[(run_id, scope.removeprefix("feature:"))] = (lo, hi)
    return NwwMetrics(scores, features, intervals)


def nww_stored_model_scores(sset: StatementSet) -> list[tuple[str, float | None, float | None]]:
    """(model, consensus, awareness) of the models whose binarised answers came with the imported
    file (NWW's ``<Model>_q1/_q2`` columns), against the stored human majority. One query."""
    models = list(sset.models_answered or [])[:60]
    if not models:
        return []
    agg: dict[str, Any] = {"n": Count("id", filter=Q(human_majority__isnull=False))}
    for i, m in enumerate(models):
        for q in ("q1", "q2"):
            agg[f"m{i}_{q}_n"] = Count(
                "id", filter=Q(human_majority__isnull=False) & Q(**{f"model_answers__{m}__{q}__isnull": False})
            )
            agg[f"m{i}_{q}_hit"] = Count(
                "id",
                filter=(Q(human_majority=1) & Q(**{f"model_answers__{m}__{q}": 1}))
                | (Q(human_majority=0) & Q(**{f"model_answers__{m}__{q}": 0})),
            )
    row = Statement.objects.filter(statement_set=sset).aggregate(**agg)
    out = []
    for i, m in enumerate(models):
        c = row[f"m{i}_q1_hit"] / row[f"m{i}_q1_n"] if row[f"m{i}_q1_n"] else None
        a = row[f"m{i}_q2_hit"] / row[f"m{i}_q2_n"] if row[f"m{i}_q2_n"] else None
        out.append((m, c, a))
    return out


@per_finished_runs("silicon")
def silicon_points(run: Run, limit: int = 5000) -> list[tuple[int, float, int]]:
    """(statement id, model P(yes) to "do you agree", human majority 0/1) per statement. The scorers
    store question (a)'s record as ``extra["q1"]`` with ``p_yes`` (or only the binary ``chosen``,
    e.g. the random baseline): see commonsense.scoring.yesno and runs.selectors.nww_population.record_p_yes."""
    p_yes = Coalesce(
        Cast(KT("extra__q1__p_yes"), output_field=FloatField()),
        Cast(KT("extra__q1__chosen"), output_field=FloatField()),
    )
    rows = (
        Prediction.objects.filter(run=run, statement__isnull=False, statement__human_majority__isnull=False)
        .annotate(p=p_yes)
        .exclude(p__isnull=True)
        .values_list("statement_id", "p", "statement__human_majority")
        .order_by("position")[:limit]
    )
    return [(s, float(p), int(h)) for s, p, h in rows if h is not None]


def commonsensicality(c: float | None, a: float | None) -> float | None:
    return math.sqrt(c * a) if c is not None and a is not None else None


@dataclass(frozen=True, slots=True)
class StatementItems:
    """The statements a statement run's consensus and awareness are over (those with a human
    majority it has a prediction for): its set, how many, and a digest of their ids."""

    statement_set: int
    n: int
    digest: str


@each_finished_run("statement-items")
def statement_items(runs: Sequence[Run]) -> dict[int, StatementItems]:
    """Per run, :class:`StatementItems`; a run without such predictions has no entry. One query."""
    ids = sorted({int(r.pk) for r in runs})
    sets = {int(r.pk): int(r.statement_set_id or 0) for r in runs}
    found: dict[int, list[int]] = {}
    rows = (
        Prediction.objects.filter(run_id__in=ids, statement__human_majority__isnull=False)
        .values_list("run_id", "statement_id")
        .order_by("run_id", "statement_id")
    )
    for run_id, statement_id in rows.iterator(chunk_size=5000):
        found.setdefault(run_id, []).append(statement_id)
    return {
        run_id: StatementItems(sets[run_id], len(sids), hashlib.sha256(",".join(map(str, sids)).encode()).hexdigest())
        for run_id, sids in found.items()
    }


def statements_with_majority(sset: StatementSet) -> int:
    """How many statements of ``sset`` have a human majority (what stored model answers are scored on)."""
    return Statement.objects.filter(statement_set=sset, human_majority__isnull=False).count()
