"""Issue 29 item 15, forms: the study settings form in the project's form markup (it was Django's
``as_p``), a copy button for the study link (a static script: CSP allows no inline one), the
campaign form's fields grouped by the campaign type they are for, and a bad study link answered
with the participant's "Study not found" page whatever DEBUG says (it showed Django's technical
404, with every URL pattern, in the demo)."""

from __future__ import annotations

import re

import pytest
from django.core.management import call_command
from django.test import Client, override_settings
from django.urls import reverse

from annotation.forms import CampaignForm
from annotation.models import Campaign
from tests.annotation.crowd_helpers import crowd_campaign, current, to_items

pytestmark = pytest.mark.django_db


def test_study_settings_form_uses_the_projects_form_markup_and_a_copy_button(statement_set, researcher) -> None:  # type: ignore[no-untyped-def]
    call_command("campaign_create", "--set", "statements-demo", "--type", "survey", "--name", "lab", "--study-link")
    page = researcher.get("/annotation/c/lab/participants/").content.decode()
    form = page[page.index('class="card study-settings"') :]
    form = form[: form.index("</form>")]
    assert "<p>" not in form  # as_p wrapped every field in a paragraph
    assert re.search(r"<label>Consent text\s*<textarea", form)  # label above its field, as the other forms
    assert '<small class="help">where a finished participant is sent' in form  # help under the field
    assert re.search(r'<fieldset class="choices"><legend>Demographics</legend>', form)  # checkboxes in a fieldset
    # the copy button: hidden until the static script shows it (a page without JavaScript has no dead button)
    assert re.search(r'<button type="button" class="secondary copy" data-copy="study-link" hidden>', page)
    assert '<code id="study-link">' in page
    assert re.search(r'<script src="/static/cocoweb/forms\.js" defer></script>', page)
    assert "onclick" not in page


def test_campaign_form_groups_every_field_by_campaign_type(researcher) -> None:  # type: ignore[no-untyped-def]
    grouped = [name for _legend, _kinds, names in CampaignForm.GROUPS for name in names.split()]
    assert sorted(grouped) == sorted(CampaignForm().fields)  # every field in a group, once
    kinds = {k for _legend, kinds, _names in CampaignForm.GROUPS for k in kinds.split()}
    # every type the form offers; a review campaign is never made here: it comes with its validation campaign
    assert kinds == set(Campaign.Kind.values) - {Campaign.Kind.REVIEW}
    assert {v for v, _ in CampaignForm().fields["kind"].choices} == kinds  # type: ignore[attr-defined]
    page = researcher.get(reverse("annotation:campaign_new")).content.decode()
    groups = re.findall(r'<fieldset class="field-group"(?: data-for="([^"]*)")?>(.*?)</fieldset>', page, re.S)
    names: dict[str, list[str]] = {}
    for kinds, body in groups:
        names.setdefault(kinds, []).extend(re.findall(r'name="(\w+)"', body))
    assert "settlement_rule" in names["mcqa"]
    assert "max_answers" in names["mcqa"]
    assert names["survey"] == ["item_order", "ask_common_sense"]
    assert names["generation"] == ["per_kind"]
    assert "attention_every" in names["survey mcqa rica"]
    assert "name" in names[""]  # every type: no data-for
    assert 'data-shows-groups=""' in page  # the type select drives the groups
    assert 'data-for-prefix="survey=ss: generation=run: *=qs:"' in page
    assert re.search(r'<script src="/static/cocoweb/forms\.js" defer></script>', page)


@pytest.mark.parametrize("debug", [True, False])
def test_a_bad_study_link_gets_the_participants_not_found_page(statement_set, debug: bool) -> None:  # type: ignore[no-untyped-def]
    c = crowd_campaign("real")
    b = to_items(Client(), c, "p1")
    with override_settings(DEBUG=debug):
        for client, url in (
            (Client(), "/join/no-such-study/?PROLIFIC_PID=p9&STUDY_ID=S&SESSION_ID=X"),
            (b, f"/join/{c.name}/items/not-an-item-of-theirs/skip/"),
            (Client(), f"/join/{c.name}/items/x/y/z/"),  # no such route under /join/
        ):
            r = client.post(url) if url.endswith("/skip/") else client.get(url)
            body = r.content.decode()
            assert r.status_code == 404, (url, r.status_code)
            assert "Study not found" in body
            assert "your platform" in body
            assert "URLconf" not in body  # Django's technical 404 lists the URL patterns
            assert 'class="brand"' in body  # the project's page, not a bare one
    # the participant's study goes on
    _r, item = current(b, c)
    assert item is not None
    assert Campaign.objects.filter(name="no-such-study").count() == 0


@override_settings(DEBUG=False)
def test_other_missing_pages_get_the_projects_not_found_page(annotator: Client) -> None:
    r = annotator.get("/no/such/page/")
    assert r.status_code == 404
    body = r.content.decode()
    assert "<h1>Not found</h1>" in body
    assert 'class="topbar"' in body
    assert Client().get("/api/annotation/nope/").json() == {"detail": "Not found."}  # the API answers in JSON still
