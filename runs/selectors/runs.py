"""Reads for the runs app."""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypedDict

from django.db import connection
from django.db.models import Q, QuerySet

from cocoweb.leases import lease_stale
from commonsense.questions.audit import baseline_table
from knowledge.models import Statement
from runs.models import Prediction, Run, RunMetric

StatementRow = tuple[int, str, Any, str]  # (id, text, features, elicitation): statement_rows


def run_list() -> QuerySet[Run]:
    return Run.objects.select_related("question_set", "statement_set", "created_by")


def runs_stale() -> QuerySet[Run]:
    """Active runs whose worker stopped beating (died): to be resumed by another worker."""
    return lease_stale(Run)


def runs_on_statement_set(statement_set_id: int | None, *, exclude: Run | None = None, limit: int = 20) -> list[Run]:
    """The first ``limit`` runs (by id) on a statement set, ``exclude`` left out."""
    qs = Run.objects.filter(statement_set_id=statement_set_id)
    if exclude is not None:
        qs = qs.exclude(pk=exclude.pk)
    return list(qs.order_by("pk")[:limit])


def statement_extras(runs: Sequence[Run]) -> dict[int, dict[int, Any]]:
    """{run id: {statement id: the prediction's ``extra``}} of these statement runs (every run given
    has an entry). One query for all of them, read without the ORM's per-row converters (a third
    of the time for a 4,000-statement run); the ``extra`` values decoded as JSONField decodes each
    (:func:`json_values`)."""
    out: dict[int, dict[int, Any]] = {r.pk: {} for r in runs}
    if not out:
        return out
    marks = ", ".join(["%s"] * len(out))
    with connection.cursor() as cur:
        cur.execute(
            f"SELECT run_id, statement_id, extra FROM {Prediction._meta.db_table} "
            f"WHERE run_id IN ({marks}) AND statement_id IS NOT NULL",
            list(out),
        )
        rows = cur.fetchall()
    for (run_id, statement_id, _), extra in zip(rows, json_values([r[2] for r in rows]), strict=True):
        out[run_id][statement_id] = extra
    return out


class LazyStatementExtras(Mapping[int, dict[int, Any]]):
    """:func:`statement_extras` of ``runs``, read on first use: a page passes it to panels whose
    figures may all come from the cache, and then never reads the predictions."""

    def __init__(self, runs: Sequence[Run]) -> None:
        self._runs = list(runs)
        self._read: dict[int, dict[int, Any]] | None = None

    def _rows(self) -> dict[int, dict[int, Any]]:
        if self._read is None:
            self._read = statement_extras(self._runs)
        return self._read

    def __getitem__(self, run_id: int) -> dict[int, Any]:
        return self._rows()[run_id]

    def __iter__(self) -> Iterator[int]:
        return iter(self._rows())

    def __len__(self) -> int:
        return len(self._rows())


def statement_rows(statement_set_id: int | None) -> list[StatementRow]:
    """(id, text, features, elicitation) of a statement set's statements by position, as
    ``values_list`` reads them, in one query without the ORM's per-row converters (``features``
    decoded by :func:`json_values`)."""
    q = connection.ops.quote_name
    cols = ", ".join(q(c) for c in ("id", "text", "features", "elicitation"))
    with connection.cursor() as cur:
        cur.execute(
            f"SELECT {cols} FROM {q(Statement._meta.db_table)} WHERE {q('statement_set_id')} = %s "
            f"ORDER BY {q('position')}",
            [statement_set_id],
        )
        rows = cur.fetchall()
    features = json_values([r[2] for r in rows])
    return [(sid, text, f, elicitation) for (sid, text, _, elicitation), f in zip(rows, features, strict=True)]


def json_values(values: Sequence[Any]) -> list[Any]:
    """``[_json(v) for v in values]``, JSON columns' values as ``JSONField.from_db_value`` decodes
    each, in one ``json.loads`` of them all (a third of the time of one call per value: a
    4,000-statement run's answers). The database holds valid JSON documents (SQLite's JSON_VALID
    check, PostgreSQL's jsonb), and valid documents joined into an array decode to the same
    values; should the whole not decode to one value per text, each is decoded alone."""
    texts = [v for v in values if isinstance(v, str)]
    if not texts:
        return list(values)
    try:
        decoded = json.loads("[" + ",".join(texts) + "]")
    except json.JSONDecodeError:
        decoded = None
    if not isinstance(decoded, list) or len(decoded) != len(texts):
        return [_json(v) for v in values]
    it = iter(decoded)
    return [next(it) if isinstance(v, str) else v for v in values]


def _json(value: Any) -> Any:
    """A JSON column's value as ``JSONField.from_db_value`` returns it (both backends hand over text)."""
    if not isinstance(value, str):
        return value
    try:
        return json.loads(value)
    except json.JSONDecodeError:
        return value


def runs_recent(limit: int = 50) -> QuerySet[Run]:
    return run_list().order_by("-id")[:limit]


def runs_by_ids(ids: list[int]) -> list[Run]:
    """These runs (with their sets and author) in the order of ``ids``; unknown ids left out."""
    runs = list(run_list().filter(pk__in=ids))
    runs.sort(key=lambda r: ids.index(r.pk))
    return runs


def prediction_with_run() -> QuerySet[Prediction]:
    return Prediction.objects.select_related("run")


def predictions_to_review(run: Run, limit: int = 200) -> QuerySet[Prediction]:
    """A generative run's predictions that have a rule's error category (wrong or unanswered), in item order."""
    return (
        Prediction.objects.filter(run=run, extra__error_category__isnull=False)
        .select_related("question")
        .order_by("position")[:limit]
    )


def run_predictions(run: Run) -> QuerySet[Prediction]:
    rel = "statement" if run.is_statement_run else "question"
    return Prediction.objects.filter(run=run).select_related(rel).order_by("position")


@dataclass(frozen=True, slots=True)
class MetricValue:
    """One stored run metric: its run, name, scope ("overall", "structure=2p", "category=..."), value, n."""

    run: int
    name: str
    scope: str
    value: float | None
    n: int


def metric_values(
    runs: Sequence[Run], names: Iterable[str], *, scope: str | None = None, scope_prefix: str | None = None
) -> list[MetricValue]:
    """The runs' stored metrics of these names, in scope ``scope`` or any scope starting with
    ``scope_prefix`` (either; neither given: every scope). One query."""
    where = Q()
    if scope is not None:
        where |= Q(scope=scope)
    if scope_prefix is not None:
        where |= Q(scope__startswith=scope_prefix)
    rows = (
        RunMetric.objects.filter(run__in=runs, name__in=list(names))
        .filter(where)
        .values_list("run_id", "name", "scope", "value", "n")
    )
    return [MetricValue(run=r, name=nm, scope=sc, value=v, n=n) for r, nm, sc, v, n in rows]


class MetricRow(TypedDict):
    scope: str
    cells: list[RunMetric | None]  # one per name, None where the scope lacks that metric
    names: list[str]


class CompareRow(TypedDict):
    name: str
    values: list[float | None]  # one per run


class Overlap(TypedDict):
    """Item-level agreement of two runs on the same set."""

    common: int
    same_choice: int
    agreement: float | None


class BaselineRow(TypedDict):
    """One row of the table beside a run's accuracy: the run's own figures, then the set's
    shortcut baselines (knowledge/services/shortcuts.py)."""

    label: str
    value: float | None
    low: float | None
    high: float | None
    n: int | None
    chance: float | None
    flagged: bool
    model: bool  # the run's own accuracy, not a baseline


class RunsComparison(TypedDict):
    runs: list[Run]
    table: list[CompareRow]
    overlap: Overlap | dict[str, Any]  # empty unless the first two runs share a set


def run_metric_table(run: Run) -> list[MetricRow]:
    """Rows for the run page: scope, then one cell per metric name (value and CI)."""
    metrics = list(RunMetric.objects.filter(run=run))
    names = sorted({m.name for m in metrics}, key=lambda n: (n.endswith("_macro"), n))
    scopes: dict[str, dict[str, RunMetric]] = {}
    for m in metrics:
        scopes.setdefault(m.scope, {})[m.name] = m
    order = sorted(scopes, key=lambda s: (s != "overall", "=" not in s, s))
    return [{"scope": s, "cells": [scopes[s].get(n) for n in names], "names": names} for s in order]


def run_beside_baselines(run: Run) -> list[BaselineRow]:
    """The run's overall accuracy (and length-normalised accuracy) above the shortcut baselines of
    its question set; empty when the set has no audit (a statement run, an old set)."""
    qset = run.question_set
    audit = (qset.quality or {}).get("shortcuts") if qset is not None else None
    if not audit:
        return []
    rows: list[BaselineRow] = []
    for m in RunMetric.objects.filter(run=run, scope="overall", name__in=("accuracy", "accuracy_norm")).order_by(
        "name"
    ):
        rows.append(
            BaselineRow(
                label=f"this run: {m.name.replace('_', ' ')} (bootstrap interval)",
                value=m.value,
                low=m.ci_low,
                high=m.ci_high,
                n=m.n,
                chance=None,
                flagged=False,
                model=True,
            )
        )
    for label, b in baseline_table(audit):
        rows.append(
            BaselineRow(
                label=label,
                value=b.get("value"),
                low=b.get("low"),
                high=b.get("high"),
                n=b.get("n"),
                chance=b.get("chance"),
                flagged=bool(b.get("flagged")),
                model=False,
            )
        )
    return rows


def runs_compare(runs: list[Run]) -> RunsComparison:
    """Overall metrics side by side, and item-level agreement between the first two runs."""
    per_run = [run_metrics_overall(r) for r in runs]
    names = sorted({k for m in per_run for k in m})
    table: list[CompareRow] = [{"name": n, "values": [m.get(n) for m in per_run]} for n in names]
    overlap: Overlap | dict[str, Any] = {}
    if (
        len(runs) >= 2
        and runs[0].question_set_id == runs[1].question_set_id
        and runs[0].statement_set_id == runs[1].statement_set_id
    ):
        a = dict(Prediction.objects.filter(run=runs[0]).values_list("position", "chosen"))
        b = dict(Prediction.objects.filter(run=runs[1]).values_list("position", "chosen"))
        common = a.keys() & b.keys()
        same = sum(a[k] == b[k] for k in common)
        overlap = Overlap(common=len(common), same_choice=same, agreement=same / len(common) if common else None)
    return {"runs": runs, "table": table, "overlap": overlap}


def run_metrics_overall(run: Run) -> dict[str, float | None]:
    """``{"accuracy": 0.41, …}``: the overall and macro values, keyed by metric name."""
    out: dict[str, float | None] = {}
    for m in RunMetric.objects.filter(run=run).order_by("name"):
        if m.scope == "overall":
            out[m.name] = m.value
        elif m.name.endswith("_macro"):
            out[f"{m.name}@{m.scope}"] = m.value
    return out


def run_metrics_json(run: Run) -> dict[str, Any]:
    """Everything about a run's metrics, for the JSON export."""
    by_scope: dict[str, dict[str, Any]] = defaultdict(dict)
    for m in RunMetric.objects.filter(run=run):
        by_scope[m.scope][m.name] = {"value": m.value, "ci95": [m.ci_low, m.ci_high], "n": m.n, **m.data}
    return {
        "run": run.pk,
        "name": run.label,
        "set": run.set_name,
        "backend": run.backend,
        "model": run.model,
        "scoring": run.scoring,
        "seed": run.seed,
        "limit": run.limit,
        "state": run.state,
        "items_done": run.items_done,
        "items_total": run.items_total,
        "metrics": run_metrics_overall(run),
        "scopes": dict(sorted(by_scope.items())),
    }


# -- ReComSBench Table 3: runs that evaluate fine-tuned models (runs/finetune.py) --------------------

TABLE3 = (("accuracy", "overall"), ("kba", "overall"), ("accuracy_delta", "overall"), ("kba_delta", "overall"))


def table3_rows(runs: list[Run]) -> list[tuple[str, str, float | None, float | None, float | None, float | None]]:
    """Table 3's shape: per evaluated model (the base, or a fine-tune's strategy) and set, Acc / KBA
    / Δ / Δ* of its latest ReComSBench run (``accuracy``, ``kba``, ``accuracy_delta``, ``kba_delta``)."""
    from pathlib import Path

    from runs.models import FineTune

    recoms = [r for r in runs if r.scoring == "recoms" and r.state == Run.State.DONE]
    if not recoms:
        return []
    tunes = {str(Path(f.output_dir)): f for f in FineTune.objects.filter(state=FineTune.State.DONE)}
    bases = {f.base_model for f in tunes.values()}
    vals: dict[int, dict[str, float | None]] = {r.pk: {} for r in recoms}
    for m in metric_values(recoms, [n for n, _ in TABLE3], scope="overall"):
        vals[m.run][m.name] = m.value
    latest: dict[tuple[str, str], Run] = {}
    for r in sorted(recoms, key=lambda r: r.pk):
        tune = tunes.get(str(Path(r.model)))
        label = (
            f"{FineTune.Strategy(tune.strategy).label} ({tune.name})" if tune else "Base" if r.model in bases else ""
        )
        if label:
            latest[(label, r.set_name)] = r
    return [(label, s, *(vals[r.pk].get(n) for n, _ in TABLE3)) for (label, s), r in latest.items()]  # type: ignore[misc]
