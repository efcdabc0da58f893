"""factory_boy factories for knowledge rows (graphs, triples, question and statement sets).

Factories write rows directly; tests of behaviour that the import or build services own make their
data through those services instead (fixtures in tests/conftest.py)."""

from __future__ import annotations

import factory

from knowledge.models import Graph, ImportSource, Node, Question, QuestionSet, Relation, Statement, StatementSet, Triple


class GraphFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Graph

    name = factory.Sequence(lambda n: f"graph-{n}")


class RelationFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Relation
        django_get_or_create = ("name",)

    name = "xWant"


class NodeFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Node

    graph = factory.SubFactory(GraphFactory)
    text = factory.Sequence(lambda n: f"PersonX does thing {n}")


class SourceFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = ImportSource

    graph = factory.SubFactory(GraphFactory)
    filename = "demo.tsv"
    sha256 = factory.Sequence(lambda n: f"{n:064d}")
    format = "atomic-tsv"


class TripleFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Triple

    graph = factory.SubFactory(GraphFactory)
    head = factory.SubFactory(NodeFactory, graph=factory.SelfAttribute("..graph"))
    relation = factory.SubFactory(RelationFactory)
    tail = factory.SubFactory(NodeFactory, graph=factory.SelfAttribute("..graph"))
    plausibility = 0.9
    source = None
    source_line = None


class QuestionSetFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = QuestionSet

    name = factory.Sequence(lambda n: f"qset-{n}")
    kind = QuestionSet.Kind.COM2


class QuestionFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Question

    question_set = factory.SubFactory(QuestionSetFactory)
    position = factory.Sequence(lambda n: n)
    stem = factory.Sequence(lambda n: f"What event or state is question {n}?")
    options = factory.LazyFunction(lambda: ["a", "b", "c", "d", "e"])
    answer_index = 0
    answers = factory.LazyAttribute(lambda q: [q.options[q.answer_index]] if q.answer_index is not None else [])
    structure = "2p"
    metadata = factory.LazyFunction(dict)


class StatementSetFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = StatementSet

    name = factory.Sequence(lambda n: f"sset-{n}")


class StatementFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Statement

    statement_set = factory.SubFactory(StatementSetFactory)
    position = factory.Sequence(lambda n: n)
    text = factory.Sequence(lambda n: f"Statement {n} is common sense.")
    features = factory.LazyFunction(lambda: {"behavior": 1, "opinion": 0})
    human_majority = 1
