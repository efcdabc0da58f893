"""Metrics of a finished run: gather its predictions into plain records, hand them to the metric
functions, store one :class:`RunMetric` row per (metric, scope). They are read back by
:func:`runs.selectors.runs.run_metrics_overall` and :func:`runs.selectors.runs.run_metrics_json`.

Scopes: ``overall``; ``structure=<query kind>``, ``relation=<relation>``, ``category=<topic>``,
``feature:<name>=<0|1>``. ``<metric>_macro`` is the unweighted mean over the groups of one scope
kind (``accuracy_macro@structure``) next to the micro value (``accuracy``).
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.db.models import Count

import commonsense.metrics as M
from commonsense.metrics import Estimate
from commonsense.questions.record import question_relation
from knowledge.models import Question, Statement
from runs.models import Prediction, Run, RunMetric
from runs.reports.coco import coco_table_rows, error_rows
from runs.reports.difficulty import difficulty_adopt, window_rows
from runs.reports.recoms import krr_rows
from runs.reports.rica import rica_bias_rows
from runs.selectors.nww_population import record_p_yes

Record = dict[str, Any]
Row = tuple[str, str, float | None, float | None, float | None, int, dict[str, Any]]


def run_records(run: Run) -> list[Record]:
    """One plain dict per stored prediction, with what the metrics group by."""
    out: list[Record] = []
    if run.is_statement_run:
        preds = Prediction.objects.filter(run=run).select_related("statement").order_by("position")
        for p in preds.iterator(chunk_size=2000):
            s: Statement = p.statement  # type: ignore[assignment]
            out.append(
                {
                    "position": p.position,
                    "human": s.human_majority,
                    "features": s.features or {},
                    "category": s.category,
                    "elicitation": s.elicitation,
                    "p_yes_q1": record_p_yes(p.extra.get("q1")),
                    "p_yes_q2": record_p_yes(p.extra.get("q2")),
                    "chosen": p.chosen,
                    "error": p.error,
                }
            )
    else:
        preds = Prediction.objects.filter(run=run).select_related("question").order_by("position")
        recoms = run.scoring == "recoms"
        for p in preds.iterator(chunk_size=2000):
            q: Question = p.question  # type: ignore[assignment]
            meta = q.metadata or {}
            out.append(
                {
                    "position": p.position,
                    "answer": q.answer_index,
                    "chosen": p.chosen,
                    "chosen_norm": p.chosen_norm,
                    "structure": q.structure,
                    "relation": question_relation(meta, q.structure),
                    "group": q.group,
                    "role": q.role,
                    "perturbation": str(meta.get("perturbation", "")),
                    "options": q.options,
                    "error": p.error,
                    "aspect": str(
                        meta.get("aspect")
                        or (
                            q.structure
                            if q.role in ("reasoning",) or q.role.startswith("atomic_")
                            else question_relation(meta, q.structure)
                        )
                    ),
                    **(_recoms_fields(p) if recoms else {}),
                }
            )
    return out


def _recoms_fields(p: Prediction) -> Record:
    """What ReComSBench stored in ``extra`` (see commonsense.scoring.recoms) that its metrics need."""
    x = p.extra or {}
    kba = x.get("kba") or {}
    paths = x.get("paths") or []
    return {
        "difficulty": x.get("difficulty"),
        "kba_correct": kba.get("correct"),
        "path_correct": tuple(pt.get("correct") for pt in paths),
        "path_kcr": tuple(pt.get("kcr") for pt in paths),
        "path_krr": tuple(pt.get("krr") for pt in paths),
    }


def _recoms_rows(records: list[Record], seed: int) -> list[Row]:
    """ReComSBench: pass@k, MSG(k) and their sum, KBA, Easy/Hard sliding windows (Δ, Δ*), KCR of
    correct vs incorrect paths (Mann–Whitney U), mean d(Q). Items that failed are left out."""
    items = [
        M.RecomsItem(
            correct=None if r["answer"] is None else r["chosen"] == r["answer"],
            kba_correct=r["kba_correct"],
            difficulty=r["difficulty"],
            path_correct=r["path_correct"],
            path_kcr=r["path_kcr"],
        )
        for r in records
        if not r["error"]
    ]
    rep = M.recoms_report(items, seed=seed)
    rows: list[Row] = [_row(f"pass@{k}", "overall", e) for k, e in enumerate(rep.pass_at, 1)]
    rows += [_row(f"msg@{k}", "overall", e) for k, e in rep.msg.items()]
    if rep.k > 1:
        rows.append(_row("msg_sum", "overall", rep.msg_sum, k=rep.k))
    rows.append(_row("kba", "overall", rep.kba))
    for w in rep.windows:
        where = {"start": w.start, "stop": w.stop, "d_min": w.d_min, "d_max": w.d_max, "mean_d": w.mean_difficulty}
        rows += [
            _row("accuracy", f"window={w.index + 1}", w.accuracy, **where),
            _row("kba", f"window={w.index + 1}", w.kba, **where),
        ]
    if rep.easy is not None and rep.hard is not None:
        rows += [
            _row("accuracy_easy", "overall", rep.easy.accuracy),
            _row("accuracy_hard", "overall", rep.hard.accuracy),
            _row("kba_easy", "overall", rep.easy.kba),
            _row("kba_hard", "overall", rep.hard.kba),
            ("accuracy_delta", "overall", rep.delta, None, None, rep.easy.accuracy.n, {"windows": len(rep.windows)}),
            ("kba_delta", "overall", rep.delta_kba, None, None, rep.easy.kba.n, {"windows": len(rep.windows)}),
        ]
    rows += [_row("kcr_correct", "overall", rep.kcr_correct), _row("kcr_incorrect", "overall", rep.kcr_incorrect)]
    if rep.kcr_test is not None:
        t = rep.kcr_test
        rows.append(
            (
                "kcr_mannwhitney_p",
                "overall",
                t.p,
                None,
                None,
                t.n_correct + t.n_incorrect,
                {"u": t.u, "n_correct": t.n_correct, "n_incorrect": t.n_incorrect, "alternative": "two-sided"},
            )
        )
    rows += krr_rows(records, seed)
    rows.append(_row("difficulty", "overall", rep.difficulty))
    rows.append(
        (
            "difficulty_defined",
            "overall",
            rep.with_difficulty / len(items) if items else None,
            None,
            None,
            len(items),
            {"with_difficulty": rep.with_difficulty},
        )
    )
    return rows


def _row(name: str, scope: str, est: Estimate, **data: Any) -> Row:
    return (name, scope, est.value, est.low, est.high, est.n, data)


def _accuracy_rows(name: str, correct: list[bool | None], records: list[Record], seed: int) -> list[Row]:
    groupings = {
        k: [r[k] for r in records] for k in ("structure", "relation") if len({r[k] for r in records if r[k]}) > 0
    }
    rep = M.accuracy_report(correct, groupings, seed=seed)
    rows = [_row(name, "overall", rep.overall)]
    for kind, grouped in rep.by.items():
        rows += [_row(name, f"{kind}={g}", est) for g, est in grouped.groups.items()]
        if len(grouped.groups) > 1:
            rows.append(_row(f"{name}_macro", kind, grouped.macro, groups=len(grouped.groups)))
    return rows


def _coco_answers(records: list[Record], group_sizes: dict[str, int]) -> tuple[list[M.CocoAnswer], int]:
    """CoCo sets from the records that carry a group and a role. A set's aspect is that of its
    anchor: the reasoning question's query kind for an application set (its atomic sub-questions
    are 1p questions of their own), the memorization question's relation otherwise. A set with
    fewer answered questions than the question set holds (cut by ``--limit``, or unscored) is left
    out and counted: a comprehension set cut after its memorization question must not pass for a
    memorization set. Sets with no CoCo structure at all (COM2's questions are each their own
    "reasoning" group) give nothing."""
    groups: dict[str, list[Record]] = {}
    for r in records:
        if r["group"] and r["role"]:
            groups.setdefault(r["group"], []).append(r)
    answers: list[M.CocoAnswer] = []
    incomplete = 0
    for gid, rows in groups.items():
        roles = [r["role"] for r in rows]
        has_atomic = any(ro.startswith("atomic_") for ro in roles)
        anchor = next((r for r in rows if r["role"] == "reasoning"), None)
        if anchor is None:
            anchor = next((r for r in rows if r["role"] == "memorization"), None)
        complete = anchor is not None and (has_atomic if anchor["role"] == "reasoning" else not has_atomic)
        if complete and len(rows) != group_sizes.get(gid, len(rows)):
            incomplete += 1
            continue
        if not complete:
            incomplete += 1
            continue
        assert anchor is not None
        answers += [
            M.CocoAnswer(group=gid, role=r["role"], correct=r["chosen"] == r["answer"], aspect=anchor["aspect"])
            for r in rows
        ]
    return answers, incomplete


def _coco_rows(records: list[Record], seed: int, group_sizes: dict[str, int]) -> list[Row]:
    """CoCo MEM/COM/REA/FAI/APP (micro and macro) when the questions form CoCo sets."""
    answers, incomplete = _coco_answers(records, group_sizes)
    if not answers:
        return []
    rep = M.coco_report(answers, seed=seed)
    rows: list[Row] = []
    for m in M.coco.METRICS:
        extra = {"sets_without_m_concepts_left_out": rep.com_left_out, "m": M.coco.M_CONCEPTS} if m == "COM" else {}
        rows.append(_row(m, "overall", getattr(rep.micro, m), incomplete_sets_left_out=incomplete, **extra))
        rows.append(_row(f"{m}_macro", "aspect", getattr(rep.macro, m)))
        rows += [_row(m, f"aspect={a}", est) for a, est in rep.by_aspect.get(m, {}).items()]
    return rows


def _rica_rows(records: list[Record], seed: int) -> list[Row]:
    """RICA per-probe accuracy by perturbation and all-perturbations-correct per axiom."""
    probes = []
    for r in records:
        pert = r["perturbation"] or "original"
        asym = next((a for a in ("asymmetric_premise", "asymmetric_conclusion") if a in pert), "original")
        ling = pert.replace(asym, "").strip("_") or "original"
        probes.append(
            M.RicaProbe(
                axiom=r["group"],
                correct=None if r["chosen"] is None else r["chosen"] == r["answer"],
                linguistic=ling,
                asymmetry=asym,
            )
        )
    rep = M.rica_report(probes, seed=seed)
    rows = [_row("all_perturbations_correct", "overall", rep.all_perturbations_correct, axioms=len(rep.axioms))]
    rows += [_row("accuracy", f"linguistic={k}", e) for k, e in rep.by_linguistic.items()]
    rows += [_row("accuracy", f"asymmetry={k}", e) for k, e in rep.by_asymmetry.items()]
    return rows + rica_bias_rows(records, seed)


def _question_rows(records: list[Record], seed: int, group_sizes: dict[str, int]) -> list[Row]:
    scored = [r for r in records if r["answer"] is not None]
    rows = _accuracy_rows("accuracy", [r["chosen"] == r["answer"] for r in scored], scored, seed)
    if any(r["chosen_norm"] is not None for r in scored):
        rows += _accuracy_rows("accuracy_norm", [r["chosen_norm"] == r["answer"] for r in scored], scored, seed)
    rows.append(_row("no_answer_rate", "overall", M.mean_ci([r["chosen"] is None for r in records], seed=seed)))
    if scored and all(r["structure"] in ("rica-axiom", "rica-probe") and r["group"] for r in scored):
        rows += _rica_rows(scored, seed)
    rows += _coco_rows(scored, seed, group_sizes)
    if records and "path_correct" in records[0]:
        rows += _recoms_rows(records, seed)
    return rows


def _statement_rows(records: list[Record], seed: int) -> list[Row]:
    """NWW: the model as one respondent (Eqs. 16–18) against the human majority, overall, per
    feature pole and per category."""
    rows: list[Row] = []
    scored = [r for r in records if r["human"] is not None]

    def emit(scope: str, rs: list[Record]) -> None:
        if not rs:
            return
        nan = float("nan")
        res = M.respondent_scores(
            [nan if r["p_yes_q1"] is None else r["p_yes_q1"] for r in rs],
            [nan if r["p_yes_q2"] is None else r["p_yes_q2"] for r in rs],
            [r["human"] for r in rs],
            seed=seed,
        )
        for name in ("consensus", "awareness", "commonsensicality"):
            rows.append(_row(name, scope, getattr(res, name)))

    emit("overall", scored)
    for f in sorted({k for r in scored for k in r["features"]}):
        for pole in (1, 0):
            emit(f"feature:{f}={pole}", [r for r in scored if r["features"].get(f) == pole])
    for cat in sorted({r["category"] for r in scored if r["category"]}):
        emit(f"category={cat}", [r for r in scored if r["category"] == cat])
    rows.append(_row("no_answer_rate", "overall", M.mean_ci([r["p_yes_q1"] is None for r in records], seed=seed)))
    return rows


def run_metrics_compute(run: Run) -> list[RunMetric]:
    """Compute and store every metric of ``run`` (replacing earlier rows)."""
    difficulty_adopt(run)  # a shared d(Q) (parameter difficulty_run), before anything reads it
    records = run_records(run)
    seed = int(run.seed or 0)
    if run.is_statement_run:
        rows = _statement_rows(records, seed)
    elif run.scoring == "generate-answer":
        from runs.reports.generation import generation_rows

        rows = generation_rows(run, seed)
    else:
        sizes = (
            Question.objects.filter(question_set_id=run.question_set_id)
            .exclude(group="")
            .values_list("group")
            .annotate(n=Count("id"))
        )
        rows = coco_table_rows(_question_rows(records, seed, dict(sizes))) + error_rows(run) + window_rows(run)
    objs = [
        RunMetric(run=run, name=n, scope=s, value=v, ci_low=lo, ci_high=hi, n=k, data=d)
        for n, s, v, lo, hi, k, d in rows
    ]
    with transaction.atomic():
        RunMetric.objects.filter(run=run).delete()
        RunMetric.objects.bulk_create(objs)
    return objs
