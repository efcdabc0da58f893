"""LoRA fine-tuning of a local causal LM with peft, on a given sequence of (prompt, answer) pairs
(a curriculum's order is kept: no shuffling here), resumable from its last checkpoint.

The loss is the causal-LM loss on the answer tokens only (the prompt's labels are −100). Every
``checkpoint_every`` optimizer steps the adapter, the optimizer, the step and the RNG state are
saved under ``out/checkpoint``; :func:`train` on the same ``out`` continues from there, so an
attempt taken over from a killed worker repeats at most the steps since the last checkpoint and
ends with the same weights as an uninterrupted one. At the end the adapter is saved
(``out/adapter``) and merged into a full model folder (``out/model``, with the tokenizer) that the
``hf`` backend evaluates like any local model. Heavy libraries are imported inside the functions."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class LoraSettings:
    r: int = 8
    alpha: int = 16
    dropout: float = 0.0
    lr: float = 2e-4
    batch_size: int = 4
    max_length: int = 256
    seed: int = 0
    checkpoint_every: int = 10
    target_modules: list[str] | None = field(default=None)  # None: peft's default for the architecture


@dataclass(frozen=True)
class TrainResult:
    steps: int
    resumed_from: int  # the step of the checkpoint this attempt started from (0: from scratch)
    losses: list[float]  # per step, this attempt's
    model_dir: Path
    adapter_dir: Path


def _batches(pairs: Sequence[tuple[str, str]], size: int) -> list[list[tuple[str, str]]]:
    return [list(pairs[i : i + size]) for i in range(0, len(pairs), size)]


def _encode(tok: Any, batch: list[tuple[str, str]], max_length: int) -> dict[str, Any]:
    import torch

    ids, labels = [], []
    for prompt, answer in batch:
        p = tok(prompt, add_special_tokens=False).input_ids
        a = tok(" " + answer.strip(), add_special_tokens=False).input_ids
        eos = [tok.eos_token_id] if tok.eos_token_id is not None else []
        x = (p + a + eos)[-max_length:]
        y = ([-100] * len(p) + a + eos)[-max_length:]
        ids.append(x)
        labels.append(y)
    width = max(len(x) for x in ids)
    pad = tok.pad_token_id if tok.pad_token_id is not None else (tok.eos_token_id or 0)
    t_ids = torch.full((len(ids), width), pad, dtype=torch.long)
    t_lab = torch.full((len(ids), width), -100, dtype=torch.long)
    att = torch.zeros((len(ids), width), dtype=torch.long)
    for i, (x, y) in enumerate(zip(ids, labels, strict=True)):
        t_ids[i, : len(x)] = torch.tensor(x)
        t_lab[i, : len(y)] = torch.tensor(y)
        att[i, : len(x)] = 1
    return {"input_ids": t_ids, "attention_mask": att, "labels": t_lab}


def answer_nll(model_dir: str | Path, pairs: Sequence[tuple[str, str]], *, batch_size: int = 8) -> list[float]:
    """Mean negative log-likelihood per answer token under the base model (Score-CL's difficulty)."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tok = AutoTokenizer.from_pretrained(str(model_dir), local_files_only=True)
    model: Any = AutoModelForCausalLM.from_pretrained(str(model_dir), local_files_only=True)
    model.eval()
    out: list[float] = []
    for batch in _batches(pairs, batch_size):
        enc = _encode(tok, batch, 512)
        with torch.no_grad():
            logits = model(input_ids=enc["input_ids"], attention_mask=enc["attention_mask"]).logits
        logp = torch.log_softmax(logits[:, :-1].float(), -1)
        lab = enc["labels"][:, 1:]
        mask = lab != -100
        tok_lp = logp.gather(-1, lab.clamp(min=0).unsqueeze(-1)).squeeze(-1) * mask
        out += (-(tok_lp.sum(1) / mask.sum(1).clamp(min=1))).tolist()
    return out


def train(
    model_dir: str | Path,
    pairs: Sequence[tuple[str, str]],
    out: str | Path,
    settings: LoraSettings,
    *,
    on_step: Callable[[int, int, float], None] | None = None,
) -> TrainResult:
    """Fine-tune on ``pairs`` in order, one optimizer step per batch; ``on_step(step, total, loss)``
    after each step (a progress write; raising stops training, the checkpoint stays)."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    import torch
    from peft import LoraConfig, PeftModel, get_peft_model, set_peft_model_state_dict
    from peft.utils import get_peft_model_state_dict
    from transformers import AutoModelForCausalLM, AutoTokenizer

    out = Path(out)
    ckpt = out / "checkpoint"
    torch.manual_seed(settings.seed)
    tok = AutoTokenizer.from_pretrained(str(model_dir), local_files_only=True)
    base: Any = AutoModelForCausalLM.from_pretrained(str(model_dir), local_files_only=True, dtype=torch.float32)
    cfg = LoraConfig(
        r=settings.r,
        lora_alpha=settings.alpha,
        lora_dropout=settings.dropout,
        target_modules=settings.target_modules,
        task_type="CAUSAL_LM",
    )
    model: Any = get_peft_model(base, cfg)
    params = [p for p in model.parameters() if p.requires_grad]
    opt = torch.optim.AdamW(params, lr=settings.lr)
    batches = _batches(pairs, settings.batch_size)
    start = 0
    if (ckpt / "state.pt").exists():
        state = torch.load(ckpt / "state.pt", weights_only=False)
        set_peft_model_state_dict(model, state["adapter"])
        opt.load_state_dict(state["optimizer"])
        torch.set_rng_state(state["rng"])
        start = int(state["step"])
    model.train()
    losses: list[float] = []
    for step in range(start, len(batches)):
        enc = _encode(tok, batches[step], settings.max_length)
        loss = model(**enc).loss
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(float(loss.detach()))
        done = step + 1
        if done % settings.checkpoint_every == 0 or done == len(batches):
            ckpt.mkdir(parents=True, exist_ok=True)
            tmp = ckpt / "state.pt.tmp"
            torch.save(
                {
                    "adapter": get_peft_model_state_dict(model),
                    "optimizer": opt.state_dict(),
                    "rng": torch.get_rng_state(),
                    "step": done,
                },
                tmp,
            )
            tmp.replace(ckpt / "state.pt")
        if on_step is not None:
            on_step(done, len(batches), losses[-1])
    adapter_dir, model_out = out / "adapter", out / "model"
    model.save_pretrained(str(adapter_dir))
    merged: Any = model.merge_and_unload() if isinstance(model, PeftModel) else model
    merged.save_pretrained(str(model_out))
    tok.save_pretrained(str(model_out))
    (out / "settings.json").write_text(json.dumps({**asdict(settings), "base": str(model_dir)}, indent=1))
    return TrainResult(len(batches), start, losses, model_out, adapter_dir)
