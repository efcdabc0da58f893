"""Helpers of the browser tests (Playwright driving Debian's Chromium, headless): one browser for the
whole test run (:func:`chromium`, behind the ``browser`` fixture of ``tests/conftest.py``, which closes
a test's contexts after it), a signed-in page per role and viewport, and the errors a page logs.

A test module that uses them::

    pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

    def test_something(browser, live_server): ...
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from django.urls import reverse

os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")  # Playwright's sync API runs an event loop

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
PASSWORD = "pw-long-enough-123"
DESKTOP: dict[str, Any] = {"viewport": {"width": 1280, "height": 900}}
PHONE: dict[str, Any] = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}


def chromium() -> Iterator[Any]:
    """One headless Chromium (use as a module-scoped fixture: one browser per test module)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", headless=True, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@dataclass
class Watch:
    """What a page logged: console errors and uncaught exceptions, and the responses it received
    (URL, status, body bytes)."""

    errors: list[str] = field(default_factory=list)
    responses: list[tuple[str, int, int]] = field(default_factory=list)

    def attach(self, page: Any) -> None:
        page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: self.errors.append(str(e)))
        page.on("requestfinished", self._finished)

    def _finished(self, request: Any) -> None:
        resp = request.response()
        sizes = request.sizes()
        self.responses.append((request.url, resp.status if resp else 0, sizes["responseBodySize"]))

    def urls(self, contains: str) -> list[str]:
        return [u for u, _, _ in self.responses if contains in u]

    def clear(self) -> None:
        self.errors.clear()
        self.responses.clear()


def signed_in(browser: Any, base: str, username: str, ctx: dict[str, Any] | None = None) -> tuple[Any, Watch]:
    """A new context and page signed in as ``username``, with a Watch attached."""
    context = browser.new_context(**(ctx or DESKTOP))
    page = context.new_page()
    page.set_default_timeout(20_000)
    watch = Watch()
    watch.attach(page)
    page.goto(base + reverse("login"))
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_load_state("networkidle")
    watch.clear()
    return page, watch
