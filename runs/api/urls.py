"""REST routes, included at ``/api/runs/`` by ``cocoweb/urls.py``."""

from django.urls import path

from runs.api import views as api

app_name = "runs-api"
urlpatterns = [
    path("", api.RunList.as_view(), name="runs"),
    path("<int:run_id>/", api.RunDetail.as_view(), name="run"),
    path("<int:run_id>/cancel/", api.RunCancel.as_view(), name="cancel"),
    path("<int:run_id>/predictions/", api.PredictionList.as_view(), name="predictions"),
]
