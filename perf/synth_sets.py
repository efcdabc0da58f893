"""A CoCo-shaped synthetic question set for the benchmarks, laid out as ``knowledge.services.builds``
stores a real one: 1/4 memorization sets, 3/8 comprehension sets (memorization + 3
conceptualizations), 3/8 application sets (2 or 3 atomic 1p questions + one reasoning question of
kind 2i/2p/ip/pi), so accuracy by kind and relation and the CoCo scores are computed as on real
data. Sets are never cut: a set that would overflow ``n`` is dropped and the rest filled with
one-question memorization sets."""

from __future__ import annotations

import random
from typing import Any

RELATIONS = ("oEffect", "oReact", "oWant", "xAttr", "xEffect", "xIntent", "xNeed", "xReact", "xWant")
KINDS = ("2i", "2p", "ip", "pi")


def coco_shaped_set(name: str, n: int, *, seed: int = 0, difficulty: bool = False) -> tuple[Any, random.Random]:
    """Store the set (``n`` questions) and return it with the generator it drew from (callers
    continue drawing from it). ``difficulty``: a ReComSBench d(Q) in 1..7 in every question's
    metadata."""
    from django.db import transaction

    from knowledge.models import Question, QuestionSet

    rng = random.Random(seed)
    qset = QuestionSet.objects.create(name=name, kind=QuestionSet.Kind.COCO, question_count=n)
    rows: list[Question] = []

    def add(role: str, group: str, structure: str, relation: str) -> None:
        a = rng.randrange(5)
        meta: dict[str, Any] = {"relation": relation}
        if difficulty:
            meta["difficulty"] = rng.randrange(1, 8)
        rows.append(
            Question(
                question_set=qset,
                position=len(rows),
                external_id=f"e{len(rows)}",
                stem=f"What event or state is item {len(rows)}?",
                options=[f"option {i}" for i in range(5)],
                answer_index=a,
                answers=[f"option {a}"],
                structure=structure,
                group=group,
                role=role,
                metadata=meta,
            )
        )

    while len(rows) < n:
        r, kind, g = rng.choice(RELATIONS), rng.random(), f"set{len(rows)}"
        if kind < 0.25:
            add("memorization", g, "1p", r)
        elif kind < 0.625:
            add("memorization", g, "1p", r)
            for k in (1, 2, 3):
                add(f"conceptualization_{k}", g, "1p", r)
        else:
            qk = rng.choice(KINDS)
            for k in range(1, (3 if qk in ("2i", "2p") else 4)):
                add(f"atomic_{k}", g, "1p", rng.choice(RELATIONS))
            add("reasoning", g, qk, r)
    last = rows[n - 1].group if len(rows) > n else None
    rows = [q for q in rows[:n] if q.group != last] if last else rows[:n]
    while len(rows) < n:
        add("memorization", f"set{len(rows)}", "1p", rng.choice(RELATIONS))
    with transaction.atomic():
        Question.objects.bulk_create(rows, batch_size=5000)
    return qset, rng
