"""The run-error aggregates read from the predictions' item_* copies equal a fresh computation from
the questions themselves, on seeded random CoCo- and ReComSBench-shaped runs (ties, no answers,
ungrouped items, odd sets)."""

from __future__ import annotations

import random
from collections import defaultdict
from typing import Any

import pytest

from explorer.selectors import errors as es
from explorer.selectors.difficulty import core_windows, difficulty_buckets, runs_with_difficulty
from explorer.selectors.drawer import drawer_items
from runs.models import Prediction

from .factories import QuestionFactory, QuestionSetFactory, make_run, predict

pytestmark = pytest.mark.django_db


def _window_buckets(run_ids: list[int], n_buckets: int) -> dict[int, list[dict[str, Any]]]:
    """The reference: rank every item with a window function (the former implementation), d(Q)
    taken from the prediction's extra, else the question's metadata (Python, no copy used)."""
    rows = []
    for p in Prediction.objects.filter(run_id__in=run_ids).select_related("question"):
        d = p.extra["difficulty"] if "difficulty" in p.extra else p.question.metadata.get("difficulty")
        if d is not None:
            rows.append((p.run_id, int(d), p.position, p.correct is True))
    out: dict[int, list[dict[str, Any]]] = {}
    for rid in run_ids:
        mine = sorted((d, pos, ok) for r, d, pos, ok in rows if r == rid)
        agg: dict[int, dict[str, Any]] = {}
        for rank, (d, _, ok) in enumerate(mine):
            b = rank * n_buckets // len(mine)
            a = agg.setdefault(b, {"bucket": b, "n": 0, "ok": 0, "d_sum": 0.0, "d_min": d, "d_max": d})
            a["n"] += 1
            a["ok"] += ok
            a["d_sum"] += d
            a["d_max"] = d
        if agg:
            out[rid] = [agg[b] for b in sorted(agg)]
    return out


@pytest.mark.parametrize("seed", [1, 2])
def test_difficulty_buckets_equal_ranking_every_item(seed, django_assert_max_num_queries):
    rng = random.Random(seed)
    qset = QuestionSetFactory(name=f"recoms-{seed}")
    runs = [make_run(question_set=qset), make_run(question_set=qset)]
    for i in range(rng.randrange(40, 70)):
        meta = {"difficulty": rng.choice([1, 1, 1, 2, 3, 3, 5])} if rng.random() < 0.9 else {}
        q = QuestionFactory(question_set=qset, position=i, metadata=meta)
        for run in runs:
            extra = {"difficulty": rng.choice([None, 4, 7])} if rng.random() < 0.2 else {}
            predict(run, q, rng.choice([0, 1, None]), extra=extra)
    ids = [r.pk for r in runs]
    for n_buckets in (9, 4, 1, 100):
        with django_assert_max_num_queries(2):
            got = difficulty_buckets(runs, n_buckets=n_buckets)
        assert got == _window_buckets(ids, n_buckets), n_buckets
    assert difficulty_buckets([]) == {}


def _coco_reference(run_id: int) -> dict[str, Any]:
    """CoCo's 2x2, MEM and COM straight from the questions (role, group), in Python."""
    sets: dict[str, list[tuple[str, bool]]] = defaultdict(list)
    for p in Prediction.objects.filter(run_id=run_id).select_related("question"):
        q = p.question
        if q.role:
            sets[q.group or f"q{q.pk}"].append((q.role, p.correct is True))
    counts = {(True, True): 0, (True, False): 0, (False, True): 0, (False, False): 0}
    mem_n = mem_ok = com_n = 0
    com_sum = 0.0
    for items in sets.values():
        reason = [ok for role, ok in items if role == "reasoning"]
        atomic = [ok for role, ok in items if role.startswith("atomic_")]
        mem = [ok for role, ok in items if role == "memorization"]
        concept = [ok for role, ok in items if role.startswith("conceptualization_")]
        if len(reason) == 1 and atomic:
            counts[(all(atomic), reason[0])] += 1
        if len(mem) == 1 and not concept and not reason:
            mem_n, mem_ok = mem_n + 1, mem_ok + mem[0]
        if len(mem) == 1 and len(concept) == 3 and mem[0]:  # Eq. 5, m = 3
            com_n, com_sum = com_n + 1, com_sum + sum(concept) / 3
    return {"counts": counts, "MEM": mem_ok / mem_n if mem_n else None, "COM": com_sum / com_n if com_n else None}


def test_coco_summary_and_cells_equal_the_questions_sets(django_assert_num_queries):
    rng = random.Random(5)
    qset = QuestionSetFactory(name="coco-random", kind="coco")
    run = make_run(question_set=qset)
    pos = iter(range(10_000))

    def add(role: str, group: str) -> None:
        q = QuestionFactory(question_set=qset, position=next(pos), role=role, group=group, answer_index=0)
        predict(run, q, rng.choice([0, 0, 1, None]))

    for s in range(60):
        shape = rng.randrange(5)
        g = f"set-{s}"
        if shape == 0:
            add("memorization", g)
        elif shape == 1:
            add("memorization", g)
            for k in range(1, rng.randrange(2, 5)):
                add(f"conceptualization_{k}", g)
        elif shape == 2:
            for k in range(1, rng.randrange(2, 4)):
                add(f"atomic_{k}", g)
            add("reasoning", g)
        elif shape == 3:  # odd sets: two reasoning questions, or reasoning alone
            add("reasoning", g)
            if rng.random() < 0.5:
                add("reasoning", g)
                add("atomic_1", g)
        else:  # ungrouped items: each its own set
            add(rng.choice(["memorization", "reasoning", "atomic_1"]), "")
    add("", "no-role")  # a question without a role is in no set
    ref = _coco_reference(run.pk)
    with django_assert_num_queries(1):
        got = es.coco_summary([run])[run.pk]
    assert got["counts"] == ref["counts"]
    assert got["MEM"] == pytest.approx(ref["MEM"])
    assert got["COM"] == pytest.approx(ref["COM"])
    for (knows, solves), n in ref["counts"].items():
        cell = Prediction.objects.filter(run=run).filter(es.coco_cell_filter(run, knows, solves))
        assert cell.count() == len({p.item_group for p in cell}) == n
        # the drawer counts a whole cell from the summary, a filtered one by counting
        found = drawer_items(run, {}, (knows, solves), 500)
        assert found.total == n
        assert sorted(r.p.pk for r in found.rows) == sorted(p.pk for p in cell)
        wrong = drawer_items(run, {"correct": "0"}, (knows, solves), 500)
        assert wrong.total == cell.exclude(correct=True).count() == len(wrong.rows)


def test_accuracy_position_and_options_equal_the_questions():
    rng = random.Random(8)
    qset = QuestionSetFactory(name="mixed")
    run = make_run(question_set=qset)
    for i in range(80):
        meta = {"relation": rng.choice(["xWant", "xNeed", "oReact"])} if rng.random() < 0.8 else {}
        if rng.random() < 0.3:
            meta["perturbation"] = rng.choice(["negation", "original"])
        options = ["a", "b", "c", "d", "e"][: rng.randrange(2, 6)]
        q = QuestionFactory(
            question_set=qset,
            position=i,
            structure=rng.choice(["2p", "2i", ""]),
            metadata=meta,
            options=options,
            answer_index=rng.randrange(len(options)),
        )
        predict(run, q, rng.choice([None, *range(len(options))]))
    preds = list(Prediction.objects.filter(run=run).select_related("question"))
    for dim, value in (
        ("relation", lambda q: q.metadata.get("relation", "")),
        ("kind", lambda q: q.structure),
        ("perturbation", lambda q: q.metadata.get("perturbation", "")),
    ):
        ref: dict[str, list[int]] = defaultdict(lambda: [0, 0])
        for p in preds:
            if value(p.question):
                ref[value(p.question)][0] += 1
                ref[value(p.question)][1] += p.correct is True
        got = {r["group"]: [r["n"], r["ok"]] for r in es.accuracy_by([run], dim)}
        assert got == dict(ref), dim
        together = es.accuracy_by_dims([run], ("relation", "kind", "perturbation"))[dim]
        assert {r["group"]: [r["n"], r["ok"]] for r in together} == dict(ref), dim
    cells: dict[tuple[int, int], int] = defaultdict(int)
    for p in preds:
        cells[(p.question.answer_index, -1 if p.chosen is None else p.chosen)] += 1
    table, most = es.position_table(run)
    assert {(a, c): n for a, c, n in table} == dict(cells)
    assert most == max(len(p.question.options) for p in preds)


def _old_core_windows(run_ids: list[int]) -> dict[int, list[dict[str, Any]]]:
    """The former ``core_windows``: every window item read with its question (known answer) and its
    KBA flag from ``extra``, sorted, and cut by ``window_bounds`` in Python."""
    from django.db.models.fields.json import KT

    from commonsense.metrics.recoms import window_bounds

    rows = (
        Prediction.objects.filter(
            run_id__in=run_ids, item_difficulty__isnull=False, question__answer_index__isnull=False, error=""
        )
        .annotate(kba=KT("extra__kba__correct"))
        .order_by("run_id", "item_difficulty", "position")
        .values_list("run_id", "item_difficulty", "correct", "kba")
    )
    per: dict[int, list[tuple[int, bool, bool | None]]] = {}
    for rid, d, ok, kba in rows:
        per.setdefault(rid, []).append((int(d), bool(ok), None if kba is None else kba in (True, "true", "True", 1)))
    out: dict[int, list[dict[str, Any]]] = {}
    for rid, items in per.items():
        wins = []
        for i, (a, b) in enumerate(window_bounds(len(items))):
            part = items[a:b]
            ds = [d for d, _, _ in part]
            kb = [k for _, _, k in part if k is not None]
            wins.append(
                {
                    "window": i,
                    "start": a,
                    "stop": b,
                    "d_min": min(ds),
                    "d_max": max(ds),
                    "mean_d": sum(ds) / len(ds),
                    "n": len(part),
                    "accuracy": sum(ok for _, ok, _ in part) / len(part),
                    "kba": sum(kb) / len(kb) if kb else None,
                }
            )
        out[rid] = wins
    return out


@pytest.mark.parametrize("seed", [3, 4, 5])
def test_core_windows_equal_the_former_read_of_every_item(seed, django_assert_num_queries):
    """Predictions stored by the evaluation loop's own constructor (runs.evaluation._prediction) from
    ItemResults shaped as the recoms scoring's: d(Q) in the question or the prediction's extra (JSON
    null too), a KBA answer right, wrong, null or absent, failed items, questions without an answer,
    ties in d(Q); sizes where the window steps miss the end and where a boundary falls inside a
    difficulty value."""
    from commonsense.scoring.types import ItemResult
    from runs.evaluation import _prediction

    rng = random.Random(seed)
    qset = QuestionSetFactory(name=f"windows-{seed}")
    runs = [make_run(question_set=qset, scoring="recoms"), make_run(question_set=qset, scoring="recoms")]
    n_questions = rng.randrange(25, 90)
    preds = []
    for i in range(n_questions):
        meta = {"difficulty": rng.choice([1, 2, 2, 3, 5, 8])} if rng.random() < 0.85 else {}
        answer = None if rng.random() < 0.05 else rng.randrange(3)
        q = QuestionFactory(question_set=qset, position=i, metadata=meta, options=["a", "b", "c"], answer_index=answer)
        for run in runs:
            chosen = rng.choice([0, 1, 2, None])
            extra: dict[str, Any] = {}
            if rng.random() < 0.3:
                extra["difficulty"] = rng.choice([None, 2, 4, 6])
            kba = rng.random()
            if kba < 0.6:
                c = rng.randrange(3)
                extra["kba"] = {"chosen": c, "correct": None if answer is None else c == answer, "raw": "x"}
            elif kba < 0.7:
                extra["kba"] = None
            res = ItemResult(
                item_id=str(q.pk),
                chosen=chosen,
                scores=[0.0, 0.0, 0.0],
                extra=extra,
                error="timeout" if rng.random() < 0.07 else "",
            )
            preds.append(_prediction(run, i, q, res))
    Prediction.objects.bulk_create(preds)
    ids = [r.pk for r in runs]
    want = _old_core_windows(ids)
    assert want
    assert all(want.values())
    assert any(w["kba"] is not None for ws in want.values() for w in ws)
    with django_assert_num_queries(2):  # the sums per d(Q), then the first items of the values cut
        got = core_windows(runs)
    assert got == want
    assert core_windows([runs[0]]) == {ids[0]: want[ids[0]]}
    assert core_windows([]) == {}
    other = make_run(question_set=qset)  # a run without predictions has no windows
    assert core_windows([other]) == {}


def test_runs_with_difficulty_are_the_runs_with_difficulty_buckets(django_assert_num_queries):
    """The ReComSBench panels are shown for the runs the former check found: those with buckets."""
    rng = random.Random(9)
    qset = QuestionSetFactory(name="with-difficulty")
    runs = [make_run(question_set=qset) for _ in range(4)]
    for i in range(30):
        q = QuestionFactory(question_set=qset, position=i, metadata={})
        predict(runs[0], q, 0)  # no d(Q) anywhere
        predict(runs[1], q, 1, extra={"difficulty": rng.choice([1, 2])} if i == 7 else {})  # one item has one
        predict(runs[2], q, 0, extra={"difficulty": None})  # JSON null: no d(Q)
    with django_assert_num_queries(1):
        got = runs_with_difficulty(runs)
    assert got == set(difficulty_buckets(runs)) == {runs[1].pk}
    assert runs_with_difficulty([]) == set()


def test_coco_roles_are_prefixes_exactly_and_runs_stay_apart(django_assert_num_queries):
    """Roles are told apart as str.startswith does (case, and ``_`` as itself: no pattern letters),
    questions without a group are sets of one (never an application or comprehension set together),
    two runs summarised in one statement keep their sets apart, a cell's Q names its run, and a
    cell's total counts every row however few are listed (a rewrite to LIKE without escape, a
    case-blind match, the ungrouped questions taken for one set, a sum over both runs or a count of
    the listed rows fails)."""
    rng = random.Random(11)
    qset = QuestionSetFactory(name="coco-roles", kind="coco")
    runs = [make_run(question_set=qset), make_run(question_set=qset)]
    pos = iter(range(10_000))
    lookalikes = ["Atomic_1", "atomicX", "ATOMIC_2", "Reasoning", "reasoning_x", "Memorization", "conceptualizationX"]
    for s in range(40):
        g = f"grp-{s}"
        roles = (
            [f"atomic_{k}" for k in range(1, rng.randrange(2, 4))]
            + ["reasoning"]
            + rng.sample(lookalikes, rng.randrange(0, 3))
            + (["memorization", "conceptualization_1", "Conceptualization_2"] if rng.random() < 0.3 else [])
        )
        if rng.random() < 0.2:
            roles = ["memorization", rng.choice(["atomicX", "Reasoning", "conceptualization_1"])]
        for role in roles:
            q = QuestionFactory(question_set=qset, position=next(pos), role=role, group=g, answer_index=0)
            for run in runs:
                p = predict(run, q, rng.choice([0, 0, 1]))
                if rng.random() < 0.1:  # a failed item: correct unknown, never right
                    Prediction.objects.filter(pk=p.pk).update(correct=None)
    for role in ("reasoning", "atomic_1", "memorization", "conceptualization_1"):  # four sets of one question
        q = QuestionFactory(question_set=qset, position=next(pos), role=role, group="", answer_index=0)
        for run in runs:
            predict(run, q, 0)
    refs = {run.pk: _coco_reference(run.pk) for run in runs}
    assert refs[runs[0].pk]["counts"] != refs[runs[1].pk]["counts"]  # the runs differ: a mix-up shows
    with django_assert_num_queries(1):
        got = es.coco_summary.__wrapped__(runs)  # type: ignore[attr-defined]
    for run in runs:
        ref = refs[run.pk]
        assert got[run.pk]["counts"] == ref["counts"]
        assert got[run.pk]["MEM"] == pytest.approx(ref["MEM"])
        assert got[run.pk]["COM"] == pytest.approx(ref["COM"])
        for (knows, solves), n in ref["counts"].items():
            cell = Prediction.objects.filter(es.coco_cell_filter(run, knows, solves))  # no run filter of its own
            assert cell.count() == n
            assert {p.run_id for p in cell} <= {run.pk}
            assert {p.item_role for p in cell} <= {"reasoning"}
            found = drawer_items(run, {}, (knows, solves), 2)
            assert found.total == n
            assert len(found.rows) == min(n, 2)
