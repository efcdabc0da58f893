"""RICA masked-word prediction (§3.1) with a BERT/RoBERTa-style masked LM from a local folder:
the probe's ``[MASK]`` is replaced by the model's own mask token, once per sub-word of the
candidate (with the tokenizer's own special tokens around the text), and the candidate's score is the sum of its sub-words' log-probabilities at those
positions (one forward pass per candidate; the paper's comparatives are single words, mostly one
token). The candidate with the higher score wins; ``norm_scores`` are per-token means."""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .loglik import MASK, argmax_first
from .types import Item, ItemResult


class MaskedLMScorer:
    method = "rica-mlm"

    def __init__(self, model_dir: str | Path, *, batch_size: int = 16) -> None:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        import torch
        from transformers import AutoModelForMaskedLM, AutoTokenizer

        p = Path(model_dir)
        if not (p / "config.json").exists():
            raise ValueError(f"{p}: not a model folder (no config.json); masked-LM scoring needs a local BERT/RoBERTa")
        self.path = p
        self.tok: Any = AutoTokenizer.from_pretrained(str(p), local_files_only=True)
        if self.tok.mask_token_id is None:
            raise ValueError(f"{p}: the tokenizer has no mask token: not a masked language model")
        self.model: Any = AutoModelForMaskedLM.from_pretrained(str(p), local_files_only=True).eval()
        self.torch = torch
        self.batch_size = batch_size

    def _template(self) -> tuple[list[int], list[int]]:
        """The special tokens the tokenizer puts before and after one sequence ([CLS]/[SEP] for BERT,
        <s>/</s> for RoBERTa), read off its own encoding of a one-word text."""
        if not hasattr(self, "_head_tail"):
            body = self.tok("a", add_special_tokens=False).input_ids
            full = self.tok("a").input_ids
            at = next(i for i in range(len(full)) if full[i : i + len(body)] == body)
            self._head_tail = (full[:at], full[at + len(body) :])
        return self._head_tail

    def encode(self, text: str, option: str) -> tuple[list[int], list[int], list[int]]:
        """(input ids with special tokens, mask positions, the candidate's token ids).

        The text around the mask is tokenized in two parts and the mask ids put between them, so no
        tokenizer sees a mask token inside running text: a byte-level BPE (RoBERTa) would otherwise
        keep the space before ``<mask>`` as a bare "Ġ" token unless its mask token strips to the left.
        The candidate carries the leading space of a word after a space ("Ġeasier"), as the model
        saw it in training; WordPiece drops it."""
        pre, found, post = text.partition(MASK)
        if not found:
            raise ValueError(f"a masked-LM probe needs {MASK} in its text: {text!r}")
        enc = self.tok
        spaced = pre[-1:].isspace()
        cand = enc((" " if spaced else "") + option.strip(), add_special_tokens=False).input_ids
        if not cand:
            raise ValueError(f"the option {option!r} has no tokens")
        before = enc(pre.rstrip() if spaced else pre, add_special_tokens=False).input_ids if pre.strip() else []
        after = enc(post, add_special_tokens=False).input_ids if post.strip() else []
        head, tail = self._template()
        ids = [*head, *before, *([enc.mask_token_id] * len(cand)), *after, *tail]
        positions = list(range(len(head) + len(before), len(head) + len(before) + len(cand)))
        return ids, positions, cand

    def _score(self, rows: list[tuple[list[int], list[int], list[int]]]) -> list[tuple[float, int]]:
        torch = self.torch
        out: list[tuple[float, int]] = []
        pad = self.tok.pad_token_id if self.tok.pad_token_id is not None else 0
        for start in range(0, len(rows), self.batch_size):
            chunk = rows[start : start + self.batch_size]
            width = max(len(r[0]) for r in chunk)
            ids = torch.full((len(chunk), width), pad, dtype=torch.long)
            att = torch.zeros((len(chunk), width), dtype=torch.long)
            for i, (x, _, _) in enumerate(chunk):
                ids[i, : len(x)] = torch.tensor(x)
                att[i, : len(x)] = 1
            with torch.no_grad():
                logp = torch.log_softmax(self.model(input_ids=ids, attention_mask=att).logits.float(), dim=-1)
            for i, (_, pos, cand) in enumerate(chunk):
                out.append((float(sum(logp[i, p, t] for p, t in zip(pos, cand, strict=True))), len(cand)))
        return out

    def score_batch(self, items: Sequence[Item]) -> list[ItemResult]:
        t0 = time.perf_counter()
        rows: list[tuple[list[int], list[int], list[int]]] = []
        spans: list[tuple[int, int]] = []
        for it in items:
            spans.append((len(rows), len(it.options)))
            rows += [self.encode(it.question, o) for o in it.options]
        scored = self._score(rows)
        each = (time.perf_counter() - t0) / max(1, len(items))
        out = []
        for it, (a, n) in zip(items, spans, strict=True):
            lls = [s for s, _ in scored[a : a + n]]
            norm = [s / k for s, k in scored[a : a + n]]
            out.append(
                ItemResult(
                    item_id=it.id,
                    chosen=argmax_first(lls),
                    scores=lls,
                    norm_scores=norm,
                    chosen_norm=argmax_first(norm),
                    latency_s=each,
                    completion_tokens=sum(k for _, k in scored[a : a + n]),
                )
            )
        return out

    def describe(self) -> dict[str, Any]:
        return {
            "method": self.method,
            "scoring": "masked-word prediction (sum of sub-word log-probabilities at the masks)",
            "backend": "hf",
            "model": str(self.path),
            "architecture": type(self.model).__name__,
        }


class PseudoLossScorer(MaskedLMScorer):
    """COM2 Eq. 2, the masked-LM pseudo-loss with which HyKAS and CAR score an option:
    ``S(T) = −(1/n) Σ_i log P(t_i | …, t_{i−1}, t_{i+1}, …)`` over the n tokens of T = "C Q A_i",
    each token masked in turn (one row per token, batched); the option with the **lowest** S wins.
    ``span="answer"`` sums over the option's tokens only (n = their number). A question with one
    blank ``_`` (WinoGrande) is T with the option in the blank. ``scores`` are −S (higher is better,
    as every other scorer's), so ``chosen`` is the argmax."""

    method = "mlm-pll"

    def __init__(self, model_dir: str | Path, *, batch_size: int = 32, span: str = "all") -> None:
        if span not in ("all", "answer"):
            raise ValueError(f"span must be 'all' or 'answer', got {span!r}")
        super().__init__(model_dir, batch_size=batch_size)
        self.span = span

    def sequence(self, item: Item, option: str) -> tuple[list[int], list[int]]:
        """(input ids with special tokens, the positions scored)."""
        q = item.question
        if q.count("_") == 1:
            pre, _, post = q.partition("_")
        else:
            pre, post = f"{item.context} {q}".strip() + " ", ""
        head, tail = self._template()
        a = self.tok(pre.rstrip(), add_special_tokens=False).input_ids if pre.strip() else []
        spaced = pre[-1:].isspace() or not pre
        b = self.tok((" " if spaced and pre else "") + option.strip(), add_special_tokens=False).input_ids
        c = self.tok(post, add_special_tokens=False).input_ids if post.strip() else []
        ids = [*head, *a, *b, *c, *tail]
        if self.span == "answer":
            positions = list(range(len(head) + len(a), len(head) + len(a) + len(b)))
        else:
            positions = list(range(len(head), len(ids) - len(tail)))
        return ids, positions

    def pseudo_loss(self, ids: list[int], positions: list[int]) -> float:
        """Eq. 2 for one sequence: the mean negative log-probability of each scored token masked alone."""
        rows = []
        for p in positions:
            masked = list(ids)
            masked[p] = self.tok.mask_token_id
            rows.append((masked, [p], [ids[p]]))
        scored = self._score(rows)
        return -sum(s for s, _ in scored) / len(scored)

    def score_batch(self, items: Sequence[Item]) -> list[ItemResult]:
        t0 = time.perf_counter()
        out = []
        for it in items:
            losses = [self.pseudo_loss(*self.sequence(it, o)) for o in it.options]
            neg = [-x for x in losses]
            out.append(
                ItemResult(
                    item_id=it.id,
                    chosen=argmax_first(neg),
                    scores=neg,
                    latency_s=(time.perf_counter() - t0) / max(1, len(items)),
                    extra={"pseudo_loss": losses},
                )
            )
        return out

    def describe(self) -> dict[str, Any]:
        return {
            **super().describe(),
            "method": self.method,
            "scoring": f"masked-LM pseudo-loss (COM2 Eq. 2), lowest wins; tokens scored: {self.span}",
        }
