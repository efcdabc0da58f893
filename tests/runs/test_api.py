"""The REST API of question sets, runs and predictions (issue 14): token authentication,
researchers only, launch and cancel a run, predictions filtered and paginated on the server."""

from __future__ import annotations

import pytest
from django.test import Client

from accounts.services import api_token_renew, role_groups_sync, user_create_with_role
from runs.evaluation import run_execute
from runs.models import Prediction, Run
from runs.services import run_create

pytestmark = pytest.mark.django_db


def _token_client(role: str) -> Client:
    role_groups_sync()
    user = user_create_with_role(f"api-{role}", role, "pw-long-enough-123")
    return Client(HTTP_AUTHORIZATION=f"Token {api_token_renew(user)}")


@pytest.fixture
def api() -> Client:
    return _token_client("researcher")


@pytest.fixture
def done_run(csqa_set) -> Run:  # type: ignore[no-untyped-def]
    run = run_create(question_set=csqa_set, backend="random", scoring="loglik", seed=3, enqueue=False)
    run_execute(run.pk, heartbeat=False)
    return Run.objects.get(pk=run.pk)


def test_question_sets_and_their_questions(api: Client, csqa_set) -> None:  # type: ignore[no-untyped-def]
    body = api.get("/api/knowledge/question-sets/").json()
    assert body["count"] == 1
    assert body["results"][0]["name"] == "csqa-demo"
    assert body["results"][0]["question_count"] == 300
    assert api.get("/api/knowledge/question-sets/csqa-demo/").json()["kind"] == csqa_set.kind
    assert api.get("/api/knowledge/question-sets/nope/").status_code == 404
    page = api.get("/api/knowledge/question-sets/csqa-demo/questions/?page=2").json()
    assert page["count"] == 300
    assert [q["position"] for q in page["results"]] == list(range(100, 200))
    first = api.get("/api/knowledge/question-sets/csqa-demo/questions/").json()["results"][0]
    assert first["stem"] == "What do people aim to do at work?"
    assert first["answer_index"] == 0


def test_runs_list_and_detail_with_overall_metrics(api: Client, done_run: Run) -> None:
    runs = api.get("/api/runs/").json()
    assert runs["count"] == 1
    assert runs["results"][0]["id"] == done_run.pk
    run = api.get(f"/api/runs/{done_run.pk}/").json()
    assert run["state"] == "done"
    assert run["question_set"] == "csqa-demo"
    assert run["items_done"] == 300
    acc = {m["name"]: m for m in run["metrics"]}["accuracy"]
    assert acc["value"] == pytest.approx(Prediction.objects.filter(run=done_run, correct=True).count() / 300)
    assert acc["ci_low"] < acc["value"] < acc["ci_high"]
    assert api.get("/api/runs/?state=queued").json()["count"] == 0
    assert api.get("/api/runs/999999/").status_code == 404


def test_predictions_filtered_and_paginated(api: Client, done_run: Run) -> None:
    url = f"/api/runs/{done_run.pk}/predictions/"
    everything = api.get(url).json()
    assert everything["count"] == 300
    assert len(everything["results"]) == 100
    wrong = api.get(url, {"correct": "0"}).json()
    expected = Prediction.objects.filter(run=done_run, correct=False).count()
    assert wrong["count"] == expected
    assert all(p["correct"] is False for p in wrong["results"])
    chosen = api.get(url, {"chosen": "4"}).json()
    assert chosen["count"] == Prediction.objects.filter(run=done_run, chosen=4).count()
    assert all(p["chosen"] == 4 for p in chosen["results"])
    hit = api.get(url, {"q": "magazines"}).json()
    assert hit["count"] >= 1
    assert hit["results"][0]["position"] == 1
    p = everything["results"][0]
    assert len(p["scores"]) == 5
    assert p["item_id"] == Prediction.objects.get(run=done_run, position=0).question_id


def test_launch_a_run_queues_it_after_commit(
    api: Client, csqa_set, django_capture_on_commit_callbacks, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    sent = []
    monkeypatch.setattr("runs.tasks.run_execute_task.apply_async", lambda args, queue: sent.append((args, queue)))
    with django_capture_on_commit_callbacks(execute=True):
        r = api.post(
            "/api/runs/",
            {"set": "csqa-demo", "backend": "random", "scoring": "loglik", "seed": 4, "limit": 10},
            content_type="application/json",
        )
    assert r.status_code == 201, r.content
    run = Run.objects.get()
    assert r.json()["id"] == run.pk
    assert r.json()["state"] == "queued"
    assert run.limit == 10
    assert sent == [((run.pk,), "eval")]
    assert run.created_by.username == "api-researcher"


def test_launch_refuses_bad_combinations_with_the_reason(api: Client, csqa_set) -> None:  # type: ignore[no-untyped-def]
    r = api.post(
        "/api/runs/", {"set": "csqa-demo", "backend": "random", "scoring": "yesno"}, content_type="application/json"
    )
    assert r.status_code == 400
    assert "statement set" in r.json()["detail"]
    r = api.post(
        "/api/runs/", {"set": "nope", "backend": "random", "scoring": "loglik"}, content_type="application/json"
    )
    assert r.status_code == 400
    assert "no question set or statement set named 'nope'" in r.json()["detail"]
    r = api.post(
        "/api/runs/", {"set": "csqa-demo", "backend": "gpt9", "scoring": "loglik"}, content_type="application/json"
    )
    assert r.status_code == 400
    assert "backend" in r.json()
    assert not Run.objects.exists()


def test_cancel_a_queued_run_and_refuse_a_finished_one(api: Client, csqa_set, done_run: Run) -> None:  # type: ignore[no-untyped-def]
    queued = run_create(question_set=csqa_set, backend="random", scoring="loglik", enqueue=False)
    r = api.post(f"/api/runs/{queued.pk}/cancel/")
    assert r.status_code == 200
    assert r.json()["state"] == "cancelled"
    r = api.post(f"/api/runs/{done_run.pk}/cancel/")
    assert r.status_code == 409
    assert "already ended" in r.json()["detail"]


def test_only_researchers_and_only_with_credentials(done_run: Run) -> None:
    run_url = f"/api/runs/{done_run.pk}/"
    for url in ("/api/runs/", run_url, run_url + "predictions/", "/api/knowledge/question-sets/"):
        assert Client().get(url).status_code == 401
        assert Client(HTTP_AUTHORIZATION="Token not-a-token").get(url).status_code == 401
    annotator = _token_client("annotator")
    assert annotator.get("/api/runs/").status_code == 403
    assert annotator.post(run_url + "cancel/").status_code == 403
    assert annotator.get("/api/knowledge/question-sets/").status_code == 403


def test_the_schema_documents_every_operation(api: Client) -> None:
    paths = api.get("/api/schema/?format=json").json()["paths"]
    assert {"get", "post"} <= set(paths["/api/runs/"])
    for p in (
        "/api/runs/{run_id}/",
        "/api/runs/{run_id}/cancel/",
        "/api/runs/{run_id}/predictions/",
        "/api/knowledge/question-sets/",
        "/api/knowledge/question-sets/{name}/",
        "/api/knowledge/question-sets/{name}/questions/",
    ):
        assert p in paths
    params = {x["name"] for x in paths["/api/runs/{run_id}/predictions/"]["get"]["parameters"]}
    assert {"correct", "relation", "kind", "chosen", "q", "page"} <= params
