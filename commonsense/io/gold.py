"""Gold files: multiple-choice items with every plausible option marked, the source of a validation
campaign's qualification test (issue 26 item 4). JSONL, one item per line:

- ``question`` (or ``stem``): the question; ``context``: optional;
- ``options``: 2 to 10 distinct, non-empty option texts;
- the gold, one of: ``gold`` (the list of plausible option indices, 0-based; ``[]`` = none of the
  options is correct), ``answers`` (the texts of every plausible option), or ``answer_index`` (one
  plausible option);
- ``id``: optional (default: the line number); ``why``: optional, the reason, for the researcher.

cocoweb's own JSONL export is a gold file (``answers``, ``answer_index``), so a verified set exported
elsewhere comes back as one. An option reading "None of the answers are correct." is not an option
here: it is dropped, and when it is the gold the item's gold is ``[]`` (the test form has its own
"No answers are correct" box). Every error names the file, the line and the field."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..validation import NONE_CORRECT
from .errors import DataFormatError, check_field
from .jsonline import json_line
from .text import iter_lines

MAX_OPTIONS = 10
MAX_ITEMS = 1000


@dataclass(frozen=True, slots=True)
class GoldItem:
    key: str
    context: str
    question: str
    options: list[str]
    plausible: list[int]  # every plausible option; [] = none of them is correct
    why: str = ""


def _text(path: Path, line: int, obj: dict[str, Any], name: str, *, required: bool) -> str:
    value = obj.get(name, "")
    if value is None:
        value = ""
    if not isinstance(value, str):
        raise DataFormatError(path, line, name, "must be a string")
    return check_field(path, line, name, value, required=required)


def _gold(path: Path, line: int, obj: dict[str, Any], raw: list[str]) -> list[int]:
    if "gold" in obj:
        g = obj["gold"]
        if not isinstance(g, list) or not all(isinstance(i, int) and not isinstance(i, bool) for i in g):
            raise DataFormatError(path, line, "gold", "must be a list of option indices (0-based), [] = none correct")
        bad = [i for i in g if not 0 <= i < len(raw)]
        if bad:
            raise DataFormatError(path, line, "gold", f"{bad} outside 0..{len(raw) - 1}")
        return sorted(set(g))
    if obj.get("answers"):
        texts = obj["answers"]
        if not isinstance(texts, list) or not all(isinstance(t, str) for t in texts):
            raise DataFormatError(path, line, "answers", "must be a list of option texts")
        missing = [t for t in texts if t not in raw]
        if missing:
            raise DataFormatError(path, line, "answers", f"{missing[0]!r} is not one of the options")
        return sorted({raw.index(t) for t in texts})
    if "answer_index" in obj:
        i = obj["answer_index"]
        if not isinstance(i, int) or isinstance(i, bool) or not 0 <= i < len(raw):
            raise DataFormatError(path, line, "answer_index", f"must be an option index in 0..{len(raw) - 1}")
        return [i]
    raise DataFormatError(path, line, "gold", "no gold: give gold (option indices), answers or answer_index")


def _item(path: Path, line: int, obj: dict[str, Any]) -> GoldItem:
    question = _text(path, line, obj, "question" if "question" in obj else "stem", required=True)
    context = _text(path, line, obj, "context", required=False)
    raw = obj.get("options")
    if not isinstance(raw, list) or not all(isinstance(o, str) for o in raw):
        raise DataFormatError(path, line, "options", "must be a list of option texts")
    raw = [check_field(path, line, "options", o) for o in raw]
    if len(set(raw)) != len(raw):
        raise DataFormatError(path, line, "options", "two options have the same text")
    gold = _gold(path, line, obj, raw)
    keep = [i for i, o in enumerate(raw) if o != NONE_CORRECT]
    if not 2 <= len(keep) <= MAX_OPTIONS:
        raise DataFormatError(path, line, "options", f"needs 2 to {MAX_OPTIONS} options, got {len(keep)}")
    plausible = [keep.index(i) for i in gold if i in keep]
    if any(raw[i] == NONE_CORRECT for i in gold) and plausible:
        raise DataFormatError(path, line, "gold", f"{NONE_CORRECT!r} cannot be gold beside a plausible option")
    ident = obj.get("id", line)
    if not isinstance(ident, (str, int)) or isinstance(ident, bool):
        raise DataFormatError(path, line, "id", "must be a string or a number")
    why = _text(path, line, obj, "why", required=False)
    return GoldItem(str(ident), context, question, [raw[i] for i in keep], plausible, why)


def read_gold_items(path: str | Path) -> list[GoldItem]:
    p = Path(path)
    out: list[GoldItem] = []
    seen: dict[str, int] = {}
    for line, text in iter_lines(p):
        if not text.strip():
            continue
        obj = json_line(p, line, text)
        if not isinstance(obj, dict):
            raise DataFormatError(p, line, None, "each line must be a JSON object")
        item = _item(p, line, obj)
        if item.key in seen:
            raise DataFormatError(p, line, "id", f"{item.key!r} was used on line {seen[item.key]} already")
        seen[item.key] = line
        out.append(item)
        if len(out) > MAX_ITEMS:
            raise DataFormatError(p, line, None, f"more than {MAX_ITEMS} items: a qualification needs a few")
    if not out:
        raise DataFormatError(p, None, None, "no item in the file")
    return out
