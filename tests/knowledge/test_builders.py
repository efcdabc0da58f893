"""build_questions / build_coco / export_questions against the database."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import call_command
from django.test import override_settings

from knowledge.models import Question, QuestionSet
from knowledge.services.imports import graph_import
from tests.conftest import FIXTURES
from tests.lm_eval_cli import task_yaml

pytestmark = pytest.mark.django_db


@pytest.fixture
def graph(tmp_path: Path):
    with override_settings(COCOWEB_CACHE_DIR=tmp_path / "cache"):
        graph_import(FIXTURES / "atomic2020_demo.tsv", name="demo", fmt="atomic-tsv")
        yield "demo"


def test_build_questions_stores_set_and_links_triples(graph, tmp_path: Path) -> None:
    call_command("build_questions", graph=graph, kind="2i", count=8, seed=3, name="demo-2i", verbosity=0)
    qset = QuestionSet.objects.get(name="demo-2i")
    assert qset.kind == "com2"
    assert qset.seed == 3
    assert qset.params["kind"] == "2i"
    assert qset.question_count == 8
    q = qset.questions.order_by("position").first()
    assert q is not None
    assert len(q.options) == 5
    assert q.options[q.answer_index] in q.answers
    assert q.triples.count() == 2  # the golden chain's triples are linked
    assert sorted(t.relation.name for t in q.triples.all()) == sorted(q.metadata["relations"])
    # cached index: a second build reuses it and gives the same questions
    assert len(list((tmp_path / "cache" / "graphs").rglob("index-*.npz"))) == 1
    call_command("build_questions", graph=graph, kind="2i", count=8, seed=3, name="demo-2i-again", verbosity=0)
    a = [
        (x.stem, x.options, x.answer_index)
        for x in Question.objects.filter(question_set__name="demo-2i").order_by("position")
    ]
    b = [
        (x.stem, x.options, x.answer_index)
        for x in Question.objects.filter(question_set__name="demo-2i-again").order_by("position")
    ]
    assert a == b
    out = tmp_path / "a.jsonl"
    call_command("export_questions", "demo-2i", fmt="jsonl", out=str(out), verbosity=0)
    out2 = tmp_path / "b.jsonl"
    call_command("export_questions", "demo-2i-again", fmt="jsonl", out=str(out2), verbosity=0)
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(rows) == 8
    assert rows[0]["set"] == "demo-2i"
    assert len(rows[0]["chain"]) == 2
    assert out.read_text().replace("demo-2i", "X") == out2.read_text().replace("demo-2i-again", "X")


def test_build_coco_links_sets(graph) -> None:
    call_command(
        "build_coco",
        graph=graph,
        seed=1,
        name="demo-coco",
        abstract=str(FIXTURES / "abstract_demo.tsv"),
        per_relation=3,
        per_kind=3,
        verbosity=0,
    )
    qs = Question.objects.filter(question_set__name="demo-coco")
    roles = set(qs.values_list("role", flat=True))
    assert {"memorization", "conceptualization_1", "atomic_1", "atomic_2", "reasoning"} <= roles
    for q in qs.filter(role="reasoning"):
        members = qs.filter(group=q.group).exclude(pk=q.pk)
        assert members.count() == len(q.metadata["chain"])


def test_export_lm_eval_loads_in_task_manager(graph, tmp_path: Path) -> None:
    call_command("build_questions", graph=graph, kind="2i", count=4, seed=0, name="demo-2i", verbosity=0)
    call_command("export_questions", "demo-2i", fmt="lm-eval", out=str(tmp_path / "lm"), verbosity=0)
    cfg_path = tmp_path / "lm" / "cocoweb_demo_2i.yaml"
    cfg = task_yaml(cfg_path)
    assert cfg["task"] == "cocoweb_demo_2i"
    script = (
        "from lm_eval.tasks import TaskManager\n"
        f"tm = TaskManager(include_path={str(tmp_path / 'lm')!r})\n"
        "d = tm.load_task_or_group(['cocoweb_demo_2i'])\n"
        "t = d['cocoweb_demo_2i']\n"
        "docs = list(t.test_docs())\n"
        "print(len(docs), t.doc_to_choice(docs[0]) == docs[0]['options'], t.doc_to_target(docs[0]) == docs[0]['label'])\n"
    )
    res = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=300,
        env={"HF_DATASETS_OFFLINE": "1", "HF_HUB_OFFLINE": "1", "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)},
    )
    assert res.returncode == 0, res.stderr[-3000:]
    # (2i: the ATOMIC demo graph has no 2p chain of the papers' examples, issue 11)
    n = QuestionSet.objects.get(name="demo-2i").question_count
    assert n >= 1
    assert res.stdout.strip().splitlines()[-1] == f"{n} True True"


def test_a_build_that_finds_no_question_is_refused_with_the_reason(graph) -> None:
    from django.core.management.base import CommandError

    # the ATOMIC demo graph holds no 2p chain of the papers' examples among its well-formed triples
    with pytest.raises(CommandError, match=r"no 2p question could be built from graph 'demo' \(\d+ attempts; "):
        call_command("build_questions", graph=graph, kind="2p", count=5, seed=0, name="none-2p", verbosity=0)
    assert not QuestionSet.objects.filter(name="none-2p").exists()  # no empty set left behind


def test_composition_rules_mode_is_stored_with_the_set_and_an_unknown_one_refused(graph) -> None:
    from django.core.management.base import CommandError

    from commonsense.queries.rules import RULES_MODES
    from knowledge.forms.builds import QuestionBuildForm
    from knowledge.services.builds import question_set_build
    from knowledge.services.imports import ImportRefused

    rules = QuestionBuildForm.base_fields["rules"]
    assert [k for k, _ in rules.choices] == list(RULES_MODES) == ["curated", "paper", "any"]  # type: ignore[attr-defined]  # the form offers every mode
    call_command("build_questions", graph=graph, kind="2i", count=4, seed=3, name="r-curated", verbosity=0)
    call_command("build_questions", graph=graph, kind="2i", count=4, seed=3, name="r-any", rules="any", verbosity=0)
    curated, bare = QuestionSet.objects.get(name="r-curated"), QuestionSet.objects.get(name="r-any")
    assert (curated.params["rules"], curated.params["composition_rules"]) == ("curated", "com2-examples-v3")
    assert (bare.params["rules"], bare.params["composition_rules"]) == ("any", None)
    with pytest.raises(CommandError, match="nothing was stored: unknown composition rules 'papers'"):
        call_command("build_questions", graph=graph, kind="2i", count=4, seed=3, name="r-bad", rules="papers")
    with pytest.raises(ImportRefused, match="choose one of curated, paper, any"):
        question_set_build(graph=graph, kind="2i", count=4, seed=3, name="r-bad", rules="papers")
    call_command(
        "build_coco", graph=graph, seed=1, name="r-coco", per_relation=2, per_kind=2, rules="paper", verbosity=0
    )
    assert QuestionSet.objects.get(name="r-coco").params["rules"] == "paper"
    # the paper mode builds COM2's random negatives: any tail of the graph (stored with the set)
    call_command("build_questions", graph=graph, kind="2i", count=3, seed=3, name="r-paper", rules="paper", verbosity=0)
    assert QuestionSet.objects.get(name="r-paper").params["random_negatives"] == "whole-graph"
    assert curated.params["random_negatives"] == "relation"
    assert not QuestionSet.objects.filter(name="r-bad").exists()
