"""Helpers for the crowd-study tests: a crowd campaign made by the ``campaign_create`` command
(the production path), and a participant's browser driven through the study link."""

from __future__ import annotations

import re
from typing import Any

from django.core.management import call_command
from django.test import Client

from annotation.models import Campaign, Item

UID = re.compile(r'data-item="([^"]+)"')


def crowd_campaign(
    name: str = "crowd", *extra: str, set_name: str = "statements-demo", kind: str = "survey"
) -> Campaign:
    call_command(
        "campaign_create",
        "--set",
        set_name,
        "--type",
        kind,
        "--name",
        name,
        "--study-link",
        "--completion-url",
        "https://app.prolific.com/submissions/complete?cc={code}",
        "--return-url",
        "https://app.prolific.com/submissions/return",
        *extra,
    )
    return Campaign.objects.get(name=name)


def prolific(pid: str, study: str = "S1", session: str = "") -> str:
    """A Prolific study link's query; each participant id has its own session unless told."""
    return f"?PROLIFIC_PID={pid}&STUDY_ID={study}&SESSION_ID={session or 'X-' + pid}"


def join(c: Client, campaign: Campaign, query: str) -> Any:
    return c.get(f"/join/{campaign.name}/{query}")


def to_items(c: Client, campaign: Campaign, pid: str, demographics: dict[str, str] | None = None) -> Client:
    """A new participant through the link and its one page: consent, instructions, demographics."""
    r = join(c, campaign, prolific(pid))
    assert r.status_code == 200, r.content
    assert 'data-action="consent"' in r.content.decode(), r.content
    r = c.post(f"/join/{campaign.name}/consent/", {"consent": "yes", **(demographics or {})})
    assert r.status_code == 302, r
    assert r["Location"] == f"/join/{campaign.name}/items/", r
    return c


def current(c: Client, campaign: Campaign) -> tuple[Any, Item | None]:
    """The items page and the item it shows (None when it shows none)."""
    r = c.get(f"/join/{campaign.name}/items/", follow=True)
    m = UID.search(r.content.decode())
    return r, (Item.objects.get(uid=m.group(1)) if m else None)


def answer(c: Client, campaign: Campaign, item: Item, agree: int, predict: int = 1, **post: Any) -> Any:
    data = {"agree": "yes" if agree else "no", "predict": "yes" if predict else "no", **post}
    return c.post(f"/join/{campaign.name}/items/{item.uid}/submit/", data)


def gold_answer(item: Item) -> int:
    return int((item.gold or {}).get("agree", 1))
