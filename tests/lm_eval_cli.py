"""Run an exported lm-eval task (``export_questions --format lm-eval``) in the real ``lm_eval`` CLI
on a local model, offline, and return its logged samples; read a task's YAML as lm-eval does
(``!function`` tags kept as their text)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import yaml


def task_yaml(path: Path) -> dict[str, Any]:
    """The task's YAML with each ``!function module.name`` read as the string ``!function module.name``."""

    class Loader(yaml.SafeLoader):
        pass

    Loader.add_constructor("!function", lambda loader, node: f"!function {loader.construct_scalar(node)}")
    return dict(yaml.load(path.read_text(encoding="utf-8"), Loader=Loader))  # noqa: S506 - a SafeLoader


def lm_eval_samples(
    task_dir: Path, task: str, model: Path, tmp_path: Path, *, cwd: Path | None = None
) -> list[dict[str, Any]]:
    """``cwd``: the folder lm_eval runs in (default ``tmp_path``)."""
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
        cwd=cwd or tmp_path,
    )
    assert res.returncode == 0, res.stderr[-4000:]
    return [json.loads(x) for f in out.rglob(f"samples_{task}_*.jsonl") for x in f.read_text().splitlines()]
