"""The REST API's JSON parser: DRF's, with a bound on nesting (issue 31 item 6). A body nested
1,000 deep made Python's decoder raise ``RecursionError`` (not a ``ValueError``, so DRF answered
500), and one just under the interpreter's limit would go on to recurse through serializers and
the JSON columns. Every request body here is an object of a few levels (an answer, a run's
settings); past ``MAX_DEPTH`` it is refused with 400 before anything reads it."""

from __future__ import annotations

from typing import Any

from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser

MAX_DEPTH = 32


def json_depth(value: Any, limit: int = MAX_DEPTH) -> int:
    """How deep lists and objects nest in ``value`` (a scalar: 0), walked without recursion; the
    walk stops at ``limit + 1``."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict | list):
            depth += 1
            deepest = max(deepest, depth)
            if depth > limit:
                return depth
            stack.extend((child, depth) for child in (node.values() if isinstance(node, dict) else node))
    return deepest


class DepthLimitedJSONParser(JSONParser):
    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> Any:
        try:
            data = super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise ParseError(f"JSON parse error - nested deeper than {MAX_DEPTH} levels") from None
        if json_depth(data) > MAX_DEPTH:
            raise ParseError(f"JSON parse error - nested deeper than {MAX_DEPTH} levels")
        return data
