"""A minimal OpenAI-compatible server around any backend (for demos and for testing the
``openai`` client against a real local target).

    python -m commonsense.scoring.server --model var/cache/models/SmolLM2-135M-Instruct.Q4_1 --port 8011

Endpoints: ``GET /v1/models``, ``POST /v1/completions`` (``echo`` + ``logprobs`` with
``max_tokens: 0`` for prompt log-probabilities, ``logprobs: k`` for the first token's top-k),
``POST /v1/chat/completions`` (``logprobs: true, top_logprobs: k``). Top-k and echo need a backend
with ``top_next_tokens`` / ``prompt_logprobs`` (the ``hf`` backend has both). For tests and
benchmarks it can fail the first requests (``fail_first`` with ``fail_status``) or a share of all
of them at random (``fail_rate``, statuses drawn from ``fail_statuses``, seeded), answer after a
per-request latency (``delay``, plus up to ``jitter`` more, drawn per request, so responses finish
out of order) and require a bearer key. The latency is spent outside the model's lock, as a server
that batches concurrent requests would spend it; the model itself answers one request at a time.
HTTP/1.1 with kept-alive connections, a listen backlog for hundreds of clients.
"""

from __future__ import annotations

import argparse
import json
import random
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from .types import Backend, Prompt


class ServerState:
    def __init__(
        self,
        backend: Backend,
        model_name: str,
        *,
        fail_first: int = 0,
        fail_status: int = 500,
        delay: float = 0.0,
        api_key: str | None = None,
        logprobs: bool = True,
        fail_rate: float = 0.0,
        fail_statuses: tuple[int, ...] = (429, 500),
        jitter: float = 0.0,
        seed: int = 0,
    ) -> None:
        self.backend = backend
        self.model_name = model_name
        self.fail_left = fail_first
        self.fail_status = fail_status
        self.delay = delay
        self.api_key = api_key
        self.logprobs = logprobs
        self.fail_rate = fail_rate
        self.fail_statuses = fail_statuses
        self.jitter = jitter
        self.rng = random.Random(seed)
        self.failed = 0  # requests answered with an injected failure
        self.in_flight = 0
        self.max_in_flight = 0  # the most requests the server held at once
        self.requests = 0
        self.lock = threading.Lock()  # one model call at a time (torch is not re-entrant-safe here)

    def draw(self) -> tuple[int | None, float]:
        """For one request: the injected failure status (or None) and its latency."""
        with self.lock:
            self.requests += 1
            status: int | None = None
            if self.fail_left > 0:
                self.fail_left -= 1
                status = self.fail_status
            elif self.fail_rate and self.rng.random() < self.fail_rate:
                status = self.rng.choice(self.fail_statuses)
            if status is not None:
                self.failed += 1
            return status, self.delay + (self.rng.random() * self.jitter if self.jitter else 0.0)

    def answer(self, path: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        if path.endswith("/chat/completions"):
            return 200, self._chat(body)
        if path.endswith("/completions"):
            return 200, self._completions(body)
        return 404, {"error": {"message": f"no route {path}"}}

    def _gen(self, prompt: Prompt, max_tokens: int, body: dict[str, Any] | None = None) -> tuple[str, int, int]:
        body = body or {}
        seed = body.get("seed")
        g = self.backend.generate(
            [prompt],
            max_new_tokens=max(1, max_tokens),
            temperature=float(body.get("temperature") or 0.0),
            seed=None if seed is None else int(seed),
        )[0]
        return g.text, g.prompt_tokens, g.completion_tokens

    def _top(self, prompt: Prompt, k: int) -> list[tuple[str, float]] | None:
        fn = getattr(self.backend, "top_next_tokens", None)
        return fn(prompt, k) if (self.logprobs and callable(fn)) else None

    def _chat(self, body: dict[str, Any]) -> dict[str, Any]:
        msgs = body["messages"]
        text, pt, ct = self._gen(msgs, int(body.get("max_tokens") or 16), body)
        choice: dict[str, Any] = {
            "index": 0,
            "message": {"role": "assistant", "content": text},
            "finish_reason": "stop",
        }
        if body.get("logprobs"):
            top = self._top(msgs, int(body.get("top_logprobs") or 1))
            if top is not None:
                choice["logprobs"] = {
                    "content": [
                        {
                            "token": top[0][0],
                            "logprob": top[0][1],
                            "top_logprobs": [{"token": t, "logprob": v} for t, v in top],
                        }
                    ]
                }
        return {
            "id": f"chatcmpl-{self.requests}",
            "object": "chat.completion",
            "model": self.model_name,
            "choices": [choice],
            "usage": {"prompt_tokens": pt, "completion_tokens": ct},
        }

    def _completions(self, body: dict[str, Any]) -> dict[str, Any]:
        prompt = body["prompt"]
        max_tokens = int(body.get("max_tokens", 16))
        k = body.get("logprobs")
        choice: dict[str, Any] = {"index": 0, "text": "", "finish_reason": "length", "logprobs": None}
        usage = {"prompt_tokens": 0, "completion_tokens": 0}
        if body.get("echo") and k is not None:
            fn = getattr(self.backend, "prompt_logprobs", None)
            if self.logprobs and callable(fn):
                toks, vals, offs = fn(prompt)
                choice["text"] = prompt
                choice["logprobs"] = {"tokens": toks, "token_logprobs": vals, "text_offset": offs, "top_logprobs": None}
                usage["prompt_tokens"] = len(toks)
        if max_tokens > 0:
            text, pt, ct = self._gen(prompt, max_tokens, body)
            choice["text"] += text
            usage = {"prompt_tokens": pt, "completion_tokens": ct}
            if k and not body.get("echo"):
                top = self._top(prompt, int(k))
                if top is not None:
                    choice["logprobs"] = {
                        "tokens": [top[0][0]],
                        "token_logprobs": [top[0][1]],
                        "text_offset": [0],
                        "top_logprobs": [dict(top)],
                    }
        return {
            "id": f"cmpl-{self.requests}",
            "object": "text_completion",
            "model": self.model_name,
            "choices": [choice],
            "usage": usage,
        }


def make_handler(state: ServerState) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # kept-alive connections, as the client and real servers use
        # headers and body go out in two writes: TCP_NODELAY, so the body never waits for an ACK
        disable_nagle_algorithm = True

        def log_message(self, format: str, *args: Any) -> None:  # quiet
            return

        def _send(self, status: int, obj: dict[str, Any]) -> None:
            data = json.dumps(obj).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            if status == 429:
                self.send_header("Retry-After", "0")
            self.end_headers()
            try:
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):  # the client gave up (timeout)
                pass

        def do_GET(self) -> None:
            if self.path.rstrip("/").endswith("/models"):
                self._send(200, {"object": "list", "data": [{"id": state.model_name, "object": "model"}]})
            else:
                self._send(404, {"error": {"message": "not found"}})

        def do_POST(self) -> None:
            with state.lock:
                state.in_flight += 1
                state.max_in_flight = max(state.max_in_flight, state.in_flight)
            try:
                self._post()
            finally:
                with state.lock:
                    state.in_flight -= 1

        def _post(self) -> None:
            fail, latency = state.draw()
            length = int(self.headers.get("Content-Length") or 0)
            body = json.loads(self.rfile.read(length) or b"{}")
            if state.api_key is not None and self.headers.get("Authorization") != f"Bearer {state.api_key}":
                self._send(401, {"error": {"message": "bad or missing API key"}})
                return
            if latency:
                time.sleep(latency)
            if fail is not None:
                self._send(fail, {"error": {"message": "injected failure"}})
                return
            try:
                with state.lock:
                    status, obj = state.answer(self.path, body)
            except (KeyError, ValueError, TypeError) as exc:
                status, obj = 400, {"error": {"message": f"{type(exc).__name__}: {exc}"}}
            self._send(status, obj)

    return Handler


class _Server(ThreadingHTTPServer):
    request_queue_size = 1024  # the listen backlog: hundreds of clients connect at once
    daemon_threads = True


def serve(state: ServerState, host: str = "127.0.0.1", port: int = 0) -> tuple[ThreadingHTTPServer, threading.Thread]:
    """Start serving in a daemon thread; ``port=0`` picks a free port (``server.server_address``)."""
    httpd = _Server((host, port), make_handler(state))
    t = threading.Thread(target=httpd.serve_forever, daemon=True)
    t.start()
    return httpd, t


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m commonsense.scoring.server", description=__doc__.split("\n")[0])
    ap.add_argument("--model", required=True, help="transformers folder or .gguf file")
    ap.add_argument("--cache-dir", default="var/cache/models")
    ap.add_argument("--dtype", default="bfloat16")
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=8011)
    ap.add_argument("--threads", type=int, default=None, help="torch threads (default: torch's)")
    ap.add_argument("--delay", type=float, default=0.0, help="seconds of latency per request (outside the model)")
    ap.add_argument("--jitter", type=float, default=0.0, help="up to this many seconds more, drawn per request")
    ap.add_argument("--fail-rate", type=float, default=0.0, help="share of requests answered 429 or 500")
    a = ap.parse_args(argv)
    from .hf import HFBackend

    backend = HFBackend(a.model, cache_dir=a.cache_dir, dtype=a.dtype, threads=a.threads)
    state = ServerState(backend, str(a.model), delay=a.delay, jitter=a.jitter, fail_rate=a.fail_rate)
    httpd, t = serve(state, a.host, a.port)
    print(f"serving {a.model} on http://{a.host}:{httpd.server_address[1]}/v1", flush=True)
    try:
        t.join()
    except KeyboardInterrupt:
        httpd.shutdown()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
