"""Fixtures for the runs tests: demo sets imported from fixtures/, a researcher client."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from accounts.services import role_groups_sync, user_create_with_role
from knowledge.models import QuestionSet, StatementSet
from knowledge.services import questions_import, statements_import
from tests.conftest import FIXTURES


@pytest.fixture(autouse=True)
def _operator_folders(settings: Any, tmp_path_factory: pytest.TempPathFactory) -> None:
    """The operator's models and run-files folders (runs/catalog.py): this session's temporary
    folders, where the tests build tiny models and write paths files."""
    base = tmp_path_factory.getbasetemp()
    settings.COCOWEB_MODELS_DIRS = [base]
    settings.COCOWEB_RUN_FILES_DIRS = [*settings.COCOWEB_RUN_FILES_DIRS, base]


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
