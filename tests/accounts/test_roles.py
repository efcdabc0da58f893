"""Role gating of every page that exists: anonymous -> login, annotator -> annotation only,
researcher -> data, runs, explorer; admin -> also people management."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Group
from django.test import Client
from django.urls import reverse

from accounts.services import role_groups_sync, user_create_with_role
from knowledge.models import Graph, QuestionSet, StatementSet

pytestmark = pytest.mark.django_db


@pytest.fixture
def clients() -> dict[str, Client]:
    role_groups_sync()
    out = {"anonymous": Client()}
    for role in ("annotator", "researcher", "admin"):
        user_create_with_role(f"u-{role}", role, "pw-long-enough-123")
        c = Client()
        assert c.login(username=f"u-{role}", password="pw-long-enough-123")
        out[role] = c
    Graph.objects.create(name="g")
    QuestionSet.objects.create(name="q", kind="mcqa")
    StatementSet.objects.create(name="s")
    return out


def _pages() -> dict[str, str]:
    return {
        reverse("annotation:index"): "annotator",
        reverse("knowledge:import"): "researcher",
        reverse("knowledge:graph", args=["g"]): "researcher",
        reverse("knowledge:question_set", args=["q"]): "researcher",
        reverse("knowledge:statement_set", args=["s"]): "researcher",
        reverse("runs:index"): "researcher",
        reverse("explorer:index"): "researcher",
    }


RANK = {"annotator": 0, "researcher": 1, "admin": 2}


def test_anonymous_is_sent_to_login(clients: dict[str, Client]) -> None:
    for url in [reverse("home"), *_pages()]:
        r = clients["anonymous"].get(url)
        assert r.status_code == 302 and r.url.startswith(reverse("login")), url


@pytest.mark.parametrize("role", ["annotator", "researcher", "admin"])
def test_pages_by_role(clients: dict[str, Client], role: str) -> None:
    for url, least in _pages().items():
        status = clients[role].get(url).status_code
        expected = 200 if RANK[role] >= RANK[least] else 403
        assert status == expected, (role, url, status)


def test_home_lists_sets_for_researchers_and_redirects_annotators(clients: dict[str, Client]) -> None:
    r = clients["annotator"].get(reverse("home"))
    assert r.status_code == 302 and r.url == reverse("annotation:index")
    page = clients["researcher"].get(reverse("home")).content.decode()
    assert 'href="/knowledge/graphs/g/"' in page and 'href="/knowledge/question-sets/q/"' in page
    assert 'href="/knowledge/statement-sets/s/"' in page


def test_only_admins_manage_people(clients: dict[str, Client]) -> None:
    url = reverse("admin:auth_user_changelist")
    assert clients["admin"].get(url).status_code == 200
    assert clients["researcher"].get(url).status_code == 302  # Django admin sends non-staff to its login
    assert clients["annotator"].get(url).status_code == 302


def test_role_groups_exist_with_permissions() -> None:
    role_groups_sync()
    research = Group.objects.get(name="researcher")
    admin = Group.objects.get(name="admin")
    assert research.permissions.filter(codename="add_questionset").exists()
    assert not research.permissions.filter(codename="change_user").exists()
    assert admin.permissions.filter(codename="change_user").exists()
