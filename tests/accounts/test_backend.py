"""The authentication backend reads the user and their role in one query on every request; the
role still follows group changes at the next request, and inactive users are refused."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Group
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from accounts.backends import RoleModelBackend
from accounts.roles import ADMIN, ANNOTATOR, RESEARCHER, user_role
from accounts.services import role_groups_sync, user_create_with_role

pytestmark = pytest.mark.django_db
PW = "pw-long-enough-123"


def test_get_user_reads_the_role_in_the_same_query() -> None:
    role_groups_sync()
    users = {r: user_create_with_role(f"u-{r}", r, PW) for r in (ANNOTATOR, RESEARCHER, ADMIN)}
    Group.objects.get(name=ANNOTATOR).user_set.add(users[RESEARCHER])  # two groups: the higher counts
    nobody = user_create_with_role("u-none", ANNOTATOR, PW)
    nobody.groups.clear()  # type: ignore[attr-defined]
    for role, u in [*users.items(), (None, nobody)]:
        with CaptureQueriesContext(connection) as cq:
            loaded = RoleModelBackend().get_user(u.pk)  # type: ignore[attr-defined]
            assert user_role(loaded) == role
        assert len(cq) == 1


def test_inactive_or_missing_user_is_none() -> None:
    role_groups_sync()
    u = user_create_with_role("gone", ANNOTATOR, PW)
    u.is_active = False  # type: ignore[attr-defined]
    u.save()  # type: ignore[attr-defined]
    assert RoleModelBackend().get_user(u.pk) is None  # type: ignore[attr-defined]
    assert RoleModelBackend().get_user(10**9) is None


def test_a_group_change_takes_effect_on_the_next_request() -> None:
    role_groups_sync()
    u = user_create_with_role("res", RESEARCHER, PW)
    c = Client()
    assert c.login(username="res", password=PW)
    assert c.get(reverse("runs:index")).status_code == 200
    u.groups.set([Group.objects.get(name=ANNOTATOR)])  # type: ignore[attr-defined]
    assert c.get(reverse("runs:index")).status_code == 403


# --- the shared-cache copy of the user row (COCOWEB_USER_CACHE_SECONDS > 0, as in production) ---


@pytest.fixture
def user_cache(settings):  # type: ignore[no-untyped-def]
    from django.core.cache import cache

    settings.COCOWEB_USER_CACHE_SECONDS = 300
    cache.clear()
    yield
    cache.clear()


def _queries_for_get_user(pk: int) -> tuple[object, int]:
    with CaptureQueriesContext(connection) as cq:
        u = RoleModelBackend().get_user(pk)
    return u, len(cq)


def test_cached_user_is_read_without_a_query(user_cache: None) -> None:
    role_groups_sync()
    u = user_create_with_role("cached", RESEARCHER, PW)
    first, n1 = _queries_for_get_user(u.pk)  # type: ignore[attr-defined]
    second, n2 = _queries_for_get_user(u.pk)  # type: ignore[attr-defined]
    assert (n1, n2) == (1, 0)
    assert user_role(second) == RESEARCHER
    assert second.pk == u.pk


def test_cache_off_reads_every_time(settings) -> None:  # type: ignore[no-untyped-def]
    settings.COCOWEB_USER_CACHE_SECONDS = 0
    role_groups_sync()
    u = user_create_with_role("uncached", RESEARCHER, PW)
    assert [_queries_for_get_user(u.pk)[1] for _ in range(2)] == [1, 1]  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    "change",
    ["user.groups.set", "group.user_set.remove", "group.user_set.clear", "group.delete", "group.rename"],
)
def test_every_role_change_reaches_the_next_request(user_cache: None, change: str) -> None:
    role_groups_sync()
    u = user_create_with_role("res-c", RESEARCHER, PW)
    c = Client()
    assert c.login(username="res-c", password=PW)
    assert c.get(reverse("runs:index")).status_code == 200
    assert c.get(reverse("runs:index")).status_code == 200  # now served from the cached row
    g = Group.objects.get(name=RESEARCHER)
    if change == "user.groups.set":
        u.groups.set([Group.objects.get(name=ANNOTATOR)])  # type: ignore[attr-defined]
    elif change == "group.user_set.remove":
        g.user_set.remove(u)
    elif change == "group.user_set.clear":
        g.user_set.clear()
    elif change == "group.delete":
        g.delete()
    else:
        g.name = "former-researchers"
        g.save()
    assert c.get(reverse("runs:index")).status_code == 403


def test_deactivation_and_password_change_end_the_cached_session(user_cache: None) -> None:
    role_groups_sync()
    u = user_create_with_role("ann-c", ANNOTATOR, PW)
    a, b = Client(), Client()
    assert a.login(username="ann-c", password=PW)
    assert b.login(username="ann-c", password=PW)
    assert a.get(reverse("annotation:index")).status_code == 200
    assert b.get(reverse("annotation:index")).status_code == 200
    u.set_password("another-long-password-456")  # type: ignore[attr-defined]
    u.save()  # type: ignore[attr-defined]
    assert a.get(reverse("annotation:index")).status_code == 302  # the old session hash no longer matches
    assert b.login(username="ann-c", password="another-long-password-456")
    u.refresh_from_db()  # type: ignore[attr-defined]
    u.is_active = False  # type: ignore[attr-defined]
    u.save()  # type: ignore[attr-defined]
    assert b.get(reverse("annotation:index")).status_code == 302
