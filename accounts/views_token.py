"""Self-service REST API token: any signed-in person sees whether they hold one and can make a
new one (which replaces the old). The key is shown once, right after it is made."""

from __future__ import annotations

from django.db import transaction
from django.http import HttpResponse
from django.shortcuts import render
from rest_framework.authtoken.models import Token

from cocoweb.http import Request

from .roles import ANNOTATOR, role_required


@role_required(ANNOTATOR)  # people with a role; a crowd participant (signed in for one campaign) has none
def api_token(request: Request) -> HttpResponse:
    new_key = ""
    if request.method == "POST":
        with transaction.atomic():
            Token.objects.filter(user=request.user).delete()
            new_key = Token.objects.create(user=request.user).key
    token = Token.objects.filter(user=request.user).first()
    return render(request, "registration/api_token.html", {"token": token, "new_key": new_key})
