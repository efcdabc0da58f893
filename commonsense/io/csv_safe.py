"""The project's one CSV writer for exports that people open in spreadsheets.

A text cell that starts with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return is read as a
formula by Excel, LibreOffice and Google Sheets (``=HYPERLINK("http://…","x")`` in a statement id
becomes a live link; DDE payloads run commands). Such cells get a leading ``'`` (OWASP's advice:
the spreadsheet shows the text, not a formula). Only strings are touched: numbers (``-0.25``)
stay numbers. Every CSV export goes through :func:`writer` / :func:`dict_writer`.
"""

from __future__ import annotations

import csv
from collections.abc import Iterable, Mapping, Sequence
from typing import IO, Any

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def safe_cell(value: Any) -> Any:
    """``value`` with a leading ``'`` when it is text a spreadsheet would run as a formula."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


class SafeWriter:
    """``csv.writer`` whose every cell passes :func:`safe_cell`."""

    def __init__(self, fh: IO[str], **kwargs: Any) -> None:
        self._w = csv.writer(fh, **kwargs)

    def writerow(self, row: Iterable[Any]) -> Any:
        return self._w.writerow([safe_cell(c) for c in row])

    def writerows(self, rows: Iterable[Iterable[Any]]) -> None:
        for row in rows:
            self.writerow(row)


class SafeDictWriter(csv.DictWriter):  # type: ignore[type-arg]
    """``csv.DictWriter`` whose every cell (header included) passes :func:`safe_cell`."""

    def writerow(self, rowdict: Mapping[str, Any]) -> Any:
        return super().writerow({k: safe_cell(v) for k, v in rowdict.items()})

    def writerows(self, rowdicts: Iterable[Mapping[str, Any]]) -> None:
        for row in rowdicts:
            self.writerow(row)


def writer(fh: IO[str], **kwargs: Any) -> SafeWriter:
    return SafeWriter(fh, **kwargs)


def dict_writer(fh: IO[str], fieldnames: Sequence[str], **kwargs: Any) -> SafeDictWriter:
    return SafeDictWriter(fh, fieldnames=fieldnames, **kwargs)
