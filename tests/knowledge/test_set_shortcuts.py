"""Issue 25 item 2 in the apps: every stored set carries the shortcut audit in its quality report
(COM2, CoCo, imported), ``set_quality --json`` prints it, the set page shows it, and the option-only
baseline is asked of a worker after the set is stored and computed there with the configured model
(a tiny GPT-2 here, through the same hf backend as SmolLM2)."""

from __future__ import annotations

import json
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import Client, override_settings
from django.urls import reverse

from knowledge.models import Graph, QuestionSet
from knowledge.services import shortcuts
from knowledge.services.imports import questions_import
from tests.conftest import FIXTURES

pytestmark = pytest.mark.django_db


def _build(graph: Graph, name: str = "d2i", kind: str = "2i") -> QuestionSet:
    call_command("build_questions", graph=graph.name, kind=kind, count=6, seed=3, name=name, verbosity=0)
    return QuestionSet.objects.get(name=name)


def test_a_built_set_stores_the_audit_and_set_quality_prints_it(demo_graph: Graph, researcher: Client) -> None:
    qset = _build(demo_graph)
    audit = qset.quality["shortcuts"]
    assert audit["items"] == qset.question_count
    for name in ("answer_type", "position"):
        b = audit[name]
        assert b["n"] == qset.question_count
        assert 0 <= b["value"] <= 1
        assert b["low"] <= b["value"] <= b["high"]
    assert audit["option_only"] is None
    assert audit["answer_members"] == 0
    out = StringIO()
    call_command("set_quality", qset.name, json=True, stdout=out)
    assert json.loads(out.getvalue())["shortcuts"]["answer_type"] == audit["answer_type"]
    assert "judge_vetoed" in qset.quality["build"]
    page = researcher.get(reverse("knowledge:question_set", args=[qset.name])).content.decode()
    assert "Shortcut audit" in page
    assert "answer type (option form vs the relation asked)" in page
    assert "gold position (held-out majority letter)" in page
    assert "not computed yet" in page
    lines = StringIO()
    call_command("set_quality", qset.name, stdout=lines)
    assert "answer-type baseline:" in lines.getvalue()
    assert "option-only baseline: not computed yet" in lines.getvalue()


def test_coco_and_imported_sets_are_audited_too(demo_graph: Graph) -> None:
    call_command("build_coco", graph="demo", seed=1, name="coco", per_relation=3, per_kind=2, verbosity=0)
    coco = QuestionSet.objects.get(name="coco")
    audit = coco.quality["shortcuts"]
    assert audit["items"] == coco.question_count
    assert audit["answer_type"]["n"] > 0
    assert "1p" in audit["by_kind"]  # memorization beside the reasoning kinds
    questions_import(FIXTURES / "csqa_demo.jsonl", name="csqa", fmt="csqa")
    csqa = QuestionSet.objects.get(name="csqa").quality["shortcuts"]
    assert csqa["answer_type"]["n"] == 0  # no relation asked: not applicable
    assert csqa["position"]["n"] == csqa["items"] > 0


def test_the_option_only_job_is_enqueued_after_a_build_and_not_once_it_is_stored(
    demo_graph: Graph, tiny_gpt2: Path, monkeypatch: pytest.MonkeyPatch, django_capture_on_commit_callbacks: Any
) -> None:
    sent: list[tuple[Any, ...]] = []
    from knowledge import tasks

    monkeypatch.setattr(tasks.question_set_option_only_task, "apply_async", lambda args, **k: sent.append(args))
    with override_settings(COCOWEB_OPTION_ONLY_MODEL="tiny", COCOWEB_MODELS_DIRS=[tiny_gpt2.parent]):
        with django_capture_on_commit_callbacks(execute=True):
            qset = _build(demo_graph)
        assert sent == [(qset.pk,)]
        # the worker's side: the task computes and stores the figures
        assert tasks.question_set_option_only_task(qset.pk) is True
        qset.refresh_from_db()
        oo = qset.quality["shortcuts"]["option_only"]
        assert oo["model"] == "tiny"
        assert oo["items"] == qset.question_count
        assert {"raw", "norm", "fitted"} <= set(oo)
        assert oo["fitted"]["n"] == qset.question_count
        # a recomputed report keeps them and sends nothing more
        with django_capture_on_commit_callbacks(execute=True):
            call_command("set_quality", qset.name, stdout=StringIO())
        assert len(sent) == 1
        qset.refresh_from_db()
        assert qset.quality["shortcuts"]["option_only"] == oo
        # and a second run of the job scores nothing
        monkeypatch.setattr(shortcuts, "score_options", lambda *a, **k: pytest.fail("scored again"))
        assert shortcuts.question_set_option_only(qset) == oo


def test_option_only_figures_are_reproducible_and_shown_on_the_page(
    demo_graph: Graph, tiny_gpt2: Path, researcher: Client
) -> None:
    qset = _build(demo_graph)
    with override_settings(COCOWEB_MODELS_DIRS=[tiny_gpt2.parent]):
        out = StringIO()
        call_command("set_quality", qset.name, option_only=True, model="tiny", json=True, stdout=out)
        first = json.loads(out.getvalue())["shortcuts"]["option_only"]
        again = shortcuts.question_set_option_only(qset, model="tiny", force=True)
    assert again is not None
    assert {k: again[k] for k in ("raw", "norm", "fitted")} == {k: first[k] for k in ("raw", "norm", "fitted")}
    page = researcher.get(reverse("knowledge:question_set", args=[qset.name])).content.decode()
    assert "option only, tiny: fitted, held out" in page


def test_a_model_that_cannot_load_is_said_on_the_page_and_by_the_command(demo_graph: Graph, researcher: Client) -> None:
    qset = _build(demo_graph)
    got = shortcuts.question_set_option_only(qset, model="no-such-model")
    assert got is not None
    assert "not a model this installation can run" in got["error"]
    page = researcher.get(reverse("knowledge:question_set", args=[qset.name])).content.decode()
    assert "no-such-model: Refused" in page
    with pytest.raises(CommandError, match="could not be computed with no-such-model"):
        call_command("set_quality", qset.name, option_only=True, model="no-such-model", stdout=StringIO())


def test_a_large_set_is_scored_on_a_seeded_sample(demo_graph: Graph, tiny_gpt2: Path) -> None:
    qset = _build(demo_graph)
    with override_settings(COCOWEB_MODELS_DIRS=[tiny_gpt2.parent], COCOWEB_OPTION_ONLY_MAX_ITEMS=4):
        got = shortcuts.question_set_option_only(qset, model="tiny")
        assert got is not None
        assert got["items"] == 4
        assert got["sampled_from"] == qset.question_count
        qset.refresh_from_db()
        assert shortcuts.question_set_shortcuts(qset)["option_only"] == got  # fresh: same sample, same model


def test_the_same_type_veto_is_a_stored_option_of_the_cli_build(demo_graph: Graph) -> None:
    default = _build(demo_graph, "plain")
    assert default.params["adversarial_negatives"] == "branch"
    assert default.params["random_negatives"] == "relation"
    assert default.params["state_distractors"] is True
    assert default.params["adversarial_other_kind"] is False
    call_command(
        "build_questions",
        graph="demo",
        kind="2i",
        count=6,
        seed=3,
        name="veto",
        adversarial_negatives="neighbours",
        same_type_veto=True,
        verbosity=0,
    )
    veto = QuestionSet.objects.get(name="veto")
    assert veto.params["adversarial_negatives"] == "neighbours"
    assert veto.params["state_distractors"] is False
    assert veto.params["adversarial_other_kind"] is True
