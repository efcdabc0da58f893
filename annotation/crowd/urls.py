"""Crowd participants' routes, included at ``/join/`` by ``cocoweb/urls.py``."""

from django.urls import path, re_path

from annotation.crowd.views import participant as v

app_name = "crowd"
urlpatterns = [
    path("<slug:slug>/", v.join, name="join"),
    path("<slug:slug>/consent/", v.consent, name="consent"),
    path("<slug:slug>/instructions/", v.instructions, name="instructions"),
    path("<slug:slug>/about-you/", v.demographics, name="demographics"),
    path("<slug:slug>/items/", v.work, name="work"),
    path("<slug:slug>/items/<str:uid>/submit/", v.submit, name="submit"),
    path("<slug:slug>/items/<str:uid>/skip/", v.skip, name="skip"),
    path("<slug:slug>/qualification/retry/", v.qualification_retry, name="qualification_retry"),
    path("<slug:slug>/done/", v.done, name="done"),
    # any other address under /join/ (a study link cut or mistyped): the participant's "Study not
    # found" page, never Django's technical 404 (DEBUG); no trailing slash: APPEND_SLASH first
    re_path(r"^(?P<rest>.+/)$", v.bad_link),
]
