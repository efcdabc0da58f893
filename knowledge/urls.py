from django.urls import path

import cocoweb.converters  # noqa: F401  (registers <storedname:>, names as stored)
from knowledge.views import browse, builds, rica, set_actions

app_name = "knowledge"
urlpatterns = [
    path("import/", browse.data_import, name="import"),
    path("graphs/<storedname:name>/", browse.graph_detail, name="graph"),
    path("question-sets/<storedname:name>/", browse.question_set_detail, name="question_set"),
    path(
        "question-sets/<storedname:name>/export.<str:fmt>", set_actions.question_set_export, name="question_set_export"
    ),
    path("question-sets/<storedname:name>/rename/", set_actions.question_set_rename, name="question_set_rename"),
    path("question-sets/<storedname:name>/delete/", set_actions.question_set_delete, name="question_set_delete"),
    path("statement-sets/<storedname:name>/", browse.statement_set_detail, name="statement_set"),
    path("build/questions/", builds.build_questions, name="build_questions"),
    path("build/coco/", builds.build_coco, name="build_coco"),
    path("build/rica/", rica.build_rica, name="build_rica"),
    path("build/jobs/", builds.build_job_list, name="build_job_list"),
    path("build/jobs/<int:job_id>/", builds.build_job_detail, name="build_job"),
    path("build/jobs/<int:job_id>/progress/", builds.build_job_progress, name="build_job_progress"),
    path("build/jobs/<int:job_id>/requeue/", builds.build_job_requeue, name="build_job_requeue"),
]
