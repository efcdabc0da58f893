"""Django's ``AuthenticationMiddleware`` whose lazy ``request.user`` is loaded with the request's
session visible to the authentication backend (:data:`accounts.sessions.CURRENT`), so the backend
can take the user copy that the session record carries (:mod:`accounts.sessions`). Everything else
is Django's: ``django.contrib.auth.get_user`` checks the session's user id, backend and password
hash as usual."""

from __future__ import annotations

from typing import Any

from django.contrib import auth
from django.contrib.auth.middleware import AuthenticationMiddleware as DjangoAuthenticationMiddleware
from django.http import HttpRequest
from django.utils.functional import SimpleLazyObject

from .sessions import CURRENT


def get_user(request: HttpRequest) -> Any:
    if not hasattr(request, "_cached_user"):
        token = CURRENT.set(request.session)
        try:
            request._cached_user = auth.get_user(request)  # type: ignore[attr-defined]
        finally:
            CURRENT.reset(token)
    return request._cached_user  # type: ignore[attr-defined]


class AuthenticationMiddleware(DjangoAuthenticationMiddleware):
    def process_request(self, request: HttpRequest) -> None:
        super().process_request(request)
        request.user = SimpleLazyObject(lambda: get_user(request))  # type: ignore[assignment]
