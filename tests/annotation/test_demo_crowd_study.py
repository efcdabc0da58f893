"""The demo (``make run``) seeds one small crowd study from the demo statements: a study link a
visitor opens as a participant would, through consent to the statements (session 18: the demo had
no crowd study to show)."""

from __future__ import annotations

import io
import re

import pytest
from django.core.management import call_command
from django.test import Client

from annotation.models import Campaign, CrowdStudy, Participant
from knowledge.models import StatementSet
from tests.annotation.crowd_helpers import current

pytestmark = pytest.mark.django_db


def test_the_demo_seeds_a_crowd_study_a_visitor_can_open(statement_set: StatementSet) -> None:
    out = io.StringIO()
    call_command("seed_demo_campaigns", stdout=out)  # on the demo statements, as make run seeds them
    m = re.search(r"study link: (/join/crowd-demo/\?\S+)", out.getvalue())
    assert m, out.getvalue()
    campaign = Campaign.objects.get(name="crowd-demo")
    assert campaign.is_open
    study = CrowdStudy.objects.get(campaign=campaign)
    assert study.demographics == ["age_band"]
    assert campaign.max_items_per_annotator == 20
    visitor = Client()
    page = visitor.get(m.group(1))
    assert page.status_code == 200
    assert 'data-action="consent"' in page.content.decode()
    r = visitor.post("/join/crowd-demo/consent/", {"consent": "yes", "age_band": "25–34"})
    assert r.status_code == 302
    _, item = current(visitor, campaign)
    assert item is not None
    assert item.statement is not None  # a demo statement to answer
    assert Participant.objects.get(campaign=campaign).external_id == "demo-visitor-1"
    again = io.StringIO()
    call_command("seed_demo_campaigns", stdout=again)  # idempotent: the study is left as it is
    assert "crowd-demo" not in again.getvalue()
    assert Campaign.objects.filter(name="crowd-demo").count() == 1
