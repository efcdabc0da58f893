"""The request a cocoweb view receives, for the type checker: django-htmx's ``request.htmx``
(HtmxMiddleware) and, behind ``accounts.roles.role_required``, a signed-in user."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.http import HttpRequest
from django_htmx.middleware import HtmxDetails


class Request(HttpRequest):
    user: User
    htmx: HtmxDetails
