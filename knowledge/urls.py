from django.urls import path

import cocoweb.converters  # noqa: F401  (registers <storedname:>, names as stored)

from . import rica_views, views, views_build, views_sets

app_name = "knowledge"
urlpatterns = [
    path("import/", views.data_import, name="import"),
    path("graphs/<storedname:name>/", views.graph_detail, name="graph"),
    path("question-sets/<storedname:name>/", views.question_set_detail, name="question_set"),
    path(
        "question-sets/<storedname:name>/export.<str:fmt>", views_sets.question_set_export, name="question_set_export"
    ),
    path("question-sets/<storedname:name>/rename/", views_sets.question_set_rename, name="question_set_rename"),
    path("question-sets/<storedname:name>/delete/", views_sets.question_set_delete, name="question_set_delete"),
    path("statement-sets/<storedname:name>/", views.statement_set_detail, name="statement_set"),
    path("build/questions/", views_build.build_questions, name="build_questions"),
    path("build/coco/", views_build.build_coco, name="build_coco"),
    path("build/rica/", rica_views.build_rica, name="build_rica"),
    path("build/jobs/", views_build.build_job_list, name="build_job_list"),
    path("build/jobs/<int:job_id>/", views_build.build_job_detail, name="build_job"),
    path("build/jobs/<int:job_id>/progress/", views_build.build_job_progress, name="build_job_progress"),
    path("build/jobs/<int:job_id>/requeue/", views_build.build_job_requeue, name="build_job_requeue"),
]
