"""The graphs and default builds the build-quality tests read (tests/commonsense/test_build_quality*.py):
the CSKB-Population evaluation set and the ATOMIC-2020 sample of ../shared/data, as the builders'
default edges index them, each built once per test process."""

from __future__ import annotations

from functools import lru_cache

from commonsense.io.triples import read_atomic_tsv, read_cskb_csv
from commonsense.kg.edges import ORIGIN_FIELD, plausible_only
from commonsense.kg.index import GraphIndex, IndexOptions
from commonsense.kg.normalize import clean, normalize_tail
from commonsense.questions.com2 import BuildParams, build_com2
from commonsense.questions.wellformed import build_edges
from tests.conftest import shared_file


@lru_cache(maxsize=1)
def ckbp_rows() -> list[tuple[str, str, str, float | None, None, str | None]]:
    """The records as a stored graph gives them to the index: the sixth field is the row's origin
    (CSKB-Population's ``class``, kept in the triple's ``extra`` on import)."""
    path = shared_file("ckbp_eval/evaluation_set.csv")
    return [
        (r.head, r.relation, r.tail, r.plausibility, None, dict(r.extra).get(ORIGIN_FIELD)) for r in read_cskb_csv(path)
    ]


@lru_cache(maxsize=4)
def ckbp_index(include_implausible: bool = False, include_populated: bool = False) -> GraphIndex:
    f = build_edges(include_implausible, include_populated=include_populated)  # the builders' default
    return GraphIndex.build(f(ckbp_rows()), IndexOptions(normalize=True))


def triple_origins() -> dict[tuple[str, str, str], set[str | None]]:
    got: dict[tuple[str, str, str], set[str | None]] = {}
    for h, r, t, _, _, origin in ckbp_rows():
        got.setdefault((clean(h), r, normalize_tail(r, t)), set()).add(origin)
    return got


@lru_cache(maxsize=2)
def atomic_index(well_formed_only: bool = True) -> GraphIndex:
    path = shared_file("atomic2020_sample/atomic2020_triples.tsv")
    rows = [(r.head, r.relation, r.tail) for r in read_atomic_tsv(path)]
    f = build_edges() if well_formed_only else plausible_only()
    return GraphIndex.build(f(rows), IndexOptions(normalize=True))


@lru_cache(maxsize=8)
def ckbp_default(kind: str) -> tuple:
    return tuple(build_com2(ckbp_index(), BuildParams(kind=kind, count=40, seed=11)))


def texts(q) -> list[str]:
    return [q.context, q.question, *q.options, *q.answers]
