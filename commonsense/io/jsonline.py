"""One JSON value per line, parsed defensively: every failure is a located :class:`DataFormatError`.

Beyond ``json.JSONDecodeError`` the standard parser fails in ways an importer must not let through:
deep nesting (``[[[[…`` 200,000 levels: ``RecursionError``), huge integers (a 5,000-digit id:
``ValueError`` from Python's int-digit limit) and lone surrogates (``"\\ud800"`` decodes to a string
no database driver or page can encode, so the row imports and every page showing it answers 500).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from .errors import DataFormatError

MAX_DEPTH = 32  # real records nest 3-4 levels
MAX_INT_DIGITS = 30
_SURROGATE = re.compile("[\ud800-\udfff]")


def _int(text: str) -> int:
    digits = len(text.lstrip("-"))
    if digits > MAX_INT_DIGITS:
        raise _Refused(f"a number with {digits:,} digits (limit {MAX_INT_DIGITS})")
    return int(text)


class _Refused(ValueError):
    pass


def _where(path: list[str]) -> str:
    return "".join(path) or "the value"


def _check(value: Any, depth: int, path: list[str]) -> None:
    if depth > MAX_DEPTH:
        raise _Refused(f"nested more than {MAX_DEPTH} levels deep")
    if isinstance(value, str):
        m = _SURROGATE.search(value)
        if m:
            raise _Refused(
                f"{_where(path)} holds a lone surrogate (\\u{ord(m.group()):04x}) at character {m.start() + 1}"
            )
        if "\x00" in value:
            raise _Refused(f"{_where(path)} contains a NUL character (a \\u0000 escape)")
    elif isinstance(value, dict):
        for k, v in value.items():
            _check(k, depth + 1, path)
            _check(v, depth + 1, [*path, f"[{k[:40]!r}]" if not _SURROGATE.search(k) else "[key]"])
    elif isinstance(value, list):
        for i, v in enumerate(value):
            _check(v, depth + 1, [*path, f"[{i}]"])


def json_line(path: str | Path, line: int, text: str) -> Any:
    """The JSON value of one line, or a :class:`DataFormatError` naming the file and line."""
    try:
        value = json.loads(text, parse_int=_int)
    except json.JSONDecodeError as exc:
        raise DataFormatError(path, line, None, f"invalid JSON: {exc.msg} at column {exc.colno}") from None
    except RecursionError:
        raise DataFormatError(path, line, None, f"invalid JSON: nested more than {MAX_DEPTH} levels deep") from None
    except _Refused as exc:
        raise DataFormatError(path, line, None, f"invalid JSON: {exc}") from None
    except ValueError as exc:  # e.g. Python's own int-digit limit
        raise DataFormatError(path, line, None, f"invalid JSON: {exc}") from None
    try:
        _check(value, 0, [])
    except _Refused as exc:
        raise DataFormatError(path, line, None, str(exc)) from None
    return value
