"""Roles as groups with permissions, and the role helpers. Which role reaches which URL is the
permission matrix in tests/security/ (every URL pattern × anonymous / annotator / researcher / admin)."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import AnonymousUser, Group
from django.test import Client
from django.urls import reverse

from accounts.roles import ADMIN, ANNOTATOR, RESEARCHER, has_role, role_required, user_role
from accounts.services import role_groups_sync, user_create_with_role
from knowledge.models import Graph, QuestionSet, StatementSet

pytestmark = pytest.mark.django_db


def test_home_lists_sets_for_researchers_and_redirects_annotators() -> None:
    role_groups_sync()
    for role in ("annotator", "researcher"):
        user_create_with_role(f"u-{role}", role, "pw-long-enough-123")
    Graph.objects.create(name="g")
    QuestionSet.objects.create(name="q", kind="mcqa")
    StatementSet.objects.create(name="s")
    ann, res = Client(), Client()
    assert ann.login(username="u-annotator", password="pw-long-enough-123")
    assert res.login(username="u-researcher", password="pw-long-enough-123")
    r = ann.get(reverse("home"))
    assert r.status_code == 302
    assert r.url == reverse("annotation:index")
    page = res.get(reverse("home")).content.decode()
    assert 'href="/knowledge/graphs/g/"' in page
    assert 'href="/knowledge/question-sets/q/"' in page
    assert 'href="/knowledge/statement-sets/s/"' in page


def test_roles_rank_and_superuser_is_admin() -> None:
    role_groups_sync()
    ann = user_create_with_role("a", ANNOTATOR, "pw-long-enough-123")
    res = user_create_with_role("r", RESEARCHER, "pw-long-enough-123")
    adm = user_create_with_role("d", ADMIN, "pw-long-enough-123")
    assert (user_role(ann), user_role(res), user_role(adm)) == (ANNOTATOR, RESEARCHER, ADMIN)
    assert has_role(adm, ANNOTATOR)
    assert has_role(res, ANNOTATOR)
    assert not has_role(ann, RESEARCHER)
    assert not has_role(res, ADMIN)
    assert adm.is_staff
    assert not res.is_staff
    assert user_role(AnonymousUser()) is None
    from django.contrib.auth import get_user_model

    nobody = get_user_model().objects.create_user("nobody", password="pw-long-enough-123")
    root = get_user_model().objects.create_superuser("root", password="pw-long-enough-123")
    assert user_role(nobody) is None
    assert not has_role(nobody, ANNOTATOR)
    assert user_role(root) == ADMIN
    with pytest.raises(ValueError, match="unknown role"):
        role_required("owner")


def test_role_groups_exist_with_permissions() -> None:
    role_groups_sync()
    annot = Group.objects.get(name="annotator")
    research = Group.objects.get(name="researcher")
    admin = Group.objects.get(name="admin")
    assert annot.permissions.exists()
    assert not annot.permissions.exclude(codename__startswith="view_").exists()
    assert not annot.permissions.exclude(content_type__app_label="annotation").exists()
    assert research.permissions.filter(codename="add_questionset").exists()
    assert not research.permissions.filter(codename="change_user").exists()
    assert not research.permissions.filter(content_type__model="apitoken").exists()
    assert admin.permissions.filter(codename="change_user").exists()
    # Admins see and delete API tokens in the admin (stored hashed: nothing to hand out there).
    assert admin.permissions.filter(content_type__model="apitoken", codename="delete_apitoken").exists()
