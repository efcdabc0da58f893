"""A tiny GPT-2 built from a config, with a byte-level BPE tokenizer trained here on text from
the shared data (or built-in lines), saved to a folder and loaded through the same code path
as any local model."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import SHARED_DATA

BUILTIN = [
    'Consider the statement, "A ball is round." Do you agree with this statement? Start your answer with a "yes" or "no".',
    "Yes, I agree. No, I do not agree. yes no Yes No",
    "Question: Where would you find magazines along side many other printed works?\nAnswer: bookstore",
    "A: complete job. B: learn from each other. C: kill animals. D: wear hats. E: talk to each other.",
    "axih is smaller than exdvxr, so axih is easier to put into a box than exdvxr",
]


def training_lines(limit: int = 400) -> list[str]:
    lines = list(BUILTIN) * 20
    csqa = SHARED_DATA / "commonsenseqa_dev" / "dev_rand_split.jsonl"
    if csqa.exists():
        for raw in csqa.read_text().splitlines()[:limit]:
            o = json.loads(raw)
            lines.append(f"Question: {o['question']}\nAnswer: " + " ".join(o["choices"]["text"]))
    return lines * 2


def build_tiny_gpt2(folder: Path, *, vocab_size: int = 600, seed: int = 0) -> Path:
    import torch
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import GPT2Config, GPT2LMHeadModel, PreTrainedTokenizerFast

    if (folder / "config.json").exists():
        return folder
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size, special_tokens=["<|endoftext|>"], initial_alphabet=pre_tokenizers.ByteLevel.alphabet()
    )
    tok.train_from_iterator(training_lines(), trainer=trainer)
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tok, eos_token="<|endoftext|>", bos_token="<|endoftext|>", unk_token="<|endoftext|>"
    )
    torch.manual_seed(seed)
    cfg = GPT2Config(
        vocab_size=len(fast),
        n_positions=256,
        n_embd=32,
        n_layer=2,
        n_head=2,
        bos_token_id=fast.bos_token_id,
        eos_token_id=fast.eos_token_id,
    )
    model = GPT2LMHeadModel(cfg)
    folder.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(str(folder))
    fast.save_pretrained(str(folder))
    return folder
