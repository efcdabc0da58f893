"""One constructor for a ``Question`` row (issue 30 item 4): built, imported and copied records go
through ``knowledge/services/question_rows.py``, and no other module of the apps makes a row by hand."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from commonsense.io.records import QuestionRecord
from commonsense.questions.record import BuiltQuestion
from knowledge.models import Graph, Question, QuestionSet
from knowledge.services.question_rows import built_question, question_row, questions_store

ROOT = Path(__file__).resolve().parents[2]
APPS = ("accounts", "annotation", "cocoweb", "explorer", "knowledge", "runs")
BY_HAND = re.compile(r"(?<![\w.])(?<!class )Question\(")  # the model called; not BuiltQuestion(, not its class


def rows_by_hand(files: dict[str, str]) -> list[str]:
    return [
        f"{name}:{text[: m.start()].count(chr(10)) + 1}" for name, text in files.items() for m in BY_HAND.finditer(text)
    ]


def test_no_module_of_the_apps_makes_a_question_row_by_hand() -> None:
    files = {
        str(p.relative_to(ROOT)): p.read_text()
        for app in APPS
        for p in (ROOT / app).rglob("*.py")
        if "migrations" not in p.parts and p.name != "question_rows.py"
    }
    assert rows_by_hand(files) == []
    planted = {"annotation/services/verified.py": "rows.append(\n    Question(question_set=qset, position=0)\n)"}
    assert rows_by_hand(planted) == ["annotation/services/verified.py:2"]
    assert rows_by_hand({"x.py": "q: Question = BuiltQuestion(id='1')\nQuestion.objects.create()"}) == []


BUILT = BuiltQuestion(
    id="q1",
    kind="2i",
    context="Alex fed the cat.",
    question="What happens?",
    options=["a", "b", "c", "d", "e"],
    answer_index=2,
    answers=["b", "c"],
    anchors=["fed the cat"],
    relations=["xEffect"],
    chain=[["PersonX feeds the cat", "xEffect", "c"]],
    group="g",
    role="regular",
    seed=7,
    metadata={"distractor_pool": ["f"]},
)


@pytest.mark.django_db
def test_a_built_question_is_stored_and_read_back_unchanged(demo_graph: Graph) -> None:
    qset = QuestionSet.objects.create(name="rows", kind=QuestionSet.Kind.COM2, graph=demo_graph)
    [row] = questions_store([question_row(qset, 0, BUILT)], [[]])
    assert row.answers == ["b", "c"]  # every correct answer, not only the gold's text
    assert built_question(Question.objects.get(pk=row.pk)) == BUILT


@pytest.mark.django_db
def test_an_imported_record_and_a_copy_with_a_new_gold(demo_graph: Graph) -> None:
    qset = QuestionSet.objects.create(name="rows", kind=QuestionSet.Kind.COM2, graph=demo_graph)
    rec = QuestionRecord(line=3, external_id="x", stem="Why?", options=["p", "q"], answer_index=1, metadata={"k": 1})
    imported = question_row(qset, 0, rec)
    assert (imported.answers, imported.role, imported.metadata) == (["q"], "", {"k": 1})
    assert (
        question_row(
            qset, 1, QuestionRecord(line=4, external_id="y", stem="?", options=["p"], answer_index=None)
        ).answers
        == []
    )
    flipped = question_row(qset, 2, imported, answer_index=0, metadata={"rica_verification": {"flipped": True}})
    assert (flipped.answer_index, flipped.answers) == (0, ["p"])  # the answer follows the new gold
    assert flipped.metadata == {"k": 1, "rica_verification": {"flipped": True}}
    assert imported.metadata == {"k": 1}  # the source row's metadata is not changed
