"""Aggregates over runs' predictions for the model-error pages. Each function is one or two SQL
queries whatever the number of predictions; Python only reshapes the aggregated rows.

The same filter vocabulary (:func:`prediction_filter`) builds the charts' drawer links and the
drawer's item list, so a bar and the items behind it cannot disagree.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from django.db import connection
from django.db.models import Count, Max, Q
from django.db.models.expressions import RawSQL

from runs.models import Prediction, Run

from . import sources

# Each dimension is a column copied from the question when the prediction was stored
# (runs.item_facets), read from the covering index ``prediction_item_facets``.
DIMENSIONS = {"relation": "item_relation", "kind": "item_kind", "perturbation": "item_perturbation"}


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


def accuracy_by(runs: Sequence[Run], dimension: str) -> list[dict[str, Any]]:
    """[{run, group, n, ok}] per run and value of ``dimension`` (relation, kind, perturbation)."""
    column = DIMENSIONS[dimension]
    # a statement's prediction has blank facets: no question filter needed (it would cost a row read)
    rows = (Prediction.objects.filter(run__in=runs).exclude(**{column: ""})
            .values("run_id", column).annotate(n=Count("id"), ok=Count("id", filter=Q(correct=True)))
            .order_by(column, "run_id"))
    return [{"run": r["run_id"], "group": r[column], "n": r["n"], "ok": r["ok"]} for r in rows]


def position_counts(run: Run) -> list[tuple[int, int, int]]:
    """(answer index, chosen index or -1 for no answer, predictions)."""
    rows = (Prediction.objects.filter(run=run, item_answer__isnull=False)
            .values("item_answer", "chosen").annotate(n=Count("id")).order_by())
    return [(r["item_answer"], -1 if r["chosen"] is None else r["chosen"], r["n"]) for r in rows]


def max_options(run: Run) -> int:
    return int(Prediction.objects.filter(run=run).aggregate(m=Max("item_options"))["m"] or 0)


# -- CoCo sets ----------------------------------------------------------------------------------
#
# A CoCo set is a question group (``item_group``); a question with a role but no group is a set of
# its own. Each metric reads the predictions of one role and probes the row's own set in the
# ``prediction_coco_sets`` index (run, item_group, item_role, correct, question): a few seeks per
# row. (Aggregating every prediction per set with eight conditional counts costs ~1.5x as much on
# 40,000 predictions.) Role prefixes are compared with substr: exact and case-sensitive like
# str.startswith on every database. The chart and its drawer share _APPLICATION_ROWS. Another
# row of the same set is told apart by its question (unique per run), which the index holds.

_PRED = Prediction._meta.db_table
_SAME_SET = "o.run_id = p.run_id AND o.item_group = p.item_group"
_ATOMIC = "substr(o.item_role, 1, 7) = 'atomic_'"
_CONCEPT = "substr(o.item_role, 1, 18) = 'conceptualization_'"

# The reasoning prediction of each application set (exactly one reasoning question and at least one
# atomic question in the group): knows = every atomic answer correct, solves = the reasoning one.
_APPLICATION_ROWS = f"""
SELECT p.id, p.run_id,
  CASE WHEN EXISTS(SELECT 1 FROM {_PRED} o WHERE {_SAME_SET} AND {_ATOMIC} AND o.correct IS NOT TRUE)
       THEN 0 ELSE 1 END AS knows,
  CASE WHEN p.correct IS TRUE THEN 1 ELSE 0 END AS solves
FROM {_PRED} p
WHERE p.run_id IN ({{runs}}) AND p.item_role = 'reasoning' AND p.item_group <> ''
  AND EXISTS(SELECT 1 FROM {_PRED} o WHERE {_SAME_SET} AND {_ATOMIC})
  AND NOT EXISTS(SELECT 1 FROM {_PRED} o WHERE {_SAME_SET} AND o.item_role = 'reasoning' AND o.question_id <> p.question_id)"""

# memorization sets: one memorization question, no conceptualization nor reasoning question
_MEMORIZATION_SETS = f"""
SELECT 'mem' AS k, p.run_id, 0 AS knows, 0 AS solves, COUNT(*) AS n,
       SUM(CASE WHEN p.correct IS TRUE THEN 1.0 ELSE 0.0 END) AS x
FROM {_PRED} p
WHERE p.run_id IN ({{runs}}) AND p.item_role = 'memorization' AND (p.item_group = '' OR NOT EXISTS(
  SELECT 1 FROM {_PRED} o WHERE {_SAME_SET} AND o.question_id <> p.question_id
    AND (o.item_role IN ('memorization', 'reasoning') OR {_CONCEPT})))
GROUP BY p.run_id"""

# comprehension sets whose memorization question was answered correctly: the share of their
# conceptualization questions answered correctly
_COMPREHENSION_SETS = f"""
SELECT 'com' AS k, p.run_id, 0 AS knows, 0 AS solves, COUNT(*) AS n,
       SUM((SELECT AVG(CASE WHEN o.correct IS TRUE THEN 1.0 ELSE 0.0 END) FROM {_PRED} o
            WHERE {_SAME_SET} AND {_CONCEPT})) AS x
FROM {_PRED} p
WHERE p.run_id IN ({{runs}}) AND p.item_role = 'memorization' AND p.item_group <> '' AND p.correct IS TRUE
  AND EXISTS(SELECT 1 FROM {_PRED} o WHERE {_SAME_SET} AND {_CONCEPT})
  AND NOT EXISTS(SELECT 1 FROM {_PRED} o WHERE {_SAME_SET} AND o.item_role = 'memorization' AND o.question_id <> p.question_id)
GROUP BY p.run_id"""


def coco_summary(runs: Sequence[Run]) -> dict[int, dict[str, Any]]:
    """Per run: the 2×2 counts of application sets (knows all atoms × solves the composed
    question) and pooled MEM, COM, REA, FAI, APP (CoCo Eqs. 4–8). One query."""
    ids = [int(r.pk) for r in runs]
    if not ids:
        return {}
    marks = ", ".join(["%s"] * len(ids))
    sql = (f"WITH app AS MATERIALIZED ({_APPLICATION_ROWS.format(runs=marks)}) "
           "SELECT 'app' AS k, run_id, knows, solves, COUNT(*) AS n, 0.0 AS x FROM app GROUP BY run_id, knows, solves "
           f"UNION ALL {_MEMORIZATION_SETS.format(runs=marks)} UNION ALL {_COMPREHENSION_SETS.format(runs=marks)}")
    with connection.cursor() as cur:
        cur.execute(sql, ids * 3)
        rows = cur.fetchall()
    cells: dict[int, dict[tuple[bool, bool], int]] = {}
    mem: dict[int, tuple[int, float]] = {}
    com: dict[int, tuple[int, float]] = {}
    for kind, run_id, knows, solves, n, x in rows:
        if kind == "app":
            c = cells.setdefault(int(run_id), {(True, True): 0, (True, False): 0, (False, True): 0, (False, False): 0})
            c[(bool(knows), bool(solves))] += int(n)
        else:
            (mem if kind == "mem" else com)[int(run_id)] = (int(n), float(x or 0.0))

    def div(a: float, b: float) -> float | None:
        return a / b if b else None

    out: dict[int, dict[str, Any]] = {}
    for run_id in {*cells, *mem, *com}:
        c = cells.get(run_id, {(True, True): 0, (True, False): 0, (False, True): 0, (False, False): 0})
        tt, tf, ft, ff = c[(True, True)], c[(True, False)], c[(False, True)], c[(False, False)]
        n_app = tt + tf + ft + ff
        (n_mem, mem_ok), (n_com, com_sum) = mem.get(run_id, (0, 0.0)), com.get(run_id, (0, 0.0))
        out[run_id] = {
            "counts": c, "MEM": div(mem_ok, n_mem), "COM": div(com_sum, n_com),
            "REA": div(tt + ft, n_app), "FAI": div(tt, tt + ft), "APP": div(tt, tt + tf),
            "n_app": n_app, "n_mem": n_mem, "n_com": n_com,
        }
    return out


def coco_cell_filter(run: Run, knows: bool, solves: bool) -> Q:
    """Q over Prediction: the reasoning predictions of ``run``'s application sets in one cell of
    the 2×2, read with the same SQL that counts the cell in :func:`coco_summary`."""
    ids = RawSQL(f"SELECT id FROM ({_APPLICATION_ROWS.format(runs='%s')}) a WHERE knows = %s AND solves = %s",
                 [run.pk, int(knows), int(solves)])
    return Q(pk__in=ids)


# -- ReComSBench --------------------------------------------------------------------------------

def difficulty_buckets(runs: Sequence[Run], n_buckets: int = 9) -> dict[int, list[dict[str, Any]]]:
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
        cur.execute(f"SELECT run_id, item_difficulty, COUNT(*), SUM(CASE WHEN correct THEN 1 ELSE 0 END) FROM {table} "
                    f"WHERE run_id IN ({marks}) AND item_difficulty IS NOT NULL "
                    "GROUP BY run_id, item_difficulty ORDER BY run_id, item_difficulty", run_ids)
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
            part = (f"SELECT %s AS i, (SELECT SUM(CASE WHEN correct THEN 1 ELSE 0 END) FROM (SELECT correct FROM {table} "
                    "WHERE run_id = %s AND item_difficulty = %s ORDER BY position LIMIT %s) f) AS ok")
            cur.execute(" UNION ALL ".join([part] * len(ordered)), [x for i, c in enumerate(ordered) for x in (i, *c)])
            ok_first = {ordered[int(i)]: int(ok or 0) for i, ok in cur.fetchall()}
    out: dict[int, list[dict[str, Any]]] = {}
    for rid, ps in pieces.items():
        size_ok = {d: (n, ok) for d, n, ok in groups[rid]}

        def ok_until(d: int, k: int, rid: int = rid, size_ok: dict[int, tuple[int, int]] = size_ok) -> int:
            n, ok = size_ok[d]
            return 0 if k == 0 else ok if k == n else ok_first[(rid, d, k)]

        buckets: dict[int, dict[str, Any]] = {}
        for b, d, k0, k1 in ps:
            bk = buckets.setdefault(b, {"bucket": b, "n": 0, "ok": 0, "d_sum": 0.0, "d_min": d, "d_max": d})
            bk["n"] += k1 - k0
            bk["ok"] += ok_until(d, k1) - ok_until(d, k0)
            bk["d_sum"] += float(d * (k1 - k0))
            bk["d_max"] = d
        out[rid] = [buckets[b] for b in sorted(buckets)]
    return out


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


def sliding_windows(buckets: Sequence[Mapping[str, Any]], width: int = 3) -> list[dict[str, Any]]:
    """Windows of ``width`` consecutive buckets (step one bucket): mean difficulty and accuracy."""
    out = []
    for i in range(0, max(len(buckets) - width + 1, 0)):
        part = buckets[i:i + width]
        n = sum(b["n"] for b in part)
        out.append({"window": i, "first_bucket": part[0]["bucket"], "last_bucket": part[-1]["bucket"], "n": n,
                    "accuracy": sum(b["ok"] for b in part) / n if n else None,
                    "mean_d": sum(b["d_sum"] for b in part) / n if n else None,
                    "d_min": part[0]["d_min"], "d_max": part[-1]["d_max"]})
    return out
