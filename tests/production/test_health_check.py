"""The per-request health check of persistent PostgreSQL connections (cocoweb/postgresql/base.py):
an idle, healthy connection is not sent ``SELECT 1`` at the start of each request, and a connection
that the server ended while it sat idle is still found out and replaced before the request's first
query (the fault planted: its backend terminated from another connection). The whole outage, under
gunicorn, is test_postgres_restart.py."""

from __future__ import annotations

import time
from typing import Any

import psycopg
import pytest
from django.db import connection, connections

from cocoweb.postgresql.base import DatabaseWrapper

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def _new_request() -> None:
    """What Django does between two requests (request_started / request_finished)."""
    connection.close_if_unusable_or_obsolete()


def _pid() -> int:
    with connection.cursor() as cur:
        cur.execute("SELECT pg_backend_pid()")
        return int(cur.fetchone()[0])


@pytest.fixture
def pings(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Every ``SELECT 1`` health check Django sends, with its result. The test starts on a new
    connection: one left open by an earlier test (or by the database set-up) may be older than
    CONN_MAX_AGE on a loaded machine, and Django closes it as obsolete, which is not what is tested."""
    assert isinstance(connections["default"], DatabaseWrapper)
    assert connection.settings_dict["CONN_HEALTH_CHECKS"]
    connection.close()
    seen: list[bool] = []
    real = DatabaseWrapper.is_usable

    def spy(self: Any) -> bool:
        seen.append(real(self))
        return seen[-1]

    monkeypatch.setattr(DatabaseWrapper, "is_usable", spy)
    return seen


def test_a_healthy_idle_connection_gets_no_select_1(pings: list[bool]) -> None:
    first = _pid()
    for _ in range(3):
        _new_request()
        assert _pid() == first  # the same persistent connection, request after request
    assert pings == []


def test_a_connection_the_server_ended_is_replaced_before_the_first_query(pings: list[bool]) -> None:
    victim = _pid()
    _new_request()
    conninfo = connection.connection.info.dsn  # type: ignore[union-attr]
    with psycopg.connect(conninfo, autocommit=True) as other:
        other.execute("SELECT pg_terminate_backend(%s)", [victim])
    time.sleep(0.5)  # the server's message and the end of the stream reach the idle socket
    assert _pid() != victim  # no error: the check found the ended connection and Django reconnected
    assert pings == [False]
