"""An endpoint's request limit (issue 32 item 2): ``concurrency`` in ``COCOWEB_MODEL_ENDPOINTS``,
default what a vLLM server batches, refused with the entry's name when malformed; a run sends at
most that many requests at once (or fewer, if it asks) and scores chunks big enough to keep them
busy. End to end: a run over the project's own server, which fails a share of the requests and
answers after a random latency, stores the scores an hf run of the same model stores."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.core.exceptions import ImproperlyConfigured

from commonsense.scoring.openai_backend import DEFAULT_CONCURRENCY
from commonsense.scoring.server import ServerState, serve
from runs.catalog import endpoints, run_scorer_args
from runs.evaluation import run_chunk_size, run_execute
from runs.models import Prediction, Run
from runs.services import run_create

pytestmark = pytest.mark.django_db


def test_concurrency_per_endpoint_with_the_vllm_default(settings: Any) -> None:
    settings.COCOWEB_MODEL_ENDPOINTS = {
        "vllm": {"url": "http://10.0.0.5:8000/v1"},
        "llamacpp": {"url": "http://10.0.0.6:8080/v1", "concurrency": 4},
    }
    eps = endpoints()
    assert eps["vllm"].concurrency == DEFAULT_CONCURRENCY == 256
    assert eps["llamacpp"].concurrency == 4


@pytest.mark.parametrize("bad", ["8", 0, -1, 1025, 2.5, True, None])
def test_a_malformed_limit_names_the_entry(settings: Any, bad: Any) -> None:
    settings.COCOWEB_MODEL_ENDPOINTS = {"lab-vllm": {"url": "http://10.0.0.5:8000/v1", "concurrency": bad}}
    with pytest.raises(ImproperlyConfigured, match=r"\['lab-vllm'\]: concurrency must be a whole number"):
        endpoints()


def test_the_models_page_shows_the_limit(settings: Any, researcher: Any) -> None:
    settings.COCOWEB_MODEL_ENDPOINTS = {"llamacpp": {"url": "http://10.0.0.6:8080/v1", "concurrency": 7}}
    page = researcher.get("/runs/models/").content.decode()
    assert "requests in flight" in page
    assert '<td class="num">7</td>' in page


def test_a_run_asks_for_fewer_never_more(settings: Any, csqa_set: Any) -> None:
    settings.COCOWEB_MODEL_ENDPOINTS = {"lab": {"url": "http://10.0.0.5:8000/v1", "models": ["m"], "concurrency": 16}}
    run = run_create(
        question_set=csqa_set, backend="openai", scoring="loglik", model="m", endpoint="lab", enqueue=False
    )
    assert run_scorer_args(run)["backend_options"]["concurrency"] == 16
    for asked, got in ((4, 4), (64, 16), ("99", 16), (0, 16)):
        run.params = {**run.params, "backend_options": {"concurrency": asked}}
        assert run_scorer_args(run)["backend_options"]["concurrency"] == got


def test_a_chunk_keeps_every_request_slot_busy(settings: Any, csqa_set: Any) -> None:
    settings.COCOWEB_RUN_CHUNK_SIZE = 32
    run = Run(question_set=csqa_set, backend="openai", scoring="loglik", params={})
    assert run_chunk_size(run, {"concurrency": 256}) == 256
    assert run_chunk_size(run, {"concurrency": 4}) == 32
    assert run_chunk_size(run, {"backend": "hf"}) == 32
    run.params = {"chunk_size": 5}
    assert run_chunk_size(run, {"concurrency": 256}) == 5  # the run's own choice wins


@pytest.fixture
def server(tiny_gpt2: Path) -> Iterator[ServerState]:
    from commonsense.scoring.hf import HFBackend

    state = ServerState(HFBackend(str(tiny_gpt2), dtype="float32"), "tiny", fail_rate=0.2, jitter=0.03, seed=3)
    httpd, _ = serve(state)
    state.url = f"http://127.0.0.1:{httpd.server_address[1]}/v1"  # type: ignore[attr-defined]
    yield state
    httpd.shutdown()
    httpd.server_close()


@pytest.mark.slow
def test_a_run_over_a_failing_slow_endpoint_stores_what_the_model_says(
    settings: Any, csqa_set: Any, server: ServerState, tiny_gpt2: Path
) -> None:
    settings.COCOWEB_MODEL_ENDPOINTS = {
        "local": {"url": server.url, "models": ["tiny"], "concurrency": 6}  # type: ignore[attr-defined]
    }
    remote = run_create(
        question_set=csqa_set,
        backend="openai",
        scoring="loglik",
        model="tiny",
        endpoint="local",
        limit=12,
        params={"backend_options": {"backoff": 0.001, "max_backoff": 0.01, "max_retries": 12}},
        enqueue=False,
    )
    local = run_create(
        question_set=csqa_set,
        backend="hf",
        scoring="loglik",
        model=str(tiny_gpt2),
        limit=12,
        params={"backend_options": {"dtype": "float32"}},  # as the server's model
        enqueue=False,
    )
    assert run_execute(remote.pk, heartbeat=False) == Run.State.DONE
    assert run_execute(local.pk, heartbeat=False) == Run.State.DONE
    remote.refresh_from_db()
    assert remote.scorer_settings["concurrency"] == 6
    assert server.failed > 0
    assert 1 < server.max_in_flight <= 6
    got = list(Prediction.objects.filter(run=remote).order_by("position").values_list("position", "scores"))
    want = list(Prediction.objects.filter(run=local).order_by("position").values_list("position", "scores"))
    assert [p for p, _ in got] == [p for p, _ in want] == list(range(12))
    for (_, g), (_, w) in zip(got, want, strict=True):
        assert g == pytest.approx(w, abs=1e-3)
