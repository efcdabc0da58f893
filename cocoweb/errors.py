"""Error pages: the REST API (``/api/``) answers its 404s and 500s in JSON like the rest of its
errors; every other path gets the project's HTML pages (``templates/404.html``, ``403.html``). A
signed-in person without a role is told so on a 403, with the admins to ask (issue 29 item 14)."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.views import defaults

from accounts.context_processors import is_crowd_participant
from accounts.roles import user_role
from accounts.selectors import admins_to_ask


def _api(request: HttpRequest) -> bool:
    return request.path.startswith("/api/")


def page_not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    if _api(request):
        return JsonResponse({"detail": "Not found."}, status=404)
    return defaults.page_not_found(request, exception)


def permission_denied(request: HttpRequest, exception: Exception) -> HttpResponse:
    ctx: dict[str, object] = {"exception": str(exception)}
    user = getattr(request, "user", None)
    if user is not None and user.is_authenticated and user_role(user) is None and not is_crowd_participant(user):
        ctx["no_role"], ctx["admins"] = True, admins_to_ask()
    return render(request, "403.html", ctx, status=403)


def server_error(request: HttpRequest) -> HttpResponse:
    if _api(request):
        return JsonResponse({"detail": "Server error."}, status=500)
    return defaults.server_error(request)
