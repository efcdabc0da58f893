"""Relation registry: every relation cocoweb knows, with the papers' templates.

Sources: COM2 Table 8 / CoCo Table 8 (prompt inside logical-query questions), CoCo Table 6
(question prefix for one-hop questions), CoCo Table 7 / COM2 Table 5 (tail normalisation), and
the ATOMIC-2020 human-readable templates (Hwang et al. 2021) used to state a triple as a sentence.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum


class Subject(str, Enum):
    """Who the relation's tail is about."""

    PERSON_X = "PersonX"
    PERSON_Y = "PersonY"
    NONE = ""


class Norm(str, Enum):
    """Tail normalisation rule (COM2 Table 5 / CoCo Table 7)."""

    PREFIX = "prefix"  # add PersonX/Y in front of the tail
    PREFIX_DROP_TO = "prefix_drop_to"  # add PersonX/Y and remove an initial "to"
    PREFIX_IS = "prefix_is"  # add PersonX/Y and "is"
    NONE = "none"  # the tail is already an event (or a physical entity)


class Category(str, Enum):
    SOCIAL = "social"
    EVENT = "event"
    PHYSICAL = "physical"


@dataclass(frozen=True)
class Relation:
    name: str
    category: Category
    subject: Subject
    norm: Norm
    statement: str  # ATOMIC-2020 human-readable template: "{head} {statement} {tail}"
    prompt: str | None = None  # COM2/CoCo Table 8 prompt (logical-query questions)
    question: str | None = None  # CoCo Table 6 one-hop question prefix
    # Time order of the tail relative to the head: +1 the tail follows the head (effects, wants),
    # -1 the tail precedes it (needs, intents, causes), 0 simultaneous / atemporal.
    time_order: int = 0

    @property
    def tail_is_event(self) -> bool:
        return self.category is not Category.PHYSICAL


_X, _Y, _N = Subject.PERSON_X, Subject.PERSON_Y, Subject.NONE
_S, _E, _P = Category.SOCIAL, Category.EVENT, Category.PHYSICAL

RELATIONS: dict[str, Relation] = {
    r.name: r
    for r in [
        # Social-interaction relations (ATOMIC 2019's nine + xReason).
        Relation(
            "xIntent",
            _S,
            _X,
            Norm.PREFIX_DROP_TO,
            "because PersonX wanted",
            "the intention of PersonX before",
            "What is the intention of PersonX before",
            -1,
        ),
        Relation(
            "xNeed",
            _S,
            _X,
            Norm.PREFIX_DROP_TO,
            "but before, PersonX needed",
            "what PersonX needed to do before",
            "What does PersonX need to do before",
            -1,
        ),
        Relation(
            "xWant",
            _S,
            _X,
            Norm.PREFIX_DROP_TO,
            "as a result, PersonX wants",
            "what PersonX wants to do after",
            "What does PersonX want to do after",
            1,
        ),
        Relation(
            "xEffect",
            _S,
            _X,
            Norm.PREFIX,
            "as a result, PersonX will",
            "the effect on PersonX after",
            "What is the effect on PersonX after",
            1,
        ),
        Relation(
            "xReact",
            _S,
            _X,
            Norm.PREFIX_IS,
            "as a result, PersonX feels",
            "what PersonX feels after",
            "What does PersonX feel after",
            1,
        ),
        Relation(
            "xAttr",
            _S,
            _X,
            Norm.PREFIX_IS,
            "PersonX is seen as",
            "what PersonX is seen as given",
            "What is PersonX seen as given",
            0,
        ),
        Relation(
            "oEffect",
            _S,
            _Y,
            Norm.PREFIX,
            "as a result, PersonY or others will",
            "the effect on PersonY after",
            "What is the effect on PersonY after",
            1,
        ),
        Relation(
            "oReact",
            _S,
            _Y,
            Norm.PREFIX_IS,
            "as a result, PersonY or others feel",
            "what PersonY feels after",
            "What does PersonY feel after",
            1,
        ),
        Relation(
            "oWant",
            _S,
            _Y,
            Norm.PREFIX_DROP_TO,
            "as a result, PersonY or others want",
            "what PersonY wants to do after",
            "What does PersonY want to do after",
            1,
        ),
        Relation("xReason", _S, _N, Norm.NONE, "because", "the reason for", "What is the reason for", -1),
        # Event-centred relations.
        Relation("HinderedBy", _E, _N, Norm.NONE, "can be hindered by", "what hindered", "What hindered", -1),
        Relation("isAfter", _E, _N, Norm.NONE, "happens after", "what happens before", "What happens before", -1),
        Relation("isBefore", _E, _N, Norm.NONE, "happens before", "what happens after", "What happens after", 1),
        Relation("Causes", _E, _N, Norm.NONE, "causes", "what is caused by", "What is caused by", 1),
        Relation(
            "HasSubEvent", _E, _N, Norm.NONE, "includes the event/action", "what is part of", "What is part of", 0
        ),
        Relation(
            "isFilledBy",
            _E,
            _N,
            Norm.NONE,
            "blank can be filled by",
            "what can fill the blank in",
            "What can fill the blank in",
            0,
        ),
        # CSKB-Population's subject-less variants (ASER-normalised data).
        Relation(
            "general Effect",
            _E,
            _N,
            Norm.NONE,
            "as a result, others will",
            "the effect on others after",
            "What is the effect on others after",
            1,
        ),
        Relation(
            "general Want",
            _E,
            _N,
            Norm.NONE,
            "as a result, others want",
            "what others want to do after",
            "What do others want to do after",
            1,
        ),
        Relation(
            "general React",
            _E,
            _N,
            Norm.NONE,
            "as a result, others feel",
            "what others feel after",
            "What do others feel after",
            1,
        ),
        # Physical-entity relations.
        Relation("ObjectUse", _P, _N, Norm.NONE, "is used for", "what is used for", "What is used for"),
        Relation("AtLocation", _P, _N, Norm.NONE, "is located or found at/in/on", "where is found", "Where is found"),
        Relation("MadeUpOf", _P, _N, Norm.NONE, "is made up of", "what makes up", "What makes up"),
        Relation(
            "HasProperty",
            _P,
            _N,
            Norm.NONE,
            "can be characterized by being/having",
            "what characterizes",
            "What characterizes",
        ),
        Relation("CapableOf", _P, _N, Norm.NONE, "is capable of", "what is capable of", "What is capable of"),
        Relation("Desires", _P, _N, Norm.NONE, "desires", "what is desired by", "What is desired by"),
        Relation(
            "NotDesires", _P, _N, Norm.NONE, "does not desire", "what is not desired by", "What is not desired by"
        ),
    ]
}

# The nine relations of ATOMIC 2019 that CoCo evaluates (Table 1 / Table 4 order).
COCO_RELATIONS: tuple[str, ...] = (
    "oEffect",
    "oReact",
    "oWant",
    "xAttr",
    "xEffect",
    "xIntent",
    "xNeed",
    "xReact",
    "xWant",
)
# The twelve relations COM2 verbalises in complex queries (Table 8).
COM2_RELATIONS: tuple[str, ...] = COCO_RELATIONS + ("HinderedBy", "isAfter", "isBefore")

_LOWER = {name.lower(): name for name in RELATIONS}


class UnknownRelation(KeyError):
    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.name = name

    def __str__(self) -> str:
        return f"unknown relation {self.name!r} (known: {', '.join(sorted(RELATIONS))})"


def get(name: str) -> Relation:
    """Return the relation by its exact name, or by a case-insensitive match."""
    rel = RELATIONS.get(name) or RELATIONS.get(_LOWER.get(name.strip().lower(), ""))
    if rel is None:
        raise UnknownRelation(name)
    return rel


def canonical_name(name: str) -> str:
    return get(name).name
