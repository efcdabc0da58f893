from django.urls import path

from annotation.views import annotator as views
from annotation.views import crowd_study as crowd_research_views
from annotation.views import research as research_views
from annotation.views import verified as verified_views

app_name = "annotation"
urlpatterns = [
    path("", views.index, name="index"),
    path("new/", research_views.campaign_new, name="campaign_new"),
    path("c/<slug:slug>/", views.work, name="work"),
    path("c/<slug:slug>/item/", views.item_box, name="item"),
    path("c/<slug:slug>/items/<str:uid>/submit/", views.submit, name="submit"),
    path("c/<slug:slug>/items/<str:uid>/skip/", views.skip, name="skip"),
    path("c/<slug:slug>/undo/", views.undo, name="undo"),
    path("c/<slug:slug>/dashboard/", research_views.dashboard, name="dashboard"),
    path("c/<slug:slug>/status/", research_views.campaign_status, name="status"),
    path("c/<slug:slug>/adjudication/", research_views.adjudication_queue, name="adjudication"),
    path("c/<slug:slug>/adjudication/<int:item_id>/", research_views.adjudicate, name="adjudicate"),
    path("c/<slug:slug>/import/", research_views.import_ratings, name="import"),
    path("c/<slug:slug>/export.<str:fmt>", research_views.export, name="export"),
    # crowd studies: live overview, participants, study-link settings, participant CSV
    path("c/<slug:slug>/participants/", crowd_research_views.participants_page, name="participants"),
    path("c/<slug:slug>/participants/live/", crowd_research_views.participants_live, name="participants_live"),
    path("c/<slug:slug>/participants.csv", crowd_research_views.participants_download, name="participants_csv"),
    path("c/<slug:slug>/study/", crowd_research_views.study_settings, name="study_settings"),
    path(
        "c/<slug:slug>/people/<int:user_id>/<slug:action>/",
        crowd_research_views.person_action,
        name="person_action",
    ),
    path("c/<slug:slug>/verified-set/", verified_views.verified_set_make, name="verified_set"),
]
