"""CSRF on every form. Every URL the permission matrix probes with POST is refused (403, a CSRF
failure) without a token, for every role that may post there, and accepted with one; every
``<form method="post">`` on every page carries the token. The REST API: a session needs the token
too, a token (``Authorization: Token``, not an ambient credential) does not."""

from __future__ import annotations

from html.parser import HTMLParser
from typing import Any

import pytest
from django.http import HttpResponse
from django.test import Client

from tests.security.conftest import ROLES, World
from tests.security.matrix import ADMIN_LOGIN, LOGIN, MATRIX
from tests.security.test_permission_matrix import resolve_entry_url

pytestmark = pytest.mark.django_db

REFUSED = (LOGIN, ADMIN_LOGIN, 401, 403)


def _csrf_client(world: World, role: str) -> tuple[Client, str]:
    c = world.client(role, enforce_csrf_checks=True)
    c.get("/accounts/login/")  # any page with a form sets the CSRF cookie
    return c, c.cookies["csrftoken"].value


def _post(c: Client, url: str, api: bool, token: str | None) -> HttpResponse:
    if api:
        headers = {"HTTP_X_CSRFTOKEN": token} if token else {}
        return c.post(url, {}, content_type="application/json", **headers)
    return c.post(url, {"csrfmiddlewaretoken": token} if token else {})


def _is_csrf_failure(resp: HttpResponse) -> bool:
    return resp.status_code == 403 and b"CSRF" in resp.content


def test_every_post_endpoint_needs_the_csrf_token(world: World) -> None:
    rows: list[str] = []
    checked = 0
    for key, entry in MATRIX.items():
        if "POST" not in entry.methods:
            continue
        url, _fill = resolve_entry_url(world, key, entry)
        for role in ROLES:
            expected = entry.methods["POST"][role]
            if expected in REFUSED:
                continue  # this role may not post here at all (the matrix checks that)
            c, token = _csrf_client(world, role)
            without = _post(c, url, entry.api, None)
            if not _is_csrf_failure(without):
                rows.append(f"POST {url} as {role} without a CSRF token: {without.status_code}, not a CSRF refusal")
            c, token = _csrf_client(world, role)
            with_token = _post(c, url, entry.api, token)
            # Accepted: the view handles the post (its form errors, a redirect, a JSON answer). The
            # status may differ from the matrix's empty post: the token makes the form non-empty.
            if _is_csrf_failure(with_token) or with_token.status_code in (401, 403) or with_token.status_code >= 500:
                rows.append(f"POST {url} as {role} with the CSRF token: {with_token.status_code}, not accepted")
            checked += 1
    assert checked >= 60, checked
    assert not rows, "CSRF:\n" + "\n".join(rows)


def test_api_token_auth_needs_no_csrf_but_a_session_does(world: World) -> None:
    url = f"/api/annotation/campaigns/{world.plain.name}/next/"
    bearer = Client(enforce_csrf_checks=True)
    r = bearer.post(url, HTTP_AUTHORIZATION=f"Token {world.tokens['annotator']}")
    assert r.status_code == 200
    assert r.json()["state"] == "item"
    session, _ = _csrf_client(world, "annotator2")
    r = session.post(url)
    assert r.status_code == 403
    assert "CSRF" in r.json()["detail"]


class _Forms(HTMLParser):
    """Collects, per ``<form method="post">``, whether a csrfmiddlewaretoken input is inside."""

    def __init__(self) -> None:
        super().__init__()
        self.forms: list[dict[str, Any]] = []
        self._open: dict[str, Any] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "form":
            self._open = {
                "action": a.get("action"),
                "post": (a.get("method") or "get").lower() == "post",
                "token": False,
            }
            self.forms.append(self._open)
        elif tag == "input" and self._open is not None and a.get("name") == "csrfmiddlewaretoken" and a.get("value"):
            self._open["token"] = True

    def handle_endtag(self, tag: str) -> None:
        if tag == "form":
            self._open = None


def test_every_post_form_on_every_page_carries_the_token(world: World) -> None:
    missing: list[str] = []
    forms = 0
    for key, entry in MATRIX.items():
        if "GET" not in entry.methods:
            continue
        url, _fill = resolve_entry_url(world, key, entry)
        for role in ("annotator", "admin"):  # the admin sees every page and every form on it
            if entry.methods["GET"][role] != 200:
                continue
            resp = world.client(role).get(url)
            if "html" not in resp.get("Content-Type", "") or resp.streaming:
                continue
            parser = _Forms()
            parser.feed(resp.content.decode())
            for f in parser.forms:
                if f["post"]:
                    forms += 1
                    if not f["token"]:
                        missing.append(f"{url} as {role}: <form method=post action={f['action']!r}> has no CSRF token")
    assert forms >= 40, forms  # log-out forms on every page, plus the data forms
    assert not missing, "\n".join(missing)


# --- the item box's token (cocoweb/csrf.py: Django's masking, the mask drawn from one urandom read) ---


def test_the_fast_mask_is_djangos_masking() -> None:
    from collections import Counter

    from django.middleware import csrf as django_csrf

    from cocoweb.csrf import mask

    secret = django_csrf._get_new_csrf_string()  # type: ignore[attr-defined]
    tokens = [mask(secret) for _ in range(2000)]
    assert len(set(tokens)) == len(tokens)
    for t in tokens:
        assert len(t) == django_csrf.CSRF_TOKEN_LENGTH
        assert set(t) <= set(django_csrf.CSRF_ALLOWED_CHARS)
        assert django_csrf._unmask_cipher_token(t) == secret  # type: ignore[attr-defined]
    # the mask is uniform over the 62 characters: 64,000 draws, about 1,032 of each (5 standard deviations: +-160)
    counts = Counter("".join(t[:32] for t in tokens))
    assert len(counts) == 62
    assert max(abs(n - 64000 / 62) for n in counts.values()) < 160


def test_the_item_box_token_passes_djangos_check_and_a_forged_one_does_not(world: World) -> None:
    import re

    from django.urls import reverse

    c = world.client("annotator", enforce_csrf_checks=True)
    slug = world.plain.name
    box = c.get(reverse("annotation:item", args=[slug]), HTTP_HX_REQUEST="true").content.decode()
    token = re.search(r'name="csrfmiddlewaretoken" value="(\w+)"', box).group(1)  # type: ignore[union-attr]
    uid = re.search(r'data-item="([^"]+)"', box).group(1)  # type: ignore[union-attr]
    url = reverse("annotation:submit", args=[slug, uid])
    forged = token[:32] + ("A" if token[32] != "A" else "B") + token[33:]
    assert _is_csrf_failure(c.post(url, {"csrfmiddlewaretoken": forged, "plausible": "1"}, HTTP_HX_REQUEST="true"))
    r = c.post(url, {"csrfmiddlewaretoken": token, "plausible": "1"}, HTTP_HX_REQUEST="true")
    assert r.status_code == 200
    assert 'class="item-box"' in r.content.decode()


def test_the_item_box_does_not_renew_the_cookie_a_full_page_sets_and_renews(world: World) -> None:
    """The item box (every answer's response) re-sends no ``csrftoken`` cookie the request carried
    (cocoweb/csrf.py); the full work page renews it as Django does, and a box request without a
    cookie gets a new one whose token the box carries."""
    import re

    from django.middleware import csrf as django_csrf
    from django.urls import reverse

    c = world.client("annotator", enforce_csrf_checks=True)
    slug = world.plain.name
    page = c.get(reverse("annotation:work", args=[slug]))
    assert page.status_code == 200
    assert "csrftoken" in page.cookies  # set (or renewed) by the full page
    box = c.get(reverse("annotation:item", args=[slug]), HTTP_HX_REQUEST="true")
    assert "csrftoken" not in box.cookies
    html = box.content.decode()
    token = re.search(r'name="csrfmiddlewaretoken" value="(\w+)"', html).group(1)  # type: ignore[union-attr]
    uid = re.search(r'data-item="([^"]+)"', html).group(1)  # type: ignore[union-attr]
    r = c.post(
        reverse("annotation:submit", args=[slug, uid]),
        {"csrfmiddlewaretoken": token, "plausible": "1"},
        HTTP_HX_REQUEST="true",
    )
    assert r.status_code == 200
    assert 'class="item-box"' in r.content.decode()
    assert "csrftoken" not in r.cookies  # the answer's response: no Set-Cookie
    assert c.get(reverse("annotation:work", args=[slug])).cookies["csrftoken"].value  # the page still renews it
    # without a cookie, the box makes one, and its token matches it
    del c.cookies["csrftoken"]
    fresh = c.get(reverse("annotation:item", args=[slug]), HTTP_HX_REQUEST="true")
    secret = fresh.cookies["csrftoken"].value
    token = re.search(r'name="csrfmiddlewaretoken" value="(\w+)"', fresh.content.decode()).group(1)  # type: ignore[union-attr]
    assert django_csrf._unmask_cipher_token(token) == secret  # type: ignore[attr-defined]
