"""Issue 31 item 1: the log-in throttle decides success by the form, never by the session's
existing user. A browser already signed in (as anyone: a crowd participant gets a session from an
open study link) used to have every failure counted as a success, so it never reached 429 and
reset the victim's failure counter."""

from __future__ import annotations

import pytest
from django.core.cache import cache
from django.test import Client
from django.urls import reverse

from accounts.services import role_groups_sync, user_create_with_role
from accounts.throttle import MAX_PER_ADDRESS, MAX_PER_USER, name_key

pytestmark = pytest.mark.django_db
PW = "right-password-123"


@pytest.fixture(autouse=True)
def _world() -> None:
    cache.clear()
    role_groups_sync()
    user_create_with_role("victim-admin", "admin", PW)
    user_create_with_role("attacker", "annotator", PW)


def _login(c: Client, name: str, pw: str) -> int:
    return c.post(reverse("login"), {"username": name, "password": pw}).status_code


def test_a_signed_in_browser_reaches_429_for_the_name() -> None:
    c = Client()
    assert _login(c, "attacker", PW) == 302  # signed in first, as anyone
    codes = [_login(c, "victim-admin", "wrong") for _ in range(MAX_PER_USER)]
    assert codes == [200] * MAX_PER_USER
    assert int(cache.get(f"login-fail:user:{name_key('victim-admin')}", 0)) == MAX_PER_USER
    # The right password is refused now: the name is throttled whoever the session was.
    assert _login(c, "victim-admin", PW) == 429
    assert c.session.get("_auth_user_id") != str(_pk("victim-admin"))


def test_a_signed_in_browser_reaches_429_for_the_address() -> None:
    c = Client()
    assert _login(c, "attacker", PW) == 302
    codes = [_login(c, f"name-{i}", "wrong") for i in range(MAX_PER_ADDRESS + 1)]
    assert codes[:MAX_PER_ADDRESS] == [200] * MAX_PER_ADDRESS
    assert codes[MAX_PER_ADDRESS] == 429


def test_a_failure_from_a_signed_in_browser_never_resets_the_victims_counter() -> None:
    other = Client()
    for _ in range(MAX_PER_USER - 1):
        assert _login(other, "victim-admin", "wrong") == 200
    c = Client()
    assert _login(c, "attacker", PW) == 302
    assert _login(c, "victim-admin", "wrong") == 200  # a failure, counted: the limit is reached
    assert _login(Client(), "victim-admin", PW) == 429


def test_a_right_password_resets_the_name_counter() -> None:
    c = Client()
    for _ in range(MAX_PER_USER - 1):
        assert _login(c, "victim-admin", "wrong") == 200
    assert _login(c, "victim-admin", PW) == 302
    assert cache.get(f"login-fail:user:{name_key('victim-admin')}") is None


def _pk(name: str) -> int:
    from django.contrib.auth import get_user_model

    return int(get_user_model().objects.get(username=name).pk)
