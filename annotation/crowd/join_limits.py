"""How fast a study link may create participants (issue 31 item 2): sixty anonymous joins from one
address made sixty participants in 2.3 s, each a fresh look at the qualification and the checks.
New participants are counted per client address and per study over ``COCOWEB_JOIN_THROTTLE_WINDOW``
seconds, in the cache (Redis in production: every web process sees the same counts); past
``COCOWEB_JOIN_PER_ADDRESS`` or ``COCOWEB_JOIN_PER_STUDY`` the study link answers 429 until the
window passes. Only a participant id the study has not seen counts: a participant coming back
resumes whatever the counts. The address is :func:`accounts.throttle.client_address` (behind
``COCOWEB_PROXY_HOPS`` trusted proxies, the client's)."""

from __future__ import annotations

from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest

from accounts.throttle import client_address
from annotation.models import Campaign


def _count(key: str, window: int) -> int:
    """Add one to ``key`` (created for ``window`` seconds) and return the count, atomically."""
    if cache.add(key, 1, window):
        return 1
    try:
        return int(cache.incr(key))
    except ValueError:  # expired between add and incr
        cache.add(key, 1, window)
        return 1


def join_refused(request: HttpRequest, campaign: Campaign) -> str:
    """Count a new participant of ``campaign`` from this request; the reason it is refused, or ""."""
    window = int(settings.COCOWEB_JOIN_THROTTLE_WINDOW)
    if _count(f"crowd-join:addr:{client_address(request)}", window) > int(settings.COCOWEB_JOIN_PER_ADDRESS):
        # (not counted against the study: one flooding address must not close it to everyone)
        return "Too many new participants have joined from your network in a short time. Please try again later."
    if _count(f"crowd-join:study:{campaign.pk}", window) > int(settings.COCOWEB_JOIN_PER_STUDY):
        return "This study is taking too many new participants at once. Please try again in a few minutes."
    return ""
