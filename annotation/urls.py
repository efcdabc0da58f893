from django.urls import path

from annotation.crowd.views import research as crowd_study
from annotation.views import annotator, research, verified

app_name = "annotation"
urlpatterns = [
    path("", annotator.index, name="index"),
    path("new/", research.campaign_new, name="campaign_new"),
    path("c/<slug:slug>/", annotator.work, name="work"),
    path("c/<slug:slug>/item/", annotator.item_box, name="item"),
    path("c/<slug:slug>/items/<str:uid>/submit/", annotator.submit, name="submit"),
    path("c/<slug:slug>/items/<str:uid>/skip/", annotator.skip, name="skip"),
    path("c/<slug:slug>/undo/", annotator.undo, name="undo"),
    path("c/<slug:slug>/dashboard/", research.dashboard, name="dashboard"),
    path("c/<slug:slug>/status/", research.campaign_status, name="status"),
    path("c/<slug:slug>/adjudication/", research.adjudication_queue, name="adjudication"),
    path("c/<slug:slug>/adjudication/<int:item_id>/", research.adjudicate, name="adjudicate"),
    path("c/<slug:slug>/import/", research.import_ratings, name="import"),
    path("c/<slug:slug>/export.<str:fmt>", research.export, name="export"),
    # crowd studies: live overview, participants, study-link settings, participant CSV
    path("c/<slug:slug>/participants/", crowd_study.participants_page, name="participants"),
    path("c/<slug:slug>/participants/live/", crowd_study.participants_live, name="participants_live"),
    path("c/<slug:slug>/participants.csv", crowd_study.participants_download, name="participants_csv"),
    path("c/<slug:slug>/study/", crowd_study.study_settings, name="study_settings"),
    path(
        "c/<slug:slug>/people/<int:user_id>/<slug:action>/",
        crowd_study.person_action,
        name="person_action",
    ),
    path("c/<slug:slug>/verified-set/", verified.verified_set_make, name="verified_set"),
    path("c/<slug:slug>/quality/", verified.quality_refresh, name="quality_refresh"),
    path("c/<slug:slug>/label-rule/", verified.label_rule_set, name="label_rule"),
]
