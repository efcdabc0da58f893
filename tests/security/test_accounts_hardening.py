"""Issue 17 item 3: the log-in throttle counts every spelling of a name as one; the
password-change form is throttled; weak passwords like the user name or digits only are refused;
a password change revokes the person's API tokens."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.password_validation import validate_password
from django.core.cache import cache
from django.core.exceptions import ValidationError
from django.test import Client
from django.urls import reverse

from accounts.models import ApiToken
from accounts.services import api_token_renew, role_groups_sync, user_create_with_role
from accounts.throttle import MAX_PASSWORD_CHANGE_FAILURES, MAX_PER_USER

pytestmark = pytest.mark.django_db
PW = "right-password-123"


@pytest.fixture(autouse=True)
def _world() -> None:
    cache.clear()
    role_groups_sync()
    user_create_with_role("res2", "researcher", PW)


def _login(c: Client, name: str, pw: str) -> int:
    return c.post(reverse("login"), {"username": name, "password": pw}).status_code


def test_fullwidth_spelling_shares_the_counter() -> None:
    c = Client()
    for _ in range(MAX_PER_USER):
        assert _login(c, "res2", "wrong") == 200
    # Django folds ｒｅｓ２ to res2 at log-in: the throttle must count it as the same name.
    assert _login(c, "ｒｅｓ２", PW) == 429
    assert _login(c, "RES2", PW) == 429
    assert "_auth_user_id" not in c.session


def test_alternating_spellings_do_not_reset_the_count() -> None:
    c = Client()
    spellings = ["res2", "ｒｅｓ2", "Res2", "ｒｅｓ２", "RES2"]
    codes = [_login(c, spellings[i % len(spellings)], "wrong") for i in range(MAX_PER_USER + 1)]
    assert codes[:MAX_PER_USER] == [200] * MAX_PER_USER
    assert codes[MAX_PER_USER] == 429


def test_password_change_wrong_old_password_is_throttled() -> None:
    c = Client()
    assert _login(c, "res2", PW) == 302
    url = reverse("password_change")
    bad = {"old_password": "wrong", "new_password1": "a-new-long-pass-987", "new_password2": "a-new-long-pass-987"}
    for _ in range(MAX_PASSWORD_CHANGE_FAILURES):
        assert c.post(url, bad).status_code == 200
    good = {**bad, "old_password": PW}
    r = c.post(url, good)
    assert r.status_code == 429
    assert "Too many wrong passwords" in r.content.decode()
    assert get_user_model().objects.get(username="res2").check_password(PW)  # unchanged while blocked


def test_similar_and_numeric_passwords_are_refused() -> None:
    user = get_user_model().objects.get(username="res2")
    with pytest.raises(ValidationError, match="too similar"):
        validate_password("res22", user)
    with pytest.raises(ValidationError, match="entirely numeric"):
        validate_password("83920175461", user)


def test_password_change_revokes_api_tokens() -> None:
    user = get_user_model().objects.get(username="res2")
    key = api_token_renew(user)
    api = Client(HTTP_AUTHORIZATION=f"Token {key}")
    assert api.get("/api/annotation/campaigns/").status_code == 200
    c = Client()
    assert _login(c, "res2", PW) == 302
    new = "a-new-long-pass-987"
    r = c.post(reverse("password_change"), {"old_password": PW, "new_password1": new, "new_password2": new})
    assert r.status_code == 302
    assert not ApiToken.objects.filter(user=user).exists()
    assert api.get("/api/annotation/campaigns/").status_code == 401
    # Other saves (a log-in updating last_login) keep a new token.
    key2 = api_token_renew(user)
    assert _login(Client(), "res2", new) == 302
    assert Client(HTTP_AUTHORIZATION=f"Token {key2}").get("/api/annotation/campaigns/").status_code == 200
