"""The record every question reader yields, and the JSON-lines iteration the readers share
(:mod:`commonsense.io.questions`, :mod:`commonsense.io.transfer`)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .errors import DataFormatError
from .jsonline import json_line
from .text import iter_lines


@dataclass(slots=True)
class QuestionRecord:
    line: int
    external_id: str
    stem: str
    options: list[str]
    answer_index: int | None
    context: str = ""
    structure: str = ""
    group: str = ""
    metadata: dict[str, Any] = field(default_factory=dict)


def _json_lines(p: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    for line, text in iter_lines(p):
        if not text.strip():
            continue
        obj = json_line(p, line, text)  # located errors for bad JSON, deep nesting, huge ints, surrogates, NUL
        if not isinstance(obj, dict):
            raise DataFormatError(p, line, None, "each line must be a JSON object")
        yield line, obj
