"""Fast bulk inserts: multi-row ``INSERT … VALUES`` statements on SQLite (``SQLITE_ROWS_PER_STATEMENT``
rows each, the values that are the same in every row spelled once in the statement), ``COPY`` on
PostgreSQL. The ORM's ``bulk_create`` builds a model instance per row, which dominates at millions
of rows.

On SQLite two per-row costs are moved after the insert, inside the caller's transaction (SQLite
has one writer and its DDL is transactional, so nobody else writes meanwhile and a rollback
restores everything):

* the AFTER INSERT triggers named in ``knowledge.db.node_search.SQLITE_DEFERRED_TRIGGERS`` (the
  nodes' full-text index) are dropped, and replayed as one ``INSERT … SELECT … WHERE rowid > <max
  before>`` before being recreated from their stored SQL. Tables use AUTOINCREMENT, so the new
  rows are exactly those above the old maximum (checked). Any other trigger stays and fires per row.
* with ``rebuild_indexes=True`` the table's droppable secondary indexes are dropped and rebuilt
  from their stored SQL after the insert (one sorted build instead of a random B-tree insert per
  row and index): worth it when the insert is large relative to the table.
"""

from __future__ import annotations

import math
import sqlite3
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from itertools import chain, islice
from sqlite3 import SQLITE_LIMIT_VARIABLE_NUMBER
from typing import Any

import numpy as np
from django.db import connection
from numpy.typing import NDArray

from knowledge.db.node_search import SQLITE_DEFERRED_TRIGGERS

# Page cache for an import connection (negative: KiB). Index maintenance of a million-row insert
# thrashes SQLite's default 2 MB cache.
SQLITE_IMPORT_CACHE_KIB = 262_144
# Rows per INSERT statement on SQLite: one multi-row VALUES statement pays SQLite's per-statement
# work (the AUTOINCREMENT counter's read and write, statement set-up) and the driver's
# per-execution work once per this many rows instead of once per row.
SQLITE_ROWS_PER_STATEMENT = 500


@contextmanager
def import_session() -> Iterator[None]:
    """Connection settings for a large import (SQLite: a big page cache and in-memory temporary
    sort space), restored on exit. Journal and synchronous settings are left as configured."""
    if connection.vendor != "sqlite":
        yield
        return
    connection.ensure_connection()
    raw = connection.connection
    cache, temp = raw.execute("PRAGMA cache_size").fetchone()[0], raw.execute("PRAGMA temp_store").fetchone()[0]
    raw.execute(f"PRAGMA cache_size = {-SQLITE_IMPORT_CACHE_KIB}")
    # temp_store cannot change inside a transaction (an import nested in the caller's atomic block)
    set_temp = not raw.in_transaction
    if set_temp:
        raw.execute("PRAGMA temp_store = MEMORY")
    try:
        yield
    finally:
        raw.execute(f"PRAGMA cache_size = {int(cache)}")
        if set_temp and not raw.in_transaction:
            raw.execute(f"PRAGMA temp_store = {int(temp)}")


def table_rows(table: str) -> int:
    with connection.cursor() as cur:
        cur.execute(f"SELECT COUNT(*) FROM {connection.ops.quote_name(table)}")
        return int(cur.fetchone()[0])


def reserve_ids(table: str, n: int) -> Sequence[int]:
    """``n`` fresh primary keys of ``table`` for rows the caller then inserts with explicit ids in
    the same transaction, so it knows every new row's id without reading the rows back. Both
    vendors: inside a transaction only.
    PostgreSQL: a block of the column's sequence taken in one step (``setval`` past ``n`` values,
    not ``n`` calls of ``nextval``: 1.8 s for 567k ids); the table is locked EXCLUSIVE until the
    commit first, so no other transaction inserts into it (and draws from its sequence) meanwhile.
    Readers are not blocked. SQLite: above both the largest id and the AUTOINCREMENT counter (so a
    deleted row's id is never reused); the caller must already hold the write lock (have written in
    this transaction), so nobody else can insert meanwhile."""
    if n <= 0:
        return range(0)
    if not connection.in_atomic_block:
        raise RuntimeError("reserve_ids must run inside a transaction (transaction.atomic())")
    if connection.vendor == "postgresql":
        with connection.cursor() as cur:
            cur.execute(f"LOCK TABLE {_q(table)} IN EXCLUSIVE MODE")
            cur.execute("SELECT pg_get_serial_sequence(%s, 'id')", [table])
            seq = cur.fetchone()[0]
            cur.execute("SELECT setval(%s, nextval(%s) + %s - 1)", [seq, seq, n])
            last = int(cur.fetchone()[0])
            return range(last - n + 1, last + 1)
    raw = connection.connection
    top = raw.execute(f"SELECT COALESCE(MAX(rowid), 0) FROM {_q(table)}").fetchone()[0]
    seq = raw.execute("SELECT seq FROM sqlite_sequence WHERE name = ?", (table,)).fetchone()
    start = max(int(top), int(seq[0]) if seq else 0) + 1
    return range(start, start + n)


class Columns:
    """Rows given column by column, all of one length: numpy arrays (turned into Python values a
    slice at a time) or lists. :func:`insert_rows` builds SQLite's flat parameter lists from them
    with slice assignments, without a tuple per row; iterated, they give the rows as tuples."""

    STEP = 100_000  # rows per slice

    def __init__(self, *columns: NDArray[Any] | list[Any]) -> None:
        if len({len(c) for c in columns}) > 1:
            raise ValueError("Columns: every column must hold one value per row")
        self.columns = columns

    def __len__(self) -> int:
        return len(self.columns[0]) if self.columns else 0

    def _slices(self) -> Iterator[list[list[Any]]]:
        for i in range(0, len(self), self.STEP):
            part = slice(i, i + self.STEP)
            yield [c[part].tolist() if isinstance(c, np.ndarray) else c[part] for c in self.columns]

    def __iter__(self) -> Iterator[tuple[Any, ...]]:
        for cols in self._slices():
            yield from zip(*cols, strict=True)

    def flat(self, per: int) -> Iterator[list[Any]]:
        """The values of ``per`` rows at a time, row after row (the last list may be shorter)."""
        width = len(self.columns)
        for cols in self._slices():
            values: list[Any] = [None] * (len(cols[0]) * width)
            for k, col in enumerate(cols):
                values[k::width] = col
            for j in range(0, len(values), per * width):
                yield values[j : j + per * width]


def insert_rows(
    table: str,
    columns: Sequence[str],
    rows: Iterable[Sequence[Any]] | Columns,
    *,
    constants: Mapping[str, Any] | None = None,
    rebuild_indexes: bool = False,
    valid_by_construction: bool = False,
) -> int:
    """Insert ``rows`` into ``table`` (inside the caller's transaction). Returns the row count.
    Each row holds one value per name in ``columns``; ``constants`` (column -> value: None, an
    int, a finite float or a str) are the same in every row and are not passed per row.
    ``valid_by_construction``: the caller built every value itself so that the table's CHECK
    constraints hold (e.g. ``extra`` is ``json.dumps`` output); SQLite then skips evaluating
    them per row (``PRAGMA ignore_check_constraints``, restored after). NOT NULL, UNIQUE and the
    deferred foreign keys are still enforced."""
    consts = dict(constants or {})
    if connection.vendor == "postgresql":
        if consts:
            tail = tuple(consts.values())
            rows = (tuple(r) + tail for r in rows)
        return _copy_rows(table, [*columns, *consts], rows, rebuild_indexes=rebuild_indexes)
    if not connection.in_atomic_block:
        raise RuntimeError("insert_rows must run inside a transaction (transaction.atomic())")
    connection.ensure_connection()
    ncols = len(columns)
    per = max(1, min(SQLITE_ROWS_PER_STATEMENT, connection.connection.getlimit(SQLITE_LIMIT_VARIABLE_NUMBER) // ncols))
    cols = ", ".join(connection.ops.quote_name(c) for c in [*columns, *consts])
    one_row = "(" + ", ".join(["?"] * ncols + [_sqlite_literal(v) for v in consts.values()]) + ")"

    def statement(k: int) -> str:
        return f"INSERT INTO {connection.ops.quote_name(table)} ({cols}) VALUES " + ", ".join([one_row] * k)

    full = statement(per)
    # The DB-API connection directly, with sqlite3's own cursor class: Django's cursor wrapper
    # rewrites every statement's "%s" placeholders with a regular expression (a 500-row statement
    # is ~9 kB of SQL, per execution) and re-checks every parameter row.
    raw = connection.connection.cursor(sqlite3.Cursor)
    n = 0
    try:
        triggers = _deferrable_triggers(raw, table)
        indexes = _droppable_indexes(raw, table) if rebuild_indexes else []
        max_before = raw.execute(f"SELECT COALESCE(MAX(rowid), 0) FROM {_q(table)}").fetchone()[0]
        for name, _sql, _replay in triggers:
            raw.execute(f"DROP TRIGGER {_q(name)}")
        for name, _sql in indexes:
            raw.execute(f"DROP INDEX {_q(name)}")
        if valid_by_construction:
            raw.execute("PRAGMA ignore_check_constraints = ON")
        try:
            if isinstance(rows, Columns):
                if len(rows.columns) != ncols:
                    raise ValueError(f"insert_rows({table}): every row must hold {ncols} values")
                for values in rows.flat(per):
                    k = len(values) // ncols
                    raw.execute(full if k == per else statement(k), values)
                    n += k
            else:
                it = iter(rows)
                while chunk := list(islice(it, per)):
                    if set(map(len, chunk)) != {ncols}:
                        raise ValueError(f"insert_rows({table}): every row must hold {ncols} values")
                    raw.execute(full if len(chunk) == per else statement(len(chunk)), list(chain.from_iterable(chunk)))
                    n += len(chunk)
        finally:
            if valid_by_construction:
                raw.execute("PRAGMA ignore_check_constraints = OFF")
        for name, trigger_sql, replay in triggers:
            raw.execute(replay, (max_before,))
            if raw.rowcount != n:
                raise RuntimeError(f"trigger {name} replayed for {raw.rowcount} of {n} inserted rows of {table}")
            raw.execute(trigger_sql)
        for _name, index_sql in indexes:
            raw.execute(index_sql)
    finally:
        raw.close()
    return n


def _sqlite_literal(value: Any) -> str:
    """A constant of :func:`insert_rows` spelled in SQL (the importer's own values, not input)."""
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return str(int(value))
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float) and math.isfinite(value):
        return repr(value)
    if isinstance(value, str) and "\x00" not in value:
        return "'" + value.replace("'", "''") + "'"
    raise TypeError(f"insert_rows: unsupported constant {value!r}")


def _q(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _deferrable_triggers(raw: Any, table: str) -> list[tuple[str, str, str]]:
    """(name, stored SQL, replay SQL with one ``?`` = max rowid before) of the deferred triggers
    (``SQLITE_DEFERRED_TRIGGERS``) that exist on ``table``."""
    out = []
    for name, _create, replay in SQLITE_DEFERRED_TRIGGERS.get(table, []):
        row = raw.execute(
            "SELECT sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = ? AND name = ?", (table, name)
        ).fetchone()
        if row is not None:
            out.append((name, row[0], replay))
    return out


def _droppable_indexes(raw: Any, table: str) -> list[tuple[str, str]]:
    """Explicitly created indexes (not the primary key or UNIQUE constraints' autoindexes)."""
    return [
        (name, sql)
        for name, sql in raw.execute(
            "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL", (table,)
        ).fetchall()
    ]


def _copy_rows(table: str, columns: Sequence[str], rows: Iterable[Sequence[Any]], *, rebuild_indexes: bool) -> int:
    """COPY; with ``rebuild_indexes`` the table's secondary indexes (not those behind a primary
    key or UNIQUE constraint) and its foreign keys are dropped first and re-created after (which
    validates every row), inside the caller's transaction
    (DDL is transactional; the table is locked ACCESS EXCLUSIVE until the commit, so this is for
    an import large relative to the table)."""
    n = 0
    cols = ", ".join(connection.ops.quote_name(c) for c in columns)
    with connection.cursor() as cur:
        raw = cur.cursor  # psycopg 3 cursor
        indexes: list[tuple[str, str]] = []
        fkeys: list[tuple[str, str]] = []
        if rebuild_indexes:
            _fire_deferred_checks(raw)
            raw.execute(
                "SELECT ic.relname, pg_get_indexdef(i.indexrelid) FROM pg_index i "
                "JOIN pg_class ic ON ic.oid = i.indexrelid "
                "WHERE i.indrelid = %s::regclass AND NOT EXISTS "
                "(SELECT 1 FROM pg_constraint c WHERE c.conindid = i.indexrelid)",
                [table],
            )
            indexes = [(name, sql) for name, sql in raw.fetchall()]
            # foreign keys too: re-adding one validates the whole table in one join, where the
            # deferred per-row checks cost one look-up per row and key at the commit
            raw.execute(
                "SELECT conname, pg_get_constraintdef(oid) FROM pg_constraint WHERE conrelid = %s::regclass "
                "AND contype = 'f'",
                [table],
            )
            fkeys = [(name, sql) for name, sql in raw.fetchall()]
            for name, _sql in fkeys:
                raw.execute(f"ALTER TABLE {_q(table)} DROP CONSTRAINT {_q(name)}")
            for name, _sql in indexes:
                raw.execute(f"DROP INDEX {_q(name)}")
        with raw.copy(f"COPY {connection.ops.quote_name(table)} ({cols}) FROM STDIN") as copy:
            for row in rows:
                copy.write_row(row)
                n += 1
        if rebuild_indexes:
            _fire_deferred_checks(raw)
            raw.execute("SET LOCAL maintenance_work_mem = '256MB'")
            for _name, index_sql in indexes:
                raw.execute(index_sql)
        for name, fkey_sql in fkeys:
            raw.execute(f"ALTER TABLE {_q(table)} ADD CONSTRAINT {_q(name)} {fkey_sql}")
    return n


def _fire_deferred_checks(raw: Any) -> None:
    """PostgreSQL: run the deferred foreign-key checks pending in this transaction now, then defer
    again: CREATE INDEX and ALTER TABLE refuse a table (or a referenced table) with pending
    trigger events."""
    raw.execute("SET CONSTRAINTS ALL IMMEDIATE")
    raw.execute("SET CONSTRAINTS ALL DEFERRED")
