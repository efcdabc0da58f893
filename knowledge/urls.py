from django.urls import path

from . import views

app_name = "knowledge"
urlpatterns = [
    path("import/", views.data_import, name="import"),
    path("graphs/<slug:name>/", views.graph_detail, name="graph"),
    path("question-sets/<slug:name>/", views.question_set_detail, name="question_set"),
    path("statement-sets/<slug:name>/", views.statement_set_detail, name="statement_set"),
]
