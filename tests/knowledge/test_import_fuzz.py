"""Importers fuzzed with hypothesis: any byte content either imports or fails with a located
DataFormatError, and a failure leaves the database exactly as it was."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from commonsense.io import DataFormatError
from knowledge.models import Graph, Node, Question, Statement, Triple
from knowledge.services.imports import (
    GraphImportResult,
    ImportRefused,
    SetImportResult,
    graph_import,
    questions_import,
    statements_import,
)
from tests.conftest import FIXTURES

pytestmark = pytest.mark.django_db

# One valid file of each kind (the fixtures' first rows), so that the success path is always taken.
CSKB_OK = "\n".join((FIXTURES / "ckbp_demo.csv").read_text(encoding="utf-8").splitlines()[:3]).encode() + b"\n"
CSQA_OK = (FIXTURES / "csqa_demo.jsonl").read_text(encoding="utf-8").splitlines()[0].encode() + b"\n"
STATEMENTS_OK = (
    "\n".join((FIXTURES / "statements_demo.csv").read_text(encoding="utf-8").splitlines()[:3]).encode() + b"\n"
)

RELS = ["xWant", "xNeed", "HinderedBy", "Likes", "", "xwant"]
cell = st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\t\n\r"), max_size=30)
tsv_line = st.one_of(
    st.tuples(cell, st.sampled_from(RELS), cell).map(lambda t: "\t".join(t)),
    st.lists(cell, min_size=0, max_size=5).map("\t".join),
)
tsv_bytes = st.one_of(
    st.lists(tsv_line, max_size=8).map(lambda ls: "\n".join(ls).encode()),
    st.binary(max_size=200),
)


def _state() -> tuple[int, ...]:
    return (
        Graph.objects.count(),
        Node.objects.count(),
        Triple.objects.count(),
        Question.objects.count(),
        Statement.objects.count(),
    )


def _check(call, data: bytes, suffix: str) -> None:  # type: ignore[no-untyped-def]
    """Refused with a located error and nothing stored, or stored exactly what it reports."""
    before = _state()
    with tempfile.NamedTemporaryFile(suffix=suffix) as fh:
        fh.write(data)
        fh.flush()
        try:
            result = call(fh.name)
        except DataFormatError as exc:
            assert Path(fh.name).name in str(exc)  # located: names the file
            assert _state() == before
            return
        except ImportRefused:
            assert _state() == before
            return
    _stored_as_reported(result, before)


def _stored_as_reported(result, before: tuple[int, ...]) -> None:  # type: ignore[no-untyped-def]
    """An import that succeeded stored exactly what it reports, and nothing else."""
    graphs, nodes, triples, questions, statements = (a - b for a, b in zip(_state(), before, strict=True))
    if isinstance(result, GraphImportResult):
        if result.already_imported:
            assert _state() == before
            return
        assert graphs in (0, 1)  # a new graph, or triples added to the one of that name
        assert triples == result.triples_added
        assert nodes == result.nodes_added
        assert Triple.objects.filter(graph=result.graph).count() == result.graph.triple_count
        assert (questions, statements) == (0, 0)
    else:
        assert isinstance(result, SetImportResult)
        assert (graphs, nodes, triples) == (0, 0, 0)
        assert questions + statements == (0 if result.already_imported else result.added)


FUZZ = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@FUZZ
@given(tsv_bytes)
def test_graph_import_fuzz(data: bytes) -> None:
    _check(lambda p: graph_import(p, name="fz", fmt="atomic-tsv"), data, ".tsv")


@FUZZ
@given(
    st.one_of(
        st.binary(max_size=200),
        st.lists(st.lists(cell, max_size=7).map(",".join), max_size=6).map(
            lambda ls: ("head,relation,tail,label,class,split\n" + "\n".join(ls)).encode()
        ),
    )
)
@example(CSKB_OK)
def test_cskb_import_fuzz(data: bytes) -> None:
    _check(lambda p: graph_import(p, name="fz", fmt="cskb-csv"), data, ".csv")


@FUZZ
@given(st.one_of(st.binary(max_size=200), st.lists(cell, max_size=5).map(lambda ls: "\n".join(ls).encode())))
@example(CSQA_OK)
@example(STATEMENTS_OK)
def test_question_and_statement_import_fuzz(data: bytes) -> None:
    _check(lambda p: questions_import(p, name="fq", fmt="csqa"), data, ".jsonl")
    _check(lambda p: statements_import(p, name="fs"), data, ".csv")
