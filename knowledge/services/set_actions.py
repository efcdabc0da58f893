"""What a researcher does to a question set from its page: export it (JSONL, CSV, an lm-eval task
or a Hugging Face dataset folder as a zip), rename it, delete it. A set that model runs or annotation campaigns use is neither
renamed (their results are filed under its name) nor deleted (its runs would go with it;
campaigns protect it): the refusal names who uses it.

``knowledge`` sits below ``runs`` and ``annotation``, so the users of a set are found through the
model relations pointing at it (``QuestionSet._meta``), not by importing those apps."""

from __future__ import annotations

import io
import tempfile
import zipfile
from pathlib import Path
from typing import Any

from django.core.exceptions import ValidationError
from django.db import models, transaction

from commonsense.questions.export import task_name
from knowledge.models import Question, QuestionSet
from knowledge.services.names import name_check
from knowledge.services.set_exports import EXPORT_FORMATS, question_set_export_file
from knowledge.signals import question_set_export_refused

CONTENT_TYPES = {
    "jsonl": "application/x-ndjson",
    "csv": "text/csv; charset=utf-8",
    "lm-eval": "application/zip",
    "hf": "application/zip",
    "finetune-prompt": "application/x-ndjson",
    "finetune-chat": "application/x-ndjson",
}
FOLDERS = {"lm-eval": "lm-eval", "hf": "hf"}  # formats written as a folder, downloaded as its zip


def question_set_export_refusal(qset: QuestionSet, user: Any, fmt: str) -> str | None:
    """Why ``user`` may not export ``qset`` in ``fmt`` (the apps above decide: people's answers go
    by their campaign's export rule), or None."""
    for _, reason in question_set_export_refused.send(sender=QuestionSet, question_set=qset, user=user, fmt=fmt):
        if reason:
            return str(reason)
    return None


def question_set_export_bytes(qset: QuestionSet, fmt: str) -> tuple[bytes, str, str]:
    """``(body, content type, file name)`` of the set in ``fmt``, written by the same code as the
    ``export_questions`` command; a folder (the lm-eval task, the Hugging Face dataset) comes as one zip."""
    if fmt not in EXPORT_FORMATS:
        raise ValidationError(f"unknown export format {fmt!r}; choose one of {', '.join(EXPORT_FORMATS)}")
    with tempfile.TemporaryDirectory() as tmp:
        if fmt in FOLDERS:
            folder = Path(tmp) / "out"
            question_set_export_file(qset.name, fmt, folder)
            buf = io.BytesIO()
            with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
                for f in sorted(folder.rglob("*")):
                    if f.is_file():
                        zf.write(f, f.relative_to(folder).as_posix())
            return buf.getvalue(), CONTENT_TYPES[fmt], f"{task_name(qset.name)}-{FOLDERS[fmt]}.zip"
        out = question_set_export_file(qset.name, fmt, Path(tmp) / f"{qset.name}.{fmt}")
        return out.read_bytes(), CONTENT_TYPES[fmt], out.name


def question_set_usage(qset: QuestionSet) -> list[tuple[str, int]]:
    """``[(what, count)]`` of the rows outside the set that point at it and would block or be
    lost with its deletion (model runs, annotation campaigns …); its own questions and build
    jobs (which only remember the set) do not count."""
    used: list[tuple[str, int]] = []
    for rel in QuestionSet._meta.get_fields(include_hidden=True):
        if not (rel.one_to_many and rel.auto_created) or rel.related_model is Question:
            continue
        if rel.on_delete not in (models.CASCADE, models.PROTECT):  # type: ignore[union-attr,operator]
            continue
        n = rel.related_model._default_manager.filter(**{rel.field.name: qset}).count()  # type: ignore[union-attr]
        if n:
            used.append((str(rel.related_model._meta.verbose_name_plural), n))  # type: ignore[union-attr]
    return used


def question_set_rename(qset: QuestionSet, new_name: str) -> QuestionSet:
    """Rename a set no run or campaign uses yet (their results, exports and commands name the
    set: a new name would disown them); refused, with who uses it, otherwise."""
    new_name = name_check(new_name)
    if new_name == qset.name:
        return qset
    with transaction.atomic():
        used = question_set_usage(qset)
        if used:
            what = ", ".join(f"{n} {name}" for name, n in used)
            raise ValidationError(
                f"question set {qset.name!r} is used by {what}: renaming it would change the name their "
                "results and exports are filed under"
            )
        if QuestionSet.objects.select_for_update().filter(name=new_name).exists():
            raise ValidationError(f"there is already a question set named {new_name!r}")
        qset.name = new_name
        qset.save(update_fields=["name"])
    return qset


def question_set_delete(qset: QuestionSet) -> int:
    """Delete the set and its questions; refused, with who uses it, while anything does."""
    with transaction.atomic():
        used = question_set_usage(qset)
        if used:
            what = ", ".join(f"{n} {name}" for name, n in used)
            raise ValidationError(f"question set {qset.name!r} is used by {what}; delete those first (or keep the set)")
        n = qset.question_count
        qset.delete()
    return n
