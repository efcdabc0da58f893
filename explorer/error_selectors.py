"""Aggregates over runs' predictions for the model-error pages. Each function is one or two SQL
queries whatever the number of predictions; Python only reshapes the aggregated rows.

The same filter vocabulary (:func:`prediction_filter`) builds the charts' drawer links and the
drawer's item list, so a bar and the items behind it cannot disagree.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from django.db import connection
from django.db.models import Case, CharField, Count, F, IntegerField, Max, Q, QuerySet, Value, When
from django.db.models.fields.json import KeyTextTransform
from django.db.models.functions import Cast, Coalesce, Concat, NullIf

from runs.models import Prediction, Run

from . import sources

DIMENSIONS = {
    "relation": KeyTextTransform("relation", "question__metadata"),
    "kind": F("question__structure"),
    "perturbation": KeyTextTransform("perturbation", "question__metadata"),
}
DIFFICULTY_KEY = "difficulty"  # ReComSBench d(Q) = |K_prior|: a recoms run's Prediction.extra, else the question's metadata


def _difficulty() -> Case:
    """d(Q) of a prediction: its own (``extra``, stored by the ``recoms`` scoring; JSON null = no
    correct path) when it has the key, else the question's ``metadata`` (set by an item builder)."""
    return Case(When(extra__has_key=DIFFICULTY_KEY,
                     then=Cast(KeyTextTransform(DIFFICULTY_KEY, "extra"), output_field=IntegerField())),
                default=Cast(KeyTextTransform(DIFFICULTY_KEY, "question__metadata"), output_field=IntegerField()))


def _difficulty_q(op: str, value: int) -> Q:
    own = Q(**{f"extra__{DIFFICULTY_KEY}__{op}": value})
    return own | (~Q(extra__has_key=DIFFICULTY_KEY) & Q(**{f"question__metadata__{DIFFICULTY_KEY}__{op}": value}))


def prediction_filter(params: Mapping[str, str]) -> Q:
    """Q over Prediction from drawer parameters: relation, kind, perturbation, correct, answer,
    chosen (index or "none"), question, statement, d_min / d_max (difficulty), agreement (level
    of the human final label), human (statement majority 0/1)."""
    q = Q()
    if params.get("relation"):
        q &= Q(question__metadata__relation=params["relation"])
    if params.get("kind"):
        q &= Q(question__structure=params["kind"])
    if params.get("perturbation"):
        q &= Q(question__metadata__perturbation=params["perturbation"])
    if params.get("correct") in ("0", "1"):
        q &= Q(correct=True) if params["correct"] == "1" else ~Q(correct=True)
    if (a := params.get("answer", "")).lstrip("-").isdigit():
        q &= Q(question__answer_index=int(a))
    if (c := params.get("chosen", "")) == "none":
        q &= Q(chosen__isnull=True)
    elif c.lstrip("-").isdigit():
        q &= Q(chosen=int(c))
    if params.get("question", "").isdigit():
        q &= Q(question_id=int(params["question"]))
    if params.get("statement", "").isdigit():
        q &= Q(statement_id=int(params["statement"]))
    if params.get("d_min", "").isdigit():
        q &= _difficulty_q("gte", int(params["d_min"]))
    if params.get("d_max", "").isdigit():
        q &= _difficulty_q("lte", int(params["d_max"]))
    if params.get("agreement"):
        q &= sources.agreement_level_q(params["agreement"])
    if params.get("human") in ("0", "1"):
        q &= Q(statement__human_majority=int(params["human"]))
    return q


def accuracy_by(runs: Sequence[Run], dimension: str) -> list[dict[str, Any]]:
    """[{run, group, n, ok}] per run and value of ``dimension`` (relation, kind, perturbation)."""
    expr = DIMENSIONS[dimension]
    rows = (Prediction.objects.filter(run__in=runs, question__isnull=False)
            .annotate(g=expr).exclude(g__isnull=True)
            .values("run_id", "g").annotate(n=Count("id"), ok=Count("id", filter=Q(correct=True)))
            .order_by("g", "run_id"))
    return [{"run": r["run_id"], "group": r["g"], "n": r["n"], "ok": r["ok"]} for r in rows if r["g"] != ""]


def position_counts(run: Run) -> list[tuple[int, int, int]]:
    """(answer index, chosen index or -1 for no answer, predictions)."""
    rows = (Prediction.objects.filter(run=run, question__answer_index__isnull=False)
            .values("question__answer_index", "chosen").annotate(n=Count("id")).order_by())
    return [(r["question__answer_index"], -1 if r["chosen"] is None else r["chosen"], r["n"]) for r in rows]


def max_options(run: Run) -> int:
    from .question_selectors import JsonArrayLength

    return int(Prediction.objects.filter(run=run, question__isnull=False)
               .aggregate(m=Max(JsonArrayLength("question__options")))["m"] or 0)


# -- CoCo sets ----------------------------------------------------------------------------------

def _coco_sets(runs: Sequence[Run]) -> QuerySet[Any]:
    """One row per (run, question set) with the counts the CoCo metrics need."""
    ok = Q(correct=True)
    atomic = Q(question__role__startswith="atomic_")
    concept = Q(question__role__startswith="conceptualization_")
    return (Prediction.objects.filter(run__in=runs, question__isnull=False).exclude(question__role="")
            .annotate(cg=Coalesce(NullIf(F("question__group"), Value("")), Concat(Value("q"), F("question_id"), output_field=CharField())))
            .values("run_id", "cg")
            .annotate(n_reason=Count("id", filter=Q(question__role="reasoning")),
                      reason_ok=Count("id", filter=Q(question__role="reasoning") & ok),
                      n_atomic=Count("id", filter=atomic), atomic_ok=Count("id", filter=atomic & ok),
                      n_mem=Count("id", filter=Q(question__role="memorization")),
                      mem_ok=Count("id", filter=Q(question__role="memorization") & ok),
                      n_concept=Count("id", filter=concept), concept_ok=Count("id", filter=concept & ok))
            .order_by())


def coco_summary(runs: Sequence[Run]) -> dict[int, dict[str, Any]]:
    """Per run: the 2×2 counts of application sets (knows all atoms × solves the composed
    question) and pooled MEM, COM, REA, FAI, APP (CoCo Eqs. 4–8). One query."""
    inner_sql, params = _coco_sets(runs).query.sql_with_params()
    sql = f"""
    SELECT run_id,
      SUM(CASE WHEN n_reason = 1 AND n_atomic > 0 AND atomic_ok = n_atomic AND reason_ok = 1 THEN 1 ELSE 0 END),
      SUM(CASE WHEN n_reason = 1 AND n_atomic > 0 AND atomic_ok = n_atomic AND reason_ok = 0 THEN 1 ELSE 0 END),
      SUM(CASE WHEN n_reason = 1 AND n_atomic > 0 AND atomic_ok < n_atomic AND reason_ok = 1 THEN 1 ELSE 0 END),
      SUM(CASE WHEN n_reason = 1 AND n_atomic > 0 AND atomic_ok < n_atomic AND reason_ok = 0 THEN 1 ELSE 0 END),
      SUM(CASE WHEN n_mem = 1 AND n_concept = 0 AND n_reason = 0 THEN 1 ELSE 0 END),
      SUM(CASE WHEN n_mem = 1 AND n_concept = 0 AND n_reason = 0 THEN mem_ok ELSE 0 END),
      SUM(CASE WHEN n_mem = 1 AND n_concept > 0 AND mem_ok = 1 THEN 1 ELSE 0 END),
      SUM(CASE WHEN n_mem = 1 AND n_concept > 0 AND mem_ok = 1 THEN 1.0 * concept_ok / n_concept ELSE 0 END)
    FROM ({inner_sql}) s GROUP BY run_id"""
    with connection.cursor() as cur:
        cur.execute(sql, params)
        rows = cur.fetchall()
    out: dict[int, dict[str, Any]] = {}
    for run_id, tt, tf, ft, ff, n_mem, mem_ok, com_base, com_sum in rows:
        tt, tf, ft, ff = int(tt or 0), int(tf or 0), int(ft or 0), int(ff or 0)
        n_app = tt + tf + ft + ff

        def div(a: float, b: float) -> float | None:
            return a / b if b else None

        out[int(run_id)] = {
            "counts": {(True, True): tt, (True, False): tf, (False, True): ft, (False, False): ff},
            "MEM": div(float(mem_ok or 0), float(n_mem or 0)), "COM": div(float(com_sum or 0), float(com_base or 0)),
            "REA": div(tt + ft, n_app), "FAI": div(tt, tt + ft), "APP": div(tt, tt + tf),
            "n_app": n_app, "n_mem": int(n_mem or 0), "n_com": int(com_base or 0),
        }
    return out


def coco_category_groups(run: Run, knows: bool, solves: bool) -> QuerySet[Any]:
    """The set ids (question groups) of ``run``'s application sets in one cell of the 2×2."""
    sets = _coco_sets([run]).filter(n_reason=1, n_atomic__gt=0)
    sets = sets.filter(atomic_ok=F("n_atomic")) if knows else sets.filter(atomic_ok__lt=F("n_atomic"))
    sets = sets.filter(reason_ok=1 if solves else 0)
    return sets.values("cg")


# -- ReComSBench --------------------------------------------------------------------------------

def difficulty_buckets(runs: Sequence[Run], n_buckets: int = 9) -> dict[int, list[dict[str, Any]]]:
    """Items sorted by difficulty d(Q) (ties by position) cut into ``n_buckets`` equal ranks, per
    run: [{bucket, n, ok, d_sum, d_min, d_max}]. ReComSBench's windows (length N/3, step N/9) are
    three consecutive buckets. One query (a window function ranks the items)."""
    ranked = (Prediction.objects.filter(run__in=runs, question__isnull=False)
              .annotate(d=_difficulty()).exclude(d__isnull=True)
              .values("run_id", "d", "correct", "position"))
    inner_sql, params = ranked.query.sql_with_params()
    sql = f"""
    SELECT run_id, (rn * %s) / cnt AS bucket, COUNT(*), SUM(CASE WHEN correct THEN 1 ELSE 0 END),
           SUM(d), MIN(d), MAX(d)
    FROM (SELECT run_id, d, correct,
                 ROW_NUMBER() OVER (PARTITION BY run_id ORDER BY d, position) - 1 AS rn,
                 COUNT(*) OVER (PARTITION BY run_id) AS cnt
          FROM ({inner_sql}) r) x
    GROUP BY run_id, bucket ORDER BY run_id, bucket"""
    with connection.cursor() as cur:
        cur.execute(sql, [n_buckets, *params])
        rows = cur.fetchall()
    out: dict[int, list[dict[str, Any]]] = {}
    for run_id, b, n, ok, dsum, dmin, dmax in rows:
        out.setdefault(int(run_id), []).append({"bucket": int(b), "n": int(n), "ok": int(ok or 0),
                                                "d_sum": float(dsum or 0), "d_min": dmin, "d_max": dmax})
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
