"""The graph importer's write paths store the same rows: a first import into an empty table
(indexes dropped and rebuilt after the load) and an import into a graph that already has nodes
and triples (indexes kept, existing nodes reused, degrees added), with multi-row inserts cut
at any chunk size. A bad line deep in a big file, found block by block, leaves nothing behind."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.db import connection, transaction
from django.db.models import Count

import commonsense.io.text as text_io
import knowledge.db.bulk as bulk
from commonsense.io import DataFormatError
from knowledge.models import Graph, ImportSource, Node, Triple
from knowledge.services.imports import graph_import
from tests.conftest import FIXTURES

pytestmark = pytest.mark.django_db

DEMO = FIXTURES / "atomic2020_demo.tsv"
CKBP = FIXTURES / "ckbp_demo.csv"


def _triples(graph: str, filename: str) -> set[tuple[object, ...]]:
    rows = Triple.objects.filter(graph__name=graph, source__filename=filename).values_list(
        "head__text", "relation__name", "tail__text", "source_line", "plausibility", "extra"
    )
    return {(*r[:5], tuple(sorted(r[5].items()))) for r in rows}


def _degrees_are_counts(graph: str) -> bool:
    g = Graph.objects.get(name=graph)
    out = dict(Triple.objects.filter(graph=g).values("head").annotate(n=Count("id")).values_list("head", "n"))
    inn = dict(Triple.objects.filter(graph=g).values("tail").annotate(n=Count("id")).values_list("tail", "n"))
    nodes = list(Node.objects.filter(graph=g).values_list("id", "out_degree", "in_degree"))
    return all((o, i) == (out.get(pk, 0), inn.get(pk, 0)) for pk, o, i in nodes) and g.node_count == len(nodes)


@pytest.mark.parametrize("rows_per_statement", [500, 7, 1])
def test_empty_graph_path_and_existing_graph_path_store_the_same_rows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, rows_per_statement: int
) -> None:
    monkeypatch.setattr(bulk, "SQLITE_ROWS_PER_STATEMENT", rows_per_statement)
    lines = DEMO.read_text().splitlines(keepends=True)
    first = tmp_path / "first.tsv"  # shares heads and tails with the demo file
    first.write_text("".join(lines[::3]) + "PersonZ only here\txWant\tto stay apart\n")

    graph_import(DEMO, name="fresh", fmt="atomic-tsv")  # empty tables: indexes rebuilt after the load
    graph_import(first, name="grown", fmt="atomic-tsv")
    graph_import(DEMO, name="grown", fmt="atomic-tsv", allow_duplicate=True)  # tables not empty: indexes kept
    fresh = _triples("fresh", DEMO.name)
    assert len(fresh) == len(lines)
    assert fresh == _triples("grown", DEMO.name)
    assert _degrees_are_counts("fresh")
    assert _degrees_are_counts("grown")
    grown = Graph.objects.get(name="grown")
    assert grown.triple_count == Triple.objects.filter(graph=grown).count() == len(lines) + len(lines[::3]) + 1

    # plausibility and extra are per-row columns for the CSKB format: the same both ways too
    graph_import(CKBP, name="fresh-ckbp", fmt="cskb-csv")
    graph_import(CKBP, name="grown", fmt="cskb-csv", allow_duplicate=True)
    ckbp = _triples("fresh-ckbp", CKBP.name)
    assert len(ckbp) == 6000
    assert ckbp == _triples("grown", CKBP.name)
    assert {p for *_, p, _ in ckbp} == {0.0, 1.0}
    assert all([k for k, _ in e] == ["class", "split"] for *_, e in ckbp)
    assert _degrees_are_counts("grown")


def test_bad_line_in_a_late_block_of_a_big_file_leaves_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(text_io, "BLOCK_BYTES", 4096)  # the demo file is ~90 blocks
    graph_import(DEMO, name="g", fmt="atomic-tsv")
    before = (Graph.objects.count(), Node.objects.count(), Triple.objects.count(), ImportSource.objects.count())
    lines = DEMO.read_text().splitlines(keepends=True)
    bad = tmp_path / "bad.tsv"
    bad.write_text("".join(f"New head {i}\txWant\tnew tail {i}\n" for i in range(5000)) + "x\txWant\n" + lines[0])
    with pytest.raises(DataFormatError, match=r"bad\.tsv, line 5001: expected 3 tab-separated columns"):
        graph_import(bad, name="g", fmt="atomic-tsv")
    with pytest.raises(DataFormatError, match=r"bad\.tsv, line 5001"):
        graph_import(bad, name="other", fmt="atomic-tsv")
    assert (Graph.objects.count(), Node.objects.count(), Triple.objects.count(), ImportSource.objects.count()) == before


def test_insert_rows_refuses_a_row_of_the_wrong_width_and_spells_constants() -> None:
    """Rows are flattened into multi-row statements: a row with a value too many or too few would
    shift every later value, so it is refused (the guard planted: one short row among good ones).
    Constants go into the statement as literals, quotes and all."""
    g = Graph.objects.create(name="g")
    consts = {"graph_id": g.pk, "filename": 'it\'s "quoted"', "format": "x", "rows": 0, "imported_at": "2026-01-01"}
    if connection.vendor == "sqlite":
        with pytest.raises(ValueError, match="every row must hold 1 values"), transaction.atomic():
            bulk.insert_rows("knowledge_importsource", ("sha256",), [("a",), (), ("b",)], constants=consts)
        assert not ImportSource.objects.exists()
    with transaction.atomic():
        n = bulk.insert_rows("knowledge_importsource", ("sha256",), [(f"s{i}",) for i in range(1203)], constants=consts)
    assert n == 1203 == ImportSource.objects.filter(graph=g, filename='it\'s "quoted"', format="x").count()
    assert set(ImportSource.objects.values_list("sha256", flat=True)) == {f"s{i}" for i in range(1203)}


def test_reserve_ids_gives_a_fresh_block_that_later_inserts_never_reuse() -> None:
    """PostgreSQL takes the block from the sequence in one step under an EXCLUSIVE table lock (the
    next ordinary insert gets an id above the block even though none of it was used); SQLite
    above the largest id and the AUTOINCREMENT counter. Either way the ids are new and in one run."""
    g = Graph.objects.create(name="g")
    before = Node.objects.create(graph=g, text="before").pk
    with transaction.atomic():
        ids = bulk.reserve_ids("knowledge_node", 20_000)
        if connection.vendor == "postgresql":
            with connection.cursor() as cur:
                cur.execute(
                    "SELECT mode FROM pg_locks WHERE relation = 'knowledge_node'::regclass AND pid = pg_backend_pid()"
                )
                assert "ExclusiveLock" in {r[0] for r in cur.fetchall()}
    assert list(ids) == list(range(ids[0], ids[0] + 20_000))
    assert ids[0] > before
    if connection.vendor == "postgresql":
        assert Node.objects.create(graph=g, text="after").pk > ids[-1]


def test_texts_beyond_latin1_keep_their_triples_and_take_ids_in_byte_order(tmp_path: Path) -> None:
    """New nodes are numbered in UTF-8 byte order (SQLite's BINARY order, so the (graph, text)
    index is appended to in order); with one text beyond Latin-1 the sort runs on encoded keys.
    Every triple still points at its own head and tail, and a re-import adds nothing."""
    heads = ["PersonX café", "PersonX zebra", "PersonX Ωmega", "PersonX ☕ break", "PersonX apple", "PersonX Ärger"]
    tails = ["to rest", "ça va", "𝔘nicode", "zzz", "Ωmega too", "apple"]
    rows = [(h, t) for h in heads for t in tails[: 2 + len(h) % 4]]
    p = tmp_path / "mixed.tsv"
    p.write_text("".join(f"{h}\txWant\t{t}\n" for h, t in rows), encoding="utf-8")
    first = graph_import(p, name="mixed", fmt="atomic-tsv")
    texts = set(heads) | {t for _, t in rows}
    assert first.triples_added == len(rows)
    assert first.nodes_added == len(texts)
    by_id = list(Node.objects.filter(graph__name="mixed").order_by("id").values_list("text", flat=True))
    assert by_id == sorted(texts, key=str.encode)
    stored = Triple.objects.filter(graph__name="mixed").order_by("source_line")
    assert [(t.head.text, t.tail.text, t.source_line) for t in stored] == [
        (h, t, i) for i, (h, t) in enumerate(rows, 1)
    ]
    again = graph_import(p, name="mixed", fmt="atomic-tsv")
    assert again.already_imported
    assert Triple.objects.filter(graph__name="mixed").count() == len(rows)


def test_arrow_path_and_block_path_store_the_same_graph(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A plainly well-formed ATOMIC file is read by Arrow (no Python string per field); the same
    file read block by block (Arrow path switched off) stores the same triples, nodes, degrees
    and statistics. A bad line sends the file to the block reader, which names it."""
    import commonsense.io.triples as triples_io

    taken: list[bool] = []
    real = triples_io.read_atomic_tsv_encoded

    def spy(path: str | Path) -> triples_io.EncodedTriples | None:
        enc = real(path)
        taken.append(enc is not None)
        return enc

    monkeypatch.setattr("knowledge.services.graph_imports.read_atomic_tsv_encoded", spy)
    graph_import(DEMO, name="fast", fmt="atomic-tsv")
    monkeypatch.setattr(triples_io, "ARROW_BLOCK_BYTES", 1024)  # ~300 Arrow blocks, texts numbered across them
    graph_import(DEMO, name="chunked", fmt="atomic-tsv", allow_duplicate=True)
    monkeypatch.setattr(triples_io, "ARROW_MAX_BYTES", 0)
    graph_import(DEMO, name="blocks", fmt="atomic-tsv", allow_duplicate=True)
    assert taken == [True, True, False]
    fast_rows = _triples("fast", DEMO.name)
    assert fast_rows == _triples("blocks", DEMO.name) == _triples("chunked", DEMO.name)
    assert Graph.objects.get(name="chunked").node_count == 5358
    fast, blocks = Graph.objects.get(name="fast"), Graph.objects.get(name="blocks")
    assert (fast.triple_count, fast.node_count) == (blocks.triple_count, blocks.node_count) == (len(fast_rows), 5358)
    for key in ("relations", "degrees"):
        assert fast.stats[key] == blocks.stats[key]
    assert [t[1:] for t in fast.stats["top"]] == [t[1:] for t in blocks.stats["top"]]  # (id,) text, degree
    assert _degrees_are_counts("fast")
    assert _degrees_are_counts("blocks")

    monkeypatch.setattr(triples_io, "ARROW_MAX_BYTES", 1 << 30)
    lines = DEMO.read_text().splitlines(keepends=True)
    bad = tmp_path / "bad.tsv"
    bad.write_text("".join(lines[:300]) + "PersonZ\txWant\tto go\textra\n" + "".join(lines[300:]))
    before = (Node.objects.count(), Triple.objects.count(), ImportSource.objects.count())
    with pytest.raises(DataFormatError, match=r"bad\.tsv, line 301: expected 3 tab-separated columns"):
        graph_import(bad, name="fast", fmt="atomic-tsv")
    assert taken[-1] is False
    assert (Node.objects.count(), Triple.objects.count(), ImportSource.objects.count()) == before


def test_insert_rows_from_columns_stores_what_rows_store(monkeypatch: pytest.MonkeyPatch) -> None:
    """Columns (arrays and lists, cut into slices and statements that do not divide the row count)
    are flattened into the same rows as row tuples; columns of unequal length are refused."""
    import numpy as np

    monkeypatch.setattr(bulk.Columns, "STEP", 100)
    monkeypatch.setattr(bulk, "SQLITE_ROWS_PER_STATEMENT", 7)
    g = Graph.objects.create(name="g")
    consts = {"graph_id": g.pk, "format": "x", "imported_at": "2026-01-01"}
    names = [f"f{i}" for i in range(1203)]
    with transaction.atomic():
        n = bulk.insert_rows(
            "knowledge_importsource",
            ("sha256", "rows", "filename"),
            bulk.Columns([f"s{i}" for i in range(1203)], np.arange(1203, dtype=np.int64) * 3, names),
            constants=consts,
        )
    assert n == 1203
    stored = set(ImportSource.objects.filter(graph=g).values_list("sha256", "rows", "filename"))
    assert stored == {(f"s{i}", 3 * i, f"f{i}") for i in range(1203)}
    assert list(bulk.Columns(np.arange(3), ["a", "b", "c"])) == [(0, "a"), (1, "b"), (2, "c")]
    with pytest.raises(ValueError, match="one value per row"):
        bulk.Columns(np.arange(3), ["a", "b"])
