"""Aggregates over runs' predictions for the model-error pages. Each function is one or two SQL
queries whatever the number of predictions; Python only reshapes the aggregated rows. Those that
read a run's predictions only are cached while the runs are finished (:mod:`.run_aggregates`).

The same filter vocabulary (:func:`prediction_filter`) builds the charts' drawer links and the
drawer's item list, so a bar and the items behind it cannot disagree.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, TypedDict

from django.db import connection
from django.db.models import (
    Count,
    F,
    Max,
    Q,
    QuerySet,
    Value,
)
from django.db.models.expressions import RawSQL

from cocoweb.params import digits
from commonsense.metrics.coco import M_CONCEPTS
from runs.models import Prediction, Run

from . import sources
from .rows import GroupAccuracy
from .run_aggregates import each_finished_run, per_finished_runs

# Each dimension is a column copied from the question when the prediction was stored
# (runs.item_facets), read from the covering index ``prediction_item_facets``.
DIMENSIONS = {"relation": "item_relation", "kind": "item_kind", "perturbation": "item_perturbation"}


class CocoSummary(TypedDict):
    """One run's CoCo sets: the 2×2 of application sets (knows all atoms, solves composed; pooled),
    MEM and COM pooled, REA / FAI / APP macro over query kinds (Table 3)."""

    counts: dict[tuple[bool, bool], int]
    MEM: float | None
    COM: float | None
    REA: float | None
    FAI: float | None
    APP: float | None
    n_app: int
    n_mem: int
    n_com: int


def prediction_filter(params: Mapping[str, str]) -> Q:
    """Q over Prediction from drawer parameters: relation, kind, perturbation, correct, answer,
    chosen (index or "none"), question, statement, d_min / d_max (difficulty d(Q): the
    prediction's own, else its question's), agreement (level of the human final label), human
    (statement majority 0/1). Item facets are the prediction's ``item_*`` copies, as in the charts."""
    q = Q()
    for param, column in DIMENSIONS.items():
        if params.get(param):
            q &= Q(**{column: params[param]})
    if params.get("correct") in ("0", "1"):
        q &= Q(correct=True) if params["correct"] == "1" else ~Q(correct=True)
    # Numbers only as bounded ASCII digits (cocoweb.params): anything else filters nothing.
    if (a := digits(params.get("answer"), signed=True)) is not None:
        q &= Q(item_answer=a)
    if params.get("chosen") == "none":
        q &= Q(chosen__isnull=True)
    elif (c := digits(params.get("chosen"), signed=True)) is not None:
        q &= Q(chosen=c)
    for param, column in (("question", "question_id"), ("statement", "statement_id")):
        if (n := digits(params.get(param))) is not None:
            q &= Q(**{column: n})
    if (d := digits(params.get("d_min"))) is not None:
        q &= Q(item_difficulty__gte=d)
    if (d := digits(params.get("d_max"))) is not None:
        q &= Q(item_difficulty__lte=d)
    if params.get("agreement"):
        q &= sources.agreement_level_q(params["agreement"])
    if params.get("human") in ("0", "1"):
        q &= Q(statement__human_majority=int(params["human"]))
    return q


@per_finished_runs("accuracy")
def accuracy_by(runs: Sequence[Run], dimension: str) -> list[GroupAccuracy]:
    """[{run, group, n, ok}] per run and value of ``dimension`` (relation, kind, perturbation)."""
    column = DIMENSIONS[dimension]
    # a statement's prediction has blank facets: no question filter needed (it would cost a row read)
    rows = (
        Prediction.objects.filter(run__in=runs)
        .exclude(**{column: ""})
        .values("run_id", column)
        .annotate(n=Count("*"), ok=Count("correct", filter=Q(correct=True)))
        .order_by(column, "run_id")
    )
    return [GroupAccuracy(run=r["run_id"], group=r[column], n=r["n"], ok=r["ok"]) for r in rows]


def accuracy_by_dims(runs: Sequence[Run], dimensions: tuple[str, ...]) -> dict[str, list[GroupAccuracy]]:
    """:func:`accuracy_by` of several dimensions in one statement (:func:`_accuracy_dims_each`),
    per dimension the rows of every run in (group, run) order."""
    each = _accuracy_dims_each(runs, dimensions)
    return {
        d: sorted((row for per_run in each.values() for row in per_run[d]), key=lambda r: (r["group"], r["run"]))
        for d in dimensions
    }


@each_finished_run("accuracy-dims")
def _accuracy_dims_each(runs: Sequence[Run], dimensions: tuple[str, ...]) -> dict[int, dict[str, list[GroupAccuracy]]]:
    """Per run with predictions in a group: the rows of each dimension. One statement: a UNION ALL
    of one GROUP BY per dimension, each read from that dimension's covering index (run, column,
    correct). Grouping by every column at once instead sorted the predictions in a temporary
    B-tree: 105 ms against 21 ms for the three at 2 × 40,000 predictions on SQLite (15 ms with
    ``COUNT(*)`` and the blank facets skipped by a range: a CoCo run has no perturbation to read)."""
    # ``> ''`` rather than ``<> ''``: the index is entered after the blank facets, not read through them;
    # no count names ``id``, which PostgreSQL's indexes do not hold (it read every row from the table)
    parts = [
        Prediction.objects.filter(run__in=runs, **{f"{DIMENSIONS[d]}__gt": ""})
        .values("run_id", group=F(DIMENSIONS[d]))
        .annotate(dim=Value(d), n=Count("*"), ok=Count("correct", filter=Q(correct=True)))
        .order_by()
        for d in dimensions
    ]
    rows = parts[0].union(*parts[1:], all=True) if len(parts) > 1 else parts[0]
    sums: dict[str, dict[tuple[str, int], list[int]]] = {d: {} for d in dimensions}
    for r in rows:
        if not r["group"]:
            continue  # a blank facet is no group (as accuracy_by excludes it)
        acc = sums[r["dim"]].setdefault((r["group"], r["run_id"]), [0, 0])
        acc[0] += r["n"]
        acc[1] += r["ok"]
    out: dict[int, dict[str, list[GroupAccuracy]]] = {}
    for d in dimensions:
        for (g, run), (n, ok) in sorted(sums[d].items()):
            out.setdefault(run, {dim: [] for dim in dimensions})[d].append(GroupAccuracy(run=run, group=g, n=n, ok=ok))
    return out


@per_finished_runs("position-table")
def position_table(run: Run) -> tuple[list[tuple[int, int, int]], int]:
    """(answer index, chosen index or -1 for no answer, predictions) per cell of the position-bias
    table, and the most options of those predictions, in one statement."""
    rows = (
        Prediction.objects.filter(run=run, item_answer__isnull=False)
        .values("item_answer", "chosen")
        .annotate(n=Count("*"), m=Max("item_options"))
        .order_by()
    )
    cells: list[tuple[int, int, int]] = []
    most = 0
    for r in rows:
        cells.append((int(r["item_answer"] or 0), -1 if r["chosen"] is None else int(r["chosen"]), int(r["n"])))
        most = max(most, int(r["m"] or 0))
    return cells, most


# -- CoCo sets ----------------------------------------------------------------------------------
#
# A CoCo set is a question group (``item_group``); a question with a role but no group is a set of
# its own. The summary reads the ``prediction_coco_sets`` index (run, item_group, item_role,
# correct, question) only, in its order; the drawer's cell reads the same columns (PostgreSQL
# takes them from the table through the run index: 10 ms at 40,000 predictions). Role prefixes are
# tested exactly and case-sensitively, like str.startswith (:func:`_role_prefix`).
#
# The summary counts each set in one pass (GROUP BY run, group), asked in index order so that
# PostgreSQL aggregates as it reads the index (it chose a hash aggregate over the table, in
# parallel workers, otherwise). The drawer lists one cell's reasoning predictions through the
# cell's sets: a GROUP BY over the run's reasoning and atomic predictions whose HAVING is the cell,
# not probes of each row's set (nested loops on PostgreSQL). A test checks both against the same
# fresh computation.

_PRED = Prediction._meta.db_table
_OK = "correct IS TRUE"


def _role_prefix(prefix: str) -> str:
    """SQL: ``item_role`` starts with ``prefix`` (letters, digits and ``_``), exact and
    case-sensitive on every database. PostgreSQL: LIKE with the ``_`` escaped (``%%``: the
    statements take parameters), where substr, which copies each value, cost as much as the rest
    of the summary; SQLite: GLOB (its LIKE ignores case); else substr."""
    if connection.vendor == "postgresql":
        return "item_role LIKE '{}%%'".format(prefix.replace("_", "\\_"))
    if connection.vendor == "sqlite":
        return f"item_role GLOB '{prefix}*'"
    return f"substr(item_role, 1, {len(prefix)}) = '{prefix}'"


def _coco_summary_sql(n_runs: int) -> str:
    """Per run and query kind of the application sets (the kind of their reasoning question; NULL
    for the other sets): the 2×2 counts, MEM sets and right ones, COM sets and their summed share
    of right conceptualizations (Eq. 5: right ones / m, m = 3; only sets with exactly m). The
    questions without a group are counted as one group, ``''``: a set of one question is at most a
    memorization set (no application or comprehension set), so they add their memorization
    questions to MEM. Parameters: the runs."""
    atomic, concept = _role_prefix("atomic_"), _role_prefix("conceptualization_")
    app = "item_group <> '' AND n_reason = 1 AND n_atomic > 0"
    mem = "n_mem = 1 AND n_concept = 0 AND n_reason = 0"
    com = f"item_group <> '' AND n_mem = 1 AND n_concept = {M_CONCEPTS} AND mem_ok = 1"
    return f"""SELECT run_id, app_kind,
  SUM(CASE WHEN {app} AND atomic_ok = n_atomic AND reason_ok = 1 THEN 1 ELSE 0 END),
  SUM(CASE WHEN {app} AND atomic_ok = n_atomic AND reason_ok = 0 THEN 1 ELSE 0 END),
  SUM(CASE WHEN {app} AND atomic_ok < n_atomic AND reason_ok = 1 THEN 1 ELSE 0 END),
  SUM(CASE WHEN {app} AND atomic_ok < n_atomic AND reason_ok = 0 THEN 1 ELSE 0 END),
  SUM(CASE WHEN item_group = '' THEN n_mem WHEN {mem} THEN 1 ELSE 0 END),
  SUM(CASE WHEN item_group = '' OR {mem} THEN mem_ok ELSE 0 END),
  SUM(CASE WHEN {com} THEN 1 ELSE 0 END),
  SUM(CASE WHEN {com} THEN 1.0 * concept_ok / {M_CONCEPTS} ELSE 0 END)
FROM (SELECT run_id, item_group,
    MAX(item_kind) FILTER (WHERE item_role = 'reasoning') AS app_kind,
    COUNT(*) FILTER (WHERE item_role = 'reasoning') AS n_reason,
    COUNT(*) FILTER (WHERE item_role = 'reasoning' AND {_OK}) AS reason_ok,
    COUNT(*) FILTER (WHERE {atomic}) AS n_atomic,
    COUNT(*) FILTER (WHERE {atomic} AND {_OK}) AS atomic_ok,
    COUNT(*) FILTER (WHERE item_role = 'memorization') AS n_mem,
    COUNT(*) FILTER (WHERE item_role = 'memorization' AND {_OK}) AS mem_ok,
    COUNT(*) FILTER (WHERE {concept}) AS n_concept,
    COUNT(*) FILTER (WHERE {concept} AND {_OK}) AS concept_ok
  FROM {_PRED} WHERE run_id IN ({", ".join(["%s"] * n_runs)}) AND item_role <> ''
  GROUP BY run_id, item_group ORDER BY run_id, item_group) s
GROUP BY run_id, app_kind"""


def _application_cell_sql(knows: bool, solves: bool) -> str:
    """The question of the reasoning prediction of each of a run's application sets (exactly one
    reasoning question and at least one atomic question in the group) in one cell of the 2×2:
    knows = every atomic answer correct, solves = the reasoning one. Parameter: the run."""
    return f"""SELECT MAX(question_id) FILTER (WHERE item_role = 'reasoning') FROM {_PRED}
WHERE run_id = %s AND item_group > '' AND (item_role = 'reasoning' OR {_role_prefix("atomic_")})
GROUP BY item_group
HAVING COUNT(*) FILTER (WHERE item_role = 'reasoning') = 1
  AND COUNT(*) FILTER (WHERE item_role <> 'reasoning') > 0
  AND COUNT(*) FILTER (WHERE item_role <> 'reasoning' AND correct IS NOT TRUE) {"= 0" if knows else "> 0"}
  AND COUNT(*) FILTER (WHERE item_role = 'reasoning' AND {_OK}) = {1 if solves else 0}"""


def _div(a: float, b: float) -> float | None:
    return a / b if b else None


def _macro(values: Sequence[float | None]) -> float | None:
    """Unweighted mean over the kinds with a value (a kind whose denominator is 0 is left out, as
    commonsense.metrics.coco.coco_scores_macro does)."""
    vals = [v for v in values if v is not None]
    return sum(vals) / len(vals) if vals else None


@each_finished_run("coco")
def coco_summary(runs: Sequence[Run]) -> dict[int, CocoSummary]:
    """Per run: the 2×2 counts of application sets (knows all atoms × solves the composed
    question, pooled over kinds), MEM and COM pooled (Eqs. 4–5, COM with m = 3) and REA, FAI, APP
    as Table 3 reports them: Eqs. 6–8 per query kind, then the unweighted mean over the kinds (the
    run's ``*_macro`` metrics, commonsense.metrics.coco). One query."""
    ids = [int(r.pk) for r in runs]
    if not ids:
        return {}
    with connection.cursor() as cur:
        cur.execute(_coco_summary_sql(len(ids)), ids)
        rows = cur.fetchall()
    acc: dict[int, dict[str, Any]] = {}
    for run_id, kind, tt, tf, ft, ff, n_mem, mem_ok, n_com, com_sum in rows:
        a = acc.setdefault(int(run_id), {"kinds": {}, "mem": [0, 0.0], "com": [0, 0.0]})
        cell = (int(tt or 0), int(tf or 0), int(ft or 0), int(ff or 0))
        if kind is not None and any(cell):
            a["kinds"][kind] = cell
        a["mem"][0] += int(n_mem or 0)
        a["mem"][1] += float(mem_ok or 0)
        a["com"][0] += int(n_com or 0)
        a["com"][1] += float(com_sum or 0)
    out: dict[int, CocoSummary] = {}
    for run_id, a in acc.items():
        kinds: list[tuple[int, int, int, int]] = list(a["kinds"].values())
        tt, tf, ft, ff = (sum(c[i] for c in kinds) for i in range(4))
        out[run_id] = CocoSummary(
            counts={(True, True): tt, (True, False): tf, (False, True): ft, (False, False): ff},
            MEM=_div(a["mem"][1], a["mem"][0]),
            COM=_div(a["com"][1], a["com"][0]),
            REA=_macro([_div(k[0] + k[2], sum(k)) for k in kinds]),
            FAI=_macro([_div(k[0], k[0] + k[2]) for k in kinds]),
            APP=_macro([_div(k[0], k[0] + k[1]) for k in kinds]),
            n_app=tt + tf + ft + ff,
            n_mem=a["mem"][0],
            n_com=a["com"][0],
        )
    return out


def coco_cell_filter(run: Run, knows: bool, solves: bool) -> Q:
    """Q over Prediction: the reasoning predictions of ``run``'s application sets in one cell of
    the 2×2 (those :func:`coco_summary` counts in the cell), found by their question (unique per run)."""
    return Q(run=run, question_id__in=RawSQL(_application_cell_sql(knows, solves), [run.pk]))


@per_finished_runs("rica-axioms")
def rica_axiom_counts(run: Run) -> dict[str, tuple[int, int]]:
    """``{axiom group: (probes, right)}`` of the run's questions (no answer = wrong), counted by the
    database (commonsense.metrics.rica_bias.axiom_counts of every probe's answer): RICA Fig. 5b.

    Read from the ``prediction_coco_sets`` index (run, item_group, item_role, correct, question)
    alone, in its order, with no join to the questions: the loop copies the question's group onto
    ``item_group`` (a question's group is at most 255 characters, the copy's length) and stores
    ``correct`` as ``chosen == answer_index`` (False for no answer, None when the question has no
    answer index), the same test as the join's ``chosen = answer_index``, for which NULL on either
    side is not right. Grouped in index order (``ORDER BY``), as PostgreSQL otherwise hashed the
    rows it read from the table through the run index (the join: 80 ms per 40,000-probe run on
    PostgreSQL; this: 5 ms)."""
    rows = (
        Prediction.objects.filter(run=run, question__isnull=False)
        .values_list("item_group")
        .annotate(n=Count("*"), right=Count("correct", filter=Q(correct=True)))
        .order_by("item_group")
    )
    return {g: (int(n), int(right)) for g, n, right in rows}


# -- the drawer: the predictions behind a bar, cell or point ------------------------------------


def runs_with_sets() -> QuerySet[Run]:
    """Runs with their question or statement set (the error pages' headings name them)."""
    return Run.objects.select_related("question_set", "statement_set")


def runs_by_ids(ids: Sequence[int]) -> list[Run]:
    return list(runs_with_sets().filter(pk__in=ids).order_by("pk"))
