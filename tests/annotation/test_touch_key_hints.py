"""#29 item 8 (phones): key hints are hidden on touch screens (no keyboard), kept elsewhere. Read
from app.css's media blocks, whose selectors must match the annotation page's hint markup."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.conf import settings
from django.urls import reverse

from tests.annotation.conftest import login

CSS = (Path(settings.BASE_DIR) / "static" / "cocoweb" / "app.css").read_text()


def _media_hidden(query: str) -> set[str]:
    """Selectors given display:none inside ``@media <query> { ... }`` (one level of nesting)."""
    hidden: set[str] = set()
    for m in re.finditer(r"@media\s*([^{]+)\{((?:[^{}]*\{[^{}]*\})*)\s*\}", CSS):
        if m[1].replace(" ", "") != query.replace(" ", ""):
            continue
        for sel, body in re.findall(r"([^{}]+)\{([^{}]*)\}", m[2]):
            if re.search(r"display\s*:\s*none", body):
                hidden |= {s.strip() for s in sel.split(",")}
    return hidden


@pytest.mark.django_db
def test_key_hints_hidden_on_touch_screens_only(mcqa_campaign, people) -> None:  # type: ignore[no-untyped-def]
    hidden = _media_hidden("(hover:none) and (pointer:coarse)")
    assert {".keys-help", ".item-form kbd", "form.undo kbd"} <= hidden
    people("annotator", "ann")
    page = login("ann").get(reverse("annotation:work", args=[mcqa_campaign.name])).content.decode()
    assert '<p class="keys-help">' in page  # the markup those selectors name
    assert re.search(r'<form class="card item-form".*?<kbd>', page, re.S)
    assert not any("keys-help" in s for s in _media_hidden("(max-width:600px)"))  # not by width alone
