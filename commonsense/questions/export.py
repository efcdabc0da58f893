"""Writers for built questions: JSONL, CSV and an lm-evaluation-harness task (YAML + JSONL + its
loader) that ``lm_eval --include_path DIR --tasks NAME`` runs unmodified, from any folder."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from pathlib import Path

from ..io import csv_safe
from .record import BuiltQuestion

LETTERS = "ABCDEFGHIJ"


def jsonl_line(q: BuiltQuestion, set_name: str) -> str:
    return json.dumps(q.to_dict(set_name), ensure_ascii=False, separators=(", ", ": "))


def write_jsonl(questions: Iterable[BuiltQuestion], path: str | Path, set_name: str) -> int:
    n = 0
    with open(path, "w", encoding="utf-8", newline="\n") as fh:
        for q in questions:
            fh.write(jsonl_line(q, set_name) + "\n")
            n += 1
    return n


CSV_COLUMNS = [
    "id",
    "set",
    "kind",
    "context",
    "question",
    *(f"option_{c}" for c in "abcde"),
    "answer_index",
    "answer",
    "answers",
    "anchors",
    "relations",
    "chain",
    "group",
    "role",
    "seed",
    "option_provenance",
]


def write_csv(questions: Iterable[BuiltQuestion], path: str | Path, set_name: str) -> int:
    n = 0
    with open(path, "w", encoding="utf-8", newline="") as fh:
        w = csv_safe.writer(fh, lineterminator="\n")
        w.writerow(CSV_COLUMNS)
        for q in questions:
            opts = (list(q.options) + [""] * 5)[:5]
            w.writerow(
                [
                    q.id,
                    set_name,
                    q.kind,
                    q.context,
                    q.question,
                    *opts,
                    q.answer_index,
                    q.answer,
                    json.dumps(q.answers, ensure_ascii=False),
                    json.dumps(q.anchors, ensure_ascii=False),
                    json.dumps(q.relations),
                    json.dumps(q.chain, ensure_ascii=False),
                    q.group,
                    q.role,
                    q.seed,
                    json.dumps(q.metadata.get("option_provenance") or []),
                ]
            )
            n += 1
    return n


def task_name(set_name: str) -> str:
    return "cocoweb_" + re.sub(r"[^0-9a-zA-Z]+", "_", set_name).strip("_").lower()


DOC_TO_TEXT = "{% if context %}Context: {{context}}\n{% endif %}Question: {{question}}\nAnswer:"


# The task's data loader, shipped beside the YAML: lm-eval resolves ``!function`` relative to the
# YAML's folder, while ``datasets`` resolves ``data_files`` against the working directory, so a
# relative data path would only work from the task's own folder and an absolute one only on the
# machine that wrote it. This loader finds the JSONL next to itself: the folder (or the zip of it)
# runs unchanged wherever it is unpacked, from any working directory.
LOADER = '''"""Loads {data} for the lm-eval task {task} (written by cocoweb): the JSONL beside this file."""

from pathlib import Path

import datasets


def load(**_kwargs):
    return datasets.load_dataset("json", data_files={{"test": str(Path(__file__).with_name("{data}"))}})
'''


def write_lm_eval(questions: Iterable[BuiltQuestion], out_dir: str | Path, set_name: str) -> Path:
    """Write ``<task>.jsonl``, ``<task>.yaml`` and its loader ``<task>_data.py`` into ``out_dir``
    and return the YAML path. The task is a loglikelihood multiple-choice task over the option
    texts (metric: acc, acc_norm); the folder names no path outside itself."""
    out = Path(out_dir).resolve()
    out.mkdir(parents=True, exist_ok=True)
    name = task_name(set_name)
    data = out / f"{name}.jsonl"
    with open(data, "w", encoding="utf-8", newline="\n") as fh:
        for q in questions:
            fh.write(
                json.dumps(
                    {
                        "id": q.id,
                        "kind": q.kind,
                        "group": q.group,
                        "role": q.role,
                        "context": q.context,
                        "question": q.question,
                        "options": list(q.options),
                        "label": q.answer_index,
                    },
                    ensure_ascii=False,
                )
                + "\n"
            )
    (out / f"{name}_data.py").write_text(LOADER.format(data=data.name, task=name), encoding="utf-8")
    yaml_lines = [
        f"task: {name}",
        f"custom_dataset: !function {name}_data.load",
        "test_split: test",
        "output_type: multiple_choice",
        f"doc_to_text: {json.dumps(DOC_TO_TEXT)}",
        "doc_to_choice: options",
        "doc_to_target: label",
        "metric_list:",
        "  - metric: acc",
        "    aggregation: mean",
        "    higher_is_better: true",
        "  - metric: acc_norm",
        "    aggregation: mean",
        "    higher_is_better: true",
        "metadata:",
        "  version: 1.0",
        "",
    ]
    path = out / f"{name}.yaml"
    path.write_text("\n".join(yaml_lines), encoding="utf-8")
    return path
