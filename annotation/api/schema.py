"""OpenAPI descriptions of what the annotation API answers (drf-spectacular): every status code
and body, errors included, so that clients — and the schema-driven fuzz test — know them."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiParameter
from rest_framework import serializers

from annotation.models import Item
from annotation.services import campaign_exports as exports
from cocoweb.api_schema import detail
from cocoweb.api_schema import responses as shared_responses


class ItemOutSerializer(serializers.Serializer):
    id = serializers.CharField(help_text="opaque item id (neither the row id nor the source dataset's id)")
    role = serializers.ChoiceField(
        choices=[Item.Role.REGULAR.value, Item.Role.QUALIFICATION.value],
        help_text="attention checks are reported as regular items",
    )
    payload = serializers.DictField(
        help_text="survey {text}; mcqa {context, stem, options}; rica {statements}; "
        "generation {context, stem, generation, structure, prediction}"
    )


class NextStepSerializer(serializers.Serializer):
    state = serializers.ChoiceField(choices=["item", "wait", "done", "closed", "failed", "blocked"])
    message = serializers.CharField(allow_blank=True)
    item = ItemOutSerializer(required=False)
    expires_at = serializers.DateTimeField(required=False)


class SubmittedSerializer(serializers.Serializer):
    response_id = serializers.IntegerField()
    created = serializers.BooleanField(help_text="false: this answer was stored by an earlier request")
    answer = serializers.DictField(help_text="the answer as stored (rica: {choice})")


class SkippedSerializer(serializers.Serializer):
    skipped = serializers.BooleanField()


NOT_FOUND_TEXT = "no such campaign open to the caller, or no such item in it"
NOT_FOUND = detail(NOT_FOUND_TEXT)
UNSUPPORTED = detail("the request body's media type is not accepted")


def responses(ok: Any, *extra: int, also: dict[Any, Any] | None = None) -> dict[Any, Any]:
    """``ok`` for 200, the errors every operation can give (``cocoweb/api_schema.py``), the
    ``extra`` ones, and ``also``."""
    more: dict[Any, Any] = {}
    if 415 in extra:
        more[415] = UNSUPPORTED
    if 409 in extra:
        more[409] = detail("the reservation expired and the item has all its answers now")
    return shared_responses(ok, not_found=NOT_FOUND_TEXT, bad_request=400 in extra, also={**more, **(also or {})})


N_BOOT_MAX = 10_000
N_BOOT = OpenApiParameter("n_boot", int, description=f"bootstrap resamples for the NWW intervals (1..{N_BOOT_MAX})")
FMT = OpenApiParameter("fmt", str, enum=list(exports.FORMATS))
IDEMPOTENCY_KEY = OpenApiParameter(
    "Idempotency-Key",
    str,
    OpenApiParameter.HEADER,
    required=False,
    description="a retried request with the same key stores one answer",
)
