"""The session carries the signed-in user and role (accounts.sessions, production's engine with
Redis): a signed-in request reads session and user with one cache read and no query, and every
change of the person's role or account still reaches their next request, in every session.
Run on a local-memory cache and, in pass 2, on Redis (the production cache)."""

from __future__ import annotations

import os
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.cache import caches
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from accounts import sessions
from accounts.backends import user_cache_forget
from accounts.roles import ANNOTATOR, RESEARCHER
from accounts.services import role_groups_sync, user_create_with_role

pytestmark = pytest.mark.django_db
PW = "pw-long-enough-123"


@pytest.fixture(
    params=["locmem", pytest.param("redis", marks=pytest.mark.redis)],
)
def carried(request: pytest.FixtureRequest, settings: Any) -> str:
    if request.param == "redis":
        url = os.environ["CELERY_BROKER_URL"].rsplit("/", 1)[0] + "/3"
        settings.CACHES = {"default": {"BACKEND": "cocoweb.cache.RedisCache", "LOCATION": url}}
    else:
        settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "su"}}
    settings.SESSION_ENGINE = "accounts.sessions"
    settings.COCOWEB_USER_CACHE_SECONDS = 300
    caches["default"].clear()
    yield request.param
    caches["default"].clear()


class CacheReads:
    """Counts the cache reads (get, get_many) made while it is active (one each: the local-memory
    cache's get_many calls its get)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.calls: list[str] = []
        self.depth = 0
        cls = type(caches["default"])
        for name in ("get", "get_many"):
            original = getattr(cls, name)

            def counted(self_: Any, *args: Any, _name: str = name, _orig: Any = original, **kw: Any) -> Any:
                if not self.depth:
                    self.calls.append(_name)
                self.depth += 1
                try:
                    return _orig(self_, *args, **kw)
                finally:
                    self.depth -= 1

            monkeypatch.setattr(cls, name, counted)


def _status(c: Client, name: str = "runs:index") -> int:
    return c.get(reverse(name)).status_code


def _auth_queries(cq: CaptureQueriesContext) -> list[str]:
    return [q["sql"] for q in cq.captured_queries if "auth_user" in q["sql"] or "django_session" in q["sql"]]


def test_a_signed_in_request_reads_session_and_user_with_one_cache_read(
    carried: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    role_groups_sync()
    user_create_with_role("res-s", RESEARCHER, PW)
    c = Client()
    assert c.login(username="res-s", password=PW)
    assert _status(c) == 200  # the first request looks the user up and keeps the copy
    reads = CacheReads(monkeypatch)
    with CaptureQueriesContext(connection) as cq:
        assert _status(c) == 200
    assert reads.calls == ["get_many"]  # session and user together
    assert _auth_queries(cq) == []


@pytest.mark.parametrize(
    "change",
    [
        "user.groups.set",
        "group.user_set.remove",
        "group.user_set.clear",
        "group.delete",
        "group.rename",
        "deactivate",
    ],
)
def test_every_change_reaches_the_next_request_in_every_session(carried: str, change: str) -> None:
    role_groups_sync()
    u = user_create_with_role("res-c", RESEARCHER, PW)
    a, b = Client(), Client()
    assert a.login(username="res-c", password=PW)
    assert b.login(username="res-c", password=PW)
    for c in (a, b):
        assert _status(c) == 200
        assert _status(c) == 200  # now served from the copy the session carries
    g = Group.objects.get(name=RESEARCHER)
    if change == "user.groups.set":
        u.groups.set([Group.objects.get(name=ANNOTATOR)])  # type: ignore[attr-defined]
    elif change == "group.user_set.remove":
        g.user_set.remove(u)
    elif change == "group.user_set.clear":
        g.user_set.clear()
    elif change == "group.delete":
        g.delete()
    elif change == "group.rename":
        g.name = "former-researchers"
        g.save()
    else:
        u.is_active = False  # type: ignore[attr-defined]
        u.save()  # type: ignore[attr-defined]
    expected = 302 if change == "deactivate" else 403  # an inactive account is signed out
    assert [_status(a), _status(b)] == [expected, expected]


def test_the_carried_copy_is_what_a_request_sees_until_it_is_dropped(carried: str) -> None:
    """The fault planted: a role change that bypasses the model's signals (QuerySet-level) leaves the
    copy in place, so the old role is still served; dropping the person's copies
    (user_cache_forget, which the signals call) makes the next request read the new role."""
    role_groups_sync()
    u = user_create_with_role("res-p", RESEARCHER, PW)
    c = Client()
    assert c.login(username="res-p", password=PW)
    assert _status(c) == 200
    through = get_user_model().groups.through
    through.objects.filter(user_id=u.pk).update(group_id=Group.objects.get(name=ANNOTATOR).pk)  # no signal
    assert _status(c) == 200  # the copy: still a researcher
    user_cache_forget([u.pk])
    assert _status(c) == 403


def test_a_session_ended_elsewhere_is_not_revived_by_its_copy(carried: str) -> None:
    role_groups_sync()
    user_create_with_role("res-l", RESEARCHER, PW)
    c = Client()
    assert c.login(username="res-l", password=PW)
    assert _status(c) == 200
    session_key = c.cookies["sessionid"].value
    assert caches["default"].get(sessions.user_key(session_key)) is not None  # the copy is there
    c.post(reverse("logout"))
    c.cookies["sessionid"] = session_key  # the old cookie, sent again
    assert _status(c) == 302


def test_sign_in_writes_the_session_record_once_under_a_new_key(carried: str) -> None:
    """Sign-in cycles the session key (session fixation) and writes the record once: one INSERT,
    no UPDATE after it (Django's cycle_key inserts the record, then login's changes update it)."""
    role_groups_sync()
    user_create_with_role("ann-c", ANNOTATOR, PW)
    c = Client()
    c.get(reverse("login"))
    s = sessions.SessionStore()  # an anonymous session with data, as a study link's browser may have
    s["before"] = "kept"
    s.save()
    old = s.session_key
    c.cookies["sessionid"] = old
    with CaptureQueriesContext(connection) as cq:
        r = c.post(reverse("login"), {"username": "ann-c", "password": PW})
    assert r.status_code == 302
    writes = [q.lstrip().split()[0] for q in _auth_queries(cq) if "django_session" in q]
    assert [w for w in writes if w != "SELECT"] == ["DELETE", "INSERT"], writes
    new = c.cookies["sessionid"].value
    assert new
    assert new != old
    assert sessions.SessionStore(new)["before"] == "kept"
    assert sessions.SessionStore().exists(old) is False
    assert _status(c, "annotation:index") == 200  # signed in under the new key
