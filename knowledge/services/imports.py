"""Writes with side effects for the knowledge layer: imports of graphs, statements and
question sets. Every import runs in one transaction: a failure leaves the database as it was. The
graph import is :mod:`knowledge.services.graph_imports`, the refusals
:mod:`knowledge.services.import_errors`; both are named here too, the one place callers import from."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypedDict, Unpack

from django.db import transaction

from accounts.people import User
from commonsense.io import DataFormatError
from commonsense.io.questions import read_questions
from commonsense.io.statements import read_statements_csv
from commonsense.kg.index import file_fingerprint
from knowledge.models import QuestionSet, Statement, StatementSet
from knowledge.services.graph_imports import GraphImportResult, graph_import
from knowledge.services.import_errors import DuplicateContent, ImportRefused, Progress, _noop
from knowledge.services.question_rows import question_row, questions_store


def _set_with_content(model: type, sha: str, name: str, noun: str) -> None:
    other = model.objects.filter(source_sha256=sha).exclude(name=name).first()  # type: ignore[attr-defined]
    if other is not None:
        raise DuplicateContent(
            f"this file's content is already imported as {noun} {other.name!r} (from {other.source or 'a file'}); "
            f"importing it as {name!r} would store a second copy",
            other.name,
        )


@dataclass
class SetImportResult:
    name: str
    added: int
    already_imported: bool

    def summary(self, noun: str) -> str:
        if self.already_imported:
            return f"{self.name}: this file was already imported; nothing added."
        return f"{self.name}: {self.added:,} {noun} stored."


def _check_name_free(model: type, name: str, sha: str) -> bool:
    """True if the set exists with the same file (idempotent re-import); raise if the name is
    taken by another file."""
    existing = model.objects.filter(name=name).first()  # type: ignore[attr-defined]
    if existing is None:
        return False
    if existing.source_sha256 == sha:
        return True
    raise ImportRefused(
        f"a set named {name!r} already exists (from {existing.source or 'another source'}); choose another --name"
    )


def _collect(records: Iterable[Any], stage: str, progress: Progress) -> list[Any]:
    out = []
    for rec in records:
        out.append(rec)
        if len(out) % 1000 == 0:
            progress(stage, len(out), None)
    progress(stage, len(out), len(out))
    return out


class SetImportOptions(TypedDict, total=False):
    """What every statement or question set import may be told: who imports it (``user``), the
    source shown for it (``display_name``, default: the file's name), a ``progress`` callback, and
    ``allow_duplicate`` (import a file already imported under another name)."""

    user: User | None
    display_name: str | None
    progress: Progress
    allow_duplicate: bool


def _set_import(
    model: type,
    noun: str,
    path: Path,
    *,
    name: str,
    read: Callable[[], Iterable[Any]],
    store: Callable[[list[Any], dict[str, Any]], None],
    options: SetImportOptions,
) -> SetImportResult:
    """The import of a statement or question set: refuse a file already imported under another
    name (unless ``allow_duplicate``), read every record (``read``, progress under the noun's
    plural), then in one transaction either find the set already there from the same file (an
    idempotent re-import) or ``store`` it (given the records and the set row's common fields: name,
    source, file fingerprint, creator)."""
    sha = file_fingerprint(path)
    if not options.get("allow_duplicate", False) and not model.objects.filter(name=name).exists():  # type: ignore[attr-defined]
        _set_with_content(model, sha, name, noun)
    records = _collect(read(), noun.split()[0] + "s", options.get("progress", _noop))
    with transaction.atomic():
        if _check_name_free(model, name, sha):
            return SetImportResult(name, 0, True)
        row = {
            "name": name,
            "source": options.get("display_name") or path.name,
            "source_sha256": sha,
            "created_by": options.get("user"),
        }
        store(records, row)
    return SetImportResult(name, len(records), False)


def statements_import(path: str | Path, *, name: str, **options: Unpack[SetImportOptions]) -> SetImportResult:
    path = Path(path)

    def store(records: list[Any], row: dict[str, Any]) -> None:
        models_answered = sorted({m for r in records for m in r.model_answers})
        sset = StatementSet.objects.create(**row, models_answered=models_answered, statement_count=len(records))
        Statement.objects.bulk_create(
            [
                Statement(
                    statement_set=sset,
                    position=i,
                    external_id=r.external_id,
                    text=r.text,
                    features=r.features,
                    category=r.category,
                    elicitation=r.elicitation,
                    human_majority=r.human_majority,
                    model_answers=r.model_answers,
                )
                for i, r in enumerate(records)
            ],
            batch_size=2000,
        )

    return _set_import(
        StatementSet,
        "statement set",
        path,
        name=name,
        read=lambda: read_statements_csv(path),
        store=store,
        options=options,
    )


QUESTION_SET_KIND = {
    "csqa": QuestionSet.Kind.MCQA,
    "rica-probes": QuestionSet.Kind.RICA_PROBES,
    "rica-axioms": QuestionSet.Kind.RICA_AXIOMS,
    # COM2 Table 2's transfer sets (commonsense.io.transfer), multiple-choice questions
    "anli": QuestionSet.Kind.MCQA,
    "piqa": QuestionSet.Kind.MCQA,
    "siqa": QuestionSet.Kind.MCQA,
    "winogrande": QuestionSet.Kind.MCQA,
}


def questions_import(path: str | Path, *, name: str, fmt: str, **options: Unpack[SetImportOptions]) -> SetImportResult:
    path = Path(path)
    if fmt not in QUESTION_SET_KIND:
        raise ImportRefused(f"unknown question format {fmt!r}; choose one of {', '.join(QUESTION_SET_KIND)}")

    def store(records: list[Any], row: dict[str, Any]) -> None:
        qset = QuestionSet.objects.create(
            **row, kind=QUESTION_SET_KIND[fmt], params={"format": fmt}, question_count=len(records)
        )
        questions_store([question_row(qset, i, r) for i, r in enumerate(records)])
        from .set_quality import question_set_quality

        question_set_quality(qset)  # text checks and the shortcut audit

    return _set_import(
        QuestionSet,
        "question set",
        path,
        name=name,
        read=lambda: read_questions(path, fmt),
        store=store,
        options=options,
    )


__all__ = [
    "DataFormatError",
    "DuplicateContent",
    "GraphImportResult",
    "ImportRefused",
    "graph_import",
    "statements_import",
    "questions_import",
]
