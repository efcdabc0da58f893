"""Aggregates over runs' predictions for the model-error pages. Each function is one or two SQL
queries whatever the number of predictions; Python only reshapes the aggregated rows. Those that
read a run's predictions only are cached while the runs are finished (:mod:`.run_aggregates`).

The same filter vocabulary (:func:`prediction_filter`) builds the charts' drawer links and the
drawer's item list, so a bar and the items behind it cannot disagree.
"""

from __future__ import annotations

import bisect
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypedDict

from django.db import connection
from django.db.models import (
    Count,
    Exists,
    F,
    Max,
    OuterRef,
    Prefetch,
    Q,
    QuerySet,
    Value,
    Window,
    prefetch_related_objects,
)
from django.db.models.expressions import RawSQL

from commonsense.metrics.coco import M_CONCEPTS
from commonsense.metrics.recoms import window_bounds
from knowledge.models import Triple
from runs.models import Prediction, Run

from . import sources
from .rows import FinalLabelRow, GroupAccuracy
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


class DifficultyBucket(TypedDict):
    bucket: int
    n: int
    ok: int
    d_sum: float
    d_min: int
    d_max: int


class DifficultyWindow(TypedDict):
    window: int
    first_bucket: int
    last_bucket: int
    n: int
    accuracy: float | None
    mean_d: float | None
    d_min: int
    d_max: int


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
    if (a := params.get("answer", "")).lstrip("-").isdigit():
        q &= Q(item_answer=int(a))
    if (c := params.get("chosen", "")) == "none":
        q &= Q(chosen__isnull=True)
    elif c.lstrip("-").isdigit():
        q &= Q(chosen=int(c))
    if params.get("question", "").isdigit():
        q &= Q(question_id=int(params["question"]))
    if params.get("statement", "").isdigit():
        q &= Q(statement_id=int(params["statement"]))
    if params.get("d_min", "").isdigit():
        q &= Q(item_difficulty__gte=int(params["d_min"]))
    if params.get("d_max", "").isdigit():
        q &= Q(item_difficulty__lte=int(params["d_max"]))
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


# -- ReComSBench --------------------------------------------------------------------------------


def runs_with_difficulty(runs: Sequence[Run]) -> set[int]:
    """The ids of those ``runs`` with a prediction that has a difficulty d(Q): the runs whose
    ReComSBench panels are shown. One statement, an index probe per run."""
    return set(_difficulty_present(runs))


@each_finished_run("with-difficulty")
def _difficulty_present(runs: Sequence[Run]) -> dict[int, bool]:
    ids = sorted({int(r.pk) for r in runs})
    if not ids:
        return {}
    has = Exists(Prediction.objects.filter(run_id=OuterRef("pk"), item_difficulty__isnull=False))
    return dict.fromkeys(Run.objects.filter(pk__in=ids).filter(has).values_list("pk", flat=True), True)


@per_finished_runs("difficulty")
def difficulty_buckets(runs: Sequence[Run], n_buckets: int = 9) -> dict[int, list[DifficultyBucket]]:
    """Items sorted by difficulty d(Q) (ties by position) cut into ``n_buckets`` equal ranks (rank
    r of N goes to bucket r * n_buckets // N), per run: [{bucket, n, ok, d_sum, d_min, d_max}].
    ReComSBench's windows (length N/3, step N/9) are three consecutive buckets.

    Two queries in the order of the ``prediction_difficulty`` index (run, item_difficulty,
    position, correct), with no sort or window function: the counts per difficulty value, then,
    for each difficulty value a bucket boundary cuts, the correct answers among its first k
    items (by position)."""
    run_ids = sorted({int(r.pk) for r in runs})
    if not run_ids:
        return {}
    marks = ", ".join(["%s"] * len(run_ids))
    table = Prediction._meta.db_table
    groups: dict[int, list[tuple[int, int, int]]] = {}  # run -> [(d, n, ok)] in d order
    with connection.cursor() as cur:
        cur.execute(
            f"SELECT run_id, item_difficulty, COUNT(*), SUM(CASE WHEN correct THEN 1 ELSE 0 END) FROM {table} "
            f"WHERE run_id IN ({marks}) AND item_difficulty IS NOT NULL "
            "GROUP BY run_id, item_difficulty ORDER BY run_id, item_difficulty",
            run_ids,
        )
        for run_id, d, n, ok in cur.fetchall():
            groups.setdefault(int(run_id), []).append((int(d), int(n), int(ok or 0)))
        pieces = {rid: _bucket_pieces(gs, n_buckets) for rid, gs in groups.items()}
        cuts: set[tuple[int, int, int]] = set()  # (run, d, k): a boundary after the first k items of d
        for rid, ps in pieces.items():
            size = {d: n for d, n, _ in groups[rid]}
            cuts.update((rid, d, k) for _, d, k0, k1 in ps for k in (k0, k1) if 0 < k < size[d])
        ordered = sorted(cuts)
        ok_first: dict[tuple[int, int, int], int] = {}  # correct answers among the first k items of d
        if ordered:
            part = (
                f"SELECT %s AS i, (SELECT SUM(CASE WHEN correct THEN 1 ELSE 0 END) FROM (SELECT correct FROM {table} "
                "WHERE run_id = %s AND item_difficulty = %s ORDER BY position LIMIT %s) f) AS ok"
            )
            cur.execute(" UNION ALL ".join([part] * len(ordered)), [x for i, c in enumerate(ordered) for x in (i, *c)])
            ok_first = {ordered[int(i)]: int(ok or 0) for i, ok in cur.fetchall()}
    out: dict[int, list[DifficultyBucket]] = {}
    for rid, ps in pieces.items():
        size_ok = {d: (n, ok) for d, n, ok in groups[rid]}

        def ok_until(d: int, k: int, rid: int = rid, size_ok: dict[int, tuple[int, int]] = size_ok) -> int:
            n, ok = size_ok[d]
            return 0 if k == 0 else ok if k == n else ok_first[(rid, d, k)]

        buckets: dict[int, DifficultyBucket] = {}
        for b, d, k0, k1 in ps:
            bk = buckets.setdefault(b, DifficultyBucket(bucket=b, n=0, ok=0, d_sum=0.0, d_min=d, d_max=d))
            bk["n"] += k1 - k0
            bk["ok"] += ok_until(d, k1) - ok_until(d, k0)
            bk["d_sum"] += float(d * (k1 - k0))
            bk["d_max"] = d
        out[rid] = [buckets[b] for b in sorted(buckets)]
    return out


class CoreWindow(TypedDict):
    """A difficulty window of a run as its metrics table defines it, with its KBA."""

    window: int
    start: int
    stop: int
    d_min: int
    d_max: int
    mean_d: float
    n: int
    accuracy: float
    kba: float | None


# The items of the windows, as the partial index ``prediction_core_windows`` holds them: a question
# with a difficulty and a known answer, no scoring error (item_answer is the question's answer_index).
_WINDOW_ITEMS = "item_difficulty IS NOT NULL AND item_answer IS NOT NULL AND error = ''"
_WINDOW_SUMS = (
    "SUM(CASE WHEN correct THEN 1 ELSE 0 END), SUM(CASE WHEN kba_correct IS NOT NULL THEN 1 ELSE 0 END), "
    "SUM(CASE WHEN kba_correct THEN 1 ELSE 0 END)"
)


@each_finished_run("core-windows")
def core_windows(runs: Sequence[Run]) -> dict[int, list[CoreWindow]]:
    """Per run, ReComSBench's windows by the same definition as the run's metrics table
    (commonsense.metrics.recoms.window_bounds: the questions with a difficulty and a known answer,
    failed items left out, sorted by d(Q) with ties in item order, the paper's seven windows of N/3
    items at step N/9, the last ending at N).

    Two statements in the order of the ``prediction_core_windows`` index (run, item_difficulty,
    position, correct, kba_correct), with no sort and no row per prediction (as
    :func:`difficulty_buckets`): the sums per difficulty value (items, correct, KBA answered, KBA
    correct), then, for each difficulty value a window boundary falls inside, the same sums over
    its first k items by position. A window's figures are differences of those running sums."""
    run_ids = sorted({int(r.pk) for r in runs})
    if not run_ids:
        return {}
    marks = ", ".join(["%s"] * len(run_ids))
    groups: dict[int, list[tuple[int, int, tuple[int, int, int]]]] = {}  # run -> [(d, n, sums)] in d order
    with connection.cursor() as cur:
        cur.execute(
            f"SELECT run_id, item_difficulty, COUNT(*), {_WINDOW_SUMS} FROM {_PRED} "
            f"WHERE run_id IN ({marks}) AND {_WINDOW_ITEMS} "
            "GROUP BY run_id, item_difficulty ORDER BY run_id, item_difficulty",
            run_ids,
        )
        for run_id, d, n, ok, kba_n, kba_ok in cur.fetchall():
            groups.setdefault(int(run_id), []).append(
                (int(d), int(n), (int(ok or 0), int(kba_n or 0), int(kba_ok or 0)))
            )
        ranks = {rid: _RankSums(gs) for rid, gs in groups.items()}
        bounds = {rid: window_bounds(rs.total) for rid, rs in ranks.items()}
        cuts = sorted(  # (run, d, k): a boundary after the first k > 0 items of value d
            {(rid, *c) for rid, rs in ranks.items() for ab in bounds[rid] for c in map(rs.inside, ab) if c is not None}
        )
        if cuts:
            part = (
                f"SELECT %s AS i, f.* FROM (SELECT {_WINDOW_SUMS} FROM (SELECT correct, kba_correct FROM {_PRED} "
                f"WHERE run_id = %s AND item_difficulty = %s AND {_WINDOW_ITEMS} ORDER BY position LIMIT %s) g) f"
            )
            cur.execute(" UNION ALL ".join([part] * len(cuts)), [x for i, c in enumerate(cuts) for x in (i, *c)])
            for i, ok, kba_n, kba_ok in cur.fetchall():
                rid, d, k = cuts[int(i)]
                ranks[rid].first[(d, k)] = (int(ok or 0), int(kba_n or 0), int(kba_ok or 0))
    out: dict[int, list[CoreWindow]] = {}
    for rid, rs in ranks.items():
        wins = []
        for i, (a, b) in enumerate(bounds[rid]):
            (ok_a, kn_a, kok_a), (ok_b, kn_b, kok_b) = rs.sums(a), rs.sums(b)
            n, kba_n = b - a, kn_b - kn_a
            wins.append(
                CoreWindow(
                    window=i,
                    start=a,
                    stop=b,
                    d_min=rs.value_at(a),
                    d_max=rs.value_at(b - 1),
                    mean_d=(rs.d_sum(b) - rs.d_sum(a)) / n,
                    n=n,
                    accuracy=(ok_b - ok_a) / n,
                    kba=(kok_b - kok_a) / kba_n if kba_n else None,
                )
            )
        out[rid] = wins
    return out


class _RankSums:
    """Running sums over a run's window items in (d, position) order, from the sums per difficulty
    value and the sums over the first k items of the values a boundary falls inside (``first``)."""

    def __init__(self, groups: Sequence[tuple[int, int, tuple[int, int, int]]]) -> None:
        self.values = [d for d, _, _ in groups]
        self.starts, self.before, self.d_before = [0], [(0, 0, 0)], [0]  # per group: what precedes it
        for d, n, (ok, kba_n, kba_ok) in groups:
            s0, s1, s2 = self.before[-1]
            self.starts.append(self.starts[-1] + n)
            self.before.append((s0 + ok, s1 + kba_n, s2 + kba_ok))
            self.d_before.append(self.d_before[-1] + d * n)
        self.total = self.starts[-1]
        self.first: dict[tuple[int, int], tuple[int, int, int]] = {}  # (d, k) -> sums over its first k items

    def _locate(self, rank: int) -> tuple[int, int]:
        """(group index, offset in it) of the item at ``rank``; (number of groups, 0) for rank = total."""
        g = bisect.bisect_right(self.starts, rank) - 1
        return g, rank - self.starts[g]

    def value_at(self, rank: int) -> int:
        return self.values[self._locate(rank)[0]]

    def inside(self, rank: int) -> tuple[int, int] | None:
        """(d, k) when ``rank`` falls after the first k > 0 items of value d, else None."""
        g, k = self._locate(rank)
        return (self.values[g], k) if k else None

    def sums(self, rank: int) -> tuple[int, int, int]:
        """(correct, KBA answered, KBA correct) over the items before ``rank``."""
        g, k = self._locate(rank)
        s0, s1, s2 = self.before[g]
        p0, p1, p2 = self.first[(self.values[g], k)] if k else (0, 0, 0)
        return s0 + p0, s1 + p1, s2 + p2

    def d_sum(self, rank: int) -> int:
        """The sum of d(Q) over the items before ``rank``."""
        g, k = self._locate(rank)
        return self.d_before[g] + (self.values[g] * k if k else 0)


def _bucket_pieces(groups: Sequence[tuple[int, int, int]], n_buckets: int) -> list[tuple[int, int, int, int]]:
    """Cut difficulty groups [(d, n, ok)] (in d order, items of a group in position order) at the
    bucket boundaries: [(bucket, d, k0, k1)] = items k0..k1-1 of group d are in the bucket. Rank r
    of N items is in bucket r * n_buckets // N."""
    total = sum(n for _, n, _ in groups)
    out = []
    start = 0
    for d, n, _ in groups:
        r = start
        while r < start + n:
            b = r * n_buckets // total
            next_bucket_at = -(-(b + 1) * total // n_buckets)  # the first rank of bucket b + 1
            stop = min(start + n, next_bucket_at)
            out.append((b, d, r - start, stop - start))
            r = stop
        start += n
    return out


def sliding_windows(buckets: Sequence[DifficultyBucket], width: int = 3) -> list[DifficultyWindow]:
    """Windows of ``width`` consecutive buckets (step one bucket): mean difficulty and accuracy."""
    out = []
    for i in range(0, max(len(buckets) - width + 1, 0)):
        part = buckets[i : i + width]
        n = sum(b["n"] for b in part)
        out.append(
            DifficultyWindow(
                window=i,
                first_bucket=part[0]["bucket"],
                last_bucket=part[-1]["bucket"],
                n=n,
                accuracy=sum(b["ok"] for b in part) / n if n else None,
                mean_d=sum(b["d_sum"] for b in part) / n if n else None,
                d_min=part[0]["d_min"],
                d_max=part[-1]["d_max"],
            )
        )
    return out


# -- the drawer: the predictions behind a bar, cell or point ------------------------------------


def runs_with_sets() -> QuerySet[Run]:
    """Runs with their question or statement set (the error pages' headings name them)."""
    return Run.objects.select_related("question_set", "statement_set")


def runs_by_ids(ids: Sequence[int]) -> list[Run]:
    return list(runs_with_sets().filter(pk__in=ids).order_by("pk"))


@dataclass(frozen=True, slots=True)
class OtherAnswer:
    """Another run's prediction on a drawer item: which run, and whether it was right."""

    run_id: int
    correct: bool | None


@dataclass(frozen=True, slots=True)
class DrawerRow:
    """One prediction in the drawer: its item (question or statement) with provenance, the other
    runs' predictions on the same item, and the item's final human label."""

    p: Prediction
    item: Any
    others: list[OtherAnswer]
    votes: FinalLabelRow | None


# What the drawer shows of a prediction and its item (templates/explorer/_drawer.html), read alone:
# the scores, outputs and JSON metadata of 500 predictions and questions cost more than the page.
_DRAWER_FIELDS = {
    "question": (
        "position",
        "chosen",
        "correct",
        "question",
        "question__position",
        "question__stem",
        "question__options",
        "question__answer_index",
        "question__structure",
        "question__role",
        "question__question_set",
        "question__question_set__name",
    ),
    "statement": (
        "position",
        "chosen",
        "correct",
        "extra",
        "statement",
        "statement__position",
        "statement__text",
        "statement__human_majority",
        "statement__statement_set",
        "statement__statement_set__name",
    ),
}


@dataclass(frozen=True, slots=True)
class DrawerItems:
    total: int
    rows: list[DrawerRow]


def drawer_items(run: Run, params: Mapping[str, str], coco_cell: tuple[bool, bool] | None, limit: int) -> DrawerItems:
    """The predictions of ``run`` that ``params`` (:func:`prediction_filter`) and the CoCo cell
    (knows, solves) select, wrong ones first, at most ``limit``; ``total`` counts them all."""
    qs = Prediction.objects.filter(run=run).filter(prediction_filter(params))
    if coco_cell is not None:
        qs = qs.filter(coco_cell_filter(run, *coco_cell))
    rel = "statement" if run.is_statement_run else "question"
    page = qs.select_related(rel, f"{rel}__{rel}_set").only(*_DRAWER_FIELDS[rel]).order_by("correct", "position")
    preds: list[Prediction]
    if coco_cell is not None:
        # finding the cell's sets is the cost: done once, the rows counted beside the page (COUNT(*) OVER ())
        counted = list(page.annotate(total=Window(Count("*")))[: max(limit, 1)])
        total = counted[0].total if counted else 0
        preds = list(counted[:limit])
    else:
        total = qs.count()
        preds = list(page[:limit])
    if not run.is_statement_run:  # into a list (to_attr): a manager's queryset per question costs ~0.1 ms each
        prefetch_related_objects(
            preds,
            Prefetch(
                "question__triples",
                queryset=Triple.objects.select_related("head", "relation", "tail", "source"),
                to_attr="source_triples",
            ),
        )
    item_ids = [getattr(p, f"{rel}_id") for p in preds]
    others: dict[int, list[OtherAnswer]] = {}
    for item_id, run_id, correct in (
        Prediction.objects.filter(**{f"{rel}_id__in": item_ids})
        .exclude(run=run)
        .order_by("run_id")
        .values_list(f"{rel}_id", "run_id", "correct")
    ):
        others.setdefault(item_id, []).append(OtherAnswer(run_id=run_id, correct=correct))
    votes = sources.question_votes(item_ids) if rel == "question" else sources.statement_votes(item_ids)
    rows = [
        DrawerRow(
            p=p,
            item=getattr(p, rel),
            others=others.get(getattr(p, f"{rel}_id"), []),
            votes=votes.get(getattr(p, f"{rel}_id")),
        )
        for p in preds
    ]
    return DrawerItems(total=total, rows=rows)
