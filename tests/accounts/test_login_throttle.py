from __future__ import annotations

import pytest
from django.core.cache import cache
from django.test import Client
from django.urls import reverse

from accounts.services import role_groups_sync, user_create_with_role
from accounts.throttle import MAX_PER_USER

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _clear_cache() -> None:
    cache.clear()


def test_login_is_throttled_after_repeated_failures() -> None:
    role_groups_sync()
    user_create_with_role("alice", "annotator", "right-password-123")
    c = Client()
    for _ in range(MAX_PER_USER):
        r = c.post(reverse("login"), {"username": "alice", "password": "wrong"})
        assert r.status_code == 200 and not r.wsgi_request.user.is_authenticated
    r = c.post(reverse("login"), {"username": "alice", "password": "right-password-123"})
    assert r.status_code == 429
    assert "Too many failed log-in attempts" in r.content.decode()
    assert "_auth_user_id" not in c.session  # even the right password is refused while blocked
    cache.clear()  # the window passes
    r = c.post(reverse("login"), {"username": "alice", "password": "right-password-123"})
    assert r.status_code == 302 and "_auth_user_id" in c.session


def test_success_resets_the_user_counter() -> None:
    role_groups_sync()
    user_create_with_role("bob", "annotator", "right-password-123")
    c = Client()
    for _ in range(MAX_PER_USER - 1):
        c.post(reverse("login"), {"username": "bob", "password": "wrong"})
    assert c.post(reverse("login"), {"username": "bob", "password": "right-password-123"}).status_code == 302
    c.logout()
    for _ in range(MAX_PER_USER - 1):
        assert c.post(reverse("login"), {"username": "bob", "password": "wrong"}).status_code == 200
