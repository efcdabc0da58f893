"""Self-service REST API token: any signed-in person sees whether they hold one and can make a
new one (which replaces the old). The key is shown once, right after it is made."""

from __future__ import annotations

from django.http import HttpResponse
from django.shortcuts import render

from cocoweb.http import Request

from .roles import ANNOTATOR, role_required
from .services import api_token_of, api_token_renew


@role_required(ANNOTATOR)  # people with a role; a crowd participant (signed in for one campaign) has none
def api_token(request: Request) -> HttpResponse:
    new_key = api_token_renew(request.user) if request.method == "POST" else ""
    token = api_token_of(request.user)
    return render(request, "registration/api_token.html", {"token": token, "new_key": new_key})
