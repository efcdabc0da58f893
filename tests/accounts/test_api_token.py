"""Self-service API tokens (issue 14): a signed-in person makes a token, sees it once, and the
API accepts it; a new token ends the old one."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from accounts.api_tokens import key_digest
from accounts.models import ApiToken
from accounts.services import role_groups_sync, user_create_with_role

pytestmark = pytest.mark.django_db


def test_make_use_and_replace_a_token(client: Client) -> None:
    role_groups_sync()
    user = user_create_with_role("tok", "researcher", "pw-long-enough-123")
    client.force_login(user)
    assert "no API token yet" in client.get("/accounts/api-token/").content.decode()
    page = client.post("/accounts/api-token/").content.decode()
    key = re.search(r'id="api-token-key">(\w+)<', page).group(1)  # type: ignore[union-attr]
    assert ApiToken.objects.get(user=user).digest == key_digest(key)
    assert key not in client.get("/accounts/api-token/").content.decode()  # shown once
    api = Client(HTTP_AUTHORIZATION=f"Token {key}")
    assert api.get("/api/runs/").status_code == 200
    client.post("/accounts/api-token/")
    assert api.get("/api/runs/").status_code == 401  # the old key is gone


def test_anonymous_goes_to_login(client: Client) -> None:
    r = client.get("/accounts/api-token/")
    assert r.status_code == 302
    assert r["Location"].startswith("/accounts/login/")
