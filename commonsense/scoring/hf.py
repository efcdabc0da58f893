"""transformers backend: a causal (or seq2seq) model from a local folder or a local GGUF file.

``loglikelihood`` follows lm-evaluation-harness' tokenisation exactly (context and
context+continuation encoded with the tokenizer's defaults, split at the context length, no BOS
unless the tokenizer adds one, trailing context spaces moved to the continuation) but runs each
context once, and in one forward pass per chunk of questions: each question's context is followed
by the tokens of its options (each option's tokens but the last), an attention mask lets each
option see the context and its own earlier tokens only, and several questions share a row
(separated by the mask) so that almost nothing is padding. The vocabulary projection runs only at
the positions whose logits are read (the context's last position, which predicts every option's
first token, and the options' fed tokens). torch and transformers are imported on first use.
"""

from __future__ import annotations

import inspect
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .types import ContinuationScore, Generation, LoglikRequest, Message, Prompt

DTYPES = ("bfloat16", "float32", "float16")
# Row width at which a token's attention over the row costs as much as its other work (a rough
# constant for packing: the projections and MLP are ~3.5 M multiply-adds per token and layer on a
# 576-wide model, attention ~2 x width x 576): only the trade-off between padding and width uses it.
ATTENTION_PER_TOKEN = 3000


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
        batch_tokens: int = 4096,
        pack_width: int = 128,
        head: str = "scored",
        softmax_in_model_dtype: bool = True,
        threads: int | None = None,
    ) -> None:
        """``model``: a transformers folder or a ``.gguf`` file (converted once into
        ``cache_dir/<stem>``). ``batch_rows`` bounds the options per forward pass and
        ``batch_tokens`` the tokens (so that the attention mask, rows x width^2, stays small for
        long prompts); ``pack_width`` is about the longest a row of packed questions gets on
        average (shorter rows where they pad less; a longer question gets a row of its own
        length). ``head="scored"`` runs the vocabulary projection only at the positions whose
        logits are read; ``"all"`` at every position fed (same scores, more work: for checks).
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
        self.batch_tokens = batch_tokens
        if head not in ("scored", "all"):
            raise ValueError('head must be "scored" or "all"')
        self.pack_width = pack_width
        self.head = head
        self.softmax_in_model_dtype = softmax_in_model_dtype
        # Always offline: a local folder only, never the Hub (a name like org/model must not download).
        config = AutoConfig.from_pretrained(str(self.path), local_files_only=True)
        self.seq2seq = bool(getattr(config, "is_encoder_decoder", False))
        cls = AutoModelForSeq2SeqLM if self.seq2seq else AutoModelForCausalLM
        loader: Any = cls
        self.model: Any = loader.from_pretrained(str(self.path), dtype=self.torch_dtype, local_files_only=True)
        self.model = self.model.to(device).eval()
        if "logits_to_keep" not in inspect.signature(self.model.forward).parameters:
            self.head = "all"  # a model class that cannot project only some positions
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

        enc = self.encode_requests(requests)
        out: list[list[ContinuationScore]] = [[] for _ in requests]
        with torch.inference_mode():
            for chunk in self._chunks(enc):
                scores = (self._seq2seq_chunk if self.seq2seq else self._causal_chunk)([enc[i] for i in chunk])
                for i, s in zip(chunk, scores, strict=True):
                    out[i] = s
        return out

    def encode_requests(self, requests: Sequence[LoglikRequest]) -> list[tuple[list[int], list[list[int]]]]:
        """Per request: the context's tokens and each continuation's tokens (lm-eval's rules)."""
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
        return enc

    def causal_work(self, requests: Sequence[LoglikRequest]) -> tuple[int, int]:
        """What ``loglikelihood`` feeds a causal model for ``requests``: token positions through
        the layers (padding included) and rows through the vocabulary projection."""
        enc = self.encode_requests(requests)
        fed = rows = 0
        for chunk in self._chunks(enc):
            reqs = [enc[i] for i in chunk]
            packed = self._pack(reqs)
            fed += len(packed) * max(sum(_segment_length(reqs[q]) for q in row) for row in packed)
            rows += sum(1 + sum(len(c) - 1 for c in conts if len(c) > 1) for _, conts in reqs)
        return fed, rows

    def _chunks(self, enc: list[tuple[list[int], list[list[int]]]]) -> list[list[int]]:
        """Requests sorted by segment length (longest first) and cut so that a chunk (one forward
        pass) has at most ``batch_rows`` options and ``batch_tokens`` tokens (a longer request
        goes alone)."""
        order = sorted(range(len(enc)), key=lambda i: -_segment_length(enc[i]))
        chunks: list[list[int]] = []
        cur: list[int] = []
        rows = tokens = 0
        for i in order:
            n, t = max(1, len(enc[i][1])), _segment_length(enc[i])
            if cur and (rows + n > self.batch_rows or tokens + t > self.batch_tokens):
                chunks.append(cur)
                cur, rows, tokens = [], 0, 0
            cur.append(i)
            rows += n
            tokens += t
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

    def _score_flat(
        self, logits: Any, at: list[list[list[int]]], targets: list[list[list[int]]]
    ) -> list[list[ContinuationScore]]:
        """Per question and option: the sum of the log-softmax at its target tokens, read from
        ``logits`` [n_kept, vocab] at the kept positions ``at`` that predict them."""
        import torch

        lp = torch.log_softmax(logits if self.softmax_in_model_dtype else logits.float(), dim=-1)
        greedy = logits.argmax(dim=-1)
        src = torch.tensor([k for q in at for o in q for k in o], dtype=torch.long, device=lp.device)
        tgt = torch.tensor([t for q in targets for o in q for t in o], dtype=torch.long, device=lp.device)
        picked = lp[src, tgt]
        hit = (greedy[src] == tgt).tolist()
        out: list[list[ContinuationScore]] = []
        k = 0
        for q in targets:
            row = []
            for o in q:
                n = len(o)
                row.append(ContinuationScore(float(picked[k : k + n].sum()), n, all(hit[k : k + n])))
                k += n
            out.append(row)
        return out

    def _pack(self, chunk: list[tuple[list[int], list[list[int]]]]) -> list[list[int]]:
        """Questions (indices into ``chunk``) spread over rows, each to the row with the fewest
        tokens so far (longest first), so that the rows come out about equally long. The number
        of rows is the one whose padded rows cost least: tokens fed (padding included) plus the
        attention's rows x width^2, rows no longer than about ``pack_width`` tokens on average."""
        lengths = [_segment_length(q) for q in chunk]
        order = sorted(range(len(chunk)), key=lambda i: -lengths[i])
        total = sum(lengths)
        best: tuple[float, list[list[int]]] | None = None
        for n_rows in range(min(len(chunk), max(1, -(-total // max(1, self.pack_width)))), len(chunk) + 1):
            rows: list[list[int]] = [[] for _ in range(n_rows)]
            load = [0] * n_rows
            for q in order:
                r = min(range(n_rows), key=load.__getitem__)
                rows[r].append(q)
                load[r] += lengths[q]
            width = max(load)
            cost = n_rows * width * (1 + width / ATTENTION_PER_TOKEN)
            if best is None or cost < best[0]:
                best = (cost, rows)
            if width == lengths[order[0]]:  # one question decides the width: more rows only pad
                break
        assert best is not None
        return best[1]

    def _causal_chunk(self, chunk: list[tuple[list[int], list[list[int]]]]) -> list[list[ContinuationScore]]:
        """One forward pass for the whole chunk, every token fed once.

        Each question is one segment: its context, then, for every option longer than one token,
        that option's tokens but the last. A custom attention mask gives each option the context
        and its own earlier tokens only (and separates the questions packed into one row), and the
        position ids restart after the context for every option, so each scored position sees
        exactly what it would see in ``context + continuation`` run alone. The context's last
        position predicts every option's first token; the vocabulary projection runs only at the
        positions that predict a continuation token (``logits_to_keep`` as a mask), unless
        ``head="all"``."""
        import torch

        packed = self._pack(chunk)
        width = max(sum(_segment_length(chunk[q]) for q in row) for row in packed)
        ids = torch.full((len(packed), width), self.pad_id, dtype=torch.long)
        pos = torch.zeros((len(packed), width), dtype=torch.long)
        allowed = torch.zeros((len(packed), width, width), dtype=torch.bool)
        keep = torch.zeros((len(packed), width), dtype=torch.bool)
        causal = torch.ones((width, width), dtype=torch.bool).tril()
        # per option: (row, position) of the logits that predict each of its tokens
        where: list[list[list[tuple[int, int]]]] = [[] for _ in chunk]
        for r, row in enumerate(packed):
            at = 0
            for q in row:
                ctx, conts = chunk[q]
                n, start = len(ctx), at
                ids[r, at : at + n] = torch.tensor(ctx)
                pos[r, at : at + n] = torch.arange(n)
                allowed[r, at : at + n, at : at + n] = causal[:n, :n]
                last = at + n - 1
                keep[r, last] = True
                at += n
                for c in conts:
                    m = max(0, len(c) - 1)  # fed tokens: all but the last
                    if m > 0:
                        ids[r, at : at + m] = torch.tensor(c[:-1])
                        pos[r, at : at + m] = torch.arange(n, n + m)
                        allowed[r, at : at + m, start : start + n] = True  # the context
                        allowed[r, at : at + m, at : at + m] = causal[:m, :m]
                        keep[r, at : at + m] = True
                    where[q].append([(r, last), *((r, at + k) for k in range(m))][: len(c)])
                    at += m
            for k in range(at, width):  # row tail: each pad sees itself only (no empty softmax row)
                allowed[r, k, k] = True
        bias = torch.zeros(allowed.shape, dtype=self.torch_dtype)
        bias.masked_fill_(~allowed, torch.finfo(self.torch_dtype).min)
        kw: dict[str, Any] = {
            "input_ids": ids.to(self.device),
            "position_ids": pos.to(self.device),
            "attention_mask": bias.unsqueeze(1).to(self.device),
            "use_cache": False,
        }
        if self.head == "all":
            logits = self.model(**kw).logits[keep.to(self.device)]
        else:
            logits = self.model(**kw, logits_to_keep=keep.to(self.device)).logits
        # flat index of each kept (row, position) in ``logits`` (row-major order of ``keep``)
        flat = (keep.flatten().cumsum(0) - 1).view(keep.shape).tolist()
        per_option = [[[flat[r][k] for r, k in w] for w in where[q]] for q in range(len(chunk))]
        return self._score_flat(logits, per_option, [conts for _, conts in chunk])

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


def _segment_length(req: tuple[list[int], list[list[int]]]) -> int:
    """Tokens one question feeds: its context, and every option's tokens but the last."""
    ctx, conts = req
    return len(ctx) + sum(max(0, len(c) - 1) for c in conts)


def render_plain(messages: Sequence[Message]) -> str:
    """A chat as plain text for models without a chat template."""
    parts = [m["content"] if m["role"] != "assistant" else f"Answer: {m['content']}" for m in messages]
    return "\n\n".join(parts) + "\n\nAnswer:"
