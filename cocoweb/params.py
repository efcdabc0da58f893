"""Query parameters, read one way everywhere (issue 31 item 6).

:class:`QueryGuardMiddleware` answers 400, naming the parameter, when the path or any query
parameter (name or value) holds a NUL: PostgreSQL refuses the character in a string, so a filter
that passed it on answered 500 there (SQLite took it). The readers below turn a parameter into a
number only when it is a bounded run of ASCII digits: ``str.isdigit`` also accepts ``²`` and
``١`` (``int`` then raises), and a 21-digit id is past the 64-bit integers SQLite and PostgreSQL
store (``int`` of more than 4,300 digits raises too). Anything else reads as "not given"."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from html import escape

from django.http import HttpRequest, HttpResponse

MAX_DIGITS = 18  # every 18-digit number fits a signed 64-bit integer (the widest column)
# The bounds of a form's numbers, so none reaches a column it overflows (a 500): a seed is stored in
# a BigIntegerField, a count in a PositiveIntegerField (PostgreSQL's integer). MAX_COUNT: the most
# items one form asks to be built or sampled (questions of a build, generations per query kind).
MAX_SEED = 2**63 - 1
MAX_INT32 = 2**31 - 1
MAX_COUNT = 100_000


def digits(raw: object, *, max_digits: int = MAX_DIGITS, signed: bool = False) -> int | None:
    """The whole number ``raw`` spells in 1 to ``max_digits`` ASCII digits (after a ``-`` when
    ``signed``), surrounding spaces allowed; None for anything else."""
    s = str(raw if raw is not None else "").strip()
    body = s[1:] if signed and s.startswith("-") else s
    if not (0 < len(body) <= max_digits and body.isascii() and body.isdigit()):
        return None
    return int(s)


def int_list(values: Iterable[object], *, limit: int, max_digits: int = MAX_DIGITS) -> list[int]:
    """The first ``limit`` values that are :func:`digits`, in order, without repeats."""
    out: list[int] = []
    for v in values:
        n = digits(v, max_digits=max_digits)
        if n is not None and n not in out:
            out.append(n)
            if len(out) == limit:
                break
    return out


def nul_in(request: HttpRequest) -> str | None:
    """What holds a NUL: ``"the path"``, ``"parameter NAME"``, or None."""
    if "\x00" in request.path_info:
        return "the path"
    for key, values in request.GET.lists():
        if "\x00" in key or any("\x00" in v for v in values):
            return f"parameter {key.replace(chr(0), '?')!r}"
    return None


class QueryGuardMiddleware:
    """400 for a NUL in the path or the query string, before any view or session read."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        where = nul_in(request)
        if where is None:
            return self.get_response(request)
        message = f"Bad request: {where} contains a NUL character (%00)."
        if request.path.startswith("/api/") or "application/json" in request.headers.get("Accept", ""):
            body = json.dumps({"detail": message, "code": "nul_in_request"})
            return HttpResponse(body, status=400, content_type="application/json")
        html = (
            '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Bad request</title></head>'
            f'<body><div class="msg msg-error" role="alert"><h1>Bad request</h1><p>{escape(message)}</p></div>'
            "</body></html>"
        )
        return HttpResponse(html, status=400, content_type="text/html; charset=utf-8")
