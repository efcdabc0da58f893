"""The plain record of one built question: what export_questions writes as JSONL and what the
Django layer stores in ``knowledge.models.Question``."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any

N_OPTIONS = 5


def derive_seed(seed: int, *parts: object) -> int:
    """A 63-bit seed for one sub-task, stable across Python versions and processes."""
    key = ":".join([str(seed), *map(str, parts)]).encode()
    return int.from_bytes(hashlib.sha256(key).digest()[:8], "big") >> 1


UNORDERED_STRUCTURES = frozenset({"2i", "3i"})  # intersections: the branches have no order


def question_relation(metadata: dict[str, Any], structure: str = "") -> str:
    """The relation an error view groups a question by: ``relation`` when the source gives one
    (imported sets); for a built question the relations of its golden chain — one name when they
    are all the same (1p, 2i xReact ∧ xReact), else the distinct names joined by ``+``: in chain
    order for a path (2p xWant → xEffect gives ``xWant+xEffect``), sorted for an intersection
    (``structure`` 2i / 3i: xReact ∧ xAttr and xAttr ∧ xReact are one ``xAttr+xReact``)."""
    rel = metadata.get("relation")
    if rel:
        return str(rel)
    rels = metadata.get("relations")
    if not isinstance(rels, list):
        return ""
    names = list(dict.fromkeys(str(r) for r in rels if r))
    return "+".join(sorted(names) if structure in UNORDERED_STRUCTURES else names)


@dataclass
class BuiltQuestion:
    id: str
    kind: str  # query structure: 1p 2p 3p 2i 3i ip pi 2in, or rica-probe
    context: str
    question: str
    options: list[str]
    answer_index: int
    answers: list[str]  # every correct answer text (names applied), sorted
    anchors: list[str] = field(default_factory=list)
    relations: list[str] = field(default_factory=list)
    chain: list[list[str]] = field(default_factory=list)  # golden path, [head, relation, tail] graph texts
    group: str = ""
    role: str = ""
    seed: int = 0
    metadata: dict[str, Any] = field(default_factory=dict)
    triple_refs: list[int] = field(default_factory=list)  # ids carried by the index (database triples)

    @property
    def answer(self) -> str:
        return self.options[self.answer_index]

    def to_dict(self, set_name: str = "") -> dict[str, Any]:
        """JSON-ready, in a fixed key order (the export is byte-reproducible)."""
        return {
            "id": self.id,
            "set": set_name,
            "kind": self.kind,
            "context": self.context,
            "question": self.question,
            "options": list(self.options),
            "answer_index": self.answer_index,
            "answers": list(self.answers),
            "anchors": list(self.anchors),
            "relations": list(self.relations),
            "chain": [list(c) for c in self.chain],
            "group": self.group,
            "role": self.role,
            "seed": self.seed,
            "metadata": self.metadata,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> BuiltQuestion:
        return cls(
            id=str(d["id"]),
            kind=str(d["kind"]),
            context=str(d.get("context", "")),
            question=str(d["question"]),
            options=list(d["options"]),
            answer_index=int(d["answer_index"]),
            answers=list(d.get("answers", [])),
            anchors=list(d.get("anchors", [])),
            relations=list(d.get("relations", [])),
            chain=[list(c) for c in d.get("chain", [])],
            group=str(d.get("group", "")),
            role=str(d.get("role", "")),
            seed=int(d.get("seed", 0)),
            metadata=dict(d.get("metadata", {})),
        )
