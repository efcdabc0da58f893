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
