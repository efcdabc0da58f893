"""The per-sample viewer in Chromium (issue 14): choosing a filter or typing in the search box
refreshes the list through htmx (no page load, the URL follows), the pager pages, and the
partial-metrics box of a finished run does not poll."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from runs.evaluation import run_execute
from runs.models import Prediction, Run
from runs.services import run_create
from tests.explorer.test_browser import page  # noqa: F401  (the logged-in Chromium page fixture)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_filters_search_and_pager_work_in_the_browser(page, live_server):  # type: ignore[no-untyped-def]  # noqa: F811
    from knowledge.models import QuestionSet
    from knowledge.services.imports import questions_import
    from tests.conftest import FIXTURES

    questions_import(FIXTURES / "csqa_demo.jsonl", name="csqa-demo", fmt="csqa")
    run = run_create(question_set=QuestionSet.objects.get(), backend="random", scoring="loglik", seed=2, enqueue=False)
    assert run_execute(run.pk, heartbeat=False) == Run.State.DONE
    wrong = Prediction.objects.filter(run=run, correct=False).count()

    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    page.goto(live_server.url + reverse("runs:samples", args=[run.pk]))
    assert "<strong>300</strong> predictions" in page.content()
    page.select_option("select[name=correct]", "0")
    # Functions, not expressions: Playwright evaluates an expression string with eval, which the
    # Content-Security-Policy refuses (script-src 'self').
    page.wait_for_function(f"() => document.querySelector('#samples').innerText.includes('{wrong} predictions match')")
    assert re.search(r"correct=0", page.url)
    assert page.locator("#samples .verdict.ok").count() == 0

    page.select_option("select[name=correct]", "")
    page.fill("#sample-q", "magazines")
    # the search reads the options too (issue 29 item 12): one question says "magazines", another offers it
    page.wait_for_function("() => document.querySelector('#samples').innerText.includes('2 predictions match')")
    found = page.locator("#samples").inner_text()
    assert "Where would you find magazines" in found
    assert "Where does one usually keep literature?" in found

    page.fill("#sample-q", "")
    page.wait_for_function("() => document.querySelector('#samples').innerText.includes('300 predictions')")
    page.click("#samples .pager >> text=next →")
    page.wait_for_function("() => document.querySelector('#samples').innerText.includes('showing 26–50')")
    assert "page=2" in page.url
    # a finished run's metrics box does not poll
    n = len([u for u in requests if "/samples/live/" in u])
    page.wait_for_timeout(2500)
    assert len([u for u in requests if "/samples/live/" in u]) == n == 0
