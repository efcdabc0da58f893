"""Fixtures for the annotation tests: open campaigns over the shared demo sets (tests/conftest.py)."""

from __future__ import annotations

import pytest

from annotation.models import Campaign
from annotation.services.campaigns import campaign_create, campaign_status_set
from knowledge.models import QuestionSet, StatementSet
from tests.conftest import PASSWORD, login

__all__ = ["PASSWORD", "login"]  # the annotation tests import them from here


@pytest.fixture
def mcqa_campaign(csqa_set: QuestionSet) -> Campaign:
    c = campaign_create(name="mcqa", title="MCQA validation", kind="mcqa", question_set=csqa_set, redundancy=3)
    return campaign_status_set(c, "open")


@pytest.fixture
def survey_campaign(statement_set: StatementSet) -> Campaign:
    c = campaign_create(name="survey", title="Survey", kind="survey", statement_set=statement_set, redundancy=5)
    return campaign_status_set(c, "open")
