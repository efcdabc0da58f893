"""Fixtures for the runs tests: demo sets imported from fixtures/, a researcher client."""

from __future__ import annotations

import pytest
from django.test import Client

from accounts.services import role_groups_sync, user_create_with_role
from knowledge.models import QuestionSet, StatementSet
from knowledge.services import questions_import, statements_import
from tests.conftest import FIXTURES


@pytest.fixture
def statement_set(db: None) -> StatementSet:
    statements_import(FIXTURES / "statements_demo.csv", name="statements-demo")
    return StatementSet.objects.get(name="statements-demo")


@pytest.fixture
def csqa_set(db: None) -> QuestionSet:
    questions_import(FIXTURES / "csqa_demo.jsonl", name="csqa-demo", fmt="csqa")
    return QuestionSet.objects.get(name="csqa-demo")


@pytest.fixture
def researcher(db: None) -> Client:
    role_groups_sync()
    user_create_with_role("res", "researcher", "pw-long-enough-123")
    c = Client()
    c.login(username="res", password="pw-long-enough-123")
    return c
