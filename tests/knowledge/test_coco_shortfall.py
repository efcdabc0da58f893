"""Issue 14 bug 10: a CoCo build that cannot fill every application kind says so (which kinds, how
many of how many), on the command line, the build job's page and the set's page - as the COM2
build does."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from django.core.management import call_command
from django.test import Client, override_settings
from django.urls import reverse

from accounts.services import role_groups_sync, user_create_with_role
from knowledge.models import QuestionSet
from knowledge.services.imports import graph_import
from tests.conftest import FIXTURES

pytestmark = pytest.mark.django_db
ASKED = 400  # more reasoning questions of each kind than the demo graph holds


def test_a_coco_build_short_of_questions_says_which_kinds(tmp_path: Path) -> None:
    with override_settings(COCOWEB_CACHE_DIR=tmp_path / "cache"):
        graph_import(FIXTURES / "atomic2020_demo.tsv", name="demo", fmt="atomic-tsv")
        out = io.StringIO()
        call_command("build_coco", graph="demo", seed=1, name="short", per_relation=2, per_kind=ASKED, stdout=out)
    qset = QuestionSet.objects.get(name="short")
    short = qset.params["shortfall"]
    assert short
    assert all(built < asked == ASKED for built, asked in short.values())
    for kind, (built, _asked) in short.items():
        assert qset.questions.filter(role="reasoning", structure=kind).count() == built
    assert "Fewer application questions than requested" in out.getvalue()
    first = next(iter(short))
    assert f"{first}: {short[first][0]:,} of {ASKED:,}" in out.getvalue()

    role_groups_sync()
    user_create_with_role("res", "researcher", "pw-long-enough-123")
    web = Client()
    web.login(username="res", password="pw-long-enough-123")
    page = web.get(reverse("knowledge:question_set", args=["short"])).content.decode()
    assert "Fewer application questions than requested" in page
