"""A ``Question`` row from a record, made in one place (issue 30 item 4): a built question
(:class:`~commonsense.questions.record.BuiltQuestion`, the builds), an imported one
(:class:`~commonsense.io.records.QuestionRecord`, the question imports) or a stored row copied into
a new set with what changed (the verified sets of ``annotation/services/verified.py`` and
``rica_verified.py``); and back, a stored row as the record the exporters write
(:func:`built_question`). :func:`questions_store` writes the rows and their triple links."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from commonsense.io.records import QuestionRecord
from commonsense.questions.record import BuiltQuestion
from knowledge.models import Question, QuestionSet

_UNSET: Any = object()
# a built question's provenance, kept beside its metadata on the row (and popped back by built_question)
_BUILT_KEYS = ("anchors", "relations", "chain", "seed")


def question_row(
    qset: QuestionSet,
    position: int,
    record: BuiltQuestion | QuestionRecord | Question,
    *,
    options: list[str] | None = None,
    answer_index: int | None = _UNSET,
    answers: list[str] | None = None,
    metadata: dict[str, Any] | None = None,
) -> Question:
    """The row of ``record`` at ``position`` of ``qset``. ``options`` / ``answer_index`` /
    ``answers`` replace the record's (a verified item's rewritten options, a flipped gold);
    ``metadata`` is merged over the record's. ``answers`` defaults to the record's own (a built
    question's every correct answer) or else the option at ``answer_index`` (none when None)."""
    if isinstance(record, BuiltQuestion):
        own: dict[str, Any] = {
            "external_id": record.id,
            "context": record.context,
            "stem": record.question,
            "structure": record.kind,
            "group": record.group,
            "role": record.role,
            "answers": list(record.answers),
            "metadata": {**record.metadata, **{k: getattr(record, k) for k in _BUILT_KEYS}},
        }
    else:  # an imported record, or a stored row: the same field names (a record has no role)
        own = {k: getattr(record, k) for k in ("external_id", "context", "stem", "structure", "group")}
        own["role"] = getattr(record, "role", "")
        own["answers"] = None  # the answer at the (perhaps changed) gold
        own["metadata"] = dict(record.metadata or {})
    opts = list(record.options if options is None else options)
    gold = record.answer_index if answer_index is _UNSET else answer_index
    if answers is None:
        answers = own["answers"] if own["answers"] is not None and options is None and answer_index is _UNSET else None
    if answers is None:
        answers = [opts[gold]] if gold is not None else []
    return Question(
        question_set=qset,
        position=position,
        external_id=own["external_id"],
        context=own["context"],
        stem=own["stem"],
        options=opts,
        answer_index=gold,
        answers=answers,
        structure=own["structure"],
        group=own["group"],
        role=own["role"],
        metadata={**own["metadata"], **(metadata or {})},
    )


def questions_store(rows: Sequence[Question], triples: Sequence[Iterable[int]] | None = None) -> list[Question]:
    """Store ``rows`` (batched) and, when given, each row's triples (``triples[i]`` for ``rows[i]``,
    repeats dropped); returns the stored rows."""
    stored = Question.objects.bulk_create(list(rows), batch_size=2000)
    if triples is not None:
        through = Question.triples.through
        links = [
            through(question_id=row.pk, triple_id=ref)
            for row, refs in zip(stored, triples, strict=True)
            for ref in dict.fromkeys(refs)
        ]
        through.objects.bulk_create(links, batch_size=5000, ignore_conflicts=True)
    return stored


def built_question(row: Question) -> BuiltQuestion:
    """A stored row as the record the exporters write (the inverse of :func:`question_row` of a built question)."""
    md = dict(row.metadata or {})
    return BuiltQuestion(
        id=row.external_id or str(row.position),
        kind=row.structure,
        context=row.context,
        question=row.stem,
        options=list(row.options),
        answer_index=row.answer_index if row.answer_index is not None else -1,
        answers=list(row.answers),
        anchors=list(md.pop("anchors", [])),
        relations=list(md.pop("relations", [])),
        chain=[list(c) for c in md.pop("chain", [])],
        group=row.group,
        role=row.role,
        seed=int(md.pop("seed", 0) or 0),
        metadata=md,
    )
