"""The session engine of production (``SESSION_ENGINE = "accounts.sessions"`` with Redis): Django's
cached-database sessions, whose cached record also carries the signed-in user and their role, so
that a signed-in request reads both with one cache round trip (``MGET`` of the session and the user
copy kept beside it) instead of two (the session, then the user by its id).

The user copy is kept under its own key, ``cocoweb:session-user:<session key>``, for
``COCOWEB_USER_CACHE_SECONDS``; the session record itself is written only as Django writes it (a
concurrent request cannot put back an older copy of the session, e.g. one that was ended). Django's
own checks still run at every request on the copy (``django.contrib.auth.get_user``: the session's
user id, the password hash, ``is_active``). Every session that carries a copy of a person is
remembered in a set (``cocoweb:user-sessions:<user id>``, :func:`cocoweb.cache.set_indexed`), and
every write that can change the person's row or role drops all their copies
(:func:`accounts.backends.user_cache_forget`, run by the signals there): a role change or a
deactivation takes effect on their next request, in every session they have.

:class:`accounts.middleware.AuthenticationMiddleware` lets the authentication backend see the
request's session (:data:`CURRENT`), where it finds the copy
(:meth:`accounts.backends.RoleModelBackend.get_user`)."""

from __future__ import annotations

from contextvars import ContextVar
from typing import Any

from django.conf import settings
from django.contrib.sessions.backends.cached_db import SessionStore as CachedDBStore

from cocoweb.cache import set_indexed

USER_PREFIX = "cocoweb:session-user:"
INDEX_PREFIX = "cocoweb:user-sessions:"

# The session of the request whose user is being loaded (set by accounts.middleware around
# django.contrib.auth.get_user; a context variable, so each thread of a worker has its own).
CURRENT: ContextVar[Any] = ContextVar("cocoweb_session", default=None)


def user_key(session_key: str) -> str:
    return USER_PREFIX + session_key


def index_key(user_id: Any) -> str:
    return f"{INDEX_PREFIX}{user_id}"


class SessionStore(CachedDBStore):
    carried_user: Any = None  # the user copy read with the session record (None: none, or off)
    _cache: Any  # Django's cached_db sets it (the session cache); not in the stubs
    _session: dict[str, Any]  # SessionBase's property over the loaded data; not in the stubs

    def load(self) -> dict[str, Any]:
        if settings.COCOWEB_USER_CACHE_SECONDS <= 0 or not self.session_key:
            return super().load()
        key, ukey = self.cache_key, user_key(self.session_key)
        try:
            got = self._cache.get_many([key, ukey])
        except Exception:  # as Django's load: a key the cache refuses means no cached session
            got = {}
        data = got.get(key)
        if data is None:
            return super().load()  # from the database (and cached again); no copy of the user then
        self.carried_user = got.get(ukey)
        return data

    def carry_user(self, user: Any) -> None:
        """Keep a copy of ``user`` (as the backend loaded it, role included) beside this session."""
        ttl = settings.COCOWEB_USER_CACHE_SECONDS
        if ttl <= 0 or not self.session_key:
            return
        set_indexed(self._cache, user_key(self.session_key), user, ttl, index_key(user.pk), self.session_key)

    def cycle_key(self) -> None:
        """Django's ``cycle_key`` (at sign-in: a new session key, the data kept, the old record
        deleted, against session fixation) without writing the record under the new key at once:
        Django's ``login`` changes the session right after it (the user's id and hash), so the
        response writes the record anyway. The key is drawn when the response saves it, as after
        Django's own ``flush``: one INSERT per sign-in instead of an INSERT and then an UPDATE
        (a crowd study's link signs in every new participant, issue 32 item 4)."""
        data, old = self._session, self.session_key
        self._session_key = None  # save() creates the record under a new key
        self._session_cache = data
        self.modified = True
        if old:
            self.delete(old)
