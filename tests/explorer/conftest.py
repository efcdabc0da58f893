from __future__ import annotations

import pytest
from django.test import Client

from accounts.services import role_groups_sync, user_create_with_role


@pytest.fixture
def researcher(db: None) -> Client:
    role_groups_sync()
    user_create_with_role("res", "researcher", "pw-long-enough-123")
    c = Client()
    c.login(username="res", password="pw-long-enough-123")
    return c


@pytest.fixture
def annotator(db: None) -> Client:
    role_groups_sync()
    user_create_with_role("ann", "annotator", "pw-long-enough-123")
    c = Client()
    c.login(username="ann", password="pw-long-enough-123")
    return c
