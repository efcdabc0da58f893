"""OpenAI-compatible HTTP backend (vLLM, Ollama, llama.cpp server, OpenAI …).

- ``generate``: text prompts go to ``/v1/completions``, chat prompts to ``/v1/chat/completions``,
  temperature 0 unless a temperature (and seed) is asked for.
- ``word_probs``: the first answer token's ``top_logprobs`` when the server offers them
  (``logprobs: true, top_logprobs: k`` on chat, ``logprobs: k`` on completions); otherwise, or when
  ``samples`` is set, NWW's fallback: the share of ``samples`` answers (temperature 1) that start
  with each word.
- ``loglikelihood``: ``/v1/completions`` with ``echo``, ``logprobs`` and ``max_tokens: 0`` (as
  lm-eval's ``local-completions``), summing the prompt tokens that start at or after the context.

Concurrency: every method sends its requests at once over one thread pool, at most
``concurrency`` in flight (default :data:`DEFAULT_CONCURRENCY`, what a vLLM server batches), one
kept-alive connection each. Each request retries on its own with exponential backoff (and
``Retry-After``) on 429, 5xx, timeouts and connection errors, and results come back in the order of
the prompts whatever the order of the responses; a request that fails for good cancels the ones
not yet sent. The API key is read from the environment variable named by ``api_key_env`` and never
logged or shown in ``describe()``/``repr``.
"""

from __future__ import annotations

import logging
import math
import os
import random
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, TypeVar

from .extract import first_yes_no, sum_word_probs
from .types import ContinuationScore, Generation, LoglikRequest, Prompt, Unsupported

log = logging.getLogger(__name__)
T = TypeVar("T")
RETRY_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504})
# vLLM's scheduler runs up to ``--max-num-seqs`` sequences per step, 256 by default: that many
# requests in flight keep its batches full. A server that batches less (llama.cpp's ``--parallel``
# slots, Ollama's OLLAMA_NUM_PARALLEL) queues the rest; give its endpoint a lower ``concurrency``.
DEFAULT_CONCURRENCY = 256


class ApiError(RuntimeError):
    def __init__(self, status: int | None, message: str) -> None:
        super().__init__(f"HTTP {status}: {message}" if status else message)
        self.status = status


class OpenAIBackend:
    name = "openai"

    def __init__(
        self,
        url: str,
        model: str,
        *,
        api_key_env: str = "OPENAI_API_KEY",
        timeout: float = 60.0,
        max_retries: int = 5,
        backoff: float = 0.5,
        max_backoff: float = 30.0,
        concurrency: int = DEFAULT_CONCURRENCY,
        top_logprobs: int = 20,
        samples: int | None = None,
        seed: int = 0,
    ) -> None:
        import httpx

        base = url.rstrip("/")
        self.base_url = base if base.endswith("/v1") else base + "/v1"
        self.model = model
        self.api_key_env = api_key_env
        self.timeout = timeout
        self.max_retries = max_retries
        self.backoff = backoff
        self.max_backoff = max_backoff
        self.concurrency = max(1, concurrency)
        self.top_logprobs = top_logprobs
        self.samples = samples
        self.seed = seed
        self.retries_done = 0
        headers = {"Content-Type": "application/json"}
        key = os.environ.get(api_key_env, "")
        if key:
            headers["Authorization"] = f"Bearer {key}"
        self._client = httpx.Client(
            base_url=self.base_url,
            headers=headers,
            timeout=timeout,
            limits=httpx.Limits(max_connections=self.concurrency, max_keepalive_connections=self.concurrency),
        )
        self._pool: ThreadPoolExecutor | None = None
        self._pool_lock = threading.Lock()
        self._logprobs_ok: bool | None = None
        self.capabilities = frozenset({"loglik", "generate", "word_probs"})

    def __repr__(self) -> str:  # never shows the key
        return f"OpenAIBackend(url={self.base_url!r}, model={self.model!r}, key_env={self.api_key_env!r})"

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None
        self._client.close()

    # ---------------------------------------------------------------- HTTP with retries
    def post(self, path: str, payload: dict[str, Any]) -> dict[str, Any]:
        import httpx

        attempt = 0
        while True:
            try:
                r = self._client.post(path, json={"model": self.model, **payload})
                if r.status_code < 400:
                    data: dict[str, Any] = r.json()
                    return data
                # The status only: a response body is the server's to show, not ours (it may be a
                # page of some other service, and run errors are shown to every researcher).
                err = ApiError(r.status_code, r.reason_phrase or "error")
                retry_after = r.headers.get("retry-after")
                if r.status_code not in RETRY_STATUS:
                    raise err
            except (httpx.TimeoutException, httpx.TransportError) as exc:
                err, retry_after = ApiError(None, f"{type(exc).__name__} talking to the model server"), None
            if attempt >= self.max_retries:
                raise err
            delay = min(self.max_backoff, self.backoff * 2**attempt) * (0.5 + random.random() / 2)
            if retry_after:
                try:
                    delay = max(delay, min(self.max_backoff, float(retry_after)))
                except ValueError:
                    pass
            log.warning(
                "%s %s failed (%s); retry %d/%d in %.2fs",
                self.base_url,
                path,
                err,
                attempt + 1,
                self.max_retries,
                delay,
            )
            self.retries_done += 1
            time.sleep(delay)
            attempt += 1

    def _executor(self) -> ThreadPoolExecutor:
        """One pool for the backend's life (threads start as requests need them, up to
        ``concurrency``), not one per call: a run calls once per chunk."""
        with self._pool_lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(max_workers=self.concurrency, thread_name_prefix="openai")
            return self._pool

    def _map(self, fn: Callable[[Any], T], args: Sequence[Any]) -> list[T]:
        """``fn`` over ``args`` with up to ``concurrency`` calls at once; results in the order of
        ``args``. The first call that fails for good (after its retries) cancels the calls not yet
        started and is raised."""
        if self.concurrency == 1 or len(args) <= 1:
            return [fn(a) for a in args]
        pool = self._executor()
        futures: list[Future[T]] = [pool.submit(fn, a) for a in args]
        try:
            return [f.result() for f in futures]
        except BaseException:
            for f in futures:
                f.cancel()
            raise

    # ---------------------------------------------------------------- generation
    def _complete(self, prompt: Prompt, extra: dict[str, Any]) -> dict[str, Any]:
        if isinstance(prompt, str):
            return self.post("/completions", {"prompt": prompt, **extra})
        return self.post("/chat/completions", {"messages": list(prompt), **extra})

    @staticmethod
    def _text(choice: dict[str, Any]) -> str:
        if "message" in choice:
            return str(choice["message"].get("content") or "")
        return str(choice.get("text") or "")

    def generate(
        self, prompts: Sequence[Prompt], *, max_new_tokens: int = 32, temperature: float = 0.0, seed: int | None = None
    ) -> list[Generation]:
        """``temperature`` and ``seed`` (prompt i: ``seed + i``; default the backend's seed) go to the
        server, which may or may not honour the seed."""
        base = self.seed if seed is None else seed
        jobs = [(p, base + i) for i, p in enumerate(prompts)]

        def one(job: tuple[Prompt, int]) -> Generation:
            p, s = job
            t0 = time.perf_counter()
            data = self._complete(p, {"max_tokens": max_new_tokens, "temperature": temperature, "seed": s})
            usage = data.get("usage") or {}
            return Generation(
                self._text(data["choices"][0]),
                int(usage.get("prompt_tokens", 0)),
                int(usage.get("completion_tokens", 0)),
                time.perf_counter() - t0,
            )

        return self._map(one, jobs)

    # ---------------------------------------------------------------- yes/no probabilities
    def _top_logprobs(self, prompt: Prompt) -> dict[str, float] | None:
        if isinstance(prompt, str):
            data = self.post(
                "/completions", {"prompt": prompt, "max_tokens": 1, "temperature": 0, "logprobs": self.top_logprobs}
            )
            lp = data["choices"][0].get("logprobs") or {}
            tops = lp.get("top_logprobs") or []
            return {t: math.exp(v) for t, v in tops[0].items()} if tops and tops[0] else None
        data = self.post(
            "/chat/completions",
            {
                "messages": list(prompt),
                "max_tokens": 1,
                "temperature": 0,
                "logprobs": True,
                "top_logprobs": self.top_logprobs,
            },
        )
        content = (data["choices"][0].get("logprobs") or {}).get("content") or []
        if not content or not content[0].get("top_logprobs"):
            return None
        probs: dict[str, float] = {}
        for t in content[0]["top_logprobs"]:
            probs[t["token"]] = probs.get(t["token"], 0.0) + math.exp(t["logprob"])
        return probs

    def _sampled(self, prompt: Prompt, words: Sequence[str], n: int) -> dict[str, float]:
        counts = dict.fromkeys(words, 0)
        for k in range(n):
            data = self._complete(prompt, {"max_tokens": 8, "temperature": 1.0, "seed": self.seed + k})
            w = first_yes_no(self._text(data["choices"][0]))
            if w in counts:
                counts[w] += 1
        out = {w: c / n for w, c in counts.items()}
        out["other"] = 1.0 - sum(out.values())
        return out

    def word_probs(self, prompts: Sequence[Prompt], words: Sequence[str]) -> list[dict[str, float]]:
        def one(p: Prompt) -> dict[str, float]:
            if not self.samples and self._logprobs_ok is not False:
                try:
                    top = self._top_logprobs(p)
                except ApiError as exc:
                    if exc.status != 400:
                        raise
                    top = None
                if top is not None:
                    self._logprobs_ok = True
                    return sum_word_probs(top, words)
                self._logprobs_ok = False
            return self._sampled(p, words, self.samples or 23)

        return self._map(one, prompts)

    # ---------------------------------------------------------------- loglikelihood (echo)
    def loglikelihood(self, requests: Sequence[LoglikRequest]) -> list[list[ContinuationScore]]:
        pairs = [(r.context, c) for r in requests for c in r.continuations]

        def one(pair: tuple[str, str]) -> ContinuationScore:
            ctx, cont = pair
            data = self.post(
                "/completions", {"prompt": ctx + cont, "max_tokens": 0, "echo": True, "logprobs": 1, "temperature": 0}
            )
            lp = data["choices"][0].get("logprobs")
            if not lp or "text_offset" not in lp:
                raise Unsupported(f"{self.base_url} returns no prompt logprobs (echo); use generate or yesno scoring")
            total, n = 0.0, 0
            for off, v in zip(lp["text_offset"], lp["token_logprobs"], strict=True):
                if off >= len(ctx) and v is not None:
                    total += float(v)
                    n += 1
            return ContinuationScore(total, n)

        flat = self._map(one, pairs)
        out, k = [], 0
        for r in requests:
            out.append(flat[k : k + len(r.continuations)])
            k += len(r.continuations)
        return out

    def describe(self) -> dict[str, Any]:
        return {
            "backend": self.name,
            "url": self.base_url,
            "model": self.model,
            "api_key_env": self.api_key_env,
            "timeout": self.timeout,
            "max_retries": self.max_retries,
            "concurrency": self.concurrency,
            "samples": self.samples,
        }
