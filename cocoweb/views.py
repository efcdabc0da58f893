"""Project-level pages that belong to no app: the API docs' door for people not signed in, and
the favicon browsers ask for at ``/favicon.ico``."""

from __future__ import annotations

from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.templatetags.static import static
from drf_spectacular.views import SpectacularSwaggerSplitView

from accounts.roles import ANNOTATOR, has_role

# The split view serves its start-up script as a file (?script), not inline: CSP script-src 'self'.
_swagger = SpectacularSwaggerSplitView.as_view(url_name="api-schema")


def api_docs(request: HttpRequest) -> HttpResponse:
    """Swagger UI for people with a role. A browser without a session gets a page that says how to
    get in (401, with a log-in link) instead of DRF's one-line JSON; a signed-in person without a
    role (a crowd participant) gets 403; token clients go through (DRF checks the token's role)."""
    if "HTTP_AUTHORIZATION" in request.META:
        return _swagger(request)
    if request.user.is_authenticated:
        if not has_role(request.user, ANNOTATOR):
            raise PermissionDenied("the API documentation needs the annotator role")
        return _swagger(request)
    login = redirect_to_login(request.get_full_path())["Location"]
    return render(request, "api_docs_login.html", {"login_url": login}, status=401)


def favicon(request: HttpRequest) -> HttpResponse:
    return HttpResponseRedirect(static("cocoweb/favicon.svg"))
