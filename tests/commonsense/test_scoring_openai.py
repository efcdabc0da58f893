"""openai client against a real OpenAI-compatible server on 127.0.0.1 (commonsense.scoring.server)
wrapping the tiny GPT-2 through the hf backend: retries, timeout, logprobs and plain-chat paths,
echo loglik, API key handling."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from commonsense.scoring.openai_backend import ApiError, OpenAIBackend
from commonsense.scoring.server import ServerState, serve
from commonsense.scoring.types import Item, LoglikRequest

pytestmark = pytest.mark.slow
PROMPT = [{"role": "user", "content": 'Do you agree? Start your answer with a "yes" or "no".'}]


@pytest.fixture(scope="module")
def hf(tiny_gpt2: Path) -> Any:
    from commonsense.scoring.hf import HFBackend

    return HFBackend(tiny_gpt2, dtype="float32")


@pytest.fixture
def server(hf: Any) -> Iterator[tuple[ServerState, str]]:
    state = ServerState(hf, "tiny-gpt2")
    httpd, _ = serve(state)
    yield state, f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def client(url: str, **kw: Any) -> OpenAIBackend:
    kw.setdefault("backoff", 0.01)
    return OpenAIBackend(url, "tiny-gpt2", **kw)


def test_generate_chat_and_completions_match_the_local_model(server: tuple[ServerState, str], hf: Any) -> None:
    _, url = server
    c = client(url)
    chat, text = c.generate([PROMPT, "Question: Where?\nAnswer:"], max_new_tokens=4)
    assert chat.text == hf.generate([PROMPT], max_new_tokens=4)[0].text
    assert text.text == hf.generate(["Question: Where?\nAnswer:"], max_new_tokens=4)[0].text
    assert chat.prompt_tokens > 0
    assert 0 < chat.completion_tokens <= 4


@pytest.mark.parametrize("status", [500, 429])
def test_retries_with_backoff(server: tuple[ServerState, str], status: int) -> None:
    state, url = server
    state.fail_status = status
    state.fail_left = 2
    c = client(url, max_retries=3)
    assert c.generate(["Question: Where?\nAnswer:"], max_new_tokens=2)[0].completion_tokens > 0
    assert c.retries_done == 2
    assert state.requests == 3


def test_gives_up_after_max_retries_and_on_client_errors(server: tuple[ServerState, str]) -> None:
    state, url = server
    state.fail_left = 5
    with pytest.raises(ApiError, match="HTTP 500"):
        client(url, max_retries=1).generate(["x"], max_new_tokens=1)
    state.fail_left, state.fail_status = 1, 400
    with pytest.raises(ApiError, match="HTTP 400"):  # not retried
        client(url, max_retries=3).generate(["x"], max_new_tokens=1)


def test_timeout(server: tuple[ServerState, str]) -> None:
    state, url = server
    state.delay = 1.0
    with pytest.raises(ApiError, match="Timeout"):
        client(url, timeout=0.2, max_retries=1).generate(["x"], max_new_tokens=1)


def test_logprobs_path_equals_local_word_probs(server: tuple[ServerState, str], hf: Any) -> None:
    _, url = server
    # the tiny random model spreads its mass thinly: ask for the whole vocabulary as "top" tokens
    remote = client(url, top_logprobs=len(hf.tok)).word_probs([PROMPT, "Answer yes or no:"], ["yes", "no"])
    local = hf.word_probs([PROMPT, "Answer yes or no:"], ["yes", "no"])
    for r, loc in zip(remote, local, strict=True):
        assert r["yes"] > 0
        assert r["no"] > 0
        assert r["yes"] == pytest.approx(loc["yes"], rel=1e-4)
        assert r["no"] == pytest.approx(loc["no"], rel=1e-4)


def test_plain_chat_path_samples_when_no_logprobs(server: tuple[ServerState, str]) -> None:
    state, url = server
    state.logprobs = False
    c = client(url, samples=3)
    p = c.word_probs([PROMPT], ["yes", "no"])[0]
    assert sum(p.values()) == pytest.approx(1.0)
    assert all(v * 3 == pytest.approx(round(v * 3)) for v in p.values())  # shares of 3 answers
    assert state.requests == 3  # three sampled answers, no logprobs request since samples is set
    c2 = client(url)  # asks for logprobs first, finds none, falls back to 23 samples
    c2.samples = None
    before = state.requests
    c2.word_probs([PROMPT], ["yes", "no"])
    assert state.requests - before == 1 + 23


def test_echo_loglik_equals_local(server: tuple[ServerState, str], hf: Any) -> None:
    _, url = server
    req = [LoglikRequest("Question: Where would you find magazines?\nAnswer:", (" bookstore", " train station"))]
    remote = client(url).loglikelihood(req)[0]
    local = hf.loglikelihood(req)[0]
    assert [r.logprob for r in remote] == pytest.approx([x.logprob for x in local], abs=1e-4)


def test_api_key_from_env_never_logged(
    server: tuple[ServerState, str], monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    state, url = server
    state.api_key = "sk-test-SECRET-123"
    with pytest.raises(ApiError, match="401"):
        client(url, api_key_env="COCOWEB_TEST_KEY", max_retries=0).generate(["x"], max_new_tokens=1)
    monkeypatch.setenv("COCOWEB_TEST_KEY", "sk-test-SECRET-123")
    state.fail_left, state.fail_status = 1, 503
    with caplog.at_level(logging.DEBUG):
        c = client(url, api_key_env="COCOWEB_TEST_KEY")
        assert c.generate(["x"], max_new_tokens=1)[0].completion_tokens >= 0
    assert c.retries_done == 1
    assert "SECRET" not in caplog.text
    assert "SECRET" not in repr(c)
    assert "SECRET" not in str(c.describe())


def test_scorers_over_http(server: tuple[ServerState, str]) -> None:
    from commonsense.scoring import build_scorer

    _, url = server
    items = [
        Item(
            id="1",
            question="Where would you find magazines?",
            options=("bookstore", "doctor", "market", "train", "mortuary"),
        )
    ]
    gen = build_scorer("openai", "generate", url=url, model="tiny-gpt2", backend_options={"backoff": 0.01}).score_batch(
        items
    )[0]
    assert gen.chosen is None or 0 <= gen.chosen < 5
    ll = build_scorer("openai", "loglik", url=url, model="tiny-gpt2").score_batch(items)[0]
    assert ll.chosen is not None
    assert len(ll.scores) == 5
