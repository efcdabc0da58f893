"""Roles are Django groups: annotator < researcher < admin. A higher role includes the lower
ones. Views declare the least role they need with :func:`role_required`."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import TYPE_CHECKING, Any

from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest
from django.http.response import HttpResponseBase

if TYPE_CHECKING:
    from .people import Visitor

ANNOTATOR, RESEARCHER, ADMIN = "annotator", "researcher", "admin"
ROLES = (ANNOTATOR, RESEARCHER, ADMIN)
_RANK = {role: i for i, role in enumerate(ROLES)}


def user_role(user: Visitor) -> str | None:
    """The highest role a user holds, or None (anonymous or no group)."""
    if not getattr(user, "is_authenticated", False):
        return None
    if user.is_superuser:
        return ADMIN
    cached = getattr(user, "_cocoweb_role", "unset")
    if cached != "unset":
        return cached
    names = set(user.groups.values_list("name", flat=True))
    role = None
    for r in ROLES:
        if r in names:
            role = r
    user._cocoweb_role = role  # type: ignore[union-attr]  # the per-request cache
    return role


def has_role(user: Visitor, role: str) -> bool:
    held = user_role(user)
    return held is not None and _RANK[held] >= _RANK[role]


def role_required(role: str) -> Callable[[Callable[..., HttpResponseBase]], Callable[..., HttpResponseBase]]:
    """Anonymous users go to the login page; signed-in users without the role get 403."""
    if role not in _RANK:
        raise ValueError(f"unknown role {role!r}")

    def decorator(view: Callable[..., HttpResponseBase]) -> Callable[..., HttpResponseBase]:
        @wraps(view)
        def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
            if not request.user.is_authenticated:
                return redirect_to_login(request.get_full_path())
            if not has_role(request.user, role):
                raise PermissionDenied(f"this page needs the {role} role")
            return view(request, *args, **kwargs)

        wrapper.required_role = role  # type: ignore[attr-defined]
        return wrapper

    return decorator
