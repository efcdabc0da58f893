"""The explorer reads knowledge and runs rows: their factories, from those apps' test packages."""

from tests.knowledge.factories import (
    GraphFactory,
    NodeFactory,
    QuestionFactory,
    QuestionSetFactory,
    RelationFactory,
    SourceFactory,
    StatementFactory,
    StatementSetFactory,
    TripleFactory,
)
from tests.runs.factories import make_run, predict, predict_statement

__all__ = [
    "GraphFactory",
    "NodeFactory",
    "QuestionFactory",
    "QuestionSetFactory",
    "RelationFactory",
    "SourceFactory",
    "StatementFactory",
    "StatementSetFactory",
    "TripleFactory",
    "make_run",
    "predict",
    "predict_statement",
]
