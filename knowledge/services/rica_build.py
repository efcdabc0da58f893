"""``build_rica``: a RICA set rewritten with novel entities (RICA §1.7) by the core function
:func:`commonsense.questions.rica.novel_probes`: random strings of 3–12 letters, seeded, one pair
per axiom (and variant) shared by all its perturbations, never an English word of the shipped word
list; each probe keeps its axiom group and perturbation, and points at the probe it came from."""

from __future__ import annotations

from typing import Any

from django.db import transaction

from commonsense.io.questions import QuestionRecord
from commonsense.questions.rica import novel_probes
from knowledge.models import RICA_KINDS, QuestionSet
from knowledge.services.builds import _store
from knowledge.services.imports import ImportRefused


def _record(q: Any) -> QuestionRecord:
    meta = dict(q.metadata or {})
    meta.setdefault("sentence", meta.get("sentence") or "")
    return QuestionRecord(
        line=q.position + 1,
        external_id=q.external_id or str(q.pk),
        stem=q.stem,
        options=[str(o) for o in q.options],
        answer_index=q.answer_index,
        structure=q.structure,
        group=q.group,
        metadata=meta,
    )


def rica_novel_build(*, source: str, name: str, seed: int, variants: int = 1, user: Any = None) -> QuestionSet:
    """Store ``name``: every probe of the RICA set ``source`` with fresh novel entities."""
    if variants < 1:
        raise ImportRefused("variants must be at least 1")
    src = QuestionSet.objects.filter(name=source).first()
    if src is None:
        raise ImportRefused(f"no question set named {source!r}")
    if src.kind not in RICA_KINDS:
        raise ImportRefused(f"{source!r} is a {src.kind} set; build_rica rewrites RICA axiom or probe sets")
    if QuestionSet.objects.filter(name=name).exists():
        raise ImportRefused(f"a question set named {name!r} already exists")
    records = [_record(q) for q in src.questions.order_by("position")]
    built = novel_probes(records, seed, variants)
    if not built:
        raise ImportRefused(f"{source!r} has no probe with a stored sentence and answer to rewrite")
    for b in built:  # keep the source's structure label so the run metrics treat both alike
        b.kind = "rica-axiom" if src.kind == QuestionSet.Kind.RICA_AXIOMS else b.kind
    with transaction.atomic():
        qset = QuestionSet.objects.create(
            name=name,
            kind=src.kind,
            source=f"{src.name} (novel entities)",
            seed=seed,
            created_by=user,
            params={"source_set": src.name, "seed": seed, "variants": variants, "entities": "novel"},
        )
        _store(qset, built)
    return qset
