"""Login throttling: after too many failed attempts for one user name or from one address, the
login form is refused (HTTP 429) until the window passes. Counts live in the cache (Redis in
production, so every web process sees the same counts; a deploy check warns when they do not).
Behind a reverse proxy every request comes from the proxy's address: set ``COCOWEB_PROXY_HOPS``
so the per-address limit counts clients, not the proxy."""

from __future__ import annotations

import unicodedata

from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest

WINDOW_SECONDS: int = settings.LOGIN_THROTTLE_WINDOW
MAX_PER_USER: int = settings.LOGIN_THROTTLE_PER_USER
MAX_PER_ADDRESS: int = settings.LOGIN_THROTTLE_PER_ADDRESS


def client_address(request: HttpRequest) -> str:
    """The client's address. Behind ``COCOWEB_PROXY_HOPS`` trusted reverse proxies it is the entry
    that many hops from the right of ``X-Forwarded-For`` (what the outermost proxy saw); entries
    further left are the client's own claims and are ignored, so a forged header changes nothing.
    Without proxies (the default) the header is ignored altogether."""
    hops = int(settings.COCOWEB_PROXY_HOPS)
    if hops > 0:
        chain = [a.strip() for a in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",") if a.strip()]
        if len(chain) >= hops:
            return chain[-hops]
    return str(request.META.get("REMOTE_ADDR", "?"))


def name_key(username: str) -> str:
    """The spelling-independent form of a user name: NFKC (what Django's log-in form folds the
    name to before looking the user up, so ``ｒｅｓ2`` logs in as ``res2``) and then casefold, so
    every spelling that can reach one account shares one counter."""
    return unicodedata.normalize("NFKC", username).casefold().strip()[:150]


def _keys(request: HttpRequest, username: str) -> tuple[str, str]:
    return f"login-fail:user:{name_key(username)}", f"login-fail:addr:{client_address(request)}"


def _bump(key: str) -> None:
    if not cache.add(key, 1, WINDOW_SECONDS):
        try:
            cache.incr(key)
        except ValueError:  # expired between add and incr
            cache.add(key, 1, WINDOW_SECONDS)


def login_blocked(request: HttpRequest, username: str) -> bool:
    user_key, addr_key = _keys(request, username)
    return int(cache.get(user_key, 0)) >= MAX_PER_USER or int(cache.get(addr_key, 0)) >= MAX_PER_ADDRESS


def login_failed(request: HttpRequest, username: str) -> None:
    for key in _keys(request, username):
        _bump(key)


def login_succeeded(request: HttpRequest, username: str) -> None:
    cache.delete(_keys(request, username)[0])


# Password change: wrong *old* passwords count per account (the session is already signed in, so
# the form is an oracle for the current password of whoever left a browser open).
MAX_PASSWORD_CHANGE_FAILURES = settings.PASSWORD_CHANGE_THROTTLE_PER_USER


def _pw_key(user_pk: object) -> str:
    return f"password-change-fail:user:{user_pk}"


def password_change_blocked(user_pk: object) -> bool:
    return int(cache.get(_pw_key(user_pk), 0)) >= MAX_PASSWORD_CHANGE_FAILURES


def password_change_failed(user_pk: object) -> None:
    _bump(_pw_key(user_pk))


def password_change_succeeded(user_pk: object) -> None:
    cache.delete(_pw_key(user_pk))
