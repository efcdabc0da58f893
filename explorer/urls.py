from django.urls import path

import cocoweb.converters  # noqa: F401  (registers <storedname:>, names as stored)

from . import views
from .views import errors as views_errors
from .views import questions as views_questions

app_name = "explorer"
urlpatterns = [
    path("", views.index, name="index"),
    path("graphs/<storedname:name>/", views.graph_overview, name="graph"),
    path("graphs/<storedname:name>/search/", views.graph_search, name="search"),
    path("graphs/<storedname:name>/nodes/<int:node_id>/", views.node_detail, name="node"),
    path("questions/", views_questions.question_list, name="questions"),
    path("questions/<int:question_id>/", views_questions.question_detail, name="question"),
    path("runs/<int:run_id>/", views_errors.run_errors, name="run_errors"),
    path("runs/<int:run_id>/items/", views_errors.run_items, name="run_items"),
    path("compare/", views_errors.compare, name="compare"),
]
