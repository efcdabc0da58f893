"""Publish a question set as a Hugging Face dataset folder (issue 26 item 6): ``export_questions
SET --format hf --out DIR`` and the set page's download (the folder as a zip).

This module gathers what ``knowledge`` knows of the set - its items with the answer, the files its
graph or its questions were imported from (and their licences, :mod:`commonsense.io.known_data`),
the build parameters, the stored quality report and its shortcut audit - and asks the apps above
it for the human part (answers, votes, campaign, agreement) through registered contributors
(``annotation`` registers one in its ``AppConfig.ready``), so ``knowledge`` imports none of them.
The folder is written by :func:`commonsense.questions.publish.write_hf`."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from commonsense.io.known_data import known_data
from commonsense.questions.publish import AnswerRow, ItemRow, Publication, SourceFile, VoteRow, write_hf
from commonsense.questions.record import BuiltQuestion
from commonsense.validation import NONE_CORRECT
from knowledge.models import ImportSource, Question, QuestionSet
from knowledge.services.set_quality import quality_lines
from knowledge.services.shortcuts import question_set_shortcuts
from knowledge.signals import question_set_human_part_wanted


@dataclass(slots=True)
class HumanPart:
    """What a higher app knows of the set's human validation; rows name items by :func:`item_ref`."""

    answers: list[AnswerRow]
    votes: list[VoteRow]
    campaign: dict[str, Any]
    agreement: dict[str, Any] = field(default_factory=dict)
    counts: dict[str, Any] = field(default_factory=dict)


def item_ref(q: Question) -> str:
    """A stored question's id in the export (as :func:`knowledge.services.question_rows.built_question` names it)."""
    return q.external_id or str(q.position)


def _item_row(pos: int, q: BuiltQuestion) -> ItemRow:
    ok = 0 <= q.answer_index < len(q.options)
    return ItemRow(
        id=q.id,
        position=pos,
        kind=q.kind,
        context=q.context,
        question=q.question,
        options=[str(o) for o in q.options],
        answer_index=q.answer_index,
        answer=str(q.options[q.answer_index]) if ok else "",
        answers=[str(a) for a in q.answers],
        anchors=[str(a) for a in q.anchors],
        relations=[str(r) for r in q.relations],
        chain=[[str(x) for x in c] for c in q.chain],
        group=q.group,
        role=q.role,
        option_provenance=[str(x) for x in q.metadata.get("option_provenance") or []],
    )


def _origin(qset: QuestionSet, seen: set[int] | None = None) -> QuestionSet:
    """The set whose graph or file the items come from: a verified set's source set (recursively)."""
    seen = seen or set()
    src = ((qset.params or {}).get("verified_from") or {}).get("source_set")
    if src and qset.pk not in seen:
        seen.add(qset.pk)
        parent = QuestionSet.objects.filter(name=src).first()
        if parent is not None:
            return _origin(parent, seen)
    return qset


def question_set_sources(qset: QuestionSet) -> list[SourceFile]:
    origin = _origin(qset)
    files: list[SourceFile] = []
    if origin.graph_id is not None:
        for s in ImportSource.objects.filter(graph_id=origin.graph_id).order_by("imported_at", "pk"):
            data, how = known_data(s.sha256, s.format)
            files.append(SourceFile(s.filename, s.format, s.sha256, s.rows, data, how))
    elif origin.source:
        fmt = str((origin.params or {}).get("format", ""))
        data, how = known_data(origin.source_sha256, fmt)
        files.append(SourceFile(origin.source, fmt, origin.source_sha256, origin.question_count, data, how))
    return files


def _build(qset: QuestionSet) -> dict[str, Any]:
    out: dict[str, Any] = {"set": qset.name, "kind": qset.kind, "source": qset.source, "seed": qset.seed}
    if qset.graph is not None:
        out["graph"] = qset.graph.name
    out["params"] = qset.params or {}
    out["created_at"] = qset.created_at.date().isoformat() if qset.created_at else None
    return out


def _counts(items: list[ItemRow]) -> dict[str, Any]:
    counts: dict[str, Any] = {"items": len(items)}
    for kind, n in sorted(Counter(i["kind"] for i in items).items()):
        counts[f"items of kind {kind or '(none)'}"] = n
    counts["answer is 'None of the answers are correct.'"] = sum(i["answer"] == NONE_CORRECT for i in items)
    return counts


def question_set_publication(qset: QuestionSet, questions: list[BuiltQuestion]) -> Publication:
    items = [_item_row(i, q) for i, q in enumerate(questions)]
    quality = qset.quality or {}
    pub = Publication(
        name=qset.name,
        description=qset.description,
        kind=qset.kind,
        items=items,
        sources=question_set_sources(qset),
        build=_build(qset),
        counts=_counts(items),
        # the shortcut audit (issue 25): the stored one, else computed now (without the option-only
        # baseline, which needs a model on a worker: the card then says it was not computed); the
        # quality lines leave it out (the card has its own section for it)
        shortcuts=quality.get("shortcuts") or question_set_shortcuts(qset),
        quality=quality_lines(quality, shortcuts=False) if quality else [],
    )
    ids = {i["id"] for i in items}
    # the apps above knowledge (annotation) contribute the human part
    for _, got in question_set_human_part_wanted.send(sender=QuestionSet, question_set=qset):
        if got is None:
            continue
        human = cast(HumanPart, got)
        pub.answers = [a for a in human.answers if a["item"] in ids]
        pub.votes = [v for v in human.votes if v["item"] in ids]
        pub.campaign, pub.agreement = human.campaign, human.agreement
        pub.counts.update(human.counts)
        pub.counts["answers published"] = len(pub.answers)
        pub.counts["annotators"] = len({a["annotator"] for a in pub.answers})
        break
    return pub


def question_set_publish(qset: QuestionSet, questions: list[BuiltQuestion], out_dir: str | Path) -> Path:
    """Write the folder; return it."""
    write_hf(question_set_publication(qset, questions), out_dir)
    return Path(out_dir)
