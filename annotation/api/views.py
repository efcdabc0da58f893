"""REST API (DRF, token or session authentication), under ``/api/annotation/``: campaigns, the
next item, answers (``Idempotency-Key`` header: a retried request stores one answer), skip,
agreement and verified-set exports."""

from __future__ import annotations

from typing import Any, cast

from django.core.exceptions import ValidationError
from django.http import HttpResponse
from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.decorators import api_view, permission_classes
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response as ApiResponse

from accounts.people import User, Visitor
from accounts.roles import ANNOTATOR, RESEARCHER
from annotation.api.schema import (
    FMT,
    IDEMPOTENCY_KEY,
    N_BOOT,
    N_BOOT_MAX,
    NextStepSerializer,
    SkippedSerializer,
    SubmittedSerializer,
    responses,
)
from annotation.models import Campaign, Item
from annotation.queue import operations as queue
from annotation.selectors.agreement import campaign_agreement, campaign_matrices, campaign_nww
from annotation.selectors.campaigns import campaign_list_for, campaign_progress
from annotation.selectors.export_access import REFUSAL, campaign_export_allowed
from annotation.services import campaign_exports as exports
from annotation.services.rica import rica_answer, rica_choice
from cocoweb.api_schema import role_permission
from cocoweb.params import digits

HIDDEN = ("original", "answer", "flipped")  # RICA: which statement is the original stays server-side


class CampaignSerializer(serializers.ModelSerializer):
    class Meta:
        model = Campaign
        fields = [
            "name",
            "title",
            "kind",
            "status",
            "instructions",
            "redundancy",
            "max_answers",
            "max_items_per_annotator",
            "ask_common_sense",
            "agreement_threshold",
        ]


class AnswerSerializer(serializers.Serializer):
    answer = serializers.DictField(
        help_text="survey {agree, predict[, common]}: 0/1; mcqa {plausible: [i], "
        "none_correct, bad_context (or well_formed: false): the item is not well formed - not clear English, "
        "two options alike, no clear answer, a context that makes no sense}; rica {choice: 0|1}; "
        "generation {judgement: plausible|one_hop|false}"
    )
    time_ms = serializers.IntegerField(required=False, min_value=0)


def _campaign(user: Visitor, slug: str) -> Campaign:
    return get_object_or_404(campaign_list_for(user), name=slug)


def _caller(request: Request) -> User:
    """The signed-in caller (every annotation endpoint requires IsAuthenticated)."""
    return cast(User, request.user)


def _item_json(item: Item) -> dict[str, Any]:
    payload = {k: v for k, v in item.payload.items() if k not in HIDDEN}
    # An attention check must look like any other item: naming it would tell the annotator which
    # answers are graded. Qualification items are announced (the page says so too).
    role = Item.Role.QUALIFICATION if item.role == Item.Role.QUALIFICATION else Item.Role.REGULAR
    # The id is the opaque uid: row ids are ordered (gold items are created first) and the source
    # id (``key``) finds the answer in the public data.
    return {"id": item.uid, "role": role, "payload": payload}


@extend_schema(responses={k: v for k, v in responses(CampaignSerializer(many=True)).items() if k != 404})
@api_view(["GET"])
@permission_classes([IsAuthenticated, role_permission(ANNOTATOR)])
def campaign_list(request: Request) -> ApiResponse:
    return ApiResponse(CampaignSerializer(campaign_list_for(request.user), many=True).data)


@extend_schema(responses=responses(CampaignSerializer))
@api_view(["GET"])
@permission_classes([IsAuthenticated, role_permission(ANNOTATOR)])
def campaign_detail(request: Request, slug: str) -> ApiResponse:
    return ApiResponse(CampaignSerializer(_campaign(request.user, slug)).data)


@extend_schema(request=None, responses=responses(NextStepSerializer))
@api_view(["POST"])
@permission_classes([IsAuthenticated, role_permission(ANNOTATOR)])
def next_item(request: Request, slug: str) -> ApiResponse:
    """Reserve (or return the live reservation of) the next item for the caller."""
    step = queue.next_step(_campaign(request.user, slug), _caller(request))
    body: dict[str, Any] = {"state": step.state, "message": step.message}
    if step.assignment is not None:
        body["item"] = _item_json(step.assignment.item)
        body["expires_at"] = step.assignment.expires_at.isoformat()
    return ApiResponse(body)


def _api_answer(campaign: Campaign, item: Item, answer: dict[str, Any]) -> dict[str, Any]:
    if campaign.kind != Campaign.Kind.RICA:
        return answer
    # Only {choice}: a stored {valid} says whether the choice was the original statement (gold), so
    # the caller may neither send it (the echo would reveal the original) nor see it.
    choice = answer.get("choice")
    if set(answer) != {"choice"} or type(choice) is not int or choice not in (0, 1):
        raise ValidationError("rica answers are {choice: 0 | 1}: the statement that follows commonsense")
    return rica_answer(item, choice)


def _answer_out(campaign: Campaign, item: Item, stored: dict[str, Any]) -> dict[str, Any]:
    """The stored answer as the annotator gave it (RICA: their choice, never ``valid``)."""
    if campaign.kind != Campaign.Kind.RICA:
        return stored
    return {"choice": rica_choice(item, stored)}


@extend_schema(
    request=AnswerSerializer,
    responses=responses(SubmittedSerializer, 400, 409, 415, also={201: SubmittedSerializer}),
    parameters=[IDEMPOTENCY_KEY],
)
@api_view(["POST"])
@permission_classes([IsAuthenticated, role_permission(ANNOTATOR)])
def submit(request: Request, slug: str, item_id: str) -> ApiResponse:
    """Answer an item given to the caller. 201 when stored, 200 when this answer was already stored."""
    campaign = _campaign(request.user, slug)
    item = get_object_or_404(Item, uid=item_id, campaign=campaign)
    ser = AnswerSerializer(data=request.data)
    ser.is_valid(raise_exception=True)
    try:
        answer = _api_answer(campaign, item, ser.validated_data["answer"])
        done = queue.response_submit(
            item,
            _caller(request),
            answer,
            idempotency_key=request.headers.get("Idempotency-Key"),
            time_ms=ser.validated_data.get("time_ms"),
            source="api",
        )
    except ValidationError as exc:
        return ApiResponse(
            {"detail": " ".join(exc.messages)},
            status=status.HTTP_409_CONFLICT if "expired" in " ".join(exc.messages) else status.HTTP_400_BAD_REQUEST,
        )
    return ApiResponse(
        {
            "response_id": done.response.pk,
            "created": done.created,
            "answer": _answer_out(campaign, item, done.response.answer),
        },
        status=status.HTTP_201_CREATED if done.created else status.HTTP_200_OK,
    )


@extend_schema(request=None, responses=responses(SkippedSerializer, 400))
@api_view(["POST"])
@permission_classes([IsAuthenticated, role_permission(ANNOTATOR)])
def skip(request: Request, slug: str, item_id: str) -> ApiResponse:
    campaign = _campaign(request.user, slug)
    item = get_object_or_404(Item, uid=item_id, campaign=campaign)
    try:
        return ApiResponse({"skipped": queue.assignment_skip(campaign, _caller(request), item)})
    except ValidationError as exc:
        return ApiResponse({"detail": " ".join(exc.messages)}, status=status.HTTP_400_BAD_REQUEST)


@extend_schema(responses=responses(OpenApiTypes.OBJECT, 400), parameters=[N_BOOT])
@api_view(["GET"])
@permission_classes([IsAuthenticated, role_permission(RESEARCHER)])
def agreement(request: Request, slug: str) -> ApiResponse:
    campaign = _campaign(request.user, slug)
    raw = request.query_params.get("n_boot", "1000")
    n_boot = digits(raw, max_digits=len(str(N_BOOT_MAX)))
    if n_boot is None or not 1 <= n_boot <= N_BOOT_MAX:
        return ApiResponse({"detail": f"n_boot must be a whole number from 1 to {N_BOOT_MAX}"}, status=400)
    m = campaign_matrices(campaign)
    a = campaign_agreement(campaign, m)
    body: dict[str, Any] = {
        "progress": campaign_progress(campaign),
        "raters": a.n_raters,
        "items": a.n_items,
        "pairwise_agreement": a.pairwise,
        "fleiss_kappa": a.fleiss,
        "fleiss_items": a.fleiss_items,
        "fleiss_dropped_items": a.fleiss_dropped,
        "krippendorff_alpha": a.krippendorff,
    }
    res = campaign_nww(campaign, m, n_boot=n_boot)
    if res is not None:
        body["nww"] = res.summary
    return ApiResponse(body)


@extend_schema(
    parameters=[FMT],
    responses={(200, "*/*"): OpenApiTypes.BINARY, **{k: v for k, v in responses(None, 400).items() if k != 200}},
)
@api_view(["GET"])
@permission_classes([IsAuthenticated, role_permission(RESEARCHER)])
def export(request: Request, slug: str) -> HttpResponse:
    """The campaign's results: for the researcher who created it, and admins."""
    campaign = _campaign(request.user, slug)
    if not campaign_export_allowed(campaign, request.user):
        return ApiResponse({"detail": REFUSAL}, status=status.HTTP_403_FORBIDDEN)
    fmt = request.query_params.get("fmt", "jsonl")
    if fmt not in exports.FORMATS:
        return ApiResponse({"detail": f"fmt must be one of {', '.join(exports.FORMATS)}"}, status=400)
    resp = HttpResponse(exports.campaign_export(campaign, fmt), content_type=exports.FORMATS[fmt])
    resp["Content-Disposition"] = f'attachment; filename="{campaign.name}.{fmt}"'
    return resp
