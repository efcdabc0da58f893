"""What an import refuses, and its progress callback: shared by the graph imports
(:mod:`knowledge.services.graph_imports`), the set imports (:mod:`knowledge.services.imports`) and
the builds."""

from __future__ import annotations

from collections.abc import Callable

Progress = Callable[[str, int, int | None], None]


class ImportRefused(ValueError):
    """A valid file that cannot be imported as asked (e.g. a name clash)."""


def _noop(stage: str, done: int, total: int | None) -> None:
    return None


class DuplicateContent(ImportRefused):
    """The file's content is already stored under another name: importing it again would store a
    second copy. Callers say so and ask; ``allow_duplicate=True`` imports it anyway."""

    def __init__(self, message: str, existing: str) -> None:
        super().__init__(message)
        self.existing = existing
