"""Build jobs through the real Celery task function: the stored set equals the CLI build of the
same graph, parameters and seed byte for byte; progress lands on the row; re-delivery is a no-op;
failures keep a clear message and store nothing; leases and re-queueing."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from commonsense.kg.index import IndexOptions
from commonsense.questions.coco import APPLICATION_KINDS, application
from knowledge.models import BuildJob, Graph, Question, QuestionSet
from knowledge.services import build_execution as execution
from knowledge.services.build_execution import Reporter, build_job_claim
from knowledge.services.build_jobs import build_job_command, build_job_create, build_job_retry
from knowledge.services.builds import graph_index
from knowledge.services.imports import ImportRefused
from knowledge.tasks import build_job_run_task
from tests.conftest import FIXTURES

# Transactional: the task's heartbeat thread writes through its own database connection.
pytestmark = pytest.mark.django_db(transaction=True)


def _export(name: str, out: Path) -> str:
    call_command("export_questions", name, fmt="jsonl", out=str(out), verbosity=0)
    return out.read_text(encoding="utf-8").replace(f'"set": "{name}"', '"set": "X"')


def _rows(name: str) -> list[tuple[object, ...]]:
    return [
        (
            q.position,
            q.external_id,
            q.context,
            q.stem,
            q.options,
            q.answer_index,
            q.answers,
            q.structure,
            q.group,
            q.role,
            q.metadata,
            sorted(q.triples.values_list("id", flat=True)),
        )
        for q in Question.objects.filter(question_set__name=name).order_by("position")
    ]


@pytest.fixture(autouse=True)
def queued(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Job ids handed to the broker after commit (the tests run the task function themselves, and
    nothing reaches the configured broker)."""
    out: list[int] = []
    monkeypatch.setattr("knowledge.tasks.build_job_run_task.apply_async", lambda args, queue: out.append(args[0]))
    return out


def test_com2_job_from_the_form_equals_the_cli_build(
    researcher: Client, demo_graph: Graph, build_dirs: Path, queued: list[int]
) -> None:
    r = researcher.post(
        reverse("knowledge:build_questions"),
        {
            "graph": "demo",
            "kind": "2i",
            "count": 12,
            "seed": 11,
            "name": "job-2i",
            "max_degree": 7,
            "relations": ["xNeed", "xIntent", "xWant", "xEffect"],
            "near_duplicate": "0.9",  # the form's initial value, as a browser posts it
            "near_synonym": "0.5",  # so does the near-synonym guard's
            "include_implausible": "on",  # issue 11: the flag travels through the job to the set
            "rules": "paper",  # issue 27: so do the composition rules
        },
    )
    job = BuildJob.objects.get()
    assert r.status_code == 302
    assert queued == [job.pk]
    result = build_job_run_task(job.pk)
    job.refresh_from_db()
    assert job.state == "done", (job.error, job.error_detail)
    assert result == f"build job {job.pk}: job-2i stored (12 questions)"
    assert (job.stage, job.stage_index, job.stage_count, job.attempts) == ("done", 3, 3, 1)
    assert job.progress_done == job.progress_total == job.question_set.question_count == 12
    assert job.started_at
    assert job.finished_at
    assert job.finished_at >= job.started_at
    assert job.worker

    call_command(
        "build_questions",
        graph="demo",
        kind="2i",
        count=12,
        seed=11,
        name="cli-2i",
        relations="xNeed,xIntent,xWant,xEffect",
        max_degree=7,
        include_implausible=True,
        rules="paper",
        verbosity=0,
    )
    assert _export("job-2i", build_dirs / "job.jsonl") == _export("cli-2i", build_dirs / "cli.jsonl")
    assert _rows("job-2i") == _rows("cli-2i")
    web, cli = QuestionSet.objects.get(name="job-2i"), QuestionSet.objects.get(name="cli-2i")
    assert (web.params, web.seed, web.kind, web.graph_id) == (cli.params, cli.seed, cli.kind, cli.graph_id)
    assert web.params["include_implausible"] is True
    assert web.params["near_duplicate"] == 0.9
    assert (web.params["rules"], web.params["composition_rules"]) == ("paper", "papers-printed-v1")
    assert "--rules paper" in build_job_command(job)
    page = researcher.get(reverse("knowledge:build_job", args=[job.pk])).content.decode()
    assert "Build funnel: 2i" in page
    assert '<th scope="row">distractors</th>' in page
    assert web.quality["build"]["built"] == 12
    assert web.created_by is not None
    assert web.created_by.username == "b-researcher"

    # a re-delivered message finds the job done and stores nothing more
    assert build_job_run_task(job.pk) == f"build job {job.pk}: skipped (done)"
    assert QuestionSet.objects.filter(name="job-2i").count() == 1
    assert Question.objects.filter(question_set__name="job-2i").count() == 12


def test_coco_job_from_the_form_equals_the_cli_build(
    researcher: Client, demo_graph: Graph, build_dirs: Path, queued: list[int]
) -> None:
    upload = SimpleUploadedFile("abstract_demo.tsv", (FIXTURES / "abstract_demo.tsv").read_bytes())
    r = researcher.post(
        reverse("knowledge:build_coco"),
        {
            "graph": "demo",
            "seed": 5,
            "name": "job-coco",
            "per_relation": 3,
            "per_kind": 4,
            "max_degree": 10,
            "abstract_upload": upload,
        },
    )
    job = BuildJob.objects.get()
    assert r.status_code == 302
    assert queued == [job.pk]
    build_job_run_task(job.pk)
    job.refresh_from_db()
    assert job.state == "done", (job.error, job.error_detail)
    assert job.stage_count == 9  # 2 indexes, memorization, comprehension, 4 application kinds, storing
    call_command(
        "build_coco",
        graph="demo",
        seed=5,
        name="cli-coco",
        abstract=str(FIXTURES / "abstract_demo.tsv"),
        per_relation=3,
        per_kind=4,
        verbosity=0,
    )
    assert _export("job-coco", build_dirs / "job.jsonl") == _export("cli-coco", build_dirs / "cli.jsonl")
    assert _rows("job-coco") == _rows("cli-coco")
    assert QuestionSet.objects.get(name="job-coco").params == QuestionSet.objects.get(name="cli-coco").params
    roles = set(Question.objects.filter(question_set__name="job-coco").values_list("role", flat=True))
    assert {"memorization", "conceptualization_1", "atomic_1", "reasoning"} <= roles


def test_application_kind_by_kind_equals_one_call(demo_graph: Graph, build_dirs: Path) -> None:
    """coco_build builds the application kinds one by one to report each: the same questions."""
    norm = graph_index(demo_graph, IndexOptions(normalize=True, max_degree=10))
    together = application(norm, 5, 9)
    apart = [q for k in APPLICATION_KINDS for q in application(norm, 5, 9, kinds=(k,))]
    assert [q.__dict__ for q in together] == [q.__dict__ for q in apart]
    assert len(together) > 10


def test_name_taken_while_queued_fails_with_a_message_and_stores_nothing(demo_graph: Graph) -> None:
    job = build_job_create(
        kind="com2", graph=demo_graph, name="clash", seed=1, params={"kind": "1p", "count": 3, "max_degree": 10}
    )
    call_command("build_questions", graph="demo", kind="1p", count=2, seed=2, name="clash", verbosity=0)
    assert build_job_run_task(job.pk).endswith("failed: a question set named 'clash' already exists")
    job.refresh_from_db()
    assert (job.state, job.error, job.question_set) == ("failed", "a question set named 'clash' already exists", None)
    assert job.finished_at is not None
    assert QuestionSet.objects.get(name="clash").question_count == 2
    with pytest.raises(ImportRefused, match="already exists; start a new build with another name"):
        build_job_retry(job)


def test_unexpected_error_is_stored_then_a_requeued_job_builds(
    demo_graph: Graph, monkeypatch: pytest.MonkeyPatch, queued: list[int], settings: Any
) -> None:
    settings.DEBUG = True  # development: the traceback is kept for the page (production: the log only)

    def boom(*args: object, **kwargs: object) -> None:
        raise RuntimeError("sampler exploded")

    job = build_job_create(
        kind="com2", graph=demo_graph, name="unlucky", seed=4, params={"kind": "2i", "count": 3, "max_degree": 10}
    )
    with monkeypatch.context() as m:
        m.setattr("knowledge.services.builds.build_com2", boom)
        build_job_run_task(job.pk)
    job.refresh_from_db()
    assert job.state == "failed"
    assert job.error == "unexpected error in step 'sampling questions': RuntimeError: sampler exploded"
    assert "Traceback" in job.error_detail
    assert "boom" in job.error_detail
    assert not QuestionSet.objects.filter(name="unlucky").exists()
    settings.DEBUG = False

    build_job_retry(job)
    job.refresh_from_db()
    assert queued == [job.pk, job.pk]
    assert (job.state, job.error, job.error_detail) == ("queued", "", "")
    build_job_run_task(job.pk)
    job.refresh_from_db()
    assert job.state == "done"
    assert job.attempts == 2
    assert job.question_set.question_count == 3


def test_in_production_the_traceback_goes_to_the_log_only(
    demo_graph: Graph, monkeypatch: pytest.MonkeyPatch, queued: list[int], caplog: pytest.LogCaptureFixture
) -> None:
    """Issue 31 item 11: researchers see the one-line error; the traceback (server paths) is logged."""

    def boom(*args: object, **kwargs: object) -> None:
        raise RuntimeError("sampler exploded")

    job = build_job_create(
        kind="com2", graph=demo_graph, name="unlucky2", seed=4, params={"kind": "2i", "count": 3, "max_degree": 10}
    )
    with monkeypatch.context() as m, caplog.at_level("ERROR", logger="knowledge.services.build_execution"):
        m.setattr("knowledge.services.builds.build_com2", boom)
        build_job_run_task(job.pk)
    job.refresh_from_db()
    assert job.state == "failed"
    assert "sampler exploded" in job.error
    assert job.error_detail == ""
    assert any(r.exc_info and "sampler exploded" in str(r.exc_info[1]) for r in caplog.records)


def test_deleted_abstract_file_fails_with_its_name(demo_graph: Graph) -> None:
    job = build_job_create(
        kind="coco",
        graph=demo_graph,
        name="lost",
        seed=1,
        params={"abstract": "feedbeef/gone.tsv", "per_relation": 1, "per_kind": 1},
    )
    build_job_run_task(job.pk)
    job.refresh_from_db()
    assert job.state == "failed"
    assert "abstract file 'feedbeef/gone.tsv' is not in" in job.error


def test_lease_live_job_is_skipped_stale_job_is_taken_over(demo_graph: Graph) -> None:
    job = build_job_create(
        kind="com2", graph=demo_graph, name="leased", seed=1, params={"kind": "1p", "count": 2, "max_degree": 10}
    )
    first = build_job_claim(job.pk, "w1")
    assert first is not None
    assert build_job_claim(job.pk, "w2") is None
    assert build_job_run_task(job.pk) == f"build job {job.pk}: skipped (running)"
    BuildJob.objects.filter(pk=job.pk).update(heartbeat_at=timezone.now() - timedelta(hours=1))
    build_job_run_task(job.pk)  # the worker died: taken over and built
    job.refresh_from_db()
    assert job.state == "done"
    assert job.attempts == 2
    assert job.lease != first
    # the first attempt lost its lease: its writes are refused
    with pytest.raises(execution.LeaseLost):
        Reporter(job.pk, first).progress(1, 1)


def test_progress_writes_are_throttled(demo_graph: Graph) -> None:
    job = build_job_create(kind="com2", graph=demo_graph, name="throttled", seed=1, params={"kind": "1p", "count": 1})
    token = build_job_claim(job.pk)
    assert token is not None
    rep = Reporter(job.pk, token, min_interval=3600)
    for done in range(50, 10_001, 50):
        rep.progress(done, 10_000)
    assert rep.writes == 1  # only the last call (done == total) within the interval
    job.refresh_from_db()
    assert (job.progress_done, job.progress_total) == (10_000, 10_000)
    every = Reporter(job.pk, token, min_interval=0)
    for done in range(1, 6):
        every.progress(done, 10)
    assert every.writes == 5


def test_stalled_job_can_be_requeued_a_live_one_cannot(demo_graph: Graph, queued: list[int]) -> None:
    job = build_job_create(
        kind="com2", graph=demo_graph, name="stalls", seed=1, params={"kind": "1p", "count": 2, "max_degree": 10}
    )
    old = build_job_claim(job.pk, "w1")
    job.refresh_from_db()
    with pytest.raises(ImportRefused, match="is running; only a failed or stalled job can be re-queued"):
        build_job_retry(job)
    BuildJob.objects.filter(pk=job.pk).update(heartbeat_at=timezone.now() - timedelta(hours=1))
    job.refresh_from_db()
    build_job_retry(job)
    job.refresh_from_db()
    assert job.state == "queued"
    assert job.lease is None
    assert queued[-1] == job.pk
    with pytest.raises(execution.LeaseLost):  # the stalled attempt, should it wake up, is refused
        Reporter(job.pk, old).progress(1, 1)  # type: ignore[arg-type]
    build_job_run_task(job.pk)
    job.refresh_from_db()
    assert job.state == "done"
    assert job.attempts == 2
