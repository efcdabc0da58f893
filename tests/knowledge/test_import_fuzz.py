"""Importers fuzzed with hypothesis: any byte content either imports or fails with a located
DataFormatError, and a failure leaves the database exactly as it was."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from commonsense.io import DataFormatError
from knowledge.models import Graph, Node, Question, Statement, Triple
from knowledge.services.imports import ImportRefused, graph_import, questions_import, statements_import

pytestmark = pytest.mark.django_db

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
    before = _state()
    with tempfile.NamedTemporaryFile(suffix=suffix) as fh:
        fh.write(data)
        fh.flush()
        try:
            call(fh.name)
        except DataFormatError as exc:
            assert Path(fh.name).name in str(exc)  # located: names the file
            assert _state() == before
        except ImportRefused:
            assert _state() == before


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
def test_cskb_import_fuzz(data: bytes) -> None:
    _check(lambda p: graph_import(p, name="fz", fmt="cskb-csv"), data, ".csv")


@FUZZ
@given(st.one_of(st.binary(max_size=200), st.lists(cell, max_size=5).map(lambda ls: "\n".join(ls).encode())))
def test_question_and_statement_import_fuzz(data: bytes) -> None:
    _check(lambda p: questions_import(p, name="fq", fmt="csqa"), data, ".jsonl")
    _check(lambda p: statements_import(p, name="fs"), data, ".csv")
