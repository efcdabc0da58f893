"""The question facets copied onto each prediction (runs.item_facets): filled by the evaluation loop,
filled for existing rows by migration 0002, and what the explorer's error views aggregate."""

from __future__ import annotations

import importlib
from types import SimpleNamespace

import pytest
from django.apps import apps as django_apps
from django.db import connection

from knowledge.models import Question, QuestionSet
from runs.evaluation import run_execute
from runs.item_facets import FACET_FIELDS, as_int, question_facets
from runs.models import Prediction, Run
from runs.services import run_create

pytestmark = pytest.mark.django_db


def _facets(p: Prediction) -> dict[str, object]:
    return {f: getattr(p, f) for f in FACET_FIELDS}


@pytest.fixture
def qset() -> QuestionSet:
    qs = QuestionSet.objects.create(name="facets", kind=QuestionSet.Kind.COCO)
    specs = [  # (structure, role, group, metadata, options)
        ("2p", "reasoning", "set-1", {"relation": "xWant", "difficulty": 3}, ["a", "b", "c"]),
        ("1p", "atomic_1", "set-1", {"relation": "xNeed", "difficulty": "4"}, ["a", "b", "c", "d"]),
        ("1p", "memorization", "", {"relation": "oReact", "perturbation": "negation", "difficulty": 2.0}, ["a", "b"]),
        ("csqa", "", "", {}, ["a", "b", "c", "d", "e"]),
    ]
    for i, (structure, role, group, meta, options) in enumerate(specs):
        Question.objects.create(
            question_set=qs,
            position=i,
            stem=f"q{i}",
            options=options,
            answer_index=i % 2,
            structure=structure,
            role=role,
            group=group,
            metadata=meta,
        )
    qs.question_count = len(specs)
    qs.save()
    return qs


def test_question_facets_values(qset: QuestionSet) -> None:
    q0, q1, q2, q3 = qset.questions.order_by("position")
    assert question_facets(q0) == {
        "item_relation": "xWant",
        "item_kind": "2p",
        "item_perturbation": "",
        "item_role": "reasoning",
        "item_group": "set-1",
        "item_answer": 0,
        "item_options": 3,
        "item_difficulty": 3,
    }
    assert question_facets(q1)["item_difficulty"] == 4
    assert question_facets(q2)["item_difficulty"] == 2
    assert question_facets(q2)["item_perturbation"] == "negation"
    assert question_facets(q3) == {
        "item_relation": "",
        "item_kind": "csqa",
        "item_perturbation": "",
        "item_role": "",
        "item_group": "",
        "item_answer": 1,
        "item_options": 5,
        "item_difficulty": None,
    }
    # a prediction's own d(Q) (recoms scoring) wins over the question's, JSON null included
    assert question_facets(q0, {"difficulty": 7})["item_difficulty"] == 7
    assert question_facets(q0, {"difficulty": None})["item_difficulty"] is None
    assert question_facets(q0, {"other": 1})["item_difficulty"] == 3
    assert [as_int(v) for v in (True, 5, 5.0, " 6 ", "x", None, float("nan"), [1])] == [
        None,
        5,
        5,
        6,
        None,
        None,
        None,
        None,
    ]


def test_the_evaluation_loop_stores_the_facets(qset: QuestionSet) -> None:
    run = run_create(question_set=qset, backend="random", scoring="loglik", enqueue=False)
    assert run_execute(run.pk, heartbeat=False) == Run.State.DONE
    preds = list(Prediction.objects.filter(run=run).select_related("question"))
    assert len(preds) == 4
    for p in preds:
        assert _facets(p) == question_facets(p.question, p.extra)
    assert {p.item_relation for p in preds} == {"xWant", "xNeed", "oReact", ""}


def test_migration_fills_existing_predictions(qset: QuestionSet) -> None:
    run = Run.objects.create(question_set=qset, backend="random", scoring="loglik", state=Run.State.DONE)
    for q in qset.questions.all():
        extra = {"difficulty": 9} if q.position == 3 else {}
        Prediction.objects.create(run=run, question=q, position=q.position, chosen=0, extra=extra)  # no facets
    assert set(Prediction.objects.values_list("item_relation", flat=True)) == {""}
    migration = importlib.import_module("runs.migrations.0002_prediction_item_facets")
    migration.fill_item_facets(django_apps, SimpleNamespace(connection=connection))
    for p in Prediction.objects.filter(run=run).select_related("question"):
        assert _facets(p) == question_facets(p.question, p.extra)
    assert Prediction.objects.get(run=run, position=3).item_difficulty == 9


def test_intersection_relation_pairs_are_one_group_and_the_migration_merges_stored_ones() -> None:
    """Issue 14: 2i questions over xAttr ∧ xReact and xReact ∧ xAttr were two bars."""
    qs = QuestionSet.objects.create(name="pairs", kind=QuestionSet.Kind.COM2)
    specs = [("2i", ["xReact", "xAttr"]), ("2i", ["xAttr", "xReact"]), ("2p", ["xReact", "xAttr"])]
    questions = [
        Question.objects.create(
            question_set=qs,
            position=i,
            stem=f"q{i}",
            options=["a", "b"],
            answer_index=0,
            structure=s,
            metadata={"relations": rels},
        )
        for i, (s, rels) in enumerate(specs)
    ]
    assert [question_facets(q)["item_relation"] for q in questions] == ["xAttr+xReact", "xAttr+xReact", "xReact+xAttr"]
    # predictions stored before the fix carry the branch order; migration 0003 sorts intersections only
    run = Run.objects.create(question_set=qs, backend="random", scoring="loglik", state=Run.State.DONE)
    for q, (s, rels) in zip(questions, specs, strict=True):
        Prediction.objects.create(
            run=run, question=q, position=q.position, chosen=0, item_kind=s, item_relation="+".join(rels)
        )
    migration = importlib.import_module("runs.migrations.0003_ux_features_unordered_relation_pairs")
    migration.sort_pairs(django_apps, SimpleNamespace(connection=connection))
    stored = list(Prediction.objects.filter(run=run).order_by("position").values_list("item_relation", flat=True))
    assert stored == ["xAttr+xReact", "xAttr+xReact", "xReact+xAttr"]


def test_kba_correct_and_its_migration_fill(qset: QuestionSet) -> None:
    """Prediction.kba_correct (the ReComSBench windows' index reads it): None without a KBA answer,
    filled for predictions stored before the column by migration 0006, as the loop fills it."""
    from runs.item_facets import kba_correct

    extras = [
        {"kba": {"chosen": 1, "correct": True, "raw": "B", "hints": []}},
        {"kba": {"chosen": 0, "correct": False, "raw": "A"}},
        {"kba": None},
        {"kba": {"chosen": None, "correct": None}},
        {},
    ]
    assert [kba_correct(x) for x in extras] == [True, False, None, None, None]
    assert kba_correct(None) is None
    assert kba_correct({"kba": {"correct": "true"}}) is True
    run = Run.objects.create(question_set=qset, backend="random", scoring="recoms", state=Run.State.DONE)
    q = qset.questions.order_by("position").first()
    for i, extra in enumerate(extras):
        Prediction.objects.create(run=run, question=q if i == 0 else None, position=i, chosen=0, extra=extra)
    assert set(Prediction.objects.filter(run=run).values_list("kba_correct", flat=True)) == {None}
    migration = importlib.import_module("runs.migrations.0006_prediction_kba_correct")
    migration.fill_kba_correct(django_apps, SimpleNamespace(connection=connection))
    stored = list(Prediction.objects.filter(run=run).order_by("position").values_list("kba_correct", flat=True))
    assert stored == [True, False, None, None, None]
