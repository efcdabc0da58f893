"""build_rica --from-graph (issue 28 item 1): axioms generated from an imported ATOMIC-2020 graph
(the repository's own demo slice and the shared sample), stored as a RICA set that the existing
masked-LM scorer runs and the RICA panels show; the browser form; refusals."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse

from commonsense.questions import rica_gen
from explorer.panels.runs import question_run_panels
from knowledge.models import QuestionSet
from knowledge.services.imports import graph_import
from runs.evaluation import run_execute
from runs.models import Prediction, Run, RunMetric
from runs.services import run_create
from tests.conftest import FIXTURES, shared_file

pytestmark = pytest.mark.django_db


@pytest.fixture
def atomic() -> None:
    graph_import(shared_file("atomic2020_sample/atomic2020_triples.tsv"), name="atomic", fmt="atomic-tsv")


def test_generated_set_from_a_graph(atomic: None, capsys: pytest.CaptureFixture[str]) -> None:
    call_command("build_rica", "--from-graph", "atomic", "--name", "rica-gen", "--seed", "4", "--per-strategy", "5")
    out = capsys.readouterr().out
    assert "rica-gen:" in out
    assert "LT2-Action 5" in out
    qset = QuestionSet.objects.get(name="rica-gen")
    assert qset.kind == QuestionSet.Kind.RICA_AXIOMS
    assert qset.params["rica_set"] == "generated"
    assert qset.params["strategies"] == {"LT2-Action": 5, "LT3-Action": 5, "LT4-Action": 5, "LT3-Role": 5}
    assert "no BART" in qset.params["realisation"]
    assert "LT1-Material" in qset.params["not_supported"]
    qs = list(qset.questions.order_by("position"))
    assert len({q.group for q in qs}) == 20
    for q in qs:
        m = q.metadata
        assert q.options == ["more", "less"]
        assert q.stem.count("[MASK]") == 1
        assert q.structure == "rica-axiom"
        assert len(m["perturbation"]) <= 64
        assert q.options[q.answer_index] == rica_gen.gold_word(m["linguistic"], m["asymmetry"])
        assert set(m["entities"]) == {"A", "B"}
        assert all(e in m["sentence"] for e in m["entities"].values())
    # every axiom has at least the six NEGATION x ASYM variants of the paper's raw set
    per_group: dict[str, set[str]] = {}
    for q in qs:
        per_group.setdefault(q.group, set()).add(q.metadata["perturbation"])
    want = {rica_gen.perturbation_name(a, b) for a in ("original", "negation") for b in rica_gen.ASYMMETRY}
    assert all(want <= roles for roles in per_group.values())
    with pytest.raises(CommandError, match="already exists"):
        call_command("build_rica", "--from-graph", "atomic", "--name", "rica-gen", "--seed", "4")
    with pytest.raises(CommandError, match="no graph named"):
        call_command("build_rica", "--from-graph", "nope", "--name", "x", "--seed", "4")


def test_generated_set_runs_through_the_rica_scorer_and_panels(atomic: None, tmp_path: Path) -> None:
    tiny_bert = pytest.importorskip("tests.commonsense.tiny_bert")
    call_command("build_rica", "--from-graph", "atomic", "--name", "rica-gen", "--seed", "1", "--per-strategy", "2")
    model = tiny_bert.build_tiny_bert(tmp_path / "bert")
    qset = QuestionSet.objects.get(name="rica-gen")
    run = run_create(question_set=qset, backend="hf", model=str(model), scoring="rica-mlm", enqueue=False)
    assert run_execute(run.pk, heartbeat=False) == Run.State.DONE, Run.objects.get(pk=run.pk).error
    run = Run.objects.select_related("question_set").get(pk=run.pk)
    preds = list(Prediction.objects.filter(run=run).select_related("question"))
    assert len(preds) == qset.questions.count()
    right = sum(p.chosen == p.question.answer_index for p in preds)
    assert RunMetric.objects.get(run=run, name="accuracy", scope="overall").value == pytest.approx(right / len(preds))
    positive = [p.chosen == p.question.answer_index for p in preds if p.question.answer_index == 0]
    got = RunMetric.objects.get(run=run, name="accuracy_gold_positive", scope="overall").value
    assert got == pytest.approx(sum(positive) / len(positive))
    keys = {p.key for p in question_run_panels(run)}
    assert {"rica-summary"} <= keys


def test_graph_without_a_supported_relation_is_refused(tmp_path: Path) -> None:
    events = tmp_path / "events.tsv"  # only isAfter / xWant: no crawl strategy of Table 4 uses them
    events.write_text("PersonX eats dinner\tisAfter\tPersonX cooks dinner\nPersonX eats dinner\txWant\tto rest\n")
    graph_import(events, name="events", fmt="atomic-tsv")
    with pytest.raises(CommandError, match="supports no RICA crawl strategy"):
        call_command("build_rica", "--from-graph", "events", "--name", "x", "--seed", "1")
    assert not QuestionSet.objects.filter(name="x").exists()
    graph_import(FIXTURES / "atomic2020_demo.tsv", name="demo", fmt="atomic-tsv")
    with pytest.raises(CommandError, match="--variants applies to --set"):
        call_command("build_rica", "--from-graph", "demo", "--name", "x", "--seed", "1", "--variants", "2")


def test_browser_form_generates_a_set(atomic: None, researcher) -> None:  # type: ignore[no-untyped-def]
    url = reverse("knowledge:build_rica")
    page = researcher.get(url)
    assert page.status_code == 200
    assert "RICA axioms from a graph" in page.content.decode()
    post = {
        "mode": "graph",
        "graph-graph": "atomic",
        "graph-name": "rica-web",
        "graph-seed": "2",
        "graph-per_strategy": "3",
        "graph-entities": "novel",
    }
    r = researcher.post(url, post)
    assert r.status_code == 302
    assert QuestionSet.objects.get(name="rica-web").params["per_strategy"] == 3
    r = researcher.post(url, post)  # the same name again: the form says why
    assert r.status_code == 400
    assert "already exists" in r.content.decode()
