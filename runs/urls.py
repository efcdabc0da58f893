from django.urls import path

from runs.views import review, runs, samples

app_name = "runs"
urlpatterns = [
    path("models/", runs.models, name="models"),
    path("", runs.index, name="index"),
    path("new/", runs.run_new, name="new"),
    path("compare/", runs.run_compare, name="compare"),
    path("<int:run_id>/", runs.run_detail, name="detail"),
    path("<int:run_id>/samples/", samples.run_samples, name="samples"),
    path("<int:run_id>/samples/live/", samples.run_samples_live, name="samples_live"),
    path("<int:run_id>/progress/", runs.run_progress, name="progress"),
    path("<int:run_id>/cancel/", runs.run_cancel, name="cancel"),
    path("<int:run_id>/rerun/", runs.run_rerun, name="rerun"),
    path("<int:run_id>/predictions.<str:fmt>", runs.export_predictions, name="predictions"),
    path("<int:run_id>/metrics.json", runs.export_metrics, name="metrics"),
    path("<int:run_id>/errors/", review.error_review, name="error_review"),
    path(
        "<int:run_id>/predictions/<int:prediction_id>/error-category/",
        review.prediction_error_category,
        name="prediction_error_category",
    ),
]
