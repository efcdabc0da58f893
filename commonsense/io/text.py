"""Line-level reading with strict UTF-8 decoding and size checks."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from .errors import MAX_LINE_BYTES, DataFormatError


def iter_lines(path: str | Path) -> Iterator[tuple[int, str]]:
    """Yield (1-based line number, text without the newline). Refuses empty files, bad UTF-8,
    NUL characters and over-long lines with a :class:`DataFormatError`."""
    p = Path(path)
    if not p.is_file():
        raise DataFormatError(p, None, None, "file not found")
    if p.stat().st_size == 0:
        raise DataFormatError(p, None, None, "file is empty")
    with p.open("rb") as fh:
        lineno = 0
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
