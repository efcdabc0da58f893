"""Issue 29 item 14: the admins' People page in cocoweb's own UI. Roles as a choice (not Django's
groups widget), invitations with a one-time set-password link shown to the admin (no mail server),
deactivation / reactivation, API tokens shown by prefix with a revoke button, crowd participants'
accounts behind ``?crowd=``; a person without a role is told so and whom to ask."""

from __future__ import annotations

import html
import re
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from accounts.api_tokens import api_token_issue
from accounts.models import ApiToken
from accounts.roles import user_role
from tests.conftest import PASSWORD, login

pytestmark = pytest.mark.django_db
User = get_user_model()


def _row(page: str, user: Any) -> str:
    m = re.search(rf'<tr data-user="{user.pk}">(.*?)</tr>', page, re.S)
    assert m is not None, user.username
    return m.group(1)


def _selected_role(row: str) -> str:
    m = re.search(r'<option value="(\w*)" selected>', row)
    assert m is not None, row
    return m.group(1)


@pytest.fixture
def admin(people) -> Client:  # type: ignore[no-untyped-def]
    people("admin", "boss")
    return login("boss")


def test_only_admins_open_it_and_the_nav_links_it(people, admin: Client, researcher: Client) -> None:  # type: ignore[no-untyped-def]
    assert researcher.get("/people/").status_code == 403
    assert Client().get("/people/").status_code == 302  # to the log-in page
    page = admin.get("/people/").content.decode()
    assert '<a href="/people/">People</a>' in page  # the top bar's People is this page, not /admin/
    assert '<a href="/admin/">Django admin</a>' in page  # kept for operators


def test_roles_as_a_choice_and_a_change_takes_effect_at_the_next_request(people, admin: Client) -> None:  # type: ignore[no-untyped-def]
    (res,) = people("researcher", "rita")
    page = admin.get("/people/").content.decode()
    row = _row(page, res)
    assert _selected_role(row) == "researcher"
    assert "permission" not in page.lower().replace("permissions, superusers", "")  # no raw permission widget
    rita = login("rita")
    assert rita.get("/runs/").status_code == 200
    r = admin.post(f"/people/{res.pk}/role/", {"role": "annotator", "back": "?page=1"})
    assert r.status_code == 302
    assert r["Location"] == "/people/?page=1"
    res.refresh_from_db()
    assert user_role(User.objects.get(pk=res.pk)) == "annotator"
    assert rita.get("/runs/").status_code == 403  # the cached role went with the change
    admin.post(f"/people/{res.pk}/role/", {"role": "admin"})
    res.refresh_from_db()
    assert res.is_staff  # admins open the Django admin too
    admin.post(f"/people/{res.pk}/role/", {"role": ""})
    res.refresh_from_db()
    assert (res.is_staff, list(res.groups.values_list("name", flat=True))) == (False, [])
    assert _selected_role(_row(admin.get("/people/").content.decode(), res)) == ""
    # an unknown role is refused, and an admin does not lock themselves out
    assert admin.post(f"/people/{res.pk}/role/", {"role": "root"}).status_code == 302
    assert user_role(User.objects.get(pk=res.pk)) is None
    boss = User.objects.get(username="boss")
    page = admin.post(f"/people/{boss.pk}/role/", {"role": "researcher"}, follow=True).content.decode()
    assert "You cannot take your own admin role" in page
    assert user_role(User.objects.get(pk=boss.pk)) == "admin"


def test_invite_with_a_one_time_set_password_link(admin: Client) -> None:
    r = admin.post("/people/invite/", {"username": "newbie", "email": "n@example.org", "role": "researcher"})
    assert r.status_code == 302
    user = User.objects.get(username="newbie")
    assert user_role(user) == "researcher"
    assert not user.has_usable_password()
    page = admin.get("/people/").content.decode()
    link = html.unescape(re.search(r'<code id="set-password-link">([^<]+)</code>', page).group(1))  # type: ignore[union-attr]
    assert link.startswith("http://testserver/accounts/set-password/")
    assert 'data-copy="set-password-link"' in page
    assert "set-password-link" not in admin.get("/people/").content.decode()  # shown once
    # the invited person sets a password through the link, then signs in with it
    b = Client()
    r = b.get(link.removeprefix("http://testserver"))
    assert r.status_code == 302  # Django moves the token into the session
    form = b.get(r["Location"]).content.decode()
    assert "Set your password" in form
    assert "newbie" in form
    r = b.post(r["Location"], {"new_password1": PASSWORD, "new_password2": PASSWORD}, follow=True)
    assert "Your password is set" in r.content.decode()
    assert Client().login(username="newbie", password=PASSWORD)
    # the link works once
    again = Client().get(link.removeprefix("http://testserver"), follow=True).content.decode()
    assert "This link no longer works" in again
    # a name taken is refused, with the reason
    r = admin.post("/people/invite/", {"username": "NEWBIE", "role": "annotator"})
    assert r.status_code == 400
    assert "exists already" in html.unescape(r.content.decode())


def test_deactivate_reactivate_and_a_new_link_for_a_forgotten_password(people, admin: Client) -> None:  # type: ignore[no-untyped-def]
    (ann,) = people("annotator", "anna")
    key = api_token_issue(ann)
    anna = login("anna")
    admin.post(f"/people/{ann.pk}/active/", {"active": "0"})
    ann.refresh_from_db()
    assert not ann.is_active
    assert anna.get("/annotation/").status_code == 302  # signed out at the next request
    assert not Client().login(username="anna", password=PASSWORD)
    assert Client(HTTP_AUTHORIZATION=f"Token {key}").get("/api/annotation/campaigns/").status_code == 401
    row = _row(admin.get("/people/").content.decode(), ann)
    assert "deactivated" in row
    assert 'data-action="reactivate"' in row
    admin.post(f"/people/{ann.pk}/active/", {"active": "1"})
    assert Client().login(username="anna", password=PASSWORD)
    # a forgotten password: a new link, the old password stays until it is used
    admin.post(f"/people/{ann.pk}/password-link/")
    assert "/accounts/set-password/" in admin.get("/people/").content.decode()
    assert Client().login(username="anna", password=PASSWORD)
    boss = User.objects.get(username="boss")
    assert (
        "You cannot deactivate your own account"
        in admin.post(f"/people/{boss.pk}/active/", {"active": "0"}, follow=True).content.decode()
    )
    assert User.objects.get(pk=boss.pk).is_active


def test_tokens_are_shown_masked_and_revoked(people, admin: Client) -> None:  # type: ignore[no-untyped-def]
    (res,) = people("researcher", "tok")
    key = api_token_issue(res)
    api = Client(HTTP_AUTHORIZATION=f"Token {key}")
    assert api.get("/api/runs/").status_code == 200
    page = admin.get("/people/").content.decode()
    row = _row(page, res)
    assert "<code" in row
    assert f"{key[:6]}…" in row
    assert key not in page  # never the key (only its digest is stored)
    assert re.search(r"made \d{4}-\d\d-\d\d", row)
    admin.post(f"/people/{res.pk}/token/revoke/")
    assert not ApiToken.objects.filter(user=res).exists()
    assert api.get("/api/runs/").status_code == 401
    assert "none" in _row(admin.get("/people/").content.decode(), res)


def test_crowd_participants_are_behind_a_filter_and_search_finds_people(people, admin: Client, statement_set) -> None:  # type: ignore[no-untyped-def]
    from annotation.models import Participant
    from annotation.services.campaigns import campaign_create

    people("annotator", "lab-person")
    c = campaign_create(name="s", title="s", kind="survey", statement_set=statement_set)
    crowd_user = User.objects.create_user("crowd-xyz")
    Participant.objects.create(campaign=c, user=crowd_user, platform="prolific", external_id="P1")
    page = admin.get("/people/").content.decode()
    assert "lab-person" in page
    assert "crowd-xyz" not in page
    page = admin.get("/people/?crowd=yes").content.decode()
    assert "crowd-xyz" in page
    assert "lab-person" not in page
    assert "crowd participant" in page
    page = admin.get("/people/?crowd=all&q=lab-").content.decode()
    assert "lab-person" in page
    assert "crowd-xyz" not in page


def test_someone_without_a_role_is_told_whom_to_ask(people) -> None:  # type: ignore[no-untyped-def]
    people("admin", "alice-admin")
    User.objects.create_user("norole", password=PASSWORD)
    c = Client()
    r = c.post("/accounts/login/", {"username": "norole", "password": PASSWORD}, follow=True)
    page = r.content.decode()
    assert r.status_code == 403
    assert "No role yet" in page
    assert "Ask an admin to give you one: alice-admin." in page
    assert "Not allowed" not in page
    assert ">Annotate<" not in page  # no links to pages that refuse them
    assert ">API token<" not in page
    # someone with a role who opens a page above it still gets the plain refusal
    people("annotator", "ann2")
    page = login("ann2").get("/runs/").content.decode()
    assert "Not allowed" in page
    assert "No role yet" not in page
