"""Login throttling: after too many failed attempts for one user name or from one address, the
login form is refused (HTTP 429) until the window passes. Counts live in the cache (Redis in
production, so every web process sees the same counts; a deploy check warns when they do not).
Behind a reverse proxy every request comes from the proxy's address: set ``COCOWEB_PROXY_HOPS``
so the per-address limit counts clients, not the proxy."""

from __future__ import annotations

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


def _keys(request: HttpRequest, username: str) -> tuple[str, str]:
    return f"login-fail:user:{username.strip().lower()[:150]}", f"login-fail:addr:{client_address(request)}"


def login_blocked(request: HttpRequest, username: str) -> bool:
    user_key, addr_key = _keys(request, username)
    return int(cache.get(user_key, 0)) >= MAX_PER_USER or int(cache.get(addr_key, 0)) >= MAX_PER_ADDRESS


def login_failed(request: HttpRequest, username: str) -> None:
    for key in _keys(request, username):
        if not cache.add(key, 1, WINDOW_SECONDS):
            try:
                cache.incr(key)
            except ValueError:  # expired between add and incr
                cache.add(key, 1, WINDOW_SECONDS)


def login_succeeded(request: HttpRequest, username: str) -> None:
    cache.delete(_keys(request, username)[0])
