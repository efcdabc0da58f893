"""Readers for triple files: ATOMIC-2020 TSV and the CSKB-Population CSV."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from commonsense.kg import relations

from . import text as text_io
from .errors import MAX_FIELD_CHARS, DataFormatError, check_field
from .text import iter_blocks, iter_lines, lines_of

FORMATS = ("atomic-tsv", "cskb-csv")


@dataclass(frozen=True, slots=True)
class TripleRecord:
    head: str
    relation: str
    tail: str
    line: int
    plausibility: float | None = None
    extra: tuple[tuple[str, str], ...] = ()


def _relation(path: Path, line: int, value: str) -> str:
    value = check_field(path, line, "relation", value)
    try:
        return relations.canonical_name(value)
    except relations.UnknownRelation as exc:
        raise DataFormatError(path, line, "relation", str(exc)) from None


def read_atomic_tsv(path: str | Path) -> Iterator[TripleRecord]:
    """ATOMIC-2020 layout: no header, ``head<TAB>relation<TAB>tail``, no quoting."""
    for head, rel, tail, lineno in iter_atomic_tsv(path):
        yield TripleRecord(head, rel, tail, lineno)


def iter_atomic_tsv(path: str | Path) -> Iterator[tuple[str, str, str, int]]:
    """:func:`read_atomic_tsv` as plain ``(head, relation, tail, line)`` tuples (no record object
    per row; each distinct relation spelling is resolved once). Same checks and the same errors as
    :func:`check_field` / :func:`_relation`."""
    for heads, rels, tails, lines in iter_atomic_tsv_columns(path):
        yield from zip(heads, rels, tails, lines, strict=True)


AtomicColumns = tuple[list[str], list[str], list[str], Sequence[int]]


def iter_atomic_tsv_columns(path: str | Path, block_bytes: int | None = None) -> Iterator[AtomicColumns]:
    """The bulk importer's reader: the file as blocks of columns ``(heads, relations, tails,
    lines)``. A block is checked as a whole (decoded once, split by C-level string methods); a
    block where anything is off (bad UTF-8, a NUL, a line without exactly two tabs, a blank line,
    an empty or over-long field, an unknown relation spelling) is re-read line by line with the
    exact per-line checks, so every error names the same file, line and field as a line-by-line
    read, and every accepted row is the same."""
    p = Path(path)
    seen = False
    canonical: dict[str, str] = {}
    for first, raw in iter_blocks(p, block_bytes or text_io.BLOCK_BYTES):
        cols = _block_columns(raw, first, canonical)
        if cols is None:
            rows = list(_atomic_rows(p, lines_of(p, io.BytesIO(raw), first - 1), canonical))
            cols = (
                [r[0] for r in rows],
                [r[1] for r in rows],
                [r[2] for r in rows],
                [r[3] for r in rows],
            )
        if cols[0]:
            seen = True
            yield cols
    if not seen:
        raise DataFormatError(p, None, None, "no triples found")


# Every byte but a tab and a newline: ``raw.translate(None, _NOT_SEPARATORS)`` keeps a block's
# separators in order, which is ``b"\t\t\n"`` once per line exactly when every line has three fields.
_NOT_SEPARATORS = bytes(b for b in range(256) if b not in b"\t\n")


def _block_columns(raw: bytes, first: int, canonical: dict[str, str]) -> AtomicColumns | None:
    """The columns of a block in which every line is a well-formed triple, else None. Stricter
    than the line-by-line checks, never looser: a blank line or a field longer than the field
    limit before stripping (so a line far below MAX_LINE_BYTES) is left to them. No string per
    line is made: the shape is checked on the bytes (tabs and newlines are single bytes in UTF-8,
    never part of another character), the fields come from one split."""
    if b"\x00" in raw:
        return None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None
    ends = raw.endswith(b"\n")
    n_lines = raw.count(b"\n") + (not ends)
    seps = raw.translate(None, _NOT_SEPARATORS)
    if (seps if ends else seps + b"\n") != b"\t\t\n" * n_lines:  # exactly three columns on every line
        return None
    if first == 1 and text.startswith("\ufeff"):
        text = text[1:]
    if ends:
        text = text[:-1]
    flat = text.replace("\n", "\t").split("\t")
    if max(map(len, flat)) > MAX_FIELD_CHARS:  # every field, before stripping
        return None
    heads = list(map(str.strip, flat[0::3]))
    tails = list(map(str.strip, flat[2::3]))  # also drops a line's trailing "\r" as the line reader does
    if not all(heads) or not all(tails):  # an empty field (or a blank line of tabs)
        return None
    spellings = flat[1::3]
    for spelling in set(spellings).difference(canonical):
        try:
            canonical[spelling] = _relation(Path(), 0, spelling)
        except DataFormatError:
            return None
    return heads, list(map(canonical.__getitem__, spellings)), tails, range(first, first + n_lines)


def _atomic_rows(
    p: Path, numbered: Iterable[tuple[int, str]], canonical: dict[str, str]
) -> Iterator[tuple[str, str, str, int]]:
    """The line-by-line checks of an ATOMIC TSV: (head, relation, tail, line) per non-blank line."""
    limit = MAX_FIELD_CHARS
    for lineno, text in numbered:
        if not text.strip():
            continue
        cols = text.split("\t")
        if len(cols) != 3:
            raise DataFormatError(
                p, lineno, None, f"expected 3 tab-separated columns (head, relation, tail), found {len(cols)}"
            )
        head = cols[0].strip()
        if not head or len(head) > limit:
            check_field(p, lineno, "head", cols[0])  # raises the precise error
        rel = canonical.get(cols[1])
        if rel is None:
            rel = canonical[cols[1]] = _relation(p, lineno, cols[1])
        tail = cols[2].strip()
        if not tail or len(tail) > limit:
            check_field(p, lineno, "tail", cols[2])
        yield head, rel, tail, lineno


# What ``str.strip()`` removes: every code point whose ``str.isspace()`` is true (checked against
# the whole of Unicode by a test), so that Arrow trims exactly as the line reader strips.
PY_WHITESPACE = (
    "\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007"
    "\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)
# Files above this size skip the Arrow path (it holds the file and its columns in memory at once,
# about three times the file) and are read block by block.
ARROW_MAX_BYTES = 256 << 20
ARROW_BLOCK_BYTES = 4 << 20  # Arrow parses blocks of this size in parallel; the texts are numbered across them


@dataclass(frozen=True)
class EncodedTriples:
    """A whole ATOMIC TSV, every line a triple, its texts numbered: triple ``i`` is line ``i + 1``,
    ``(texts[heads[i]], relations[relation_codes[i]], texts[tails[i]])``. ``texts`` holds every
    distinct head and tail once, in UTF-8 byte order (SQLite's BINARY order); ``relations`` the
    canonical names."""

    texts: list[str]
    heads: NDArray[np.int64]
    tails: NDArray[np.int64]
    relations: list[str]
    relation_codes: NDArray[np.int64]


def read_atomic_tsv_encoded(path: str | Path) -> EncodedTriples | None:
    """The bulk importer's fast path: the file split by Arrow's CSV reader (C++, on Arrow's
    thread pool), fields trimmed and texts numbered by Arrow's compute functions, with no Python
    string made per field. None when the file is anything but plainly well formed, or larger than
    ``ARROW_MAX_BYTES``: the caller then reads it with :func:`iter_atomic_tsv_columns`, which gives
    the same rows or names the error's file, line and field. Stricter than the line-by-line checks,
    never looser: a byte-order mark, a NUL, a carriage return not followed by a newline (Arrow ends
    a line there, the line reader does not), a blank line, a line without exactly three fields, bad
    UTF-8, a field longer than the field limit before trimming, an empty head or tail after it,
    or an unknown relation spelling anywhere in the file sends it to the line checks."""
    p = Path(path)
    text_io.check_file(p)
    if p.stat().st_size > ARROW_MAX_BYTES:
        return None

    import pyarrow as pa

    try:
        return _encoded(p)
    finally:
        pa.default_memory_pool().release_unused()  # Arrow's allocator keeps ~250 MB of freed memory otherwise


def _encoded(p: Path) -> EncodedTriples | None:
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.csv as pcsv

    raw = p.read_bytes()
    if raw.startswith(b"\xef\xbb\xbf") or b"\x00" in raw or (b"\r" in raw and raw.count(b"\r") != raw.count(b"\r\n")):
        return None
    n = raw.count(b"\n") + (not raw.endswith(b"\n"))  # lines; each must be one row
    names = ["head", "relation", "tail"]
    try:
        table = pcsv.read_csv(
            pa.py_buffer(raw),
            read_options=pcsv.ReadOptions(column_names=names, block_size=ARROW_BLOCK_BYTES),
            parse_options=pcsv.ParseOptions(
                delimiter="\t", quote_char=False, escape_char=False, double_quote=False, ignore_empty_lines=False
            ),
            convert_options=pcsv.ConvertOptions(
                column_types=dict.fromkeys(names, pa.string()), strings_can_be_null=False, check_utf8=True
            ),
        )
    except pa.ArrowException:  # a line with other than three fields, bad UTF-8
        return None
    del raw  # the table holds its own copy; memory is what bounds the file size here
    if table.num_rows != n or any(pc.max(pc.utf8_length(table[c])).as_py() > MAX_FIELD_CHARS for c in names):
        return None
    heads = pc.utf8_trim(table["head"], characters=PY_WHITESPACE)
    tails = pc.utf8_trim(table["tail"], characters=PY_WHITESPACE)
    spelled = pc.dictionary_encode(table["relation"]).combine_chunks()
    del table
    if pc.min(pc.utf8_length(heads)).as_py() == 0 or pc.min(pc.utf8_length(tails)).as_py() == 0:
        return None  # an empty field, a blank line (Arrow reads it as one row of empty fields)
    canonical: list[str] = []
    for spelling in spelled.dictionary.to_pylist():
        try:
            canonical.append(_relation(p, 0, spelling))
        except DataFormatError:
            return None
    rel_names = sorted(set(canonical))
    to_name = np.array([rel_names.index(c) for c in canonical], np.int64)
    numbered = pc.dictionary_encode(pa.chunked_array(heads.chunks + tails.chunks)).combine_chunks()
    order = pc.array_sort_indices(numbered.dictionary)  # by bytes, in C++: no Python sort of the texts
    rank = np.empty(len(order), np.int64)
    rank[order.to_numpy()] = np.arange(len(order))
    codes = rank[numbered.indices.to_numpy()]
    return EncodedTriples(
        texts=numbered.dictionary.take(order).to_pylist(),
        heads=codes[:n],
        tails=codes[n:],
        relations=rel_names,
        relation_codes=to_name[spelled.indices.to_numpy()],
    )


CSKB_COLUMNS = ("head", "relation", "tail", "label", "class", "split")


def read_cskb_csv(path: str | Path) -> Iterator[TripleRecord]:
    """CSKB-Population evaluation CSV: header ``head,relation,tail,label,class,split``; the
    0/1 ``label`` becomes the triple's plausibility."""
    p = Path(path)
    lines = iter_lines(p)
    # csv needs an iterable of strings; line numbers are tracked from the reader itself.
    reader = csv.reader((t for _, t in lines), strict=True)
    try:
        header = next(reader)
    except StopIteration:
        raise DataFormatError(p, None, None, "file is empty") from None
    except csv.Error as exc:
        raise DataFormatError(p, 1, None, f"CSV error: {exc}") from None
    header = [h.strip() for h in header]
    missing = [c for c in CSKB_COLUMNS if c not in header]
    if missing:
        raise DataFormatError(
            p, 1, missing[0], f"header lacks column(s) {', '.join(missing)}; expected {','.join(CSKB_COLUMNS)}"
        )
    idx = {c: header.index(c) for c in CSKB_COLUMNS}
    seen = False
    while True:
        try:
            row = next(reader)
        except StopIteration:
            break
        except csv.Error as exc:
            raise DataFormatError(p, reader.line_num, None, f"CSV error: {exc}") from None
        lineno = reader.line_num
        if not row or not any(c.strip() for c in row):
            continue
        if len(row) != len(header):
            raise DataFormatError(p, lineno, None, f"expected {len(header)} columns, found {len(row)}")
        head = check_field(p, lineno, "head", row[idx["head"]])
        rel = _relation(p, lineno, row[idx["relation"]])
        tail = check_field(p, lineno, "tail", row[idx["tail"]])
        label_s = row[idx["label"]].strip()
        try:
            label = float(label_s)
        except ValueError:
            raise DataFormatError(p, lineno, "label", f"must be a number (0 or 1), got {label_s!r}") from None
        if not 0.0 <= label <= 1.0:
            raise DataFormatError(p, lineno, "label", f"must lie in [0, 1], got {label_s!r}")
        seen = True
        yield TripleRecord(
            head,
            rel,
            tail,
            lineno,
            label,
            (("class", row[idx["class"]].strip()), ("split", row[idx["split"]].strip())),
        )
    if not seen:
        raise DataFormatError(p, None, None, "no triples found")


def read_triples(path: str | Path, fmt: str) -> Iterator[TripleRecord]:
    if fmt == "atomic-tsv":
        return read_atomic_tsv(path)
    if fmt == "cskb-csv":
        return read_cskb_csv(path)
    raise ValueError(f"unknown triple format {fmt!r}; choose one of {', '.join(FORMATS)}")
