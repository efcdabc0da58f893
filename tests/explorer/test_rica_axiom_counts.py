"""RICA names vs novel entities (Fig. 5b) counted by the database, per axiom, cached per finished
run: the same counts as the core's ``axiom_counts`` over every stored prediction read one by one
(the former page read), on runs made by the evaluation loop, where the two sets share only some
axioms and some probes are unanswered."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.management import call_command

from commonsense.metrics.rica_bias import axiom_counts, shared_axiom_accuracy
from explorer.panels.runs import compare_panels
from explorer.selectors.errors import rica_axiom_counts
from knowledge.models import Question, QuestionSet
from knowledge.services.imports import questions_import
from runs.evaluation import run_execute
from runs.models import Prediction, Run
from runs.services import run_create
from tests.conftest import shared_file

pytestmark = pytest.mark.django_db


def _run(qset: QuestionSet) -> Run:
    run = run_create(question_set=qset, backend="random", scoring="loglik", seed=3, enqueue=False)
    assert run_execute(run.pk, heartbeat=False) == Run.State.DONE, Run.objects.get(pk=run.pk).error
    return Run.objects.select_related("question_set").get(pk=run.pk)


def _read_one_by_one(run: Run) -> dict[str, tuple[int, int]]:
    return axiom_counts(
        (p.question.group, None if p.chosen is None else p.chosen == p.question.answer_index)
        for p in Prediction.objects.filter(run=run).select_related("question")
    )


def test_axiom_counts_in_sql_equal_the_probe_by_probe_count(tmp_path):
    lines = shared_file("rica/RICA_10k_axiom2set.jsonl").read_text().splitlines()[:12]
    (tmp_path / "ax.jsonl").write_text("\n".join(lines) + "\n")
    questions_import(tmp_path / "ax.jsonl", name="rica-ax", fmt="rica-axioms")
    call_command("build_rica", "--set", "rica-ax", "--name", "rica-ax-novel", "--seed", "2")
    novel_set = QuestionSet.objects.get(name="rica-ax-novel")
    groups = sorted(set(novel_set.questions.values_list("group", flat=True)))
    Question.objects.filter(question_set=novel_set, group__in=groups[: len(groups) // 3]).delete()  # shared: some
    # probes without an answer index: the loop stores correct = None, never right (as chosen = NULL)
    Question.objects.filter(question_set__name="rica-ax", position__in=[1, 2]).update(answer_index=None)
    names, novel = _run(QuestionSet.objects.get(name="rica-ax")), _run(novel_set)
    Prediction.objects.filter(run=names, position__in=[0, 5, 9]).update(chosen=None, correct=False)  # unanswered
    # predictions changed after the run's end (its warm-up kept the counts): finished again, as a resumed run is
    names.finished_at = names.finished_at + timedelta(seconds=1)  # type: ignore[operator]
    names.save(update_fields=["finished_at"])

    for run in (names, novel):
        assert rica_axiom_counts(run) == _read_one_by_one(run)
    a, b, n = shared_axiom_accuracy(_read_one_by_one(names), _read_one_by_one(novel))
    assert 0 < n < len(groups)
    (row,) = {p.key: p for p in compare_panels([names, novel])}["rica-names-novel"].rows
    assert (row[1], row[2], row[3]) == (n, a, b)
