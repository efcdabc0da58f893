"""The openai client's concurrency (issue 32 item 2) against the project's own OpenAI-compatible
server (commonsense.scoring.server) wrapping the tiny GPT-2: requests go out together up to the
client's limit, each with its own retries, and the results come back in the order of the prompts
while the server answers 429/500 to a random share of them and takes a random latency for each
(responses finish out of order). Every figure is compared with the same model called locally."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from commonsense.scoring.openai_backend import DEFAULT_CONCURRENCY, ApiError, OpenAIBackend
from commonsense.scoring.server import ServerState, serve
from commonsense.scoring.types import Item, LoglikRequest

pytestmark = pytest.mark.slow

WORDS = ["the", "a", "ball", "box", "round", "magazines", "bookstore", "people", "talk", "hats"]


def prompts(n: int) -> list[str]:
    """Prompts of distinct lengths, so each answer's prompt_tokens says which prompt it answers."""
    return ["Question: " + " ".join(WORDS[j % len(WORDS)] for j in range(i + 1)) + "?\nAnswer:" for i in range(n)]


@pytest.fixture(scope="module")
def hf(tiny_gpt2: Path) -> Any:
    from commonsense.scoring.hf import HFBackend

    return HFBackend(tiny_gpt2, dtype="float32")


@pytest.fixture
def server(hf: Any) -> Iterator[tuple[ServerState, str]]:
    # a share of requests fails, every one waits 0-40 ms: answers arrive out of order
    state = ServerState(hf, "tiny-gpt2", fail_rate=0.25, jitter=0.04, seed=7)
    httpd, _ = serve(state)
    yield state, f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def client(url: str, **kw: Any) -> OpenAIBackend:
    kw.setdefault("backoff", 0.001)
    kw.setdefault("max_backoff", 0.01)
    kw.setdefault("max_retries", 12)
    kw.setdefault("concurrency", 8)
    return OpenAIBackend(url, "tiny-gpt2", **kw)


def test_the_default_limit_is_what_a_vllm_server_batches() -> None:
    assert DEFAULT_CONCURRENCY == 256  # vLLM's --max-num-seqs default
    c = OpenAIBackend("http://127.0.0.1:9", "m")
    assert c.concurrency == DEFAULT_CONCURRENCY
    assert c.describe()["concurrency"] == DEFAULT_CONCURRENCY


def test_loglik_keeps_order_under_failures_and_latency(server: tuple[ServerState, str], hf: Any) -> None:
    state, url = server
    reqs = [LoglikRequest(p, (" bookstore", " a box of hats", " people")) for p in prompts(16)]
    c = client(url)
    remote = c.loglikelihood(reqs)
    local = hf.loglikelihood(reqs)
    assert [[s.n_tokens for s in r] for r in remote] == [[s.n_tokens for s in r] for r in local]
    for r, loc in zip(remote, local, strict=True):
        assert [s.logprob for s in r] == pytest.approx([s.logprob for s in loc], abs=1e-4)
    assert state.failed > 0  # failures were injected ...
    assert c.retries_done == state.failed  # ... and each one was retried
    assert 1 < state.max_in_flight <= 8


def test_generate_keeps_order_under_failures_and_latency(server: tuple[ServerState, str], hf: Any) -> None:
    state, url = server
    ps = prompts(16)
    c = client(url)
    remote = c.generate(ps, max_new_tokens=3)
    local = hf.generate(ps, max_new_tokens=3)
    assert [g.prompt_tokens for g in remote] == [g.prompt_tokens for g in local]
    assert len({g.prompt_tokens for g in remote}) == len(ps)  # the check above can tell prompts apart
    assert [g.text for g in remote] == [g.text for g in local]
    assert state.failed > 0
    assert c.retries_done == state.failed
    assert 1 < state.max_in_flight <= 8


def test_word_probs_keep_order_under_failures_and_latency(server: tuple[ServerState, str], hf: Any) -> None:
    state, url = server
    ps = prompts(12)
    c = client(url, top_logprobs=len(hf.tok))  # the tiny model spreads its mass: ask for every token
    remote = c.word_probs(ps, ["yes", "no"])
    local = hf.word_probs(ps, ["yes", "no"])
    assert len({round(p["yes"], 8) for p in local}) > 1  # the prompts' answers differ: order is visible
    for r, loc in zip(remote, local, strict=True):
        assert r["yes"] == pytest.approx(loc["yes"], rel=1e-4)
        assert r["no"] == pytest.approx(loc["no"], rel=1e-4)
    assert state.failed > 0
    assert c.retries_done == state.failed


def test_requests_in_flight_never_exceed_the_limit(server: tuple[ServerState, str]) -> None:
    state, url = server
    state.fail_rate, state.delay, state.jitter = 0.0, 0.08, 0.0
    client(url, concurrency=3).generate(prompts(12), max_new_tokens=1)
    assert state.max_in_flight == 3
    state.max_in_flight = 0
    client(url, concurrency=1).generate(prompts(4), max_new_tokens=1)
    assert state.max_in_flight == 1


def test_a_request_that_fails_for_good_stops_the_rest(server: tuple[ServerState, str]) -> None:
    state, url = server
    state.fail_rate, state.fail_statuses, state.jitter, state.delay = 1.0, (500,), 0.0, 0.02
    c = client(url, concurrency=2, max_retries=1)
    with pytest.raises(ApiError, match="HTTP 500"):
        c.generate(prompts(40), max_new_tokens=1)
    # the first prompt gave up after 2 attempts; the prompts not yet started were never sent
    assert state.requests < 40


def test_scorers_send_a_batch_concurrently_in_order(server: tuple[ServerState, str], hf: Any) -> None:
    from commonsense.scoring import scorer_for

    state, url = server
    items = [
        Item(id=str(i), question=p, options=tuple(f"option {k} of {i}" for k in range(3 + i % 3)), gold=i % 3)
        for i, p in enumerate(prompts(10))
    ]
    few = {"shots": 1, "exemplars": items}
    for scoring, opts in (("generate", {}), ("cot", {}), ("knowcot", {}), ("generate", few), ("cot", few)):
        state.max_in_flight = 0
        kw = {"max_new_tokens": 3, "reasoning_tokens": 3, **opts}
        remote = scorer_for(client(url), scoring, **kw).score_batch(items)
        local = scorer_for(hf, scoring, **kw).score_batch(items)
        assert [r.item_id for r in remote] == [it.id for it in items]
        assert [(r.raw_output, r.prompt_tokens, r.chosen) for r in remote] == [
            (r.raw_output, r.prompt_tokens, r.chosen) for r in local
        ], scoring
        assert state.max_in_flight > 1, scoring  # the batch went out together, not item by item
    state.max_in_flight = 0
    letter = scorer_for(client(url, top_logprobs=len(hf.tok)), "letter").score_batch(items)
    local_letter = scorer_for(hf, "letter").score_batch(items)
    assert [len(r.scores) for r in letter] == [len(it.options) for it in items]
    for r, loc in zip(letter, local_letter, strict=True):
        assert r.scores == pytest.approx(loc.scores, rel=1e-4)
    assert state.max_in_flight > 1
