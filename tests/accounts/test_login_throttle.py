from __future__ import annotations

import pytest
from django.core.cache import cache
from django.test import Client, RequestFactory
from django.urls import reverse

from accounts.services import role_groups_sync, user_create_with_role
from accounts.throttle import MAX_PER_ADDRESS, MAX_PER_USER, client_address

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
        assert r.status_code == 200
        assert not r.wsgi_request.user.is_authenticated
    r = c.post(reverse("login"), {"username": "alice", "password": "right-password-123"})
    assert r.status_code == 429
    assert "Too many failed log-in attempts" in r.content.decode()
    assert "_auth_user_id" not in c.session  # even the right password is refused while blocked
    cache.clear()  # the window passes
    r = c.post(reverse("login"), {"username": "alice", "password": "right-password-123"})
    assert r.status_code == 302
    assert "_auth_user_id" in c.session


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


def test_one_address_is_throttled_across_user_names() -> None:
    c = Client()
    for i in range(MAX_PER_ADDRESS):
        assert c.post(reverse("login"), {"username": f"guess-{i}", "password": "x"}).status_code == 200
    r = c.post(reverse("login"), {"username": "another-name", "password": "x"})
    assert r.status_code == 429
    assert "Too many failed log-in attempts" in r.content.decode()
    other_address = Client(REMOTE_ADDR="10.0.0.9")
    assert other_address.post(reverse("login"), {"username": "another-name", "password": "x"}).status_code == 200


def test_admin_login_is_throttled_too() -> None:
    role_groups_sync()
    user_create_with_role("boss", "admin", "right-password-123")
    c = Client()
    for _ in range(MAX_PER_USER):
        assert c.post("/admin/login/", {"username": "boss", "password": "wrong"}).status_code == 200
    r = c.post("/admin/login/", {"username": "boss", "password": "right-password-123"})
    assert r.status_code == 429
    assert "_auth_user_id" not in c.session
    # Another way in (cocoweb's own log-in page) shares the same count.
    assert Client().post(reverse("login"), {"username": "boss", "password": "right-password-123"}).status_code == 429


def _addr(remote: str, forwarded: str | None = None) -> str:
    meta = {"REMOTE_ADDR": remote}
    if forwarded is not None:
        meta["HTTP_X_FORWARDED_FOR"] = forwarded
    return client_address(RequestFactory().post("/accounts/login/", **meta))


def test_client_address_behind_trusted_proxies(settings) -> None:  # type: ignore[no-untyped-def]
    settings.COCOWEB_PROXY_HOPS = 0  # no proxy: a forged X-Forwarded-For is ignored
    assert _addr("203.0.113.5", "1.2.3.4") == "203.0.113.5"
    settings.COCOWEB_PROXY_HOPS = 1  # one proxy: the address it saw, not what the client claims further left
    assert _addr("127.0.0.1", "1.2.3.4, 198.51.100.7") == "198.51.100.7"
    assert _addr("127.0.0.1", "198.51.100.7") == "198.51.100.7"
    assert _addr("127.0.0.1") == "127.0.0.1"  # header missing: the socket's address
    settings.COCOWEB_PROXY_HOPS = 2
    assert _addr("127.0.0.1", "1.2.3.4, 198.51.100.7, 10.0.0.2") == "198.51.100.7"


def test_clients_behind_a_proxy_are_counted_apart(settings) -> None:  # type: ignore[no-untyped-def]
    settings.COCOWEB_PROXY_HOPS = 1
    attacker = Client(REMOTE_ADDR="127.0.0.1", HTTP_X_FORWARDED_FOR="198.51.100.66")
    for i in range(MAX_PER_ADDRESS):
        attacker.post(reverse("login"), {"username": f"guess-{i}", "password": "x"})
    assert attacker.post(reverse("login"), {"username": "guess-x", "password": "x"}).status_code == 429
    # Forging another address to the left does not help the attacker ...
    forged = Client(REMOTE_ADDR="127.0.0.1", HTTP_X_FORWARDED_FOR="1.1.1.1, 198.51.100.66")
    assert forged.post(reverse("login"), {"username": "guess-y", "password": "x"}).status_code == 429
    # ... and another person behind the same proxy is not locked out.
    colleague = Client(REMOTE_ADDR="127.0.0.1", HTTP_X_FORWARDED_FOR="198.51.100.10")
    assert colleague.post(reverse("login"), {"username": "someone", "password": "x"}).status_code == 200
