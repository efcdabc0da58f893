"""Run progress that moves (issue 29 item 9): a slow model stores and shows item by item instead of
in chunks of 32, a queued run says how many runs are ahead of it and which one a worker is scoring
(page, run list, API), and "0 / 0" no longer stands for a run not started."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from runs import evaluation
from runs.evaluation import chunk_size_next, run_execute
from runs.models import Run
from runs.services import run_create

pytestmark = pytest.mark.django_db


def test_chunk_size_follows_the_time_an_item_takes() -> None:
    assert chunk_size_next(None, target_s=5, most=32) == 1  # nothing timed yet: one item first
    assert chunk_size_next(15.0, target_s=5, most=32) == 1  # the demo's SmolLM2 on a busy CPU
    assert chunk_size_next(0.5, target_s=5, most=32) == 10
    assert chunk_size_next(0.001, target_s=5, most=32) == 32  # a fast model: the run's chunk size
    assert chunk_size_next(0.0, target_s=5, most=32) == 32


def _chunks_stored(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    sizes: list[int] = []
    real = evaluation._store_chunk

    def spy(run, token, preds, started, done_before):  # type: ignore[no-untyped-def]
        sizes.append(len(preds))
        return real(run, token, preds, started, done_before)

    monkeypatch.setattr(evaluation, "_store_chunk", spy)
    return sizes


def test_progress_is_written_as_often_as_the_target_asks(statement_set, settings, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    sizes = _chunks_stored(monkeypatch)
    settings.COCOWEB_RUN_PROGRESS_SECONDS = 0.0  # every item is slower than the target
    run = run_create(
        statement_set=statement_set, backend="replay", model="Mixtral-8x22B", scoring="yesno", limit=12, enqueue=False
    )
    assert run_execute(run.pk, heartbeat=False) == Run.State.DONE
    assert sizes == [1] * 12  # before: one write of all 12 (the chunk size is 32)

    sizes.clear()
    settings.COCOWEB_RUN_PROGRESS_SECONDS = 1e9  # every chunk is quicker than the target
    run = run_create(
        statement_set=statement_set, backend="replay", model="Mixtral-8x22B", scoring="yesno", limit=80, enqueue=False
    )
    assert run_execute(run.pk, heartbeat=False) == Run.State.DONE
    assert sizes == [1, 32, 32, 15]
    run.refresh_from_db()
    assert run.items_done == 80


def _queued(statement_set, model: str) -> Run:  # type: ignore[no-untyped-def]
    return run_create(statement_set=statement_set, backend="replay", model=model, scoring="yesno", enqueue=False)


def test_a_queued_run_says_what_it_waits_for(researcher: Client, statement_set) -> None:  # type: ignore[no-untyped-def]
    busy = _queued(statement_set, "Mixtral-8x22B")
    Run.objects.filter(pk=busy.pk).update(state=Run.State.SCORING, items_total=100, items_done=40, eta_s=480)
    first = _queued(statement_set, "GPT-4o")
    second = _queued(statement_set, "Flan-T5-Small")

    page = researcher.get(reverse("runs:detail", args=[second.pk])).content.decode()
    assert "1 run ahead</strong> of this one" in page
    assert f"#{busy.pk} " in page
    assert "40 / 100, about 8 min left" in page
    assert "0 / 0" not in page
    assert "not started" in page
    box = researcher.get(reverse("runs:progress", args=[first.pk]), HTTP_HX_REQUEST="true").content.decode()
    assert "next in line" in box

    listing = researcher.get(reverse("runs:index")).content.decode()
    assert "0 / 0" not in listing
    assert '<small class="queue-place">1 ahead</small>' in listing
    assert '<small class="queue-place">next</small>' in listing

    api = researcher.get(f"/api/runs/{second.pk}/").json()
    assert (api["queue_ahead"], api["waiting_for"]) == (1, [busy.pk])
    listed = {r["id"]: r for r in researcher.get("/api/runs/").json()["results"]}
    assert listed[first.pk]["queue_ahead"] == 0
    assert listed[busy.pk]["queue_ahead"] is None
    assert listed[busy.pk]["eta_s"] == 480


def test_nobody_scoring_and_nothing_ahead_names_the_missing_worker(researcher: Client, statement_set) -> None:  # type: ignore[no-untyped-def]
    run = _queued(statement_set, "GPT-4o")
    page = researcher.get(reverse("runs:detail", args=[run.pk])).content.decode()
    assert "no eval worker is running" in page
    Run.objects.filter(pk=run.pk).update(cancel_requested=True)
    page = researcher.get(reverse("runs:detail", args=[run.pk])).content.decode()
    assert "queue-place" not in page
