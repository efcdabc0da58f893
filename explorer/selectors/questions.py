"""Reads over questions for the explorer: the filtered, paginated list and one question with its
chain, its group (CoCo sets, RICA axioms), votes and every run's prediction."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, TypedDict

from django.db.models import Exists, Func, IntegerField, OuterRef, Q, QuerySet

from knowledge.models import Question, QuestionSet, Relation, Triple

from . import sources

ANSWER_COUNT_CHOICES = ["0", "1", "2", "3", "4", "5+"]


class JsonArrayLength(Func):
    """Length of a JSON array column, in the database (SQLite json_array_length / PG jsonb_array_length)."""

    function = "JSON_ARRAY_LENGTH"
    output_field = IntegerField()

    def as_postgresql(self, compiler: Any, connection: Any, **extra: Any) -> Any:
        return self.as_sql(compiler, connection, function="JSONB_ARRAY_LENGTH", **extra)


@dataclass
class QuestionFilters:
    set: str = ""
    kind: str = ""
    relation: str = ""
    answers: str = ""
    validation: str = ""
    q: str = ""

    @classmethod
    def from_query(cls, params: Any) -> QuestionFilters:
        return cls(
            **{
                k: (params.get(k) or "").strip()[:100]
                for k in ("set", "kind", "relation", "answers", "validation", "q")
            }
        )

    def active(self) -> dict[str, str]:
        return {k: v for k, v in self.__dict__.items() if v}


def question_list(f: QuestionFilters) -> QuerySet[Question]:
    qs = Question.objects.select_related("question_set").annotate(n_answers=JsonArrayLength("answers"))
    if f.set:
        qs = qs.filter(question_set__name=f.set)
    if f.kind:
        qs = qs.filter(structure=f.kind)
    if f.relation:  # per remaining row (after the set and kind filters), not over every question
        linked = Question.triples.through.objects.filter(question_id=OuterRef("pk"), triple__relation__name=f.relation)
        qs = qs.filter(Q(metadata__relation=f.relation) | Exists(linked))
    if f.answers in ANSWER_COUNT_CHOICES:
        qs = qs.filter(n_answers__gte=5) if f.answers == "5+" else qs.filter(n_answers=int(f.answers))
    if f.q:
        qs = qs.filter(stem__icontains=f.q)
    if f.validation:
        qs = sources.questions_with_validation(qs, f.validation)
    return qs.order_by("question_set__name", "position")


class QuestionFilterChoices(TypedDict):
    """What the question list's filters offer."""

    sets: list[str]
    kinds: list[str]
    relations: list[str]
    answers: list[str]
    validation: list[str]


def question_filter_choices(f: QuestionFilters) -> QuestionFilterChoices:
    kinds = Question.objects.all()
    if f.set:
        kinds = kinds.filter(question_set__name=f.set)
    return QuestionFilterChoices(
        sets=list(QuestionSet.objects.values_list("name", flat=True)),
        kinds=sorted(k for k in kinds.values_list("structure", flat=True).distinct().order_by() if k),
        relations=list(Relation.objects.order_by("name").values_list("name", flat=True)),
        answers=ANSWER_COUNT_CHOICES,
        validation=sources.validation_choices(),
    )


def question_detail() -> QuerySet[Question]:
    """Questions with their set and its graph (the question page names both)."""
    return Question.objects.select_related("question_set", "question_set__graph")


def question_chain(q: Question) -> list[list[tuple[str, str, str]]]:
    """The golden chain(s) as (head, relation, tail) texts: as the builder recorded them in the
    metadata (ordered), else the linked triples (one query)."""
    meta = q.metadata or {}
    chains = meta.get("chains") or ([meta["chain"]] if meta.get("chain") else [])
    out = [[(str(h), str(r), str(t)) for h, r, t in chain] for chain in chains if chain]
    if out:
        return out
    triples = list(q.triples.select_related("head", "relation", "tail").order_by("id"))
    return [[(t.head.text, t.relation.name, t.tail.text) for t in triples]] if triples else []


def question_triples(q: Question) -> list[Triple]:
    return list(q.triples.select_related("head", "relation", "tail", "source", "graph").order_by("id"))


def question_group(q: Question) -> list[Question]:
    """The other questions of its group (a CoCo set's atomic / reasoning questions, a RICA axiom)."""
    if not q.group:
        return []
    return list(
        Question.objects.filter(question_set_id=q.question_set_id, group=q.group)
        .exclude(pk=q.pk)
        .order_by("position")
        .only("id", "position", "stem", "role", "structure", "question_set_id")
    )


def question_predictions(q: Question) -> list[Any]:
    if not sources.runs_available():
        return []
    from runs.models import Prediction

    return list(Prediction.objects.filter(question=q).select_related("run").order_by("run_id"))


def question_relation(q: Question) -> str:
    return str((q.metadata or {}).get("relation", ""))
