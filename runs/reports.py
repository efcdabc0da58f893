"""Metrics of a finished run: gather its predictions into plain records, hand them to the metric
functions, store one :class:`RunMetric` row per (metric, scope), and read them back as JSON.

Scopes: ``overall``; ``structure=<query kind>``, ``relation=<relation>``, ``category=<topic>``,
``feature:<name>=<0|1>``. ``<metric>_macro`` is the unweighted mean over the groups of one scope
kind (``accuracy_macro@structure``) next to the micro value (``accuracy``).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from typing import Any

from django.db import transaction

from knowledge.models import Question, Statement

from . import metric_core as core
from .models import Prediction, Run, RunMetric

Record = dict[str, Any]
Row = tuple[str, str, float | None, float | None, float | None, int, dict[str, Any]]


def run_records(run: Run) -> list[Record]:
    """One plain dict per stored prediction, with what the metrics group by."""
    out: list[Record] = []
    if run.is_statement_run:
        preds = Prediction.objects.filter(run=run).select_related("statement").order_by("position")
        for p in preds.iterator(chunk_size=2000):
            s: Statement = p.statement  # type: ignore[assignment]
            out.append({
                "position": p.position, "human": s.human_majority, "features": s.features or {},
                "category": s.category, "elicitation": s.elicitation,
                "p_yes_q1": p.extra.get("p_yes_q1"), "p_yes_q2": p.extra.get("p_yes_q2"),
                "chosen": p.chosen, "error": p.error,
            })
    else:
        preds = Prediction.objects.filter(run=run).select_related("question").order_by("position")
        for p in preds.iterator(chunk_size=2000):
            q: Question = p.question  # type: ignore[assignment]
            meta = q.metadata or {}
            out.append({
                "position": p.position, "answer": q.answer_index, "chosen": p.chosen, "chosen_norm": p.chosen_norm,
                "structure": q.structure, "relation": str(meta.get("relation", "")), "group": q.group,
                "role": q.role, "error": p.error,
            })
    return out


def _group(records: Iterable[Record], key: Callable[[Record], str | None]) -> dict[str, list[Record]]:
    groups: dict[str, list[Record]] = defaultdict(list)
    for r in records:
        k = key(r)
        if k not in (None, ""):
            groups[str(k)].append(r)
    return dict(sorted(groups.items()))


def _question_rows(records: list[Record], seed: int) -> list[Row]:
    rows: list[Row] = []
    scored = [r for r in records if r["answer"] is not None]
    has_norm = any(r["chosen_norm"] is not None for r in scored)
    hits = {"accuracy": [r["chosen"] == r["answer"] for r in scored]}
    if has_norm:
        hits["accuracy_norm"] = [r["chosen_norm"] == r["answer"] for r in scored]
    for name, h in hits.items():
        est = core.mean_ci(h, seed=seed)
        rows.append((name, "overall", est.value, est.low, est.high, est.n, {}))
    rows.append(("no_answer_rate", "overall", core.rate([r["chosen"] is None for r in records]), None, None,
                 len(records), {}))
    for kind in ("structure", "relation"):
        groups = _group(scored, lambda r, k=kind: r[k])  # type: ignore[misc]
        if len(groups) < 1:
            continue
        for name, _ in hits.items():
            per = {g: [r["chosen" if name == "accuracy" else "chosen_norm"] == r["answer"] for r in rs]
                   for g, rs in groups.items()}
            for g, h in per.items():
                est = core.mean_ci(h, seed=seed)
                rows.append((name, f"{kind}={g}", est.value, est.low, est.high, est.n, {}))
            if len(per) > 1:
                est = core.macro_ci(per, seed=seed)
                rows.append((f"{name}_macro", kind, est.value, est.low, est.high, est.n, {"groups": len(per)}))
    groups = _group(scored, lambda r: r["group"])
    if groups and any(len(rs) > 1 for rs in groups.values()):
        allc = [all(r["chosen"] == r["answer"] for r in rs) for rs in groups.values()]
        est = core.mean_ci(allc, seed=seed)
        rows.append(("all_correct_per_group", "overall", est.value, est.low, est.high, est.n,
                     {"note": "share of groups (RICA axioms, CoCo sets) whose every item is answered correctly"}))
    return rows


def _statement_rows(records: list[Record], seed: int) -> list[Row]:
    rows: list[Row] = []
    scored = [r for r in records if r["human"] is not None and r["p_yes_q1"] is not None]

    def emit(scope: str, rs: list[Record]) -> None:
        if not rs:
            return
        nww = core.nww_individual(rs, seed=seed)
        for name in ("consensus", "awareness", "commonsensicality"):
            est = nww[name]
            rows.append((name, scope, est.value, est.low, est.high, est.n, {}))

    emit("overall", scored)
    for f in sorted({k for r in scored for k in r["features"]}):
        for pole in (1, 0):
            emit(f"feature:{f}={pole}", [r for r in scored if r["features"].get(f) == pole])
    for cat, rs in _group(scored, lambda r: r["category"]).items():
        emit(f"category={cat}", rs)
    rows.append(("no_answer_rate", "overall", core.rate([r["p_yes_q1"] is None for r in records]), None, None,
                 len(records), {}))
    return rows


def run_metrics_compute(run: Run) -> list[RunMetric]:
    """Compute and store every metric of ``run`` (replacing earlier rows)."""
    records = run_records(run)
    seed = int(run.seed or 0)
    rows = _statement_rows(records, seed) if run.is_statement_run else _question_rows(records, seed)
    objs = [RunMetric(run=run, name=n, scope=s, value=v, ci_low=lo, ci_high=hi, n=k, data=d)
            for n, s, v, lo, hi, k, d in rows]
    with transaction.atomic():
        RunMetric.objects.filter(run=run).delete()
        RunMetric.objects.bulk_create(objs)
    return objs


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
        "run": run.pk, "set": run.set_name, "backend": run.backend, "model": run.model, "scoring": run.scoring,
        "seed": run.seed, "limit": run.limit, "state": run.state, "items_done": run.items_done,
        "items_total": run.items_total, "metrics": run_metrics_overall(run),
        "scopes": dict(sorted(by_scope.items())),
    }
