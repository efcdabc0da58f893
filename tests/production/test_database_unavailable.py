"""The 503 for a lost database (cocoweb/middleware.py), without a server: which errors count as
"unavailable", and what the client gets. The real outage is in test_postgres_restart.py."""

from __future__ import annotations

import json
import sqlite3

import psycopg
import pytest
from django.core.signals import got_request_exception
from django.db import InterfaceError, OperationalError, ProgrammingError
from django.http import HttpResponse
from django.test import RequestFactory

from cocoweb.middleware import DatabaseUnavailableMiddleware, database_unavailable


def _wrapped(cls: type[Exception], cause: BaseException) -> Exception:
    exc = cls(str(cause))
    exc.__cause__ = cause
    return exc


@pytest.mark.parametrize(
    ("exc", "unavailable"),
    [
        (_wrapped(OperationalError, psycopg.OperationalError("connection failed: Connection refused")), True),
        (
            _wrapped(
                OperationalError, psycopg.errors.AdminShutdown("terminating connection due to administrator command")
            ),
            True,
        ),
        (_wrapped(OperationalError, psycopg.errors.CannotConnectNow("the database system is starting up")), True),
        (_wrapped(OperationalError, psycopg.errors.TooManyConnections("too many clients")), True),
        (InterfaceError("connection already closed"), True),
        (_wrapped(OperationalError, sqlite3.OperationalError("database is locked")), True),
        (
            _wrapped(OperationalError, psycopg.errors.QueryCanceled("canceling statement due to statement timeout")),
            False,
        ),
        (_wrapped(OperationalError, sqlite3.OperationalError("no such table: annotation_item")), False),
        (_wrapped(ProgrammingError, psycopg.errors.UndefinedTable('relation "x" does not exist')), False),
        (ValueError("not a database error"), False),
    ],
)
def test_which_errors_mean_the_database_is_unavailable(exc: Exception, unavailable: bool) -> None:
    assert database_unavailable(exc) is unavailable


def _lost() -> Exception:
    return _wrapped(OperationalError, psycopg.OperationalError("server closed the connection unexpectedly"))


@pytest.mark.parametrize(
    ("path", "headers", "kind"),
    [
        ("/api/annotation/campaigns/x/next/", {}, "json"),
        ("/annotation/c/x/item/", {"HTTP_ACCEPT": "application/json"}, "json"),
        ("/annotation/c/x/item/", {"HTTP_HX_REQUEST": "true"}, "html"),
        ("/annotation/", {}, "html"),
    ],
)
def test_a_view_that_loses_the_database_answers_503(path: str, headers: dict[str, str], kind: str) -> None:
    mw = DatabaseUnavailableMiddleware(lambda r: HttpResponse())
    response = mw.process_exception(RequestFactory().post(path, **headers), _lost())  # type: ignore[arg-type]
    assert response is not None
    assert response.status_code == 503
    assert response["Retry-After"] == "5"
    assert response["Cache-Control"] == "no-store"
    if kind == "json":
        body = json.loads(response.content)
        assert body["code"] == "database_unavailable"
        assert "retry" in body["detail"]
    else:
        assert response["Content-Type"].startswith("text/html")
        assert b'data-error="database_unavailable"' in response.content
        assert b"Please retry" in response.content


def test_other_view_errors_are_left_to_django() -> None:
    mw = DatabaseUnavailableMiddleware(lambda r: HttpResponse())
    request = RequestFactory().get("/annotation/")
    assert mw.process_exception(request, _wrapped(ProgrammingError, psycopg.errors.UndefinedTable("x"))) is None
    assert mw.process_exception(request, KeyError("x")) is None


def _failing(exc: Exception):  # type: ignore[no-untyped-def]
    """What Django does with an exception raised outside the view (e.g. the session save in
    SessionMiddleware): signal got_request_exception inside the except block, answer 500."""

    def get_response(request):  # type: ignore[no-untyped-def]
        try:
            raise exc
        except Exception:
            got_request_exception.send(sender=None, request=request)
            return HttpResponse("Server Error (500)", status=500)

    return get_response


def test_a_500_caused_by_a_lost_database_outside_the_view_becomes_503() -> None:
    response = DatabaseUnavailableMiddleware(_failing(_lost()))(RequestFactory().get("/api/runs/"))
    assert response.status_code == 503
    assert json.loads(response.content)["code"] == "database_unavailable"
    other = DatabaseUnavailableMiddleware(_failing(RuntimeError("bug")))(RequestFactory().get("/api/runs/"))
    assert other.status_code == 500


def test_the_middleware_sits_before_everything_that_reads_the_database() -> None:
    from django.conf import settings

    mw = list(settings.MIDDLEWARE)
    mine = mw.index("cocoweb.middleware.DatabaseUnavailableMiddleware")
    assert mine < mw.index("django.contrib.sessions.middleware.SessionMiddleware")
    assert mine > mw.index("django.middleware.security.SecurityMiddleware")  # the 503 keeps the security headers
