"""Issue 31 item 11: API tokens were stored in clear (DRF's authtoken) and listed in the admin. Now
only the key's SHA-256 is stored; the admin shows who holds a token and its first characters; a
token of the old table keeps working after the migration, and its clear key is deleted there."""

from __future__ import annotations

import importlib
from types import SimpleNamespace

import pytest
from django.apps import apps
from django.db import connection
from django.test import Client

from accounts.api_tokens import key_digest
from accounts.models import ApiToken
from accounts.services import api_token_renew
from tests.security.conftest import World

pytestmark = pytest.mark.django_db


def _api(key: str) -> int:
    return Client(HTTP_AUTHORIZATION=f"Token {key}").get("/api/annotation/campaigns/").status_code


def test_the_key_is_nowhere_in_the_database_and_not_in_the_admin(world: World) -> None:
    key = world.tokens["annotator"]
    assert _api(key) == 200
    with connection.cursor() as cursor:  # every text column of the token table
        cursor.execute("SELECT digest, prefix FROM accounts_apitoken")
        stored = " ".join(" ".join(row) for row in cursor.fetchall())
    assert key not in stored
    assert key_digest(key) in stored
    admin = world.client("admin")
    listing = admin.get("/admin/accounts/apitoken/").content.decode()
    token = ApiToken.objects.get(user=world.users["annotator"])
    assert key not in listing
    assert key[:6] in listing
    page = admin.get(f"/admin/accounts/apitoken/{token.pk}/change/").content.decode()
    assert key not in page
    assert token.digest not in page
    assert admin.get("/admin/accounts/apitoken/add/").status_code == 403  # keys are made by their owner


def test_a_digest_is_not_a_key(world: World) -> None:
    key = world.tokens["researcher"]
    assert _api(key_digest(key)) == 401
    assert _api(key[:-1]) == 401
    assert _api(key) == 200
    api_token_renew(world.users["researcher"])
    assert _api(key) == 401  # a new token ends the old one


def test_a_token_of_the_old_table_keeps_working(world: World) -> None:
    """A clear key in DRF's authtoken table (a database from before the change) is copied as its
    digest by the migration, and the clear row is deleted."""
    user = world.users["researcher"]
    ApiToken.objects.filter(user=user).delete()
    old_key = "0123456789abcdef0123456789abcdef01234567"
    with connection.cursor() as cursor:
        cursor.execute(
            "CREATE TABLE authtoken_token (key varchar(40) PRIMARY KEY, created timestamp with time zone NOT NULL,"
            " user_id integer NOT NULL)"
            if connection.vendor == "postgresql"
            else "CREATE TABLE authtoken_token (key varchar(40) PRIMARY KEY, created datetime NOT NULL,"
            " user_id integer NOT NULL)"
        )
        cursor.execute(
            "INSERT INTO authtoken_token (key, created, user_id) VALUES (%s, %s, %s)",
            [old_key, "2026-01-02 03:04:05+00:00", user.pk],
        )
    assert _api(old_key) == 401  # not yet migrated
    migration = importlib.import_module("accounts.migrations.0001_api_tokens_hashed")
    migration.tokens_from_authtoken(apps, SimpleNamespace(connection=connection))  # what it reads of the editor
    assert _api(old_key) == 200
    token = ApiToken.objects.get(user=user)
    assert token.prefix == old_key[:6]
    assert token.created.year == 2026
    assert token.created.month == 1
    with connection.cursor() as cursor:
        cursor.execute("SELECT COUNT(*) FROM authtoken_token")
        assert cursor.fetchone()[0] == 0
