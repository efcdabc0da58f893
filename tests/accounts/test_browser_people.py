"""Issue 29 item 14 in a real browser (Playwright driving Debian's Chromium, headless), desktop and
phone: an admin opens People from the top bar, invites someone, copies the one-time link; the
invited person sets a password through it and signs in. No console errors."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from accounts.roles import user_role
from tests.browser import DESKTOP, PASSWORD, PHONE, signed_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_admin_invites_and_the_link_sets_a_password(browser, live_server, people, viewport) -> None:  # type: ignore[no-untyped-def]
    people("admin", "boss")
    people("researcher", "rita")
    page, watch = signed_in(browser, live_server.url, "boss", viewport)
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=live_server.url)
    page.goto(live_server.url + "/")
    page.click("nav >> text=People")
    page.wait_for_url("**/people/")
    row = page.locator("tr", has_text="rita")
    assert row.locator("select[name=role]").input_value() == "researcher"
    row.locator("select[name=role]").select_option("annotator")
    row.locator("button", has_text="save").click()
    page.wait_for_selector(".msg-success")
    assert user_role(get_user_model().objects.get(username="rita")) == "annotator"
    page.fill("form.invite-form input[name=username]", "newcomer")
    page.select_option("form.invite-form select[name=role]", "researcher")
    page.click("form.invite-form button[type=submit]")
    page.wait_for_selector("#set-password-link")
    page.click("button[data-copy=set-password-link]")
    page.wait_for_function("() => document.querySelector('button[data-copy]').textContent === 'Copied'")
    link = page.evaluate("navigator.clipboard.readText()")
    assert link.startswith(live_server.url + "/accounts/set-password/")
    assert watch.errors == []
    page.context.close()
    # the invited person, in their own browser
    context = browser.new_context(**viewport)
    other = context.new_page()
    other.goto(link)
    other.fill("input[name=new_password1]", PASSWORD)
    other.fill("input[name=new_password2]", PASSWORD)
    other.click("button[type=submit]")
    other.wait_for_selector("text=Your password is set")
    other.fill("input[name=username]", "newcomer")
    other.fill("input[name=password]", PASSWORD)
    other.click("button[type=submit]")
    other.wait_for_selector("nav >> text=Runs")  # a researcher's top bar
    context.close()
