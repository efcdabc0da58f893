"""Issue 14 bug 4 (first half): a failed run's page shows a short error line and folds the
traceback away in a wrapped, scrolling box, so the page keeps its width (it was 2,233 px wide).
Issue 31 item 11: in production (DEBUG off) the traceback, with its server paths, is not stored
for the page at all: only the one line, and the traceback goes to the log."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse
from django.utils.html import escape

from runs.evaluation import run_execute
from runs.models import Run
from runs.services import run_create
from tests.browser import PASSWORD, signed_in


def broken_model(base) -> str:  # type: ignore[no-untyped-def]
    """A model folder inside the operator's models folder (the tests' temporary folder) with a long
    unbroken name and a config transformers cannot load: the run is accepted and fails on loading,
    with a real traceback."""
    folder = base / ("a-very-long-model-folder-name-" * 8)
    folder.mkdir(exist_ok=True)
    (folder / "config.json").write_text('{"model_type": "no-such-architecture"}')
    return str(folder)


@pytest.fixture
def failed_run(csqa_set, tmp_path_factory, settings):  # type: ignore[no-untyped-def]
    settings.DEBUG = True  # development: the traceback is kept for the page
    model = broken_model(tmp_path_factory.getbasetemp())
    run = run_create(question_set=csqa_set, backend="hf", model=model, scoring="loglik", enqueue=False)
    assert run_execute(run.pk, heartbeat=False) == Run.State.FAILED
    run.refresh_from_db()
    assert run.error.count("\n") > 5  # a real traceback
    return run


def test_failed_run_shows_a_short_error_and_folds_the_traceback(researcher: Client, failed_run) -> None:  # type: ignore[no-untyped-def]
    page = researcher.get(reverse("runs:detail", args=[failed_run.pk])).content.decode()
    summary = page.split('class="errorlist run-error">', 1)[1].split("</p>", 1)[0]
    assert "Traceback" not in summary
    assert "\n" not in summary.strip()
    assert len(summary) <= 400
    assert failed_run.error_summary.split(":", 1)[0] in summary  # the exception's type, e.g. OSError
    details = page.split('<details class="run-error-details">', 1)[1].split("</details>", 1)[0]
    assert "Traceback" in details
    assert '<pre class="wrap">' in details


def test_in_production_a_failed_run_shows_one_line_and_logs_the_traceback(  # type: ignore[no-untyped-def]
    researcher: Client, csqa_set, tmp_path_factory, caplog
) -> None:
    model = broken_model(tmp_path_factory.getbasetemp())
    run = run_create(question_set=csqa_set, backend="hf", model=model, scoring="loglik", enqueue=False)
    with caplog.at_level("ERROR", logger="runs.evaluation"):
        assert run_execute(run.pk, heartbeat=False) == Run.State.FAILED
    run.refresh_from_db()
    assert run.error.startswith("ValueError: ")  # the exception's own message, no traceback
    assert "Traceback" not in run.error
    assert 'File "/' not in run.error
    page = researcher.get(reverse("runs:detail", args=[run.pk])).content.decode()
    assert "Traceback" not in page
    assert "site-packages" not in page
    assert "File &quot;/" not in page
    assert escape(run.error_summary) in page
    assert any(r.exc_info for r in caplog.records)  # the traceback is in the log
    api = researcher.get(f"/api/runs/{run.pk}/").json()
    assert "Traceback" not in str(api)
    assert "site-packages" not in str(api)


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_failed_run_page_keeps_its_width_in_the_browser(
    browser, live_server, csqa_set, tmp_path_factory, settings
) -> None:  # type: ignore[no-untyped-def]
    settings.DEBUG = True  # development: the traceback is kept for the page

    from accounts.services import role_groups_sync, user_create_with_role

    role_groups_sync()
    user_create_with_role("res", "researcher", PASSWORD)
    model = broken_model(tmp_path_factory.getbasetemp())
    run = run_create(question_set=csqa_set, backend="hf", model=model, scoring="loglik", enqueue=False)
    assert run_execute(run.pk, heartbeat=False) == Run.State.FAILED
    page, _ = signed_in(browser, live_server.url, "res")
    page.goto(live_server.url + reverse("runs:detail", args=[run.pk]))
    assert page.evaluate("document.documentElement.scrollWidth") <= 1280
    page.click(".run-error-details summary")  # the details open and still fit
    assert page.is_visible(".run-error-details pre")
    assert page.evaluate("document.documentElement.scrollWidth") <= 1280
