"""Line-level reading with strict UTF-8 decoding and size checks."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from .errors import MAX_LINE_BYTES, DataFormatError


def check_file(p: Path) -> None:
    """Refuse a missing or empty file with the readers' located error."""
    if not p.is_file():
        raise DataFormatError(p, None, None, "file not found")
    if p.stat().st_size == 0:
        raise DataFormatError(p, None, None, "file is empty")


def iter_lines(path: str | Path) -> Iterator[tuple[int, str]]:
    """Yield (1-based line number, text without the newline). Refuses empty files, bad UTF-8,
    NUL characters and over-long lines with a :class:`DataFormatError`."""
    p = Path(path)
    check_file(p)
    with p.open("rb") as fh:
        yield from lines_of(p, fh)


def lines_of(p: Path, fh: BinaryIO, lineno: int = 0) -> Iterator[tuple[int, str]]:
    """:func:`iter_lines` over an open binary stream whose first line is line ``lineno + 1`` of
    ``p`` (a block of :func:`iter_blocks` re-read line by line gives exactly the file's errors)."""
    while True:
        raw = fh.readline(MAX_LINE_BYTES + 1)
        if not raw:
            break
        lineno += 1
        if len(raw) > MAX_LINE_BYTES and not raw.endswith(b"\n"):
            raise DataFormatError(p, lineno, None, f"line longer than {MAX_LINE_BYTES:,} bytes")
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise DataFormatError(
                p, lineno, None, f"not valid UTF-8 (byte {exc.start + 1}: {raw[exc.start : exc.start + 1]!r})"
            ) from None
        if "\x00" in text:  # no database stores it in text (PostgreSQL refuses it), no real data has it
            raise DataFormatError(p, lineno, None, f"contains a NUL character (column {text.index(chr(0)) + 1})")
        if lineno == 1 and text.startswith("\ufeff"):
            text = text[1:]
        yield lineno, text.rstrip("\r\n")


BLOCK_BYTES = 4 << 20  # the block size of the readers that check whole blocks


def iter_blocks(path: str | Path, size: int) -> Iterator[tuple[int, bytes]]:
    """The file as (number of its first line, raw bytes) blocks of about ``size`` bytes, each cut
    after a newline (or at the end of the file), for readers that check a whole block at once and
    re-read only a block that fails with :func:`lines_of` to locate the error. A block without any
    newline is yielded once it holds more than a line's limit (its first line is too long)."""
    p = Path(path)
    check_file(p)
    first, held, parts = 1, 0, []  # parts: the start of a line that has no newline yet
    with p.open("rb") as fh:
        while chunk := fh.read(size):
            cut = chunk.rfind(b"\n") + 1
            if cut == 0:
                parts.append(chunk)
                held += len(chunk)
                if held > MAX_LINE_BYTES:
                    yield first, b"".join(parts)  # re-read line by line, it is refused as too long
                    return
                continue
            block = b"".join([*parts, chunk[:cut]]) if parts else chunk[:cut]
            parts, held = ([chunk[cut:]], len(chunk) - cut) if cut < len(chunk) else ([], 0)
            yield first, block
            first += block.count(b"\n")
    if parts:
        yield first, b"".join(parts)
