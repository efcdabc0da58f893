"""Every URL of cocoweb × anonymous / annotator / researcher / admin / crowd participant gets the status that
``tests/security/matrix.py`` says, and every URL pattern has an entry there."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.cache import cache
from django.http import HttpResponse
from django.urls import resolve

from accounts.views import login_view
from tests.security.conftest import ROLES, World
from tests.security.matrix import ADMIN_LOGIN, LOGIN, MATRIX, Entry, Expected, To, default_kwargs
from tests.security.urlconf import all_routes, url_for

pytestmark = pytest.mark.django_db


def test_every_url_pattern_is_classified() -> None:
    keys = {r.key for r in all_routes()}
    missing = sorted(keys - set(MATRIX))
    assert not missing, f"URL patterns without an entry in tests/security/matrix.py (classify them): {missing}"
    stale = sorted(set(MATRIX) - keys)
    assert not stale, f"entries in tests/security/matrix.py for URL patterns that no longer exist: {stale}"


def _matches(resp: HttpResponse, expected: Expected, fill: dict[str, Any]) -> bool:
    location = resp.get("Location", "")
    if isinstance(expected, int):
        return resp.status_code == expected
    if expected == LOGIN:
        return resp.status_code == 302 and location.startswith("/accounts/login/?next=")
    if expected == ADMIN_LOGIN:
        return resp.status_code == 302 and location.startswith("/admin/login/?next=")
    assert isinstance(expected, To)
    return resp.status_code == 302 and location.startswith(expected.prefix.format(**fill))


def _body(resp: HttpResponse) -> str:
    raw = b"".join(resp.streaming_content) if resp.streaming else resp.content  # type: ignore[attr-defined]
    return raw.decode("utf-8", "replace")


def _secrets(world: World) -> list[str]:
    """What neither anonymous people nor annotators may ever see on any page: model names and
    predictions, another annotator's name and answer key."""
    return [world.run.model, world.run2.model, world.users["annotator2"].username, "annotator2-secret-key"]


def _probe(world: World, url: str, method: str, role: str, entry: Entry) -> HttpResponse:
    if method == "POST" and url.endswith("/login/"):
        # Every empty log-in counts as a failure (for the name "" and this address), whoever is
        # signed in: the matrix probes who may post, the throttle has its own tests.
        cache.clear()
    c = world.client(role)
    if method == "GET":
        return c.get(url)
    if entry.api:
        return c.post(url, {}, content_type="application/json")
    return c.post(url, {})


def resolve_entry_url(world: World, key: str, entry: Entry) -> tuple[str, dict[str, Any]]:
    route = next(r for r in all_routes() if r.key == key)
    kwargs = {**default_kwargs(world), **(entry.kwargs(world) if entry.kwargs else {})}
    url = url_for(route, kwargs, entry.url(world) if entry.url else None)
    fill = {**kwargs, "run2_id": world.run2.pk}
    return url + entry.query.format(**fill), fill


def test_permission_matrix(world: World) -> None:
    rows: list[str] = []
    probes = 0
    for key in dict.fromkeys(r.key for r in all_routes()):  # a shadowed pattern shares its key
        entry = MATRIX[key]
        url, fill = resolve_entry_url(world, key, entry)
        for method, by_role in entry.methods.items():
            assert set(by_role) == set(ROLES), key
            for role in ROLES:
                resp = _probe(world, url, method, role, entry)
                probes += 1
                if resp.status_code >= 500 or not _matches(resp, by_role[role], fill):
                    rows.append(
                        f"{method} {url} as {role}: got {resp.status_code} {resp.get('Location', '')}"
                        f" expected {by_role[role]}"
                    )
                if role in ("anonymous", "annotator", "participant"):
                    body = _body(resp)
                    rows += [f"{method} {url} as {role}: the page shows {m!r}" for m in _secrets(world) if m in body]
    assert probes > 250
    assert not rows, "permission matrix mismatches:\n" + "\n".join(rows)


def test_admin_login_is_the_throttled_view() -> None:
    # admin/login/ appears twice in the URL conf; cocoweb's throttled log-in wins.
    assert resolve("/admin/login/").func.__name__ == login_view.__name__
    assert resolve("/admin/login/")._func_path == "accounts.views.ThrottledLoginView"


def test_no_email_password_reset() -> None:
    # No mail server is configured: the reset pages are not routed (admins reset passwords).
    keys = {r.key for r in all_routes()}
    assert not {k for k in keys if "reset" in k}


# Researcher ownership (issue 17 item 12), decided: shared by design within the lab. Every
# researcher (and admin) may cancel or re-run any run and open, close or adjudicate any campaign,
# whoever created it; the creator is recorded (created_by / decided_by) for the record, not for
# access. Annotators get none of these. The README's security section says so.
def test_researchers_share_runs_and_campaigns_by_design(world: World) -> None:
    from accounts.services import user_create_with_role
    from annotation.models import Campaign
    from runs.models import Run
    from runs.services import run_create

    other = user_create_with_role("sec-researcher-b", "researcher", "pw-long-enough-123")
    mine = run_create(
        question_set=world.qset, backend="random", scoring="loglik", user=world.users["researcher"], enqueue=False
    )
    c = world.client("annotator")
    c.force_login(other)  # a researcher who created neither the run nor the campaign
    r = c.post(f"/runs/{mine.pk}/rerun/")
    assert r.status_code == 302
    assert Run.objects.filter(rerun_of=mine, created_by=other).exists()
    assert c.post(f"/runs/{mine.pk}/cancel/", {"confirm": "yes"}).status_code == 302
    assert Run.objects.get(pk=mine.pk).cancel_requested
    assert world.plain.created_by == world.users["researcher"]
    assert (
        c.post(f"/annotation/c/{world.plain.name}/status/", {"status": "closed", "confirm": "yes"}).status_code == 302
    )
    assert Campaign.objects.get(pk=world.plain.pk).status == "closed"
    # Annotators: refused.
    ann = world.client("annotator")
    assert ann.post(f"/runs/{mine.pk}/rerun/").status_code == 403
    assert ann.post(f"/annotation/c/{world.plain.name}/status/", {"status": "open"}).status_code == 403
