"""A real browser (Playwright driving Debian's Chromium, headless): choosing a graph fills the
relations box through htmx, the form queues a job, and the job page polls its progress box until
the job is done, then stops and links to the built set."""

from __future__ import annotations

import pytest
from django.urls import reverse

from accounts.services import role_groups_sync, user_create_with_role
from knowledge.models import BuildJob, Graph
from knowledge.services.build_execution import build_job_run
from tests.browser import PASSWORD, signed_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_form_to_finished_job(browser, live_server, demo_graph: Graph, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    sent: list[int] = []
    monkeypatch.setattr("knowledge.tasks.build_job_run_task.apply_async", lambda args, queue: sent.append(args[0]))
    role_groups_sync()
    user_create_with_role("builder", "researcher", PASSWORD)
    page, watch = signed_in(browser, live_server.url, "builder")

    page.goto(live_server.url + reverse("knowledge:build_questions"))
    assert page.locator("#relations-field option").count() == 0
    page.select_option("select[name=graph]", "demo")
    page.locator("#relations-field option[value=xIntent]").wait_for(state="attached")  # swapped in by htmx
    page.select_option("select[name=kind]", "2i")
    page.fill("input[name=count]", "6")
    page.fill("input[name=seed]", "2")
    page.fill("input[name=name]", "browser-2i")
    page.select_option("select[name=relations]", ["xIntent", "xNeed", "xWant", "xEffect"])
    page.click("form.card button[type=submit]")
    page.wait_for_url("**/knowledge/build/jobs/*/")
    job = BuildJob.objects.get()
    assert sent == [job.pk]
    assert sorted(job.params["relations"]) == ["xEffect", "xIntent", "xNeed", "xWant"]
    box = page.locator("#build-progress")
    assert "Waiting for a worker" in box.inner_text()
    assert box.get_attribute("hx-trigger") == "every 1s"

    build_job_run(job.pk, heartbeat=False)  # what the worker does
    page.locator("#build-progress a:has-text('browser-2i')").wait_for()
    assert page.locator("#build-progress").get_attribute("hx-trigger") is None  # polling stopped
    page.click("#build-progress a:has-text('browser-2i')")
    page.wait_for_url("**/knowledge/question-sets/browser-2i/")
    assert "6 questions" in page.inner_text("main")
    assert watch.errors == []  # no console error or uncaught exception on the way
