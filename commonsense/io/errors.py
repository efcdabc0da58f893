from __future__ import annotations

import re
from pathlib import Path

# A single field or line longer than this is refused: real commonsense text is short, and a
# huge line is almost always a broken file (missing newlines, binary data).
MAX_FIELD_CHARS = 10_000
MAX_LINE_BYTES = 1_000_000
_SURROGATE = re.compile("[\ud800-\udfff]")


class DataFormatError(ValueError):
    """A problem in an input file, located by file, line and field."""

    def __init__(self, path: str | Path, line: int | None, field: str | None, message: str) -> None:
        self.path = str(path)
        self.line = line
        self.field = field
        self.message = message
        where = Path(self.path).name
        if line is not None:
            where += f", line {line}"
        if field:
            where += f", field {field!r}"
        super().__init__(f"{where}: {message}")


def check_field(path: str | Path, line: int, field: str, value: str, *, required: bool = True) -> str:
    value = value.strip()
    if required and not value:
        raise DataFormatError(path, line, field, "is empty")
    if len(value) > MAX_FIELD_CHARS:
        raise DataFormatError(path, line, field, f"is {len(value):,} characters long (limit {MAX_FIELD_CHARS:,})")
    if "\x00" in value:  # e.g. a JSON "\u0000" escape: no database stores it in text
        raise DataFormatError(path, line, field, "contains a NUL character")
    m = _SURROGATE.search(value)
    if m:  # e.g. a "\ud800" escape: no page or database driver can encode it
        raise DataFormatError(path, line, field, f"holds a lone surrogate (\\u{ord(m.group()):04x})")
    return value
