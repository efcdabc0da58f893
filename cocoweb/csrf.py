"""``django.middleware.csrf.get_token`` with the same token drawn faster, for the item box that
every annotation's answer carries (annotation/views/item_box.py).

Django masks the CSRF secret anew for every page (BREACH): a random mask of 32 characters of
``CSRF_ALLOWED_CHARS`` is added to the secret character by character, and the form carries mask
and result. Django draws the mask with ``secrets.choice`` per character, a system call and a
rejection loop each: about a twentieth of the CPU of a whole answer. Here the mask comes from one
``os.urandom`` read, each byte below 248 (4 x 62) taken modulo 62 - uniform over the same 62
characters, from the same random source - and the arithmetic is Django's, so Django's middleware
unmasks and checks the token as it does its own (``tests/security/test_csrf.py``).

Unlike Django's, it does not renew a cookie the request carried. Django re-sends the cookie with
every page that shows a token, only to move its expiry (``CSRF_COOKIE_AGE``) forward; the item box
is the response to every answer, where that ``Set-Cookie`` cost the server its header and the
browser a cookie update per answer. The full pages (the work page, every form through Django's
``{% csrf_token %}``) still renew it, and a request without a valid cookie gets one as before."""

from __future__ import annotations

import os

from django.http import HttpRequest
from django.middleware import csrf

_CHARS = csrf.CSRF_ALLOWED_CHARS
_N = len(_CHARS)
_INDEX = {c: i for i, c in enumerate(_CHARS)}
_LIMIT = 256 - 256 % _N  # bytes at or above it are dropped: what is kept is uniform modulo _N


def _mask_indices(n: int) -> list[int]:
    out: list[int] = []
    while len(out) < n:
        out += [b % _N for b in os.urandom(n + 8) if b < _LIMIT]
    return out[:n]


def mask(secret: str) -> str:
    """Django's ``_mask_cipher_secret``: a random mask, then the secret shifted by it."""
    m = _mask_indices(len(secret))
    return "".join(_CHARS[i] for i in m) + "".join(_CHARS[(_INDEX[c] + i) % _N] for c, i in zip(secret, m, strict=True))


def get_token(request: HttpRequest) -> str:
    """What ``django.middleware.csrf.get_token`` does, masked by :func:`mask`: the secret of the
    request's cookie (not renewed), or a new cookie's when it had none."""
    if "CSRF_COOKIE" in request.META:  # the request's valid cookie (else the middleware made a new one)
        secret = request.META["CSRF_COOKIE"]
    else:
        secret = csrf._add_new_csrf_cookie(request)  # type: ignore[attr-defined]  # Django's, not in the stubs
    return mask(secret)
