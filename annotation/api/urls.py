"""REST routes, included at ``/api/annotation/`` by ``cocoweb/urls.py``."""

from django.urls import path

from annotation.api import views as api

app_name = "annotation-api"
urlpatterns = [
    path("campaigns/", api.campaign_list, name="campaigns"),
    path("campaigns/<slug:slug>/", api.campaign_detail, name="campaign"),
    path("campaigns/<slug:slug>/next/", api.next_item, name="next"),
    path("campaigns/<slug:slug>/items/<str:item_id>/response/", api.submit, name="submit"),
    path("campaigns/<slug:slug>/items/<str:item_id>/skip/", api.skip, name="skip"),
    path("campaigns/<slug:slug>/agreement/", api.agreement, name="agreement"),
    path("campaigns/<slug:slug>/export/", api.export, name="export"),
]
