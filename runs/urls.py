from django.urls import path

from . import views, views_review, views_samples

app_name = "runs"
urlpatterns = [
    path("models/", views.models, name="models"),
    path("", views.index, name="index"),
    path("new/", views.run_new, name="new"),
    path("compare/", views.run_compare, name="compare"),
    path("<int:run_id>/", views.run_detail, name="detail"),
    path("<int:run_id>/samples/", views_samples.run_samples, name="samples"),
    path("<int:run_id>/samples/live/", views_samples.run_samples_live, name="samples_live"),
    path("<int:run_id>/progress/", views.run_progress, name="progress"),
    path("<int:run_id>/cancel/", views.run_cancel, name="cancel"),
    path("<int:run_id>/rerun/", views.run_rerun, name="rerun"),
    path("<int:run_id>/predictions.<str:fmt>", views.export_predictions, name="predictions"),
    path("<int:run_id>/metrics.json", views.export_metrics, name="metrics"),
    path("<int:run_id>/errors/", views_review.error_review, name="error_review"),
    path(
        "<int:run_id>/predictions/<int:prediction_id>/error-category/",
        views_review.prediction_error_category,
        name="prediction_error_category",
    ),
]
