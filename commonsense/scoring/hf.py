"""transformers backend: a causal (or seq2seq) model from a local folder or a local GGUF file.

``loglikelihood`` follows lm-evaluation-harness' tokenisation exactly (context and
context+continuation encoded with the tokenizer's defaults, split at the context length, no BOS
unless the tokenizer adds one, trailing context spaces moved to the continuation) but runs each
context once: questions are grouped by context length (no padding in the context pass), the
context's key/value cache is copied to every option that needs more than one token, and only
those options run a second pass, one per continuation length (so no row there is padded). torch and transformers are imported on first use.
"""

from __future__ import annotations

import copy
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .types import ContinuationScore, Generation, LoglikRequest, Message, Prompt

DTYPES = ("bfloat16", "float32", "float16")


class HFBackend:
    name = "hf"

    def __init__(
        self,
        model: str | Path,
        *,
        cache_dir: str | Path | None = None,
        dtype: str = "bfloat16",
        device: str = "cpu",
        batch_rows: int = 160,
        max_pad: int = 4,
        softmax_in_model_dtype: bool = True,
        threads: int | None = None,
    ) -> None:
        """``model``: a transformers folder or a ``.gguf`` file (converted once into
        ``cache_dir/<stem>``). ``batch_rows`` bounds the rows (options) per forward pass,
        ``max_pad`` the context-length spread within one batch (0: equal lengths only, no padding).
        ``softmax_in_model_dtype`` computes the log-softmax and the sum in the model's dtype,
        as lm-evaluation-harness does (it only matters below float32)."""
        import torch
        from transformers import AutoConfig, AutoModelForCausalLM, AutoModelForSeq2SeqLM, AutoTokenizer

        from .convert import ensure_model_dir

        if dtype not in DTYPES:
            raise ValueError(f"dtype must be one of {DTYPES}")
        if threads:
            torch.set_num_threads(threads)
        if Path(model).suffix.lower() == ".gguf" and cache_dir is None:
            raise ValueError("a .gguf model needs cache_dir (where the converted folder is kept)")
        self.path = ensure_model_dir(model, cache_dir or ".")
        self.dtype_name = dtype
        self.torch_dtype = getattr(torch, dtype)
        self.device = device
        self.batch_rows = batch_rows
        self.max_pad = max_pad
        self.softmax_in_model_dtype = softmax_in_model_dtype
        # Always offline: a local folder only, never the Hub (a name like org/model must not download).
        config = AutoConfig.from_pretrained(str(self.path), local_files_only=True)
        self.seq2seq = bool(getattr(config, "is_encoder_decoder", False))
        cls = AutoModelForSeq2SeqLM if self.seq2seq else AutoModelForCausalLM
        loader: Any = cls
        self.model: Any = loader.from_pretrained(str(self.path), dtype=self.torch_dtype, local_files_only=True)
        self.model = self.model.to(device).eval()
        self.tok = AutoTokenizer.from_pretrained(str(self.path), local_files_only=True)
        self.max_length = int(
            getattr(config, "max_position_embeddings", 0) or getattr(config, "n_positions", 0) or 2048
        )
        pad = self.tok.pad_token_id if self.tok.pad_token_id is not None else self.tok.eos_token_id
        self.pad_id = int(pad if pad is not None else 0)
        self.prefix_id = int(self.tok.bos_token_id if self.tok.bos_token_id is not None else self.pad_id)
        self._word_ids: dict[str, list[int]] = {}
        self.capabilities = frozenset({"loglik", "generate", "word_probs"})

    # ---------------------------------------------------------------- tokenisation (lm-eval's rules)
    def encode_pair(self, context: str, continuation: str) -> tuple[list[int], list[int]]:
        if not context:
            return [self.prefix_id], self.tok.encode(continuation, add_special_tokens=False)
        n_spaces = len(context) - len(context.rstrip())
        if n_spaces:
            continuation = context[-n_spaces:] + continuation
            context = context[:-n_spaces]
        if self.seq2seq:
            return self.tok.encode(context), self.tok.encode(continuation, add_special_tokens=False)
        whole = self.tok.encode(context + continuation)
        ctx = self.tok.encode(context)
        return ctx, whole[len(ctx) :]

    def render(self, prompt: Prompt) -> tuple[str, bool]:
        """Prompt text and whether it already carries special tokens (a rendered chat template)."""
        if isinstance(prompt, str):
            return prompt, False
        msgs = list(prompt)
        if getattr(self.tok, "chat_template", None):
            chat: list[dict[str, str]] = [{"role": m["role"], "content": m["content"]} for m in msgs]
            text = self.tok.apply_chat_template(chat, add_generation_prompt=True, tokenize=False)
            return str(text), True
        return render_plain(msgs), False

    def _encode_prompt(self, prompt: Prompt, reserve: int = 1) -> list[int]:
        """Prompt tokens, left-truncated so that ``reserve`` new tokens still fit the model's window."""
        text, rendered = self.render(prompt)
        ids: list[int] = self.tok.encode(text, add_special_tokens=not rendered)
        return ids[-max(1, self.max_length - reserve) :] or [self.prefix_id]

    # ---------------------------------------------------------------- loglikelihood
    def loglikelihood(self, requests: Sequence[LoglikRequest]) -> list[list[ContinuationScore]]:
        import torch

        enc: list[tuple[list[int], list[list[int]]]] = []
        for r in requests:
            pairs = [self.encode_pair(r.context, c) for c in r.continuations]
            # encode_pair tokenises the context on its own, so every option shares these tokens.
            ctx = pairs[0][0] if pairs else self.tok.encode(r.context)
            conts = [p[1] for p in pairs]
            longest = max((len(c) for c in conts), default=0)
            if len(ctx) + longest > self.max_length:  # left-truncate like lm-eval
                ctx = ctx[-(self.max_length - longest) :]
            enc.append((ctx, conts))
        out: list[list[ContinuationScore]] = [[] for _ in requests]
        with torch.inference_mode():
            for chunk in self._chunks(enc):
                scores = (self._seq2seq_chunk if self.seq2seq else self._causal_chunk)([enc[i] for i in chunk])
                for i, s in zip(chunk, scores, strict=True):
                    out[i] = s
        return out

    def _chunks(self, enc: list[tuple[list[int], list[list[int]]]]) -> list[list[int]]:
        """Requests sorted by context length (longest first) and cut so that a chunk has at most
        ``batch_rows`` options and its contexts differ by at most ``max_pad`` tokens (left padding)."""
        order = sorted(range(len(enc)), key=lambda i: (-len(enc[i][0]), -max((len(c) for c in enc[i][1]), default=0)))
        chunks: list[list[int]] = []
        cur: list[int] = []
        rows = 0
        for i in order:
            n = max(1, len(enc[i][1]))
            if cur and (rows + n > self.batch_rows or len(enc[cur[0]][0]) - len(enc[i][0]) > self.max_pad):
                chunks.append(cur)
                cur, rows = [], 0
            cur.append(i)
            rows += n
        if cur:
            chunks.append(cur)
        return chunks

    def _score_rows(self, logits: list[Any], targets: list[list[int]]) -> list[ContinuationScore]:
        """Sum of log-softmax at the target tokens, per row (rows' logits are [n_tokens, vocab])."""
        import torch

        res = []
        for lg, tgt in zip(logits, targets, strict=True):
            lp = torch.log_softmax(lg if self.softmax_in_model_dtype else lg.float(), dim=-1)
            t = torch.tensor(tgt, dtype=torch.long)
            greedy = bool((lg.argmax(dim=-1) == t).all())
            res.append(ContinuationScore(float(lp.gather(1, t.unsqueeze(1)).squeeze(1).sum()), len(tgt), greedy))
        return res

    def _causal_chunk(self, chunk: list[tuple[list[int], list[list[int]]]]) -> list[list[ContinuationScore]]:
        import torch

        lens = [len(c) for c, _ in chunk]
        width0 = max(lens)
        padded = any(n != width0 for n in lens)
        ctx = torch.full((len(chunk), width0), self.pad_id, dtype=torch.long, device=self.device)
        mask = torch.zeros((len(chunk), width0), dtype=torch.long, device=self.device)
        for q, (c, _) in enumerate(chunk):
            ctx[q, width0 - len(c) :] = torch.tensor(c)
            mask[q, width0 - len(c) :] = 1
        kw: dict[str, Any] = {}
        if padded:  # left padding: mask the pads and keep each context's positions starting at 0
            kw = {"attention_mask": mask, "position_ids": (mask.cumsum(-1) - 1).clamp(min=0)}
        first = self.model(input_ids=ctx, use_cache=True, logits_to_keep=1, **kw)
        last = first.logits[:, -1, :]  # [B, V]: predicts each option's first token
        rows = [(q, conts[o]) for q, (_, conts) in enumerate(chunk) for o in range(len(conts))]
        multi = [r for r, (_, c) in enumerate(rows) if len(c) > 1]
        later: dict[int, Any] = {}
        # Continuations longer than one token: a second pass over their tokens on the contexts'
        # cache, one pass per continuation length so that no row is padded (every position fed is
        # one that is scored: no forward pass or vocabulary projection spent on padding).
        by_width: dict[int, list[int]] = {}
        for r in multi:
            by_width.setdefault(len(rows[r][1]) - 1, []).append(r)
        cache = first.past_key_values
        for n_group, (width, group) in enumerate(sorted(by_width.items())):
            # the last group may take the cache itself; the others select from a copy
            sub = cache if n_group == len(by_width) - 1 else copy.deepcopy(cache)
            sel = torch.tensor([rows[r][0] for r in group], device=self.device)
            sub.batch_select_indices(sel)
            inp = torch.tensor([rows[r][1][:-1] for r in group], dtype=torch.long, device=self.device)
            kw2: dict[str, Any] = {}
            if padded:
                start = torch.tensor([lens[rows[r][0]] for r in group], device=self.device).unsqueeze(1)
                kw2 = {
                    "attention_mask": torch.cat([mask[sel], torch.ones_like(inp)], dim=1),
                    "position_ids": start + torch.arange(width, device=self.device).unsqueeze(0),
                }
            second = self.model(input_ids=inp, past_key_values=sub, use_cache=False, **kw2).logits
            for k, r in enumerate(group):
                later[r] = second[k]
        row_logits = []
        for r, (q, _) in enumerate(rows):
            lg = last[q : q + 1]
            row_logits.append(torch.cat([lg, later[r]], dim=0) if r in later else lg)
        scores = self._score_rows(row_logits, [c for _, c in rows])
        out: list[list[ContinuationScore]] = [[] for _ in chunk]
        for (q, _), s in zip(rows, scores, strict=True):
            out[q].append(s)
        return out

    def _seq2seq_chunk(self, chunk: list[tuple[list[int], list[list[int]]]]) -> list[list[ContinuationScore]]:
        import torch

        out: list[list[ContinuationScore]] = []
        start = int(self.model.config.decoder_start_token_id or self.pad_id)
        for ctx, conts in chunk:  # encoder once per question, decoder batched over options
            ids = torch.tensor([ctx], dtype=torch.long, device=self.device)
            encoded = self.model.get_encoder()(input_ids=ids)
            width = max(len(c) for c in conts)
            dec = torch.full((len(conts), width), self.pad_id, dtype=torch.long, device=self.device)
            for k, c in enumerate(conts):
                dec[k, : len(c)] = torch.tensor([start, *c[:-1]])
            hidden = encoded.last_hidden_state.expand(len(conts), -1, -1)
            logits = self.model(encoder_outputs=(hidden,), decoder_input_ids=dec).logits
            out.append(self._score_rows([logits[k, : len(c)] for k, c in enumerate(conts)], conts))
        return out

    # ---------------------------------------------------------------- generation
    def generate(
        self, prompts: Sequence[Prompt], *, max_new_tokens: int = 32, temperature: float = 0.0, seed: int | None = None
    ) -> list[Generation]:
        """Greedy, or (``temperature`` > 0) pure temperature sampling (top-k and top-p off) with the
        torch generator seeded to ``seed + i`` for prompt i; the global RNG state is left untouched."""
        import torch

        sampling: dict[str, Any] = (
            {"do_sample": True, "temperature": float(temperature), "top_p": 1.0, "top_k": 0}
            if temperature > 0
            else {"do_sample": False, "temperature": None, "top_p": None, "top_k": None}
        )
        max_new_tokens = max(1, min(max_new_tokens, self.max_length - 1))  # prompt + answer fit the window
        res: list[Generation] = []
        with torch.inference_mode():
            for i, p in enumerate(prompts):  # one at a time: no padding effects on greedy outputs
                t0 = time.perf_counter()
                ids = torch.tensor([self._encode_prompt(p, max_new_tokens)], dtype=torch.long, device=self.device)
                with torch.random.fork_rng(devices=[], enabled=temperature > 0 and seed is not None):
                    if temperature > 0 and seed is not None:
                        torch.manual_seed(seed + i)
                    gen = self.model.generate(
                        input_ids=ids,
                        attention_mask=torch.ones_like(ids),
                        max_new_tokens=max_new_tokens,
                        pad_token_id=self.pad_id,
                        **sampling,
                    )
                new = gen[0] if self.seq2seq else gen[0, ids.shape[1] :]
                text = str(self.tok.decode(new, skip_special_tokens=True))
                res.append(Generation(text, int(ids.shape[1]), int(len(new)), time.perf_counter() - t0))
        return res

    # ---------------------------------------------------------------- next-token word probabilities
    def word_token_ids(self, word: str) -> list[int]:
        """Every vocabulary token whose text normalises to ``word`` (NWW's ``answer2tokid``)."""
        from .extract import normalise_token

        if word not in self._word_ids:
            vocab = self.tok.convert_ids_to_tokens(list(range(len(self.tok))))
            w = word.lower()
            ids = []
            for i, t in enumerate(vocab):
                if t is None or normalise_token(t) != w and normalise_token(str(self.tok.decode([i]))) != w:
                    continue
                ids.append(i)
            self._word_ids[word] = ids
        return self._word_ids[word]

    def word_probs(self, prompts: Sequence[Prompt], words: Sequence[str]) -> list[dict[str, float]]:
        import torch

        ids = {w: self.word_token_ids(w) for w in words}
        res: list[dict[str, float]] = []
        with torch.inference_mode():
            for p in prompts:
                x = torch.tensor([self._encode_prompt(p)], dtype=torch.long, device=self.device)
                if self.seq2seq:
                    start = int(self.model.config.decoder_start_token_id or self.pad_id)
                    logits = self.model(input_ids=x, decoder_input_ids=torch.tensor([[start]])).logits[0, -1]
                else:
                    logits = self.model(input_ids=x, logits_to_keep=1).logits[0, -1]
                probs = torch.softmax(logits.float(), dim=-1)
                d = {w: float(probs[ids[w]].sum()) if ids[w] else 0.0 for w in words}
                d["other"] = max(0.0, 1.0 - sum(d.values()))
                res.append(d)
        return res

    # ---------------------------------------------------------------- token-level views (for server.py)
    def top_next_tokens(self, prompt: Prompt, k: int) -> list[tuple[str, float]]:
        """The ``k`` most probable next tokens (decoded text, log-probability)."""
        import torch

        with torch.inference_mode():
            x = torch.tensor([self._encode_prompt(prompt)], dtype=torch.long, device=self.device)
            logits = self.model(input_ids=x, logits_to_keep=1).logits[0, -1].float()
            lp = torch.log_softmax(logits, dim=-1)
            vals, idx = lp.topk(k)
        return [(str(self.tok.decode([int(i)])), float(v)) for v, i in zip(vals, idx, strict=True)]

    def prompt_logprobs(self, text: str) -> tuple[list[str], list[float | None], list[int]]:
        """Tokens of ``text``, each one's log-probability given the ones before (``None`` for the
        first) and its character offset, as an OpenAI ``echo`` response gives them."""
        import torch

        enc = self.tok(text, return_offsets_mapping=True)
        ids: list[int] = list(enc["input_ids"])
        offsets = [int(a) for a, _ in enc["offset_mapping"]]
        with torch.inference_mode():
            logits = self.model(input_ids=torch.tensor([ids], device=self.device)).logits[0].float()
            lp = torch.log_softmax(logits, dim=-1)
        vals: list[float | None] = [None] + [float(lp[i - 1, ids[i]]) for i in range(1, len(ids))]
        return [str(self.tok.decode([i])) for i in ids], vals, offsets

    def describe(self) -> dict[str, Any]:
        return {
            "backend": self.name,
            "model": str(self.path),
            "dtype": self.dtype_name,
            "device": self.device,
            "seq2seq": self.seq2seq,
            "softmax_in_model_dtype": self.softmax_in_model_dtype,
        }


def render_plain(messages: Sequence[Message]) -> str:
    """A chat as plain text for models without a chat template."""
    parts = [m["content"] if m["role"] != "assistant" else f"Answer: {m['content']}" for m in messages]
    return "\n\n".join(parts) + "\n\nAnswer:"
