"""REST API of the data layer (DRF, token or session authentication), under ``/api/knowledge/``:
question sets and their questions, read-only, for researchers."""

from __future__ import annotations

from django.db.models import QuerySet
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from rest_framework import generics, serializers
from rest_framework.exceptions import PermissionDenied
from rest_framework.permissions import IsAuthenticated

from accounts.roles import RESEARCHER
from cocoweb.api_schema import responses, role_permission
from knowledge.models import Graph, Question, QuestionSet
from knowledge.services.set_actions import question_set_export_refusal

NO_SET = "no question set of that name"


class QuestionSetSerializer(serializers.ModelSerializer):
    graph: serializers.SlugRelatedField[Graph] = serializers.SlugRelatedField(
        slug_field="name", read_only=True, allow_null=True
    )

    class Meta:
        model = QuestionSet
        fields = ["name", "kind", "source", "graph", "description", "question_count", "seed", "params", "created_at"]


class QuestionSerializer(serializers.ModelSerializer):
    class Meta:
        model = Question
        fields = [
            "id",
            "position",
            "external_id",
            "context",
            "stem",
            "options",
            "answer_index",
            "answers",
            "structure",
            "group",
            "role",
            "metadata",
        ]


@extend_schema(responses=responses(QuestionSetSerializer(many=True), not_found="no such page"))
class QuestionSetList(generics.ListAPIView):
    """Every question set, by name."""

    permission_classes = [IsAuthenticated, role_permission(RESEARCHER)]
    serializer_class = QuestionSetSerializer
    queryset = QuestionSet.objects.select_related("graph").order_by("name")


@extend_schema(responses=responses(QuestionSetSerializer, not_found=NO_SET))
class QuestionSetDetail(generics.RetrieveAPIView):
    permission_classes = [IsAuthenticated, role_permission(RESEARCHER)]
    serializer_class = QuestionSetSerializer
    queryset = QuestionSet.objects.select_related("graph")
    lookup_field = "name"


@extend_schema(responses=responses(QuestionSerializer(many=True), not_found=f"{NO_SET}, or no such page"))
class QuestionList(generics.ListAPIView):
    """The questions of a set in their order, a page at a time."""

    permission_classes = [IsAuthenticated, role_permission(RESEARCHER)]
    serializer_class = QuestionSerializer

    def get_queryset(self) -> QuerySet[Question]:
        qset = get_object_or_404(QuestionSet, name=self.kwargs["name"])
        refusal = question_set_export_refusal(qset, self.request.user, "api")  # metadata may hold votes
        if refusal:
            raise PermissionDenied(refusal)
        return Question.objects.filter(question_set=qset).order_by("position")
