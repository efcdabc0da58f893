"""Every builder (COM2, CoCo, RICA novel entities, RICA from a graph) stores its set through one
function, ``knowledge.services.builds.built_set_store``: the set row, its questions, the quality
report and the build job's hook in one transaction (session 18 found the block written twice)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from knowledge.models import Graph, Question, QuestionSet
from knowledge.services.builds import built_set_store
from tests.knowledge.test_question_rows import BUILT

ROOT = Path(__file__).resolve().parents[2]
BUILDERS = ("knowledge/services/builds.py", "knowledge/services/coco_builds.py", "knowledge/services/rica_build.py")


def sets_made_outside_the_store(files: dict[str, str]) -> list[str]:
    """``file:line`` of each set row a builder module creates other than in ``built_set_store``."""
    out = []
    for name, text in files.items():
        for fn in ast.parse(text).body:
            if isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef) and fn.name == "built_set_store":
                continue
            out += [
                f"{name}:{node.lineno}"
                for node in ast.walk(fn)
                if isinstance(node, ast.Call) and ast.unparse(node.func) == "QuestionSet.objects.create"
            ]
    return out


def test_the_builders_store_their_sets_through_one_function() -> None:
    files = {name: (ROOT / name).read_text() for name in BUILDERS}
    assert sets_made_outside_the_store(files) == []
    assert all("built_set_store(" in text for text in files.values())
    planted = dict(files)  # session 18's CoCo build: its own copy of the store block
    planted["knowledge/services/coco_builds.py"] += (
        "\n\ndef x():\n    with transaction.atomic():\n        QuestionSet.objects.create(name=n)\n"
    )
    [where] = sets_made_outside_the_store(planted)
    assert where.startswith("knowledge/services/coco_builds.py:")


@pytest.mark.django_db
def test_the_store_and_the_hook_share_one_transaction(demo_graph: Graph) -> None:
    seen = []

    def hook(qset: QuestionSet) -> None:
        seen.append((qset.question_count, qset.questions.count(), "text" in qset.quality))

    qset = built_set_store([BUILT], on_stored=hook, name="s", kind=QuestionSet.Kind.COM2, graph=demo_graph, seed=7)
    assert seen == [(1, 1, True)]  # the hook sees the questions and the quality report stored
    assert Question.objects.get(question_set=qset).answers == ["b", "c"]

    def failing(qset: QuestionSet) -> None:
        raise RuntimeError("the job was cancelled")

    with pytest.raises(RuntimeError):
        built_set_store([BUILT], on_stored=failing, name="t", kind=QuestionSet.Kind.COM2, graph=demo_graph, seed=7)
    assert not QuestionSet.objects.filter(name="t").exists()  # nothing half-stored
    assert Question.objects.count() == 1
