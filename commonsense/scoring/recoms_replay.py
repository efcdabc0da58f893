"""Reasoning paths made elsewhere, for ReComSBench without sampling: a JSONL file, one question a line::

    {"id": "…", "paths": [{"text": "…", "answer": "B"}, …],
     "triples": [[[s, p, o], …], …],          # optional: one triple list per path
     "question_triples": [[s, p, o], …],      # optional: K(Q)
     "direct": "A", "kba": "C"}               # optional: answers to the direct / hints prompts
                                              # (used when no model is configured)

A recoms run's own JSONL export is read too (re-score stored paths, e.g. at another similarity
threshold, without the model). A path's ``answer`` may be an index, a letter, an option text or a sentence; without it the
answer is read from ``text``. A path may carry its own ``triples`` (then the top-level list is not
needed), ``correct`` (judged elsewhere), ``greedy``, ``temperature``, ``seed``. Paths without
triples are extracted by the configured model, if any. Lines are matched to items by ``id`` (the
item id, else its ``external_id`` field), then by the question text.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .recoms import PathSource
from .triples import Triple
from .types import Item


class PathsFileError(ValueError):
    pass


def _norm(text: str) -> str:
    return " ".join(text.lower().split())


def _triples(value: Any, where: str) -> list[Triple]:
    if not isinstance(value, list):
        raise PathsFileError(f"{where}: triples must be a list of [subject, predicate, object]")
    out: list[Triple] = []
    for j, t in enumerate(value):
        if not isinstance(t, list | tuple) or len(t) != 3 or not all(isinstance(x, str | int | float) for x in t):
            raise PathsFileError(f"{where}[{j}]: a triple is a list of 3 strings, got {t!r}")
        out.append((str(t[0]).strip(), str(t[1]).strip(), str(t[2]).strip()))
    return out


def _from_export(obj: dict[str, Any]) -> dict[str, Any]:
    """A line of a recoms run's JSONL export (``item_id`` + ``extra``) as a paths-file line: its
    paths (with their triples and judged correctness), K(Q), and direct / KBA answers."""
    x = obj["extra"]
    rec: dict[str, Any] = {
        "id": obj.get("item_id") or obj.get("position"),
        "question": obj.get("text"),
        "paths": x["paths"],
        "question_triples": x.get("question_triples"),
    }
    for key in ("direct", "kba"):
        if isinstance(x.get(key), dict):
            rec[key] = {"answer": x[key].get("chosen")}
    return rec


def _record(obj: Any, where: str) -> dict[str, Any]:
    if isinstance(obj, dict) and "paths" not in obj and isinstance(obj.get("extra"), dict) and "paths" in obj["extra"]:
        obj = _from_export(obj)
    if not isinstance(obj, dict) or "id" not in obj:
        raise PathsFileError(f"{where}: each line is an object with an 'id'")
    paths = obj.get("paths")
    if not isinstance(paths, list) or not paths:
        raise PathsFileError(f"{where}: 'paths' must be a non-empty list")
    per_path = obj.get("triples")
    if per_path is not None and (not isinstance(per_path, list) or len(per_path) != len(paths)):
        raise PathsFileError(f"{where}: 'triples' must hold one list per path ({len(paths)})")
    clean = []
    for i, p in enumerate(paths):
        if isinstance(p, str):
            p = {"text": p}
        if not isinstance(p, dict) or not isinstance(p.get("text", ""), str):
            raise PathsFileError(f"{where}: paths[{i}] must be an object with a 'text' string")
        p = dict(p)
        if p.get("triples") is not None:
            p["triples"] = _triples(p["triples"], f"{where}: paths[{i}].triples")
        elif per_path is not None:
            p["triples"] = _triples(per_path[i], f"{where}: triples[{i}]")
        clean.append(p)
    rec = {**obj, "paths": clean}
    if obj.get("question_triples") is not None:
        rec["question_triples"] = _triples(obj["question_triples"], f"{where}: question_triples")
    return rec


class PathsFile(PathSource):
    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.source = str(self.path)
        self.by_id: dict[str, dict[str, Any]] = {}
        self.by_text: dict[str, dict[str, Any]] = {}
        from commonsense.io.errors import DataFormatError
        from commonsense.io.jsonline import json_line
        from commonsense.io.text import iter_lines  # bounded line length, strict UTF-8, no NUL

        for n, line in iter_lines(self.path):
            if not line.strip():
                continue
            where = f"{self.path.name}:{n}"
            try:
                obj = json_line(self.path, n, line)
            except DataFormatError as exc:
                raise PathsFileError(f"{where}: {exc.message}") from None
            rec = _record(obj, where)
            self.by_id[str(rec["id"])] = rec
            if isinstance(rec.get("question"), str):
                self.by_text.setdefault(_norm(rec["question"]), rec)
        if not self.by_id:
            raise PathsFileError(f"{self.path.name}: no paths")

    def record(self, item: Item) -> dict[str, Any] | None:
        return (
            self.by_id.get(item.id)
            or self.by_id.get(item.fields.get("external_id", "\0"))
            or self.by_text.get(_norm(item.question))
        )
