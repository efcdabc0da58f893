"""Issue 29 item 15 in a real browser (Playwright driving Debian's Chromium, headless): the campaign
form shows only the field groups of the chosen campaign type and only the sources that type takes
(static/cocoweb/forms.js; the server sends every group), and the study link's copy button copies the
link. No console errors (CSP allows only static scripts)."""

from __future__ import annotations

import pytest
from django.core.management import call_command
from django.urls import reverse

from tests.browser import signed_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _visible(page, selector: str) -> bool:  # type: ignore[no-untyped-def]
    return bool(page.is_visible(selector))


def test_campaign_form_shows_the_groups_of_the_chosen_type(
    browser, live_server, people, statement_set, csqa_set
) -> None:  # type: ignore[no-untyped-def]
    people("researcher", "res")
    page, watch = signed_in(browser, live_server.url, "res")
    page.goto(live_server.url + reverse("annotation:campaign_new"))
    page.select_option("select[name=kind]", "survey")
    assert _visible(page, "select[name=item_order]")
    assert not _visible(page, "select[name=settlement_rule]")
    assert not _visible(page, "input[name=per_kind]")
    assert _visible(page, "input[name=attention_every]")
    sources = page.eval_on_selector_all("select[name=source] option:not([hidden])", "os => os.map(o => o.value)")
    assert sources == ["ss:statements-demo"]
    assert page.input_value("select[name=source]") == "ss:statements-demo"
    page.select_option("select[name=kind]", "mcqa")
    assert _visible(page, "select[name=settlement_rule]")
    assert not _visible(page, "select[name=item_order]")
    sources = page.eval_on_selector_all("select[name=source] option:not([hidden])", "os => os.map(o => o.value)")
    assert sources == [f"qs:{csqa_set.name}"]
    assert page.input_value("select[name=source]") == f"qs:{csqa_set.name}"
    page.select_option("select[name=kind]", "generation")
    assert _visible(page, "input[name=per_kind]")
    assert not _visible(page, "input[name=attention_every]")  # generations have no gold
    # a survey made through the form, its hidden groups sent with their defaults
    page.select_option("select[name=kind]", "survey")
    page.fill("input[name=name]", "browser-survey")
    page.fill("input[name=title]", "Browser survey")
    page.select_option("select[name=item_order]", "fixed")
    page.click("form.campaign-form button[type=submit]")
    page.wait_for_url("**/annotation/c/browser-survey/**")
    from annotation.models import Campaign

    c = Campaign.objects.get(name="browser-survey")
    assert (c.kind, c.item_order, c.statement_set.name) == ("survey", "fixed", "statements-demo")
    assert watch.errors == []
    page.context.close()


def test_the_copy_button_copies_the_study_link(browser, live_server, people, statement_set) -> None:  # type: ignore[no-untyped-def]
    people("researcher", "res")
    call_command("campaign_create", "--set", "statements-demo", "--type", "survey", "--name", "lab", "--study-link")
    page, watch = signed_in(browser, live_server.url, "res")
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=live_server.url)
    page.goto(live_server.url + "/annotation/c/lab/participants/")
    button = page.locator("button[data-copy=study-link]")
    assert button.is_visible()
    button.click()
    page.wait_for_function("() => document.querySelector('button[data-copy]').textContent === 'Copied'")
    copied = page.evaluate("navigator.clipboard.readText()")
    assert copied == page.text_content("#study-link").strip()
    assert copied.startswith(live_server.url + "/join/lab/?PROLIFIC_PID={{%PROLIFIC_PID%}}")
    # the settings form's fields are readable: each label above its field, the help under it
    box = page.locator("form.study-settings textarea[name=consent_text]").bounding_box()
    label = page.locator("form.study-settings label", has_text="Consent text").bounding_box()
    assert box is not None
    assert label is not None
    assert box["width"] > 300  # a full-width field, not as_p's inline one
    assert watch.errors == []
    page.context.close()
