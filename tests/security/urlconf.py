"""Every URL pattern of ``cocoweb.urls``, nested includes resolved, keyed like Django keys a match
(``ResolverMatch.route``), with the names of its path parameters."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from django.urls import URLPattern, URLResolver, get_resolver, resolve, reverse
from django.urls.resolvers import RegexPattern, RoutePattern


@dataclass(frozen=True)
class Route:
    key: str  # e.g. "annotation/c/<slug:slug>/item/" (what resolve(url).route returns)
    name: str | None  # namespaced URL name, None when the pattern has no name
    params: tuple[str, ...]
    lookup: str  # dotted path of the view


def _join(route1: str, route2: str) -> str:
    # As django.urls.resolvers.URLResolver._join_route does.
    if not route1:
        return route2
    return route1 + route2.removeprefix("^")


def _params(pattern: Any) -> tuple[str, ...]:
    if isinstance(pattern, RoutePattern):
        return tuple(pattern.converters)
    if isinstance(pattern, RegexPattern):
        return tuple(pattern.regex.groupindex)
    raise TypeError(f"unknown URL pattern type {type(pattern).__name__}")


def _walk(patterns: list[Any], prefix: str, ns: str, params: tuple[str, ...]) -> Iterator[Route]:
    for p in patterns:
        if isinstance(p, URLResolver):
            sub_ns = ns + (f"{p.namespace}:" if p.namespace else "")
            yield from _walk(p.url_patterns, _join(prefix, str(p.pattern)), sub_ns, params + _params(p.pattern))
        elif isinstance(p, URLPattern):
            yield Route(
                _join(prefix, str(p.pattern)),
                f"{ns}{p.name}" if p.name else None,
                params + _params(p.pattern),
                p.lookup_str,
            )
        else:  # pragma: no cover - Django has only these two
            raise TypeError(f"unknown URL conf entry {p!r}")


def all_routes() -> list[Route]:
    """Every pattern in resolution order (a shadowed pattern appears after the one that wins)."""
    return list(_walk(get_resolver().url_patterns, "", "", ()))


def url_for(route: Route, kwargs: dict[str, Any], explicit: str | None = None) -> str:
    """A concrete URL of ``route``: reversed by name, the literal route when it has no parameter,
    else ``explicit``. The URL must resolve back to ``route`` (else the check would probe another view)."""
    if explicit is not None:
        url = explicit
    elif route.name is not None:
        url = reverse(route.name, kwargs={k: kwargs[k] for k in route.params})
    elif not route.params:
        url = "/" + route.key
    else:
        raise LookupError(f"{route.key}: unnamed pattern with parameters {route.params} needs an explicit URL")
    match = resolve(url.split("?")[0])
    if match.route != route.key:
        raise AssertionError(f"{url} resolves to {match.route!r}, not to {route.key!r}")
    return url
