"""REST API of model runs (DRF, token or session authentication), under ``/api/runs/``, for
researchers: list and read runs with their overall metrics, launch a run (validated by
:func:`runs.services.run_create`, queued after commit), cancel one, and read its predictions a
page at a time with the per-sample viewer's filters."""

from __future__ import annotations

from typing import cast

from django.core.exceptions import ValidationError
from django.db.models import Prefetch, QuerySet
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema, extend_schema_view
from rest_framework import generics, serializers, status
from rest_framework.pagination import PageNumberPagination
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response

from accounts.people import User
from accounts.roles import RESEARCHER
from cocoweb.api_schema import detail, responses, role_permission
from knowledge.models import QuestionSet, StatementSet
from runs import services
from runs.models import Prediction, Run, RunMetric
from runs.scorers import BACKENDS, SCORINGS
from runs.selectors import queue, samples

NO_RUN = "no run with that id"


class MetricSerializer(serializers.ModelSerializer):
    class Meta:
        model = RunMetric
        fields = ["name", "value", "ci_low", "ci_high", "n"]


class RunSerializer(serializers.ModelSerializer):
    question_set: serializers.SlugRelatedField[QuestionSet] = serializers.SlugRelatedField(
        slug_field="name", read_only=True, allow_null=True
    )
    statement_set: serializers.SlugRelatedField[StatementSet] = serializers.SlugRelatedField(
        slug_field="name", read_only=True, allow_null=True
    )
    metrics = MetricSerializer(
        many=True, read_only=True, source="overall_metrics", help_text="overall metrics (empty until the run is done)"
    )
    model_name = serializers.CharField(
        read_only=True, help_text="the model's own name (e.g. SmolLM2-135M-Instruct); `model` is what was loaded"
    )
    queue_ahead = serializers.SerializerMethodField(
        help_text="queued runs the eval workers take before this one (0: next); null unless queued"
    )
    waiting_for = serializers.SerializerMethodField(
        help_text="while this run is queued: the ids of the runs the eval workers are scoring now"
    )

    def _place(self, run: Run) -> queue.QueuePlace | None:
        """Computed once per run for both fields."""
        cache: dict[int, queue.QueuePlace | None] = self.__dict__.setdefault("_queue_places", {})
        if run.pk not in cache:
            cache[run.pk] = queue.run_queue_place(run)
        return cache[run.pk]

    def get_queue_ahead(self, run: Run) -> int | None:
        place = self._place(run)
        return None if place is None else place.ahead

    def get_waiting_for(self, run: Run) -> list[int]:
        place = self._place(run)
        return [] if place is None else [r.pk for r in place.running]

    class Meta:
        model = Run
        fields = [
            "id",
            "question_set",
            "statement_set",
            "backend",
            "model",
            "model_name",
            "url",
            "scoring",
            "seed",
            "limit",
            "state",
            "items_total",
            "items_done",
            "items_failed",
            "items_per_s",
            "eta_s",
            "queue_ahead",
            "waiting_for",
            "error",
            "cancel_requested",
            "rerun_of",
            "created_at",
            "started_at",
            "finished_at",
            "metrics",
        ]


class RunCreateSerializer(serializers.Serializer):
    set = serializers.CharField(
        max_length=110, help_text="a question or statement set by name; qs:NAME / ss:NAME force the kind"
    )
    backend = serializers.ChoiceField(choices=list(BACKENDS))
    scoring = serializers.ChoiceField(choices=list(SCORINGS))
    model = serializers.CharField(max_length=500, required=False, allow_blank=True, default="")
    url = serializers.CharField(max_length=500, required=False, allow_blank=True, default="")
    seed = serializers.IntegerField(required=False, default=0, min_value=0, max_value=2**62)
    limit = serializers.IntegerField(required=False, allow_null=True, default=None, min_value=1, max_value=10**9)
    chunk_size = serializers.IntegerField(required=False, min_value=1, max_value=4096)


class PredictionPages(PageNumberPagination):
    """The API's 100 a page unless the client asks for another size (``page_size``, at most 1000)."""

    page_size_query_param = "page_size"
    max_page_size = 1000


class PredictionSerializer(serializers.ModelSerializer):
    item_id = serializers.SerializerMethodField(help_text="the question's or statement's id")
    item_text = serializers.SerializerMethodField(help_text="the question's stem or the statement's text")
    item_context = serializers.SerializerMethodField(help_text="the question's context ('' if none)")
    options = serializers.SerializerMethodField(help_text="the question's options in order (null for statements)")
    relation = serializers.CharField(source="item_relation", read_only=True)
    kind = serializers.CharField(source="item_kind", read_only=True)

    class Meta:
        model = Prediction
        fields = [
            "position",
            "item_id",
            "item_text",
            "item_context",
            "options",
            "relation",
            "kind",
            "chosen",
            "chosen_norm",
            "correct",
            "scores",
            "norm_scores",
            "raw_output",
            "extra",
            "error",
            "latency_s",
            "prompt_tokens",
            "completion_tokens",
        ]

    def get_item_id(self, p: Prediction) -> int:
        return int(p.question_id or p.statement_id or 0)

    def get_item_text(self, p: Prediction) -> str:
        if p.question is not None:
            return str(p.question.stem)
        return str(p.statement.text) if p.statement is not None else ""

    def get_item_context(self, p: Prediction) -> str:
        return str(p.question.context or "") if p.question is not None else ""

    def get_options(self, p: Prediction) -> list[str] | None:
        return list(p.question.options) if p.question is not None else None


def _runs() -> QuerySet[Run]:
    overall = Prefetch("metrics", queryset=RunMetric.objects.filter(scope="overall"), to_attr="overall_metrics")
    return Run.objects.select_related("question_set", "statement_set").prefetch_related(overall)


STATE = OpenApiParameter("state", str, enum=[s.value for s in Run.State], description="only runs in this state")


@extend_schema_view(
    get=extend_schema(parameters=[STATE], responses=responses(RunSerializer(many=True), not_found="no such page")),
    post=extend_schema(
        request=RunCreateSerializer,
        responses={
            **{k: v for k, v in responses(RunSerializer, bad_request=True).items() if k != 200},
            201: OpenApiResponse(RunSerializer, description="queued"),
            415: detail("the request body's media type is not accepted"),
        },
    ),
)
class RunList(generics.ListAPIView):
    """Runs, newest first. POST launches one: validated, stored, sent to the ``eval`` queue."""

    permission_classes = [IsAuthenticated, role_permission(RESEARCHER)]
    serializer_class = RunSerializer

    def get_queryset(self) -> QuerySet[Run]:
        qs = _runs()
        state = self.request.query_params.get("state", "")
        return qs.filter(state=state) if state else qs

    def post(self, request: Request) -> Response:
        ser = RunCreateSerializer(data=request.data)
        ser.is_valid(raise_exception=True)
        d = ser.validated_data
        params = {"chunk_size": d["chunk_size"]} if d.get("chunk_size") else {}
        try:
            run = services.run_create(
                set_name=d["set"],
                backend=d["backend"],
                scoring=d["scoring"],
                model=d["model"].strip(),
                url=d["url"].strip(),
                seed=d["seed"],
                limit=d["limit"],
                params=params,
                user=cast(User, request.user),  # IsAuthenticated: a signed-in user
            )
        except ValidationError as exc:
            return Response({"detail": " ".join(exc.messages)}, status=status.HTTP_400_BAD_REQUEST)
        return Response(RunSerializer(_runs().get(pk=run.pk)).data, status=status.HTTP_201_CREATED)


@extend_schema(responses=responses(RunSerializer, not_found=NO_RUN))
class RunDetail(generics.RetrieveAPIView):
    permission_classes = [IsAuthenticated, role_permission(RESEARCHER)]
    serializer_class = RunSerializer
    lookup_url_kwarg = "run_id"

    def get_queryset(self) -> QuerySet[Run]:
        return _runs()


@extend_schema(
    request=None,
    responses=responses(RunSerializer, not_found=NO_RUN, also={409: detail("the run has already ended")}),
)
class RunCancel(generics.GenericAPIView):
    """Ask the worker to stop the run after its current chunk (409 if it has already ended)."""

    permission_classes = [IsAuthenticated, role_permission(RESEARCHER)]
    serializer_class = RunSerializer

    def post(self, request: Request, run_id: int) -> Response:
        run = get_object_or_404(Run, pk=run_id)
        if not services.run_cancel(run):
            return Response({"detail": f"run {run.pk} has already ended ({run.state})"}, status=409)
        return Response(RunSerializer(_runs().get(pk=run.pk)).data)


FILTERS = [
    OpenApiParameter("correct", str, enum=["1", "0", "none"], description="1 correct, 0 wrong, none not scored"),
    OpenApiParameter("relation", str, description="the item's relation (e.g. xWant)"),
    OpenApiParameter("kind", str, description="the item's query kind (1p, 2i, …)"),
    OpenApiParameter("chosen", str, description="the option chosen (index from 0), or none"),
    OpenApiParameter("q", str, description="text in the item or the raw output, or the item's external id"),
    OpenApiParameter("error", str, enum=["1"], description="1: only items whose scorer reported an error"),
]


@extend_schema(
    parameters=FILTERS,
    responses=responses(PredictionSerializer(many=True), not_found=f"{NO_RUN}, or no such page"),
)
class PredictionList(generics.ListAPIView):
    """A run's predictions in item order, a page at a time, with the sample viewer's filters."""

    permission_classes = [IsAuthenticated, role_permission(RESEARCHER)]
    serializer_class = PredictionSerializer
    pagination_class = PredictionPages

    def get_queryset(self) -> QuerySet[Prediction]:
        run = get_object_or_404(Run.objects.all(), pk=self.kwargs["run_id"])
        filters = samples.SampleFilters.from_params(self.request.query_params)
        return (
            Prediction.objects.filter(run=run)
            .filter(filters.as_q(run))
            .select_related("question", "statement")
            .order_by("position")
        )
