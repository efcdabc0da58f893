"""Run an exported lm-eval task (``export_questions --format lm-eval``) in the real ``lm_eval`` CLI
on a local model, offline, and return its logged samples."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any


def lm_eval_samples(task_dir: Path, task: str, model: Path, tmp_path: Path) -> list[dict[str, Any]]:
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("DJANGO", "DATABASE"))},
        "HF_HUB_OFFLINE": "1",
        "HF_DATASETS_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
        "HOME": str(tmp_path),
    }
    out = tmp_path / "out"
    res = subprocess.run(
        [
            str(Path(sys.executable).with_name("lm_eval")),
            "--model",
            "hf",
            "--model_args",
            f"pretrained={model},dtype=float32",
            "--device",
            "cpu",
            "--include_path",
            str(task_dir),
            "--tasks",
            task,
            "--batch_size",
            "4",
            "--output_path",
            str(out),
            "--log_samples",
        ],
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
        cwd=tmp_path,
    )
    assert res.returncode == 0, res.stderr[-4000:]
    return [json.loads(x) for f in out.rglob(f"samples_{task}_*.jsonl") for x in f.read_text().splitlines()]
