"""Per-item results of a run as JSON lines or CSV (streamed), metrics as JSON."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from typing import Any

from commonsense.io import csv_safe
from runs.models import Prediction, Run
from runs.selectors.runs import run_predictions

CSV_FIELDS = (
    "position",
    "item_id",
    "text",
    "options",
    "answer",
    "chosen",
    "chosen_text",
    "chosen_norm",
    "correct",
    "scores",
    "norm_scores",
    "extra",
    "raw_output",
    "latency_s",
    "prompt_tokens",
    "completion_tokens",
    "error",
)


def prediction_record(run: Run, p: Prediction) -> dict[str, Any]:
    if run.is_statement_run:
        s = p.statement
        assert s is not None
        item_id, text, options, answer = s.external_id, s.text, ["no", "yes"], s.human_majority
    else:
        q = p.question
        assert q is not None
        item_id, text, options, answer = q.external_id, q.stem, list(q.options), q.answer_index
    chosen_text = options[p.chosen] if p.chosen is not None and 0 <= p.chosen < len(options) else None
    return {
        "position": p.position,
        "item_id": item_id,
        "text": text,
        "options": options,
        "answer": answer,
        "chosen": p.chosen,
        "chosen_text": chosen_text,
        "chosen_norm": p.chosen_norm,
        "correct": p.correct,
        "scores": p.scores,
        "norm_scores": p.norm_scores,
        "extra": p.extra,
        "raw_output": p.raw_output,
        "latency_s": p.latency_s,
        "prompt_tokens": p.prompt_tokens,
        "completion_tokens": p.completion_tokens,
        "error": p.error,
    }


def _records(run: Run) -> Iterator[dict[str, Any]]:
    for p in run_predictions(run).iterator(chunk_size=1000):
        yield prediction_record(run, p)


def predictions_jsonl(run: Run) -> Iterator[str]:
    for rec in _records(run):
        yield json.dumps(rec, ensure_ascii=False) + "\n"


def predictions_csv(run: Run) -> Iterator[str]:
    buf = io.StringIO()
    w = csv_safe.dict_writer(buf, fieldnames=CSV_FIELDS)
    w.writeheader()
    for rec in _records(run):
        for k in ("options", "scores", "norm_scores", "extra"):
            rec[k] = json.dumps(rec[k], ensure_ascii=False)
        w.writerow(rec)
        if buf.tell() > 65536:
            yield buf.getvalue()
            buf.seek(0)
            buf.truncate()
    yield buf.getvalue()
