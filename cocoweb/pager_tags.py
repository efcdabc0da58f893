"""``{% page_query n %}``: the query string of page ``n`` of the current list, every other parameter
of the request (its filters, its search) kept, so that paging a filtered list stays filtered.
Registered for every template as the ``pager`` library (cocoweb/settings.py, TEMPLATES), used by
``templates/pager.html``."""

from __future__ import annotations

from typing import Any

from django import template

register = template.Library()


@register.simple_tag(takes_context=True)
def page_query(context: dict[str, Any], number: int | str, key: str = "page") -> str:
    """``?<the request's parameters but key>&<key>=<number>`` (HTML-escaped by the template)."""
    request = context.get("request")
    params = request.GET.copy() if request is not None else None
    if params is None:
        return f"?{key}={number}"
    params.pop(key, None)
    params[key] = str(number)
    return "?" + params.urlencode()
