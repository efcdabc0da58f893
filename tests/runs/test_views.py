"""Run pages: launch form, run page with htmx progress that stops polling, cancel, re-run,
compare, exports, and who may see them."""

from __future__ import annotations

import csv
import io
import json

import pytest
from django.test import Client
from django.urls import reverse

from accounts.services import role_groups_sync, user_create_with_role
from runs.evaluation import run_execute
from runs.models import Prediction, Run
from runs.services import run_create

pytestmark = pytest.mark.django_db


@pytest.fixture
def done_run(statement_set):  # type: ignore[no-untyped-def]
    run = run_create(
        statement_set=statement_set, backend="replay", model="Mixtral-8x22B", scoring="yesno", enqueue=False
    )
    run_execute(run.pk, heartbeat=False)
    run.refresh_from_db()
    return run


def test_launch_form_queues_a_run_after_commit(
    researcher: Client, statement_set, django_capture_on_commit_callbacks, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    sent = []
    monkeypatch.setattr("runs.tasks.run_execute_task.apply_async", lambda args, queue: sent.append((args, queue)))
    with django_capture_on_commit_callbacks(execute=True):
        r = researcher.post(
            reverse("runs:new"),
            {
                "dataset": "ss:statements-demo",
                "backend": "replay",
                "model": "Mixtral-8x22B",
                "scoring": "yesno",
                "seed": 0,
            },
        )
    run = Run.objects.get()
    assert r.status_code == 302
    assert r["Location"] == reverse("runs:detail", args=[run.pk])
    assert sent == [((run.pk,), "eval")]
    assert run.state == Run.State.QUEUED


def test_launch_form_reports_bad_combinations(researcher: Client, statement_set) -> None:  # type: ignore[no-untyped-def]
    r = researcher.post(
        reverse("runs:new"),
        {
            "dataset": "ss:statements-demo",
            "backend": "replay",
            "model": "Mixtral-8x22B",
            "scoring": "loglik",
            "seed": 0,
        },
    )
    assert r.status_code == 400
    assert "scored with &#x27;yesno&#x27;" in r.content.decode()
    assert not Run.objects.exists()


def test_progress_polls_while_active_and_stops_when_done(researcher: Client, statement_set) -> None:  # type: ignore[no-untyped-def]
    run = run_create(
        statement_set=statement_set, backend="replay", model="Mixtral-8x22B", scoring="yesno", enqueue=False
    )
    page = researcher.get(reverse("runs:detail", args=[run.pk])).content.decode()
    assert 'hx-trigger="every 2s"' in page
    assert "Waiting for a worker" in page
    url = reverse("runs:progress", args=[run.pk]) + "?polling=1"
    assert researcher.get(url)["Location"] == reverse("runs:detail", args=[run.pk])  # plain GET: the page
    r = researcher.get(url, HTTP_HX_REQUEST="true")
    assert 'hx-trigger="every 2s"' in r.content.decode()
    assert "HX-Refresh" not in r
    run_execute(run.pk, heartbeat=False)
    r = researcher.get(url, HTTP_HX_REQUEST="true")
    assert "hx-trigger" not in r.content.decode()
    assert r["HX-Refresh"] == "true"
    assert "1,000 / 1,000 items" in r.content.decode()
    page = researcher.get(reverse("runs:detail", args=[run.pk])).content.decode()
    assert "hx-trigger" not in page
    assert "commonsensicality" in page
    assert "feature:opinion=1" in page


def test_cancel_and_rerun(researcher: Client, statement_set, done_run) -> None:  # type: ignore[no-untyped-def]
    queued = run_create(statement_set=statement_set, backend="replay", model="GPT-4o", scoring="yesno", enqueue=False)
    asked = researcher.post(reverse("runs:cancel", args=[queued.pk]))  # issue 14 bug 8: it asks first
    assert asked.status_code == 200
    assert f"Cancel run {queued.pk}?" in asked.content.decode()
    assert 'name="confirm" value="yes"' in asked.content.decode()
    queued.refresh_from_db()
    assert queued.state == Run.State.QUEUED
    assert not queued.cancel_requested
    researcher.post(reverse("runs:cancel", args=[queued.pk]), {"confirm": "yes"})
    queued.refresh_from_db()
    assert queued.state == Run.State.CANCELLED
    r = researcher.post(reverse("runs:rerun", args=[done_run.pk]))
    new = Run.objects.latest("id")
    assert r["Location"] == reverse("runs:detail", args=[new.pk])
    assert (new.rerun_of_id, new.model, new.scoring, new.state) == (done_run.pk, "Mixtral-8x22B", "yesno", "queued")
    assert researcher.get(reverse("runs:cancel", args=[new.pk])).status_code == 405


def test_exports(researcher: Client, done_run) -> None:  # type: ignore[no-untyped-def]
    body = b"".join(researcher.get(reverse("runs:predictions", args=[done_run.pk, "jsonl"])).streaming_content)
    lines = [json.loads(x) for x in body.decode().splitlines()]
    assert len(lines) == 1000
    assert lines[0]["position"] == 0
    assert lines[0]["options"] == ["no", "yes"]
    assert sum(x["correct"] for x in lines) == Prediction.objects.filter(run=done_run, correct=True).count()
    body = b"".join(researcher.get(reverse("runs:predictions", args=[done_run.pk, "csv"])).streaming_content)
    rows = list(csv.DictReader(io.StringIO(body.decode())))
    assert len(rows) == 1000
    assert json.loads(rows[5]["extra"]).keys() == {"q1", "q2"}
    m = researcher.get(reverse("runs:metrics", args=[done_run.pk])).json()
    assert m["metrics"]["consensus"] == pytest.approx(m["scopes"]["overall"]["consensus"]["value"])
    assert "feature:behavior=0" in m["scopes"]
    assert researcher.get(reverse("runs:predictions", args=[done_run.pk, "xml"])).status_code == 404


def test_compare(researcher: Client, statement_set, done_run) -> None:  # type: ignore[no-untyped-def]
    other = run_create(
        statement_set=statement_set, backend="replay", model="Flan-T5-Small", scoring="yesno", enqueue=False
    )
    run_execute(other.pk, heartbeat=False)
    r = researcher.get(reverse("runs:compare"), {"runs": [done_run.pk, other.pk]})
    text = r.content.decode()
    same = sum(
        a == b
        for a, b in zip(
            done_run.predictions.order_by("position").values_list("chosen", flat=True),
            other.predictions.order_by("position").values_list("chosen", flat=True),
            strict=True,
        )
    )
    assert r.status_code == 200
    assert "commonsensicality" in text
    assert f"the same answer on {same}" in text


def test_only_researchers(client: Client, done_run) -> None:  # type: ignore[no-untyped-def]
    url = reverse("runs:detail", args=[done_run.pk])
    assert client.get(url).status_code == 302
    role_groups_sync()
    user_create_with_role("ann", "annotator", "pw-long-enough-123")
    client.login(username="ann", password="pw-long-enough-123")
    for u in (url, reverse("runs:index"), reverse("runs:new"), reverse("runs:metrics", args=[done_run.pk])):
        assert client.get(u).status_code == 403
