"""Replay predictions made elsewhere, as a scorer: the 35 models' binarised answers in the NWW
statements CSV, NWW's raw JSONL responses, lm-evaluation-harness ``samples_*.jsonl`` files and
COMET-BART generations. Items are matched by id (then by text where that makes sense); an item
the source lacks gets ``chosen=None`` and an ``error``."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from .extract import first_yes_no
from .loglik import argmax_first
from .types import Item, ItemResult
from .yesno import result_from_records, yes_no_record

MISSING = "missing from the replay source"


def _jsonl(path: Path) -> Iterator[dict[str, Any]]:
    """Objects of a JSONL file, read with bounded line length and strict UTF-8 (``iter_lines``)."""
    from commonsense.io.jsonline import json_line
    from commonsense.io.text import iter_lines

    for n, line in iter_lines(path):
        if line.strip():
            yield json_line(path, n, line)


class _ReplayBase:
    method = "replay"
    source: Path

    def lookup(self, item: Item) -> ItemResult | None:
        raise NotImplementedError

    def score_batch(self, items: Sequence[Item]) -> list[ItemResult]:
        return [self.lookup(it) or ItemResult(item_id=it.id, chosen=None, error=MISSING) for it in items]

    def describe(self) -> dict[str, Any]:
        return {"method": self.method, "backend": "replay", "source": str(self.source), "kind": type(self).__name__}


class StatementsReplay(_ReplayBase):
    """One model's ``<model>_q1`` / ``<model>_q2`` columns of the statements CSV (yes/no scoring)."""

    def __init__(self, path: str | Path, model: str) -> None:
        from commonsense.io.statements import read_statements_csv

        self.source, self.model = Path(path), model
        self.by_id: dict[str, dict[str, int]] = {}
        self.by_text: dict[str, dict[str, int]] = {}
        models: set[str] = set()
        for rec in read_statements_csv(self.source):
            models.update(rec.model_answers)
            ans = rec.model_answers.get(model)
            if ans:
                self.by_id[rec.external_id] = ans
                self.by_text[rec.text] = ans
        if not self.by_id:
            raise ValueError(f"model {model!r} is not in {self.source.name}; known: {', '.join(sorted(models))}")

    def lookup(self, item: Item) -> ItemResult | None:
        ans = self.by_id.get(item.id) or self.by_text.get(item.question)
        if ans is None or "q1" not in ans:
            return None
        recs = {q: {"p_yes": float(v), "chosen": v} for q, v in ans.items()}
        return result_from_records(item.id, recs["q1"], recs.get("q2"), raw_output=json.dumps(ans))

    def describe(self) -> dict[str, Any]:
        return {**super().describe(), "model": self.model}


class NwwRawReplay(_ReplayBase):
    """NWW raw responses ``<model>__results_raw_q1.jsonl`` (+ the q2 file beside it): next-token
    probabilities ``{"yes", "no", "other"}`` or a text answer ("Yes"/"No" …)."""

    def __init__(self, q1_path: str | Path, q2_path: str | Path | None = None) -> None:
        self.source = Path(q1_path)
        if q2_path is None and "_q1" in self.source.name:
            cand = self.source.with_name(self.source.name.replace("_q1", "_q2"))
            q2_path = cand if cand.exists() else None
        self.tables = {"q1": self._read(self.source)}
        if q2_path is not None:
            self.tables["q2"] = self._read(Path(q2_path))

    @staticmethod
    def _read(path: Path) -> dict[str, dict[str, Any]]:
        out: dict[str, dict[str, Any]] = {}
        for obj in _jsonl(path):
            resp = obj["response"]
            if isinstance(resp, dict):
                rec = yes_no_record({k: float(v) for k, v in resp.items()})
            else:
                word = first_yes_no(str(resp))
                probs = {"yes": float(word == "yes"), "no": float(word == "no"), "other": float(word is None)}
                rec = yes_no_record(probs)
            rec["raw"] = resp
            out[str(obj["id"])] = rec
        return out

    def lookup(self, item: Item) -> ItemResult | None:
        q1 = self.tables["q1"].get(item.id)
        if q1 is None:
            return None
        q2 = self.tables["q2"].get(item.id) if "q2" in self.tables else None
        return result_from_records(item.id, q1, q2, raw_output=json.dumps(q1["raw"]))


def _logliks(resps: Any) -> list[float]:
    """``filtered_resps`` of a multiple-choice sample: ``[[ll, is_greedy], …]`` (numbers or strings)."""
    out = []
    for r in resps:
        while isinstance(r, list | tuple):
            r = r[0]
        out.append(float(r))
    return out


class LmEvalSamplesReplay(_ReplayBase):
    """An lm-evaluation-harness ``samples_<task>_<date>.jsonl`` of a multiple-choice task. The
    item id is the doc's ``id`` field when it has one, else lm-eval's ``doc_id``."""

    def __init__(self, path: str | Path) -> None:
        self.source = Path(path)
        self.rows: dict[str, dict[str, Any]] = {}
        for s in _jsonl(self.source):
            lls = _logliks(s.get("filtered_resps") or s["resps"])
            conts = [a.get("arg_1", "") if isinstance(a, dict) else a[1] for a in _arguments(s)]
            lengths = [len(c[1:] if c.startswith(" ") else c) for c in conts] or [1] * len(lls)
            norm = [ll / max(1, n) for ll, n in zip(lls, lengths, strict=True)]
            doc = s.get("doc") or {}
            key = str(doc["id"]) if isinstance(doc, dict) and "id" in doc else str(s["doc_id"])
            rec = {"lls": lls, "norm": norm, "acc": s.get("acc"), "acc_norm": s.get("acc_norm"), "doc_id": s["doc_id"]}
            self.rows[key] = rec
            self.rows.setdefault(f"doc:{s['doc_id']}", rec)

    def lookup(self, item: Item) -> ItemResult | None:
        r = self.rows.get(item.id)
        if r is None:
            return None
        return ItemResult(
            item_id=item.id,
            chosen=argmax_first(r["lls"]),
            scores=r["lls"],
            norm_scores=r["norm"],
            chosen_norm=argmax_first(r["norm"]),
            extra={"lmeval_acc": r["acc"], "lmeval_acc_norm": r["acc_norm"], "doc_id": r["doc_id"]},
        )


def _arguments(sample: dict[str, Any]) -> list[Any]:
    args = sample.get("arguments") or []
    if isinstance(args, dict):
        return [args[k] for k in sorted(args, key=lambda k: int(k.rsplit("_", 1)[-1]))]
    return list(args)


def _norm_text(s: str) -> str:
    return " ".join(s.lower().strip().rstrip(".").split())


class CometReplay(_ReplayBase):
    """COMET-BART generations (``{"head","relation","generations","greedy"}`` per line). An item
    gives ``fields["head"]`` and ``fields["relation"]``; the chosen option is the first one equal
    (case and trailing period aside) to the greedy output, else to the earliest beam output."""

    def __init__(self, path: str | Path) -> None:
        self.source = Path(path)
        self.rows = {(o["head"], o["relation"]): o for o in _jsonl(self.source)}

    def lookup(self, item: Item) -> ItemResult | None:
        row = self.rows.get((item.fields.get("head", ""), item.fields.get("relation", "")))
        if row is None:
            return None
        ranked = [row.get("greedy", ""), *row.get("generations", [])]
        opts = [_norm_text(o) for o in item.options]
        chosen, scores = None, [0.0] * len(opts)
        for rank, g in enumerate(ranked):
            g = _norm_text(g)
            for i, o in enumerate(opts):
                if o == g and scores[i] == 0.0:
                    scores[i] = 1.0 / (rank + 1)
                    if chosen is None:
                        chosen = i
        return ItemResult(
            item_id=item.id,
            chosen=chosen,
            scores=scores,
            raw_output=row.get("greedy", ""),
            extra={"generations": row.get("generations", [])},
        )


def make_replay(source: str | Path, model: str | None = None) -> _ReplayBase:
    """Pick the reader from the file: a ``.csv`` (statements, needs ``model``), ``*_q1.jsonl``
    (NWW raw), a JSONL whose first line has ``doc_id`` (lm-eval samples) or ``generations`` (COMET)."""
    p = Path(source)
    if p.suffix == ".csv":
        if not model:
            raise ValueError("replaying the statements CSV needs the model name (a <model>_q1 column)")
        return StatementsReplay(p, model)
    first = next(_jsonl(p), {})
    if "doc_id" in first:
        return LmEvalSamplesReplay(p)
    if "generations" in first:
        return CometReplay(p)
    if "response" in first:
        return NwwRawReplay(p)
    if isinstance(first.get("paths"), list):
        raise ValueError(f"{p.name} is a ReComSBench paths file: score it with the 'recoms' scoring")
    raise ValueError(f"{p.name}: not a known prediction file (statements CSV, NWW raw, lm-eval samples, COMET)")
