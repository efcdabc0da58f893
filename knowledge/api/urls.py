"""REST routes, included at ``/api/knowledge/`` by ``cocoweb/urls.py``."""

from django.urls import path

import cocoweb.converters  # noqa: F401  (registers <storedname:>, names as stored)
from knowledge.api import views as api

app_name = "knowledge-api"
urlpatterns = [
    path("question-sets/", api.QuestionSetList.as_view(), name="question_sets"),
    path("question-sets/<storedname:name>/", api.QuestionSetDetail.as_view(), name="question_set"),
    path("question-sets/<storedname:name>/questions/", api.QuestionList.as_view(), name="questions"),
]
