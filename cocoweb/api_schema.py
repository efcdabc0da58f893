"""OpenAPI pieces the data APIs share (drf-spectacular): the error bodies every operation can
answer and a role permission, used by the ``knowledge``, ``runs`` and ``annotation`` APIs (an app
never imports another app's API)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse
from rest_framework import serializers
from rest_framework.permissions import BasePermission

from accounts.roles import ANNOTATOR, has_role


class ErrorSerializer(serializers.Serializer):
    """The error body of every API (``{"detail": "..."}``), in the schema once."""

    detail = serializers.CharField()


def detail(text: str) -> OpenApiResponse:
    return OpenApiResponse(ErrorSerializer, description=text)


UNAUTHENTICATED = detail("no or an invalid token / session")
FORBIDDEN = detail("the caller's role may not do this (or a session post without its CSRF token)")
BAD_REQUEST = OpenApiResponse(OpenApiTypes.OBJECT, description="invalid input: {detail} or {field: [errors]}")


def responses(
    ok: Any, *, not_found: str = "", bad_request: bool = False, also: dict[Any, Any] | None = None
) -> dict[Any, Any]:
    out: dict[Any, Any] = {200: ok, 401: UNAUTHENTICATED, 403: FORBIDDEN}
    if not_found:
        out[404] = detail(not_found)
    if bad_request:
        out[400] = BAD_REQUEST
    out.update(also or {})
    return out


def role_permission(role: str) -> type[BasePermission]:
    class HasRole(BasePermission):
        message = f"this needs the {role} role"

        def has_permission(self, request: Any, view: Any) -> bool:
            return bool(request.user and request.user.is_authenticated and has_role(request.user, role))

    HasRole.__name__ = f"Has{role.title()}Role"
    return HasRole


# The API's schema and its docs page: people with a role (a crowd participant is signed in without
# one). settings.SPECTACULAR_SETTINGS["SERVE_PERMISSIONS"] names it.
HasAnnotatorRole = role_permission(ANNOTATOR)


NUL_REFUSAL = "a NUL character in the path or a query parameter (cocoweb/params.py answers before the view)"


def nul_refusal_documented(result: dict[str, Any], generator: Any, request: Any, public: bool) -> dict[str, Any]:
    """drf-spectacular post-processing hook: every operation documents the 400 that
    ``cocoweb.params.QueryGuardMiddleware`` answers for a NUL, whatever the view would have said."""
    schemas = result.setdefault("components", {}).setdefault("schemas", {})
    schemas.setdefault(
        "Error", {"type": "object", "properties": {"detail": {"type": "string"}}, "required": ["detail"]}
    )
    error = {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}
    for operations in result.get("paths", {}).values():
        for operation in operations.values():
            if isinstance(operation, dict) and "responses" in operation:
                operation["responses"].setdefault("400", {"description": NUL_REFUSAL, "content": error})
    return result
