"""Login throttling: after too many failed attempts for one user name or from one address, the
login form is refused (HTTP 429) until the window passes. Counts live in the cache (Redis in
production, so every web process sees the same counts)."""

from __future__ import annotations

from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest

WINDOW_SECONDS = getattr(settings, "LOGIN_THROTTLE_WINDOW", 15 * 60)
MAX_PER_USER = getattr(settings, "LOGIN_THROTTLE_PER_USER", 5)
MAX_PER_ADDRESS = getattr(settings, "LOGIN_THROTTLE_PER_ADDRESS", 30)


def _keys(request: HttpRequest, username: str) -> tuple[str, str]:
    addr = request.META.get("REMOTE_ADDR", "?")
    return f"login-fail:user:{username.strip().lower()[:150]}", f"login-fail:addr:{addr}"


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
