"""A hand-written SELECT over model tables whose rows come back as model instances, for the few
requests on the annotation hot path. Building and compiling an ORM queryset that joins three
models costs about as much CPU as everything else in a submit; this module compiles nothing per
request. The column lists and each column's converters (the backend's and the field's, as the
ORM's compiler applies them: SQLite datetimes, JSON text, …) are worked out once per process and
model, so the instances are what the ORM would have returned.

On PostgreSQL these statements go through :func:`cursor`, whose statements the server parses and
plans once per connection (a prepared statement; Django's own cursors bind parameters on the
client, so every execution is parsed and planned again: the queue's data-modifying ``WITH``
statements cost more to plan than to run)."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from functools import cache
from typing import Any, TypeVar

from django.db import DEFAULT_DB_ALIAS, connection, connections, models
from django.db.backends.utils import CursorWrapper
from django.db.models.base import ModelState
from django.db.models.signals import post_init, pre_init

Converter = Callable[[Any, Any, Any], Any]
M = TypeVar("M", bound=models.Model)


@cache
def _plan(
    model: type[models.Model], vendor: str
) -> tuple[list[str], list[str], list[tuple[int, list[Converter], Any]]]:
    """(column names, attribute names, per-position converters) of ``model``'s concrete fields."""
    fields = model._meta.concrete_fields
    convs = []
    for i, f in enumerate(fields):
        col = f.get_col(model._meta.db_table)
        found = connection.ops.get_db_converters(col) + col.get_db_converters(connection)
        if found:
            convs.append((i, found, col))
    return [str(f.column) for f in fields], [str(f.attname) for f in fields], convs


def columns(model: type[models.Model], alias: str) -> str:
    """``alias.col1, alias.col2, …`` of every concrete field, in the order :func:`rows` expects."""
    cols, _attnames, _convs = _plan(model, connection.vendor)
    qn = connection.ops.quote_name
    return ", ".join(f"{alias}.{qn(c)}" for c in cols)


def from_db(model: type[M], attnames: Sequence[str], values: Sequence[Any]) -> M:
    """``model.from_db(alias, attnames, values)`` for a row of every concrete field: the same
    instance, made without ``Model.__init__``'s per-field ``setattr`` (a descriptor call for each
    foreign key) - the hot path makes seven per answer. When a ``pre_init`` or ``post_init``
    receiver listens to the model (none does today), the ORM's own ``from_db`` runs instead, so
    the receivers still see every instance (and for a row without every field)."""
    if (
        len(attnames) != len(model._meta.concrete_fields)
        or pre_init.has_listeners(model)
        or post_init.has_listeners(model)
    ):
        return model.from_db(DEFAULT_DB_ALIAS, list(attnames), list(values))
    new = model.__new__(model)
    state = new._state = ModelState()
    state.adding, state.db = False, DEFAULT_DB_ALIAS  # what ``connection.alias`` is
    new.__dict__.update(zip(attnames, values, strict=True))
    return new


def instances(row: Sequence[Any], parts: Sequence[type[models.Model]]) -> list[models.Model]:
    """Split one result row (the ``columns`` of each model in ``parts``, in order) into instances."""
    out, pos = [], 0
    db = connections[DEFAULT_DB_ALIAS]
    for model in parts:
        cols, attnames, convs = _plan(model, db.vendor)
        values = list(row[pos : pos + len(cols)])
        for i, fns, expr in convs:
            for fn in fns:
                values[i] = fn(values[i], expr, db)
        out.append(from_db(model, attnames, values))
        pos += len(cols)
    return out


@cache
def _prepared_cursor_class() -> type:
    from django.db.backends.postgresql.base import ServerBindingCursor

    class PreparedCursor(ServerBindingCursor):
        """Server-side parameters, and every statement prepared on its first execution."""

        def execute(self, query: Any, params: Any = None, **kwargs: Any) -> Any:
            out = super().execute(query, params, prepare=True)  # type: ignore[misc]
            # what Django's query log reads (``last_executed_query``: ``cursor._query.query``), which
            # psycopg's server-binding cursor leaves unset: the statement as written
            self._query = _Logged(query.encode() if isinstance(query, str) else query)
            return out

    return PreparedCursor


class _Logged:
    __slots__ = ("query",)

    def __init__(self, query: bytes) -> None:
        self.query = query


_NEVER = 2**31 - 1  # executions before psycopg prepares a statement by itself


@contextmanager
def cursor() -> Iterator[CursorWrapper]:
    """A Django cursor (its SQL is logged and counted like any other) whose statements PostgreSQL
    prepares once per connection and then only executes; a plain cursor on other databases.
    Parameters are bound on the server, so a literal text parameter has no type of its own (cast
    it: ``%(x)s::jsonb``)."""
    db = connections[DEFAULT_DB_ALIAS]  # once: every ``connection.x`` is a lookup in a thread-local
    if db.vendor != "postgresql":
        with db.cursor() as cur:
            yield cur
        return
    # connection.cursor(), with the prepared cursor made in place of Django's (not made and closed)
    db.close_if_health_check_failed()
    db.ensure_connection()
    raw = db.connection
    if raw.prepare_threshold is None:  # Django's default, which turns ``prepare=True`` off too;
        raw.prepare_threshold = _NEVER  # only cursors binding on the server read it: these ones
    with db.wrap_database_errors:
        wrapped = db._prepare_cursor(_prepared_cursor_class()(raw))  # type: ignore[attr-defined]
    with wrapped as cur:
        yield cur


def fetch_one(sql: str, params: Sequence[Any], parts: Sequence[type[models.Model]]) -> list[models.Model] | None:
    """Run ``sql`` (selecting ``columns`` of each of ``parts``) and return its first row as instances."""
    with cursor() as cur:
        cur.execute(sql, params)
        row = cur.fetchone()
    return None if row is None else instances(row, parts)
