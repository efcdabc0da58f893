"""Reads over questions for the explorer: the filtered, paginated list and one question with its
chain, its group (CoCo sets, RICA axioms), votes and every run's prediction."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, TypedDict, overload

from django.db.models import Count, Exists, F, OuterRef, Q, QuerySet, Subquery

from knowledge.models import Question, QuestionSet, Relation, Triple

from . import sources

ANSWER_COUNT_CHOICES = ["0", "1", "2", "3", "4", "5+"]
# what a row of the list shows (the rest of a question, its JSON above all, is not read)
LIST_COLUMNS = ("id", "question_set_id", "position", "stem", "structure", "role")


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
    """The questions the filters keep, in the list's order (set name, position), each with its
    ``n_answers`` (``Question.answer_count``). :func:`question_pages` pages it."""
    qs = Question.objects.select_related("question_set").annotate(n_answers=F("answer_count"))
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


class QuestionPages:
    """:func:`question_list` as Django's Paginator reads it (``count()``, then one slice), without
    sorting every matching question by a column of another table.

    Ordered by (set name, position) in one statement, PostgreSQL read every match (120,000 at perf
    scale), set by set in name order, and sorted the whole first set to keep 25 rows; it joined them
    to their set through a materialised copy of every matching row, written to temporary files (its
    guess for the JSON answer-count filter was 0.5 % of the rows). Here the count is one statement,
    the matches counted per set (:meth:`per_set`, the sets in name order, each counted through its
    own index range), and a page is read set by set in position order, from the
    ``question_by_answer_count`` or ``question_unique_position`` index, stopping at its last row:
    one statement, two on the page where one set ends and the next begins. The same rows in the
    same order as :func:`question_list` (a test compares every page)."""

    def __init__(self, qs: QuerySet[Question]) -> None:
        self._qs = qs.order_by()
        self._sets: list[tuple[QuestionSet, int]] | None = None

    def per_set(self) -> list[tuple[QuestionSet, int]]:
        """(set, matching questions) of every set with a match, in name order; one statement."""
        if self._sets is None:
            n = self._qs.filter(question_set_id=OuterRef("pk")).values("question_set_id").annotate(n=Count("*"))
            sets = QuestionSet.objects.annotate(n_match=Subquery(n.values("n"))).order_by("name")
            self._sets = [(s, int(s.n_match)) for s in sets if s.n_match]
        return self._sets

    def count(self) -> int:
        return sum(n for _, n in self.per_set())

    def __len__(self) -> int:
        return self.count()

    def __iter__(self) -> Iterator[Question]:
        return iter(self[0 : self.count()])

    @overload
    def __getitem__(self, k: int) -> Question: ...

    @overload
    def __getitem__(self, k: slice) -> list[Question]: ...

    def __getitem__(self, k: int | slice) -> Question | list[Question]:
        if isinstance(k, int):
            if not 0 <= k < self.count():
                raise IndexError(k)
            return self[k : k + 1][0]
        if k.step is not None:
            raise TypeError("QuestionPages takes a slice without a step")
        start, stop = max(k.start or 0, 0), self.count() if k.stop is None else k.stop
        out: list[Question] = []
        first = 0  # index of the set's first match in the whole list
        for qset, n in self.per_set():
            lo, hi = max(start - first, 0), min(stop - first, n)
            if lo < hi:
                rows = list(
                    self._qs.filter(question_set_id=qset.pk)
                    .select_related(None)
                    .only(*LIST_COLUMNS)
                    .order_by("position")[lo:hi]
                )
                for q in rows:
                    q.question_set = qset
                out.extend(rows)
            first += n
            if first >= stop:
                break
        return out


def question_pages(f: QuestionFilters) -> QuestionPages:
    """The filtered list for the Paginator: :class:`QuestionPages` of :func:`question_list`."""
    return QuestionPages(question_list(f))


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
