"""Knowledge triples out of a model's extraction answer (ReComSBench's extraction prompt asks for
``{"extracted_knowledge": [[s, p, o], …]}``), robustly: bad output gives no triples and a status
saying why, never an exception.

Accepted, in this order: the whole answer (``` fences removed) as JSON; else the first JSON object
or array inside it that :func:`json.JSONDecoder.raw_decode` can read (an object with
``extracted_knowledge`` preferred); else lines that are a bare ``(s, p, o)`` tuple. Inside the
list a triple may be ``[s, p, o]`` (longer lists: the rest joins the object), ``{"subject",
"predicate", "object"}`` (or ``head``/``relation``/``tail``, ``s``/``p``/``o``) or a string
``"(s, p, o)"``; anything else is skipped and counted.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

Triple = tuple[str, str, str]
KEY = "extracted_knowledge"
MAX_TRIPLES = 64
_KEYS = (("subject", "predicate", "object"), ("head", "relation", "tail"), ("s", "p", "o"), ("h", "r", "t"))
_FENCE = re.compile(r"```(?:json)?", re.I)
_TUPLE_LINE = re.compile(r"^\s*(?:[-*•]|\d+[.)])?\s*\(\s*([^(),]+?)\s*,\s*([^(),]+?)\s*,\s*([^()]+?)\s*\)\s*[,.;]?\s*$")
_STRIP = " \t\n\r\"'`“”‘’"


@dataclass(slots=True)
class TripleParse:
    """``status``: ``ok`` (JSON with triples), ``empty`` (valid JSON, no triples), ``tuples``
    (no JSON; ``(s, p, o)`` lines read), ``no_json`` (nothing readable: no triples)."""

    triples: list[Triple] = field(default_factory=list)
    status: str = "no_json"
    skipped: int = 0  # list entries that were not triples

    def as_dict(self) -> dict[str, Any]:
        return {"status": self.status, "n": len(self.triples), "skipped": self.skipped}


def _clean(x: Any) -> str:
    return " ".join(str(x).strip(_STRIP).split())


def _triple(entry: Any) -> Triple | None:
    parts: list[Any] | None = None
    if isinstance(entry, list | tuple) and len(entry) >= 3:
        parts = [entry[0], entry[1], " ".join(_clean(e) for e in entry[2:])]
    elif isinstance(entry, dict):
        low = {str(k).lower(): v for k, v in entry.items()}
        for keys in _KEYS:
            if all(k in low for k in keys):
                parts = [low[k] for k in keys]
                break
    elif isinstance(entry, str):
        m = _TUPLE_LINE.match(entry) or _TUPLE_LINE.match(f"({entry.strip().strip('[]()')})")
        if m:
            parts = list(m.groups())
    if parts is None or any(isinstance(p, dict | list) for p in parts):
        return None
    s, p, o = (_clean(x) for x in parts)
    return (s, p, o) if s and p and o else None


def _entries(obj: Any) -> list[Any] | None:
    """The list of candidate triples in a decoded JSON value, None if it holds none."""
    if isinstance(obj, dict):
        for k, v in obj.items():
            if str(k).lower() == KEY and isinstance(v, list):
                return v
        lists = [v for v in obj.values() if isinstance(v, list)]
        return lists[0] if len(lists) == 1 else None
    if isinstance(obj, list):
        if len(obj) == 3 and all(isinstance(x, str) and not x.strip().startswith("(") for x in obj):
            return [obj]  # one bare triple
        return obj
    return None


def _json_values(text: str) -> list[Any]:
    """Every top-level JSON object/array found in the text, left to right."""
    dec = json.JSONDecoder()
    out: list[Any] = []
    i = 0
    while True:
        starts = [j for j in (text.find("{", i), text.find("[", i)) if j >= 0]
        if not starts:
            return out
        j = min(starts)
        try:
            obj, end = dec.raw_decode(text, j)
        except json.JSONDecodeError:
            i = j + 1
            continue
        out.append(obj)
        i = end


def _from_entries(entries: Sequence[Any], limit: int) -> TripleParse:
    got: list[Triple] = []
    skipped = 0
    for e in entries:
        t = _triple(e)
        if t is None:
            skipped += 1
        elif t not in got:
            got.append(t)
    got = got[:limit]
    return TripleParse(got, "ok" if got else "empty", skipped)


def parse_triples(text: str, *, limit: int = MAX_TRIPLES) -> TripleParse:
    """The triples of one extraction answer (at most ``limit``, exact repeats dropped)."""
    body = _FENCE.sub("", text or "").strip()
    try:
        whole: list[Any] = [json.loads(body)]
    except json.JSONDecodeError:
        whole = []
    values = whole or _json_values(body)
    keyed = [v for v in values if isinstance(v, dict) and any(str(k).lower() == KEY for k in v)]
    for v in keyed + [v for v in values if v not in keyed]:
        entries = _entries(v)
        if entries is not None:
            return _from_entries(entries, limit)
    lines = [m.groups() for m in map(_TUPLE_LINE.match, body.splitlines()) if m]
    if lines:
        res = _from_entries([list(g) for g in lines], limit)
        res.status = "tuples" if res.triples else "no_json"
        return res
    return TripleParse()


def triple_sentence(t: Sequence[str]) -> str:
    """A triple as a hint sentence: ``"dog needs water."``."""
    text = " ".join(p.strip() for p in t if p and p.strip())
    return text if text.endswith((".", "!", "?")) else text + "."


def hint_text(triples: Sequence[Sequence[str]]) -> str:
    """KBA's ``{HINT}``: the triples as sentences, space-separated (the paper's serialisation is not given)."""
    return " ".join(triple_sentence(t) for t in triples)
