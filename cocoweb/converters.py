"""URL converters. ``storedname`` takes a graph, set or campaign name as stored, whatever it is: a
page that links to a name the slug rule refuses (stored before the rule, or by a shell) must not
fail to reverse its URL and answer 500 for everybody (issue 31 item 4), and the set must open so it
can be renamed. A slug comes out unchanged; ``%``, ``/`` and ``.`` are escaped once more than the
rest (Django quotes the result again), so ``a/b`` is one path segment and ``..`` is not a parent
folder to the browser."""

from __future__ import annotations

import re

from django.urls import register_converter

_ESCAPES = {"%": "%25", "/": "%2F", ".": "%2E"}
_UNESCAPE = re.compile("%(25|2F|2E)", re.IGNORECASE)


class StoredName:
    regex = "[^/]+"

    def to_python(self, value: str) -> str:
        return _UNESCAPE.sub(lambda m: chr(int(m.group(1), 16)), value)

    def to_url(self, value: str) -> str:
        return "".join(_ESCAPES.get(ch, ch) for ch in str(value))


register_converter(StoredName, "storedname")
