"""A lost database becomes a clear, retryable 503 instead of a bare 500.

While PostgreSQL restarts (or a connection dies under a request) every query raises
``OperationalError`` / ``InterfaceError``. :class:`DatabaseUnavailableMiddleware` answers such a
request with ``503 Service Unavailable``, ``Retry-After`` and a message saying what happened: JSON
for the API (``{"code": "database_unavailable", …}``), a small HTML page otherwise. Neither touches
the database (no template context processors, no session). Exceptions raised by a view reach
``process_exception``; those raised in other middleware (e.g. the session save) are marked by a
``got_request_exception`` receiver and their 500 response is replaced on the way out.

Django reconnects by itself on the next request (``CONN_HEALTH_CHECKS`` in settings), and the
annotation submits carry idempotency keys, so a client that retries stores its answer once.
"""

from __future__ import annotations

import json
import logging
import sqlite3
import sys
from collections.abc import Callable
from typing import Any

from django.core.signals import got_request_exception
from django.db import InterfaceError, OperationalError
from django.http import HttpRequest, HttpResponse

log = logging.getLogger(__name__)
RETRY_AFTER_S = 5
MESSAGE = (
    "The database is unavailable right now (it may be restarting). Please retry in a few seconds; "
    "an answer sent again with the same idempotency key is stored only once."
)
_MARK = "_cocoweb_database_unavailable"
# SQLSTATE classes of a lost or refused connection: 08 connection exception, 57P operator
# intervention (admin shutdown, crash shutdown, cannot connect now), 53 insufficient resources.
_UNAVAILABLE_STATES = ("08", "57P", "53")


def database_unavailable(exc: BaseException | None) -> bool:
    """True when ``exc`` says the database cannot be reached (not for a bad query)."""
    if isinstance(exc, InterfaceError):
        return True
    if not isinstance(exc, OperationalError):
        return False
    cause = exc.__cause__
    if isinstance(cause, sqlite3.Error):  # SQLite: only a busy file is transient ("no such table" is not)
        return "locked" in str(cause) or "busy" in str(cause)
    state = getattr(cause, "sqlstate", None)
    return state is None or state.startswith(_UNAVAILABLE_STATES)  # libpq: no SQLSTATE when the socket died


def _wants_json(request: HttpRequest) -> bool:
    return request.path.startswith("/api/") or "application/json" in request.headers.get("Accept", "")


def unavailable_response(request: HttpRequest) -> HttpResponse:
    if _wants_json(request):
        body = json.dumps({"detail": MESSAGE, "code": "database_unavailable", "retry_after_s": RETRY_AFTER_S})
        response = HttpResponse(body, status=503, content_type="application/json")
    else:
        html = (
            '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Database unavailable</title>'
            '<meta name="viewport" content="width=device-width, initial-scale=1"></head><body>'
            '<div class="msg msg-error" role="alert" data-error="database_unavailable">'
            f"<h1>Database unavailable</h1><p>{MESSAGE}</p></div></body></html>"
        )
        response = HttpResponse(html, status=503, content_type="text/html; charset=utf-8")
    response["Retry-After"] = str(RETRY_AFTER_S)
    response["Cache-Control"] = "no-store"
    return response


class DatabaseUnavailableMiddleware:
    """Place it after SecurityMiddleware / WhiteNoise and before everything that reads the database."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if response.status_code == 500 and getattr(request, _MARK, False):
            return unavailable_response(request)
        return response

    def process_exception(self, request: HttpRequest, exc: Exception) -> HttpResponse | None:
        if not database_unavailable(exc):
            return None
        log.warning("database unavailable during %s %s: %s", request.method, request.path, exc)
        return unavailable_response(request)


def _mark_request(sender: Any, request: HttpRequest | None = None, **_: Any) -> None:
    """Django sends this inside its ``except`` block, so the exception is in ``sys.exc_info()``."""
    if request is not None and database_unavailable(sys.exc_info()[1]):
        setattr(request, _MARK, True)


got_request_exception.connect(_mark_request, dispatch_uid="cocoweb.database_unavailable")
