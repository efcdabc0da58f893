"""The import of a triple file into a graph (ATOMIC-2020 TSV, CSKB-Population CSV): parsed and
validated whole, then written in one transaction with bulk statements (:mod:`knowledge.db.bulk`);
a failure leaves the database as it was."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import count
from pathlib import Path
from typing import Any

import numpy as np
from django.db import connection, transaction
from numpy.typing import NDArray

from accounts.people import User
from commonsense.io.triples import iter_atomic_tsv_columns, read_atomic_tsv_encoded, read_triples
from commonsense.kg.index import file_fingerprint
from commonsense.kg.relations import RELATIONS
from knowledge.db.bulk import Columns, import_session, insert_rows, reserve_ids, table_rows
from knowledge.db.graph_stats import graph_stats_after_import, stats_current
from knowledge.models import Graph, ImportSource, Node, Relation, Triple
from knowledge.services.import_errors import DuplicateContent, Progress, _noop


def _graph_with_content(sha: str, name: str) -> None:
    other = ImportSource.objects.filter(sha256=sha).exclude(graph__name=name).select_related("graph").first()
    if other is not None:
        g = other.graph
        raise DuplicateContent(
            f"this file's content is already imported as graph {g.name!r} ({g.triple_count:,} triples, from "
            f"{other.filename}); importing it as {name!r} would store a second copy of the same triples",
            g.name,
        )


@dataclass
class GraphImportResult:
    graph: Graph
    triples_added: int
    nodes_added: int
    already_imported: bool

    def summary(self) -> str:
        if self.already_imported:
            return (
                f"{self.graph.name}: this file was already imported; nothing added "
                f"({self.graph.triple_count:,} triples, {self.graph.node_count:,} nodes stored)."
            )
        return (
            f"{self.graph.name}: {self.triples_added:,} triples and {self.nodes_added:,} new nodes stored "
            f"({self.graph.triple_count:,} triples, {self.graph.node_count:,} nodes in the graph)."
        )


def relations_ensure() -> dict[str, int]:
    """Make sure every registry relation has a row; return name -> id."""
    existing = dict(Relation.objects.values_list("name", "id"))
    missing = [Relation(name=n) for n in RELATIONS if n not in existing]
    if missing:
        Relation.objects.bulk_create(missing, ignore_conflicts=True)
        existing = dict(Relation.objects.values_list("name", "id"))
    return existing


def _node_degrees_add(rows: Iterable[tuple[int, int, int]]) -> None:
    """(out, in, node id): add to stored degrees (a node written outside the importer has none)."""
    with connection.cursor() as cur:
        cur.executemany(
            "UPDATE knowledge_node SET out_degree = COALESCE(out_degree, 0) + %s, "
            "in_degree = COALESCE(in_degree, 0) + %s WHERE id = %s",
            list(rows),
        )


@dataclass
class _TripleColumns:
    """A parsed triple file, column by column (one entry per triple). Nodes are numbered by
    their place in ``texts`` (every distinct head and tail text, once), so the per-triple
    bookkeeping (degrees, ids) is array arithmetic, not a dictionary look-up per triple."""

    heads: NDArray[np.int64]  # per triple: its head's index in ``texts``
    tails: NDArray[np.int64]
    relations: NDArray[np.int64]  # relation ids
    lines: NDArray[np.int64]
    plausibility: list[float | None] | None  # None: no value in any row
    extra: list[str] | None  # as JSON; None: "{}" in every row
    texts: list[str]
    texts_sorted: bool = False  # ``texts`` already in UTF-8 byte order


def _read_columns(path: Path, fmt: str, rel_ids: dict[str, int], progress: Progress) -> _TripleColumns:
    """Parse and validate the whole file (raises DataFormatError naming file, line and field)."""
    if fmt == "atomic-tsv":  # the fast path for plainly well-formed files: Arrow, no string per field
        enc = read_atomic_tsv_encoded(path)  # None: something is off, the readers below name it
        if enc is not None:
            n = len(enc.heads)
            progress("parse", n, n)
            ids = np.array([rel_ids[r] for r in enc.relations], np.int64)
            lines = np.arange(1, n + 1, dtype=np.int64)
            return _TripleColumns(enc.heads, enc.tails, ids[enc.relation_codes], lines, None, None, enc.texts, True)
    # text -> a number unique to it (the running count of head and tail fields when it was first
    # read); renumbered densely below
    seen: dict[str, int] = {}
    put, counter = seen.setdefault, count()
    head_keys: list[NDArray[np.int64]] = []
    tail_keys: list[NDArray[np.int64]] = []
    rels: list[NDArray[np.int64]] = []
    lines_: list[NDArray[np.int64]] = []
    plausibility: list[float | None] | None = None
    extra: list[str] | None = None
    n = 0
    if fmt == "atomic-tsv":  # columns per block, C-level loops; errors located line by line
        for h, r, t, ln in iter_atomic_tsv_columns(path):
            head_keys.append(np.fromiter(map(put, h, counter), np.int64, len(h)))
            tail_keys.append(np.fromiter(map(put, t, counter), np.int64, len(t)))
            rels.append(np.fromiter(map(rel_ids.__getitem__, r), np.int64, len(r)))
            lines_.append(np.fromiter(ln, np.int64, len(ln)))
            n += len(h)
            progress("parse", n, None)
    else:
        plausibility, extra = [], []
        hk: list[int] = []
        tk: list[int] = []
        rk: list[int] = []
        lk: list[int] = []
        for rec in read_triples(path, fmt):
            hk.append(put(rec.head, next(counter)))
            tk.append(put(rec.tail, next(counter)))
            rk.append(rel_ids[rec.relation])
            lk.append(rec.line)
            plausibility.append(rec.plausibility)
            extra.append(json.dumps(dict(rec.extra)) if rec.extra else "{}")
            if not len(rk) % 100_000:
                progress("parse", len(rk), None)
        n = len(rk)
        head_keys, tail_keys = [np.array(hk, np.int64)], [np.array(tk, np.int64)]
        rels, lines_ = [np.array(rk, np.int64)], [np.array(lk, np.int64)]
    keys = np.fromiter(seen.values(), np.int64, len(seen))
    dense = np.zeros(int(keys.max()) + 1, np.int64)
    dense[keys] = np.arange(len(keys))
    heads, tails = dense[np.concatenate(head_keys)], dense[np.concatenate(tail_keys)]
    progress("parse", n, n)
    return _TripleColumns(heads, tails, np.concatenate(rels), np.concatenate(lines_), plausibility, extra, list(seen))


def _sort_keys(texts: list[str]) -> list[str] | list[bytes]:
    """Keys that sort ``texts`` in SQLite's BINARY order (code point order, which is UTF-8 byte
    order). Python sorts a list of one-byte strings with a memcmp; one text beyond Latin-1 makes
    every comparison the generic one (0.45 s for the 567k texts of the benchmark graph), where
    their UTF-8 encodings sort in 0.3 s, encoding included."""
    return texts if all(map(str.isascii, texts)) else list(map(str.encode, texts))


def graph_import(
    path: str | Path,
    *,
    name: str,
    fmt: str,
    user: User | None = None,
    progress: Progress = _noop,
    display_name: str | None = None,
    allow_duplicate: bool = False,
) -> GraphImportResult:
    """Import a triple file into graph ``name`` (created if needed). Nodes are deduplicated by
    text; each triple keeps its source file and line. The whole file is parsed and validated
    before anything is written, and all writes share one transaction."""
    path = Path(path)
    sha = file_fingerprint(path)
    if not allow_duplicate and not ImportSource.objects.filter(graph__name=name, sha256=sha).exists():
        _graph_with_content(sha, name)  # before parsing: a refusal costs a hash, not a parse
    rel_ids = relations_ensure()
    cols = _read_columns(path, fmt, rel_ids, progress)
    n_rows = len(cols.heads)
    # SQLite: foreign keys are not checked per row during the import (five parent look-ups per
    # triple, ~30 % of the insert), only when the import is its own transaction (the pragma cannot
    # change inside one; nested in a caller's transaction they stay checked). Every id written is
    # valid by construction: graph and source are created or read here, node ids are read or
    # inserted here, relation ids are re-checked below, all after this transaction has taken
    # SQLite's single write lock, so nobody can delete a parent before the commit.
    with import_session(), connection.constraint_checks_disabled(), transaction.atomic():
        graph, created = Graph.objects.get_or_create(name=name, defaults={"created_by": user})
        graph = Graph.objects.select_for_update().get(pk=graph.pk)
        if ImportSource.objects.filter(graph=graph, sha256=sha).exists():
            return GraphImportResult(graph, 0, 0, True)
        used_rels = set(np.unique(cols.relations).tolist())
        if Relation.objects.filter(pk__in=used_rels).count() != len(used_rels):
            raise RuntimeError("a relation was deleted while the file was read; nothing was stored, import again")
        source = ImportSource.objects.create(
            graph=graph, filename=display_name or path.name, sha256=sha, format=fmt, rows=n_rows
        )
        # degree statistics are updated incrementally when they were current before this import
        stats_before = {"relations": []} if created else graph.stats if stats_current(graph) else None
        texts = cols.texts
        existing = dict(Node.objects.filter(graph=graph).values_list("text", "id"))
        found = list(map(existing.get, texts)) if existing else []  # the stored node id of each text, or None
        # sorted: the new nodes' ids then follow their text order, so the (graph, text) index is
        # appended to in order instead of written at random; ids assigned here (no read-back)
        new_nodes = [i for i, e in enumerate(found) if e is None] if existing else list(range(len(texts)))
        if not cols.texts_sorted:  # (a subset of sorted texts, taken in order, is sorted)
            new_nodes.sort(key=_sort_keys(texts).__getitem__)
        new_at = np.array(new_nodes, np.int64)  # one conversion, then array indexing
        new_ids = reserve_ids(Node._meta.db_table, len(new_nodes))
        node_id = np.zeros(len(texts), np.int64)
        node_id[new_at] = np.fromiter(new_ids, np.int64, len(new_ids))
        # this import's degrees, counted here: new nodes are written with them, existing ones
        # incremented (only when the stored statistics are kept incrementally; else recounted)
        out_deg = np.bincount(cols.heads, minlength=len(texts))
        in_deg = np.bincount(cols.tails, minlength=len(texts))
        gid, sid = graph.pk, source.pk
        insert_rows(
            Node._meta.db_table,
            ("id", "text", "out_degree", "in_degree"),
            Columns(node_id[new_at], list(map(texts.__getitem__, new_nodes)), out_deg[new_at], in_deg[new_at]),
            constants={"graph_id": gid},
            rebuild_indexes=len(new_nodes) >= table_rows(Node._meta.db_table),
        )
        old_nodes = [i for i, e in enumerate(found) if e is not None] if existing else []
        if old_nodes:
            old_ids = [existing[texts[i]] for i in old_nodes]
            node_id[old_nodes] = old_ids
            if stats_before is not None:
                _node_degrees_add(zip(out_deg[old_nodes].tolist(), in_deg[old_nodes].tolist(), old_ids, strict=True))
        progress("nodes", len(new_nodes), len(new_nodes))
        constants: dict[str, Any] = {"graph_id": gid, "source_id": sid}
        columns: tuple[str, ...] = ("head_id", "relation_id", "tail_id", "source_line")
        per_row: list[list[Any]] = []
        if cols.plausibility is None or cols.extra is None:
            constants |= {"plausibility": None, "extra": "{}"}
        else:
            columns += ("plausibility", "extra")
            per_row += [cols.plausibility, cols.extra]
        rows = Columns(node_id[cols.heads], cols.relations, node_id[cols.tails], cols.lines, *per_row)
        # rebuilding the secondary indexes after the insert pays when it at least doubles the table
        big = n_rows >= table_rows(Triple._meta.db_table)
        done = insert_rows(
            Triple._meta.db_table,
            columns,
            rows,
            constants=constants,
            rebuild_indexes=big,
            valid_by_construction=True,  # extra: json.dumps output; lines >= 1
        )
        progress("triples", done, n_rows)
        graph.node_count = len(existing) + len(new_nodes)  # the graph's nodes before and its new ones
        # a graph created by this transaction holds exactly this import's triples
        graph.triple_count = done if created else Triple.objects.filter(graph=graph).count()
        graph.save(update_fields=["node_count", "triple_count"])
        rel_names = {i: n for n, i in rel_ids.items()}
        used, per_relation = np.unique(cols.relations, return_counts=True)
        counted = {rel_names[r]: n for r, n in zip(used.tolist(), per_relation.tolist(), strict=True)}
        graph_stats_after_import(graph, sid, before=stats_before, counted=counted)
        progress("statistics", 1, 1)
    if connection.vendor == "postgresql":
        with connection.cursor() as cur:
            cur.execute(f"ANALYZE {Node._meta.db_table}, {Triple._meta.db_table}")
    return GraphImportResult(graph, done, len(new_ids), False)
