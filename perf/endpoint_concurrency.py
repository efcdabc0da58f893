"""Throughput of the OpenAI-compatible client against an endpoint with a per-request latency, at
concurrency 1, 8, 32 and 128 (issue 32 item 2).

The endpoint is the project's own server (``python -m commonsense.scoring.server``) in a process
of its own (one torch thread), serving the tiny GPT-2 the tests build (tests/commonsense/tiny_lm.py) with
``--delay`` seconds of latency per request, spent outside its model lock as a batching server
(vLLM) spends it; the model answers one request at a time, so the server has a ceiling of its
own, measured first (``--delay 0`` side, concurrency 8) and printed beside every figure. The
client is cocoweb's ``loglik`` and ``generate`` scorers (``commonsense.scoring.build_scorer``,
what a run calls chunk by chunk) over the demo CommonsenseQA questions (fixtures/csqa_demo.jsonl).
Each level scores enough items to keep its requests busy for a few latencies; every level's
choices are compared with concurrency 1's (order kept: 0 differing).

    .venv/bin/python perf/endpoint_concurrency.py [--delay 0.2] [--levels 1,8,32,128]

Latency-bound: the figures mean something on a loaded machine as long as the client's and the
server's CPU per request stays far below the latency (the load is printed with them).
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


def load() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def start_server(model: Path, delay: float) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "commonsense.scoring.server",
            "--model",
            str(model),
            "--dtype",
            "float32",
            "--port",
            "0",
            "--delay",
            str(delay),
            "--threads",
            "1",  # a tiny model gains nothing from a second thread, and pays its barrier on a busy machine
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()
    m = re.search(r"(http://\S+/v1)", line)
    if not m:
        proc.kill()
        raise RuntimeError(f"the server did not start: {line!r}")
    return proc, m.group(1)


def items(n: int) -> list[Any]:
    from commonsense.io.questions import read_csqa_jsonl
    from commonsense.scoring.types import Item

    recs = list(read_csqa_jsonl(ROOT / "fixtures" / "csqa_demo.jsonl"))
    out = []
    for i in range(n):  # cycle the demo questions, each copy its own item
        r = recs[i % len(recs)]
        out.append(Item(id=str(i), question=r.stem, options=tuple(r.options), gold=r.answer_index))
    return out


def measure(url: str, scoring: str, concurrency: int, n_items: int) -> tuple[float, float, list[int | None], int]:
    """(requests/s, items/s, choices, retries) of one scorer call over ``n_items`` items."""
    from commonsense.scoring import build_scorer

    scorer: Any = build_scorer(
        "openai",
        scoring,
        url=url,
        model="tiny",
        backend_options={"concurrency": concurrency, "timeout": 300.0},
        scoring_options={"max_new_tokens": 2} if scoring == "generate" else None,
    )
    scorer.score_batch(items(2))  # warm up: connections, the server's first model call
    scorer.backend.retries_done = 0
    its = items(n_items)
    per_item = sum(len(it.options) for it in its) / len(its) if scoring == "loglik" else 1
    t0 = time.perf_counter()
    res = scorer.score_batch(its)
    dt = time.perf_counter() - t0
    scorer.backend.close()
    return n_items * per_item / dt, n_items / dt, [r.chosen for r in res], scorer.backend.retries_done


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--delay", type=float, default=0.2, help="seconds of latency per request")
    ap.add_argument("--levels", default="1,8,32,128")
    ap.add_argument("--latencies", type=float, default=6.0, help="each level runs about this many latencies")
    a = ap.parse_args()
    levels = [int(x) for x in a.levels.split(",")]
    from tests.commonsense.tiny_lm import build_tiny_gpt2

    model = build_tiny_gpt2(Path(tempfile.mkdtemp(prefix="tiny-gpt2-")) / "tiny")
    print(f"load at start: {load()}  (cores: {os.cpu_count()})")

    # the server's own ceiling: no latency, 32 requests at once, the model answering one at a time
    proc, url = start_server(model, 0.0)
    try:
        ceiling = {s: measure(url, s, 32, 200 if s == "loglik" else 1000)[0] for s in ("loglik", "generate")}
    finally:
        proc.kill()
    print(
        f"server ceiling (no latency, 32 at once: the model's own pace): loglik {ceiling['loglik']:.0f} req/s, "
        f"generate {ceiling['generate']:.0f} req/s"
    )

    proc, url = start_server(model, a.delay)
    rows = []
    try:
        for scoring in ("loglik", "generate"):
            seen: dict[int, int | None] = {}  # demo question -> the choice first measured for it
            base_rate = None
            for c in levels:
                per_item = 5 if scoring == "loglik" else 1
                n = max(4, round(c * a.latencies / per_item))
                req_s, items_s, choices, retries = measure(url, scoring, c, n)
                differing = 0
                for i, ch in enumerate(choices):  # item i asks demo question i % 300 at every level
                    q = i % 300
                    if q in seen:
                        differing += ch != seen[q]
                    else:
                        seen[q] = ch
                base_rate = base_rate or req_s
                ideal = min(c / a.delay, ceiling[scoring])
                rows.append((scoring, c, n, req_s, items_s, req_s / base_rate, req_s / ideal, differing, retries))
                print(
                    f"  {scoring:8s} c={c:4d}: {n:5d} items  {req_s:8.1f} req/s  {items_s:8.1f} items/s  "
                    f"x{req_s / base_rate:6.1f} vs c=1  {100 * req_s / ideal:5.1f}% of ideal "
                    f"min(c/latency, ceiling)={ideal:.0f}  differing {differing}  retries {retries}  load {load()}",
                    flush=True,
                )
    finally:
        proc.kill()
    print(f"\nlatency {a.delay * 1000:.0f} ms per request; load at end: {load()}")
    print("| scoring | concurrency | items | requests/s | items/s | × c=1 | % of ideal | differing |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for scoring, c, n, req_s, items_s, gain, frac, diff, _ in rows:
        print(f"| {scoring} | {c} | {n} | {req_s:.1f} | {items_s:.1f} | {gain:.1f} | {100 * frac:.0f} % | {diff} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
