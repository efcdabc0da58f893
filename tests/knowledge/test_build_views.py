"""Build pages: form errors, queueing after commit, the htmx relations box and progress box, and
who may open the build URLs."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse

from cocoweb.params import MAX_COUNT
from knowledge.models import BuildJob, Graph, QuestionSet
from knowledge.services.build_execution import build_job_run
from knowledge.services.build_jobs import build_job_create
from tests.conftest import FIXTURES

pytestmark = pytest.mark.django_db

COM2 = {"graph": "demo", "kind": "2i", "count": 5, "seed": 3, "name": "web-2i", "max_degree": 10}


@pytest.fixture
def sent(monkeypatch: pytest.MonkeyPatch) -> list[tuple[tuple[int, ...], str]]:
    """Messages handed to the broker (the task is enqueued, not run)."""
    out: list[tuple[tuple[int, ...], str]] = []
    monkeypatch.setattr(
        "knowledge.tasks.build_job_run_task.apply_async", lambda args, queue: out.append((tuple(args), queue))
    )
    return out


def _post(client: Client, url: str, data: dict[str, object]) -> tuple[int, str]:
    r = client.post(url, data)
    return r.status_code, r.content.decode()


def test_com2_form_lists_the_graphs_relations_and_queues_after_commit(
    researcher: Client, demo_graph: Graph, sent, django_capture_on_commit_callbacks
) -> None:  # type: ignore[no-untyped-def]
    page = researcher.get(reverse("knowledge:build_questions") + "?graph=demo").content.decode()
    assert '<option value="xIntent">xIntent (' in page
    assert 'id="relations-field"' in page
    assert 'hx-get="/knowledge/build/questions/"' in page
    assert 'href="/knowledge/build/questions/?graph=demo"' in page
    with django_capture_on_commit_callbacks(execute=True):
        r = researcher.post(reverse("knowledge:build_questions"), {**COM2, "relations": ["xIntent", "xNeed"]})
    job = BuildJob.objects.get()
    assert r.status_code == 302
    assert r["Location"] == reverse("knowledge:build_job", args=[job.pk])
    assert sent == [((job.pk,), "default")]
    assert (job.state, job.kind, job.name, job.seed, job.graph_id) == ("queued", "com2", "web-2i", 3, demo_graph.pk)
    assert job.params == {
        "kind": "2i",
        "count": 5,
        "relations": ["xIntent", "xNeed"],
        "max_degree": 10,
        "diverse": False,
        "min_plausibility": None,
        "include_implausible": False,
        "include_malformed": False,
        "include_populated": False,
        "near_duplicate": None,  # the field left empty: no near-duplicate check (the form's initial is 0.9)
        "near_synonym": None,  # left empty too: no near-synonym check
        "person_names": True,
        "rules": "curated",  # not posted: the default mode
        "merge_nodes": None,  # not posted: no node merging
        "random_negatives": "",  # not posted: the rules mode's own
        "chain_phrasing": "step",  # not posted: the default 2p wording
    }
    assert job.created_by is not None
    assert job.created_by.username == "b-researcher"


def test_nothing_is_enqueued_before_commit(
    researcher: Client, demo_graph: Graph, sent, django_capture_on_commit_callbacks
) -> None:  # type: ignore[no-untyped-def]
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        researcher.post(reverse("knowledge:build_questions"), COM2)
    assert sent == []
    assert len(callbacks) == 1


def test_com2_form_errors_are_shown_and_nothing_is_queued(researcher: Client, demo_graph: Graph, sent) -> None:  # type: ignore[no-untyped-def]
    url = reverse("knowledge:build_questions")
    QuestionSet.objects.create(name="taken", kind="com2")
    status, page = _post(researcher, url, {**COM2, "name": "taken"})
    assert status == 400
    assert "a question set named &#x27;taken&#x27; already exists; choose another name" in page
    status, page = _post(researcher, url, {**COM2, "relations": ["xIntent", "Desires"]})
    assert status == 400
    assert "unknown relation Desires: graph demo has no triple with it" in page
    status, page = _post(researcher, url, {**COM2, "count": 0})
    assert status == 400
    assert "greater than or equal to 1" in page
    status, page = _post(researcher, url, {**COM2, "count": MAX_COUNT + 1})
    assert status == 400
    assert f"less than or equal to {MAX_COUNT}" in page
    status, page = _post(researcher, url, {**COM2, "name": "no spaces"})
    assert status == 400
    assert "letters, numbers, underscores or hyphens" in page
    status, page = _post(researcher, url, {**COM2, "graph": "nope"})
    assert status == 400
    assert "Select a valid choice" in page
    assert not BuildJob.objects.exists()
    assert sent == []
    # a queued job holds its name too
    build_job_create(kind="com2", graph=demo_graph, name="pending", seed=1, params={"kind": "1p", "count": 1})
    status, page = _post(researcher, url, {**COM2, "name": "pending"})
    assert status == 400
    assert "is already building a set named &#x27;pending&#x27;" in page
    assert BuildJob.objects.count() == 1


def test_relations_box_is_an_htmx_partial(researcher: Client, demo_graph: Graph) -> None:
    url = reverse("knowledge:build_questions") + "?graph=demo"
    r = researcher.get(url, HTTP_HX_REQUEST="true", HTTP_HX_TARGET="relations-field")
    body = r.content.decode()
    assert r.status_code == 200
    assert body.startswith('<p id="relations-field">')
    assert "<html" not in body
    assert '<option value="xNeed">' in body
    empty = researcher.get(
        reverse("knowledge:build_questions"), HTTP_HX_REQUEST="true", HTTP_HX_TARGET="relations-field"
    ).content.decode()
    assert "choose a graph first" in empty
    assert "<option" not in empty


def test_coco_form_upload_is_validated_and_stored(
    researcher: Client, demo_graph: Graph, sent, build_dirs: Path
) -> None:  # type: ignore[no-untyped-def]
    url = reverse("knowledge:build_coco")
    base = {"graph": "demo", "seed": 1, "name": "web-coco", "per_relation": 3, "per_kind": 3, "max_degree": 10}
    bad = SimpleUploadedFile("concepts.tsv", b"a\tb\tc\nonly two\tcolumns\n")
    r = researcher.post(url, {**base, "abstract_upload": bad})
    assert r.status_code == 400
    assert "concepts.tsv, line 2: expected 3 tab-separated columns" in r.content.decode()
    assert not BuildJob.objects.exists()
    assert not list((build_dirs / "abstract").rglob("*.tsv"))
    good = SimpleUploadedFile("abstract_demo.tsv", (FIXTURES / "abstract_demo.tsv").read_bytes())
    r = researcher.post(url, {**base, "abstract_upload": good})
    job = BuildJob.objects.get()
    assert r.status_code == 302
    assert job.kind == "coco"
    assert job.params["abstract"].endswith("/abstract_demo.tsv")
    stored = build_dirs / "abstract" / job.params["abstract"]
    assert stored.read_bytes() == (FIXTURES / "abstract_demo.tsv").read_bytes()
    # the stored file is offered next time; choosing it and uploading one is refused
    page = researcher.get(url).content.decode()
    assert f'<option value="{job.params["abstract"]}">' in page
    again = SimpleUploadedFile("x.tsv", (FIXTURES / "abstract_demo.tsv").read_bytes())
    r = researcher.post(url, {**base, "name": "other", "abstract": job.params["abstract"], "abstract_upload": again})
    assert r.status_code == 400
    assert "choose a stored file or upload one, not both" in r.content.decode()
    r = researcher.post(url, {**base, "name": "other", "abstract": "../../etc/passwd"})
    assert r.status_code == 400
    assert "Select a valid choice" in r.content.decode()


def test_progress_box_polls_while_active_and_stops_when_done(researcher: Client, demo_graph: Graph) -> None:
    job = build_job_create(
        kind="com2", graph=demo_graph, name="web-2i", seed=3, params={"kind": "2i", "count": 5, "max_degree": 10}
    )
    page = researcher.get(reverse("knowledge:build_job", args=[job.pk])).content.decode()
    progress_url = reverse("knowledge:build_job_progress", args=[job.pk])
    assert f'hx-get="{progress_url}" hx-trigger="every 1s"' in page
    assert "Waiting for a worker" in page
    assert "python manage.py build_questions --graph demo --kind 2i --count 5 --seed 3 --name web-2i" in page
    r = researcher.get(progress_url)  # a plain GET (no htmx) is the job's page
    assert r.status_code == 302
    assert r["Location"] == reverse("knowledge:build_job", args=[job.pk])
    r = researcher.get(progress_url, HTTP_HX_REQUEST="true")
    body = r.content.decode()
    assert body.startswith("<section")
    assert "<html" not in body
    assert 'hx-trigger="every 1s"' in body
    build_job_run(job.pk, heartbeat=False)
    body = researcher.get(progress_url, HTTP_HX_REQUEST="true").content.decode()
    assert "hx-trigger" not in body
    assert "Done" in body
    assert 'href="/knowledge/question-sets/web-2i/"' in body
    assert 'href="/explorer/questions/?set=web-2i"' in body
    assert "5 questions" in body
    home = researcher.get(reverse("home")).content.decode()
    assert f'href="{reverse("knowledge:build_job", args=[job.pk])}"' in home
    assert 'href="/knowledge/build/questions/"' in home
    assert 'href="/knowledge/build/coco/"' in home
    graph_page = researcher.get(reverse("knowledge:graph", args=["demo"])).content.decode()
    assert 'href="/knowledge/build/questions/?graph=demo"' in graph_page


def test_build_urls_by_role(role_clients: dict[str, Client], demo_graph: Graph) -> None:
    job = build_job_create(kind="com2", graph=demo_graph, name="gated", seed=1, params={"kind": "1p", "count": 1})
    gets = [
        reverse("knowledge:build_questions"),
        reverse("knowledge:build_coco"),
        reverse("knowledge:build_job_list"),
        reverse("knowledge:build_job", args=[job.pk]),
    ]
    progress = reverse("knowledge:build_job_progress", args=[job.pk])
    requeue = reverse("knowledge:build_job_requeue", args=[job.pk])
    login = reverse("login")
    for url in [*gets, progress, requeue]:
        r = role_clients["anonymous"].get(url)
        assert r.status_code == 302, url
        assert r["Location"].startswith(login), url
        assert role_clients["annotator"].get(url).status_code == 403, url
        assert role_clients["annotator"].post(url).status_code == 403, url
    for role in ("researcher", "admin"):
        c = role_clients[role]
        for url in gets:
            assert c.get(url).status_code == 200, (role, url)
        assert c.get(progress).status_code == 302
        assert c.get(progress, HTTP_HX_REQUEST="true").status_code == 200
        assert c.get(requeue).status_code == 405
        # a queued job cannot be re-queued: back to its page with the reason
        r = c.post(requeue, follow=True)
        assert r.status_code == 200
        assert "only a failed or stalled job can be re-queued" in r.content.decode()
    missing = reverse("knowledge:build_job", args=[job.pk + 100])
    assert role_clients["researcher"].get(missing).status_code == 404


def test_job_page_says_when_fewer_questions_than_asked_could_be_built(researcher: Client, demo_graph: Graph) -> None:
    job = build_job_create(
        # the ATOMIC demo graph holds few 2i queries over xIntent alone (4 of 12 asked)
        kind="com2",
        graph=demo_graph,
        name="few-2i",
        seed=11,
        params={"kind": "2i", "count": 12, "max_degree": 7, "relations": ["xIntent"]},
    )
    build_job_run(job.pk, heartbeat=False)
    page = researcher.get(reverse("knowledge:build_job", args=[job.pk])).content.decode()
    job.refresh_from_db()
    assert job.state == "done"
    assert 0 < job.question_set.question_count < 12
    assert f"Only {job.question_set.question_count} of the 12 requested questions could be built" in page


def test_failed_job_page_shows_the_message_and_offers_a_requeue(researcher: Client, demo_graph: Graph) -> None:
    job = build_job_create(kind="com2", graph=demo_graph, name="late", seed=1, params={"kind": "1p", "count": 2})
    QuestionSet.objects.create(name="late", kind="com2")  # taken after the job was queued
    build_job_run(job.pk, heartbeat=False)
    body = researcher.get(
        reverse("knowledge:build_job_progress", args=[job.pk]), HTTP_HX_REQUEST="true"
    ).content.decode()
    assert "hx-trigger" not in body
    assert "Failed" in body
    assert "a question set named &#x27;late&#x27; already exists" in body
    assert f'action="{reverse("knowledge:build_job_requeue", args=[job.pk])}"' in body
    r = researcher.post(reverse("knowledge:build_job_requeue", args=[job.pk]), follow=True)
    assert "already exists; start a new build with another name" in r.content.decode()
    job.refresh_from_db()
    assert job.state == "failed"
