"""Reader for conceptualisation files (CoCo comprehension): one abstract triple per line,
``head<TAB>concept<TAB>abstract head`` (no header; blank lines and ``#`` comments skipped)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from .errors import DataFormatError, check_field
from .text import iter_lines


@dataclass(frozen=True, slots=True)
class AbstractRecord:
    head: str
    concept: str
    abstract_head: str
    line: int


def read_abstract_triples(path: str | Path) -> Iterator[AbstractRecord]:
    p = Path(path)
    seen = False
    for lineno, text in iter_lines(p):
        if not text.strip() or text.lstrip().startswith("#"):
            continue
        cols = text.split("\t")
        if len(cols) != 3:
            raise DataFormatError(
                p, lineno, None, f"expected 3 tab-separated columns (head, concept, abstract head), found {len(cols)}"
            )
        head = check_field(p, lineno, "head", cols[0])
        concept = check_field(p, lineno, "concept", cols[1])
        abstract = check_field(p, lineno, "abstract head", cols[2])
        if abstract == head:
            raise DataFormatError(p, lineno, "abstract head", "is identical to the head (nothing was conceptualised)")
        seen = True
        yield AbstractRecord(head, concept, abstract, lineno)
    if not seen:
        raise DataFormatError(p, None, None, "no abstract triples found")
