"""The People page's buttons on one account (role, deactivate/reactivate, revoke token, new
set-password link) share one shape, ``accounts.views_people.person_action``: admins only, POST
only, the account by its id, a message for the admin, back to the list as the admin left it
(session 18 found the shape written out in each handler)."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.messages import get_messages
from django.test import Client
from django.urls import URLPattern, get_resolver

from accounts.api_tokens import api_token_issue
from tests.conftest import login

pytestmark = pytest.mark.django_db


def person_urls(patterns: list[Any]) -> dict[str, Any]:
    """Name -> view of every URL on one account of the People page (``people/<int:pk>/...``)."""
    return {
        p.name: p.callback
        for p in patterns
        if isinstance(p, URLPattern) and str(p.pattern).startswith("people/<int:pk>/")
    }


def not_of_the_shape(views: dict[str, Any]) -> list[str]:
    return sorted(name for name, view in views.items() if not getattr(view, "person_action", False))


def test_every_button_on_an_account_has_the_one_shape() -> None:
    views = person_urls(get_resolver().url_patterns)
    assert set(views) == {"people_role", "people_active", "people_token_revoke", "people_password_link"}
    assert not_of_the_shape(views) == []

    def by_hand(request: Any, pk: int) -> None:  # session 18's handlers: each its own copy
        return None

    assert not_of_the_shape({**views, "people_active": by_hand}) == ["people_active"]


ACTIONS = {  # url tail, POST data, what the admin is told
    "role": ({"role": "annotator"}, "rita: annotator."),
    "active": ({"active": "0"}, "rita deactivated."),
    "token/revoke": ({}, "rita's API token revoked: it no longer works."),
    "password-link": ({}, None),  # the page shows the link instead
}


@pytest.mark.parametrize("tail", ACTIONS)
def test_each_button_is_for_admins_by_post_and_returns_to_the_list_as_left(people, researcher, tail: str) -> None:  # type: ignore[no-untyped-def]
    people("admin", "boss")
    (rita,) = people("researcher", "rita")
    api_token_issue(rita)
    admin = login("boss")
    data, told = ACTIONS[tail]
    url = f"/people/{rita.pk}/{tail}/"
    assert admin.get(url).status_code == 405
    assert researcher.post(url, data).status_code == 403
    assert Client().post(url, data).status_code == 302  # to the log-in page
    assert admin.post(f"/people/{rita.pk + 1000}/{tail}/", data).status_code == 404
    r = admin.post(url, {**data, "back": "?crowd=all&q=ri&page=1"})
    assert (r.status_code, r["Location"]) == (302, "/people/?crowd=all&q=ri&page=1")
    assert admin.post(url, {**data, "back": "https://elsewhere.example/"})["Location"] == "/people/"
    said = [str(m) for m in get_messages(r.wsgi_request)]
    assert said == ([told] if told else [])
