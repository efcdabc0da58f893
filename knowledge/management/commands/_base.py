"""Shared behaviour of the import commands: a progress bar per stage, and a clear one-line
error naming file, line and field."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from commonsense.io import DataFormatError
from knowledge.services.imports import DuplicateContent, ImportRefused


class ImportCommand(BaseCommand):
    def create_parser(self, prog_name: str, subcommand: str, **kwargs: Any) -> Any:
        parser = super().create_parser(prog_name, subcommand, **kwargs)
        parser.add_argument(
            "--allow-duplicate",
            action="store_true",
            help="import even when the same file content is already stored under another name",
        )
        return parser

    def execute(self, *args: Any, **options: Any) -> Any:
        self._bars: dict[str, tqdm] = {}
        self._quiet = options.get("verbosity", 1) == 0
        try:
            return super().execute(*args, **options)
        except DataFormatError as exc:
            raise CommandError(f"import failed, nothing was stored: {exc}") from None
        except DuplicateContent as exc:
            raise CommandError(
                f"import refused, nothing was stored: {exc}; pass --allow-duplicate to import it anyway"
            ) from None
        except ImportRefused as exc:
            raise CommandError(f"import refused, nothing was stored: {exc}") from None
        finally:
            for bar in self._bars.values():
                bar.close()

    def progress(self, stage: str, done: int, total: int | None) -> None:
        if self._quiet:
            return
        bar = self._bars.get(stage)
        if bar is None:
            bar = self._bars[stage] = tqdm(total=total, desc=stage, unit=" rows", file=self.stderr._out)
        if total is not None:
            bar.total = total
        bar.update(done - bar.n)
