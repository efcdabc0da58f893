"""Role checks for DRF views (the REST API, the API schema and its docs page): the same ladder as
:func:`accounts.roles.role_required`, answered 403 with the role that is missing. A crowd
participant is signed in but holds no role, so none of these admit them."""

from __future__ import annotations

from typing import Any

from rest_framework.permissions import BasePermission

from .roles import ANNOTATOR, has_role


def role_permission(role: str) -> type[BasePermission]:
    class HasRole(BasePermission):
        message = f"this needs the {role} role"

        def has_permission(self, request: Any, view: Any) -> bool:
            return bool(request.user and request.user.is_authenticated and has_role(request.user, role))

    HasRole.__name__ = f"Has{role.title()}Role"
    return HasRole


HasAnnotatorRole = role_permission(ANNOTATOR)  # settings.SPECTACULAR_SETTINGS["SERVE_PERMISSIONS"]
