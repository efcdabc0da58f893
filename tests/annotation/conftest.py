"""Fixtures for the annotation tests: demo sets from fixtures/, people with roles, campaigns."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client

from accounts.services import role_groups_sync, user_create_with_role
from annotation.models import Campaign
from annotation.services import campaign_create, campaign_status_set
from knowledge.models import QuestionSet, StatementSet
from knowledge.services import questions_import, statements_import
from tests.conftest import FIXTURES

PASSWORD = "pw-long-enough-123"


@pytest.fixture
def statement_set(db: None) -> StatementSet:
    statements_import(FIXTURES / "statements_demo.csv", name="statements-demo")
    return StatementSet.objects.get(name="statements-demo")


@pytest.fixture
def csqa_set(db: None) -> QuestionSet:
    questions_import(FIXTURES / "csqa_demo.jsonl", name="csqa-demo", fmt="csqa")
    return QuestionSet.objects.get(name="csqa-demo")


@pytest.fixture
def people(db: None) -> Callable[..., Any]:
    """``people("annotator", "ann1", "ann2")`` creates accounts with that role."""
    role_groups_sync()

    def make(role: str, *names: str) -> list[Any]:
        return [user_create_with_role(n, role, PASSWORD) for n in names]

    return make


def login(username: str) -> Client:
    c = Client()
    assert c.login(username=username, password=PASSWORD)
    return c


@pytest.fixture
def researcher(people: Callable[..., Any]) -> Client:
    people("researcher", "res")
    return login("res")


@pytest.fixture
def mcqa_campaign(csqa_set: QuestionSet) -> Campaign:
    c = campaign_create(name="mcqa", title="MCQA validation", kind="mcqa", question_set=csqa_set, redundancy=3)
    return campaign_status_set(c, "open")


@pytest.fixture
def survey_campaign(statement_set: StatementSet) -> Campaign:
    c = campaign_create(name="survey", title="Survey", kind="survey", statement_set=statement_set, redundancy=5)
    return campaign_status_set(c, "open")
