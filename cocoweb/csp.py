"""The Content-Security-Policy header (issue 31 item 11): scripts only from this site's own files
(``script-src 'self'``), so an injected ``<script>`` or ``onclick=`` never runs even where escaping
failed. The templates have no inline script or event-handler attribute (a test reads them all);
figures reach Plotly as JSON (``json_script``) and htmx needs no ``eval``. Styles may be inline
(Plotly and htmx write style attributes); images may be ``data:`` URIs (Plotly's and Swagger UI's
icons). One fixed header, so a small middleware rather than django-csp (its nonces would go unused).
``COCOWEB_CONTENT_SECURITY_POLICY`` replaces the policy; empty turns it off."""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse

HEADER = "Content-Security-Policy"


class ContentSecurityPolicyMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response
        self.policy = str(settings.COCOWEB_CONTENT_SECURITY_POLICY).strip()

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if self.policy and HEADER not in response:
            response[HEADER] = self.policy
        return response
