"""ReComSBench curriculum, CPU demo (issue 28 item 2): LoRA fine-tuning of SmolLM2-135M (the packaged
GGUF, converted once as the hf backend does) on a CommonsenseQA dev slice in Score-CL order (the base
model's answer NLL, easiest first; Reason-CL needs a ReComSBench run's d(Q), which SmolLM2 cannot
produce meaningfully), with the same core code the worker job runs. Prints the wall time of each
phase, the peak resident memory, and the held-out answer NLL before and after.

    .venv/bin/python -m perf.curriculum_demo [--train 200] [--held-out 100] [--batch 8]
"""

from __future__ import annotations

import argparse
import json
import resource
import tempfile
import time

from commonsense.scoring.convert import ensure_model_dir
from commonsense.scoring.locate import smollm2_gguf
from commonsense.training import curriculum as C
from commonsense.training.lora import LoraSettings, answer_nll, train
from tests.conftest import ROOT, shared_file


def _csqa(n: int) -> list[C.TrainItem]:
    out = []
    for raw in shared_file("commonsenseqa_dev/dev_rand_split.jsonl").read_text().splitlines()[:n]:
        o = json.loads(raw)
        opts = o["choices"]["text"]
        gold = opts[o["choices"]["label"].index(o["answerKey"])]
        out.append(C.TrainItem(o["id"], C.training_prompt("", o["question"], opts), gold))
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--train", type=int, default=200)
    ap.add_argument("--held-out", type=int, default=100)
    ap.add_argument("--batch", type=int, default=8)
    a = ap.parse_args()
    t0 = time.perf_counter()
    base = ensure_model_dir(smollm2_gguf(), ROOT / "var" / "cache" / "models")
    t_conv = time.perf_counter() - t0
    items = _csqa(a.train + a.held_out)
    train_items, held = items[: a.train], items[a.train :]
    t1 = time.perf_counter()
    nll = answer_nll(base, [(it.prompt, it.answer) for it in train_items])
    scored = [C.TrainItem(it.id, it.prompt, it.answer, loss=x) for it, x in zip(train_items, nll, strict=True)]
    seq, info = C.order(scored, "score-cl", seed=0, n_levels=4)
    t_order = time.perf_counter() - t1
    held_pairs = [(it.prompt, it.answer) for it in held]
    before = answer_nll(base, held_pairs)
    with tempfile.TemporaryDirectory() as tmp:
        t2 = time.perf_counter()
        res = train(
            base, [(it.prompt, it.answer) for it in seq], tmp, LoraSettings(batch_size=a.batch, checkpoint_every=5)
        )
        t_train = time.perf_counter() - t2
        after = answer_nll(res.model_dir, held_pairs)
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"base {base.name}: conversion/cache {t_conv:.1f} s; Score-CL levels {info['levels']}")
    print(
        f"order (base NLL of {a.train} answers) {t_order:.1f} s; training {res.steps} steps of {a.batch}: {t_train:.1f} s"
    )
    print(
        f"held-out answer NLL ({a.held_out} questions): {sum(before) / len(before):.3f} -> {sum(after) / len(after):.3f}"
    )
    print(f"peak resident memory {peak_mb:.0f} MB; wall {time.perf_counter() - t0:.1f} s")


if __name__ == "__main__":
    main()
