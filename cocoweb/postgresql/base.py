"""Django's PostgreSQL backend (``ENGINE = "cocoweb.postgresql"``) whose per-request health check
(``CONN_HEALTH_CHECKS``) looks at the connection's socket before it sends ``SELECT 1``.

Django checks a persistent connection at the first query of every request with a ``SELECT 1``
round trip: a statement per request on the server and a cursor, a send and a receive in the
worker, for a connection that is almost always fine. A connection that PostgreSQL ended - a fast or
immediate shutdown, a crash, a terminated backend - has something to read on its idle socket: the
server's FATAL message, or the end of the stream. So the socket is polled first (no wait): when
there is nothing to read, the connection is taken as usable; when there is, Django's ``SELECT 1``
check runs as before and closes the connection if it fails (a message that is not an ending, such as
a parameter report after a configuration reload, passes it). ``tests/production/test_postgres_restart.py``
restarts the server under gunicorn, also once with no request to notice it, and every request sent
after the restart must succeed."""

from __future__ import annotations

import select

from django.db.backends.postgresql import base


def _something_to_read(raw: object) -> bool:
    """True when the idle connection's socket has data or an end of stream waiting (or when its
    socket cannot be read at all)."""
    try:
        fd = raw.pgconn.socket  # type: ignore[attr-defined]
        poller = select.poll()
        poller.register(fd, select.POLLIN | select.POLLPRI)
        return bool(poller.poll(0))
    except Exception:  # closed, or no socket: let Django's check decide
        return True


class DatabaseWrapper(base.DatabaseWrapper):
    def close_if_health_check_failed(self) -> None:
        due = getattr(self, "health_check_enabled", False) and not getattr(self, "health_check_done", True)
        if self.connection is not None and due and not self.pool and not _something_to_read(self.connection):
            self.health_check_done = True
            return
        super().close_if_health_check_failed()
