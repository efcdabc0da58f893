"""Fast bulk inserts: ``executemany`` on SQLite, ``COPY`` on PostgreSQL. The ORM's
``bulk_create`` builds a model instance per row, which dominates at millions of rows."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from django.db import connection


def insert_rows(table: str, columns: Sequence[str], rows: Iterable[Sequence[Any]], *, batch: int = 50_000) -> int:
    """Insert ``rows`` into ``table`` (inside the caller's transaction). Returns the row count."""
    n = 0
    if connection.vendor == "postgresql":
        cols = ", ".join(connection.ops.quote_name(c) for c in columns)
        with connection.cursor() as cur:
            raw = cur.cursor  # psycopg 3 cursor
            with raw.copy(f"COPY {connection.ops.quote_name(table)} ({cols}) FROM STDIN") as copy:
                for row in rows:
                    copy.write_row(row)
                    n += 1
        return n
    placeholders = ", ".join(["?"] * len(columns))
    cols = ", ".join(connection.ops.quote_name(c) for c in columns)
    sql = f"INSERT INTO {connection.ops.quote_name(table)} ({cols}) VALUES ({placeholders})"
    connection.ensure_connection()
    # The DB-API connection directly: Django's cursor wrapper re-checks every parameter row.
    raw = connection.connection.cursor()
    try:
        chunk: list[Sequence[Any]] = []
        for row in rows:
            chunk.append(row)
            if len(chunk) >= batch:
                raw.executemany(sql, chunk)
                n += len(chunk)
                chunk = []
        if chunk:
            raw.executemany(sql, chunk)
            n += len(chunk)
    finally:
        raw.close()
    return n
