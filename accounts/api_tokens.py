"""Making and checking REST API tokens (:class:`accounts.models.ApiToken`): the key goes to its
owner once; the database keeps its SHA-256. ``HashedTokenAuthentication`` is DRF's
``Authorization: Token <key>`` scheme looking the digest up instead of the key."""

from __future__ import annotations

import hashlib
import secrets
from typing import Any

from django.db import transaction
from rest_framework import exceptions
from rest_framework.authentication import TokenAuthentication

from .models import ApiToken

PREFIX_CHARS = 6


def key_digest(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()


def api_token_issue(user: Any) -> str:
    """A new token for ``user`` in place of any old one; returns its key (the only time it exists
    outside the person's hands)."""
    key = secrets.token_hex(20)  # 160 bits, the length of DRF's keys
    with transaction.atomic():
        ApiToken.objects.filter(user=user).delete()
        ApiToken.objects.create(user=user, digest=key_digest(key), prefix=key[:PREFIX_CHARS])
    return key


class HashedTokenAuthentication(TokenAuthentication):
    model = ApiToken

    def authenticate_credentials(self, key: str) -> tuple[Any, ApiToken]:
        token = ApiToken.objects.select_related("user").filter(digest=key_digest(key)).first()
        if token is None:
            raise exceptions.AuthenticationFailed("Invalid token.")
        if not token.user.is_active:
            raise exceptions.AuthenticationFailed("User inactive or deleted.")
        return token.user, token
