"""Issue 14 bug 15 (first half): importing a file whose content is already stored under another
name says so and asks, instead of silently storing a second copy (a graph, a statement set or a
question set). The same file under the same name stays an idempotent no-op; a different file into
an existing graph is still added."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.test import Client, override_settings
from django.urls import reverse

from accounts.services import role_groups_sync, user_create_with_role
from knowledge.models import Graph, QuestionSet, StatementSet
from knowledge.services.imports import DuplicateContent, graph_import, questions_import, statements_import
from tests.conftest import FIXTURES

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _cache(tmp_path: Path):  # type: ignore[no-untyped-def]
    with override_settings(COCOWEB_CACHE_DIR=tmp_path / "cache"):
        yield


def test_services_refuse_a_second_copy_unless_asked() -> None:
    graph_import(FIXTURES / "ckbp_demo.csv", name="ckbp", fmt="cskb-csv")
    with pytest.raises(DuplicateContent, match="already imported as graph 'ckbp'") as refused:
        graph_import(FIXTURES / "ckbp_demo.csv", name="ckbp-again", fmt="cskb-csv")
    assert refused.value.existing == "ckbp"
    assert not Graph.objects.filter(name="ckbp-again").exists()
    assert graph_import(FIXTURES / "ckbp_demo.csv", name="ckbp", fmt="cskb-csv").already_imported  # same name: no-op
    copy = graph_import(FIXTURES / "ckbp_demo.csv", name="ckbp-again", fmt="cskb-csv", allow_duplicate=True)
    assert copy.graph.triple_count == Graph.objects.get(name="ckbp").triple_count

    statements_import(FIXTURES / "statements_demo.csv", name="st")
    with pytest.raises(DuplicateContent, match="statement set 'st'"):
        statements_import(FIXTURES / "statements_demo.csv", name="st2")
    questions_import(FIXTURES / "csqa_demo.jsonl", name="qa", fmt="csqa")
    with pytest.raises(DuplicateContent, match="question set 'qa'"):
        questions_import(FIXTURES / "csqa_demo.jsonl", name="qa2", fmt="csqa")
    assert not StatementSet.objects.filter(name="st2").exists()
    assert not QuestionSet.objects.filter(name="qa2").exists()


def test_the_import_page_says_so_and_asks() -> None:
    role_groups_sync()
    user_create_with_role("res", "researcher", "pw-long-enough-123")
    web = Client()
    web.login(username="res", password="pw-long-enough-123")
    data = (FIXTURES / "csqa_demo.jsonl").read_bytes()

    def post(name: str, **extra: str):  # type: ignore[no-untyped-def]
        upload = SimpleUploadedFile("csqa_demo.jsonl", data, content_type="application/json")
        return web.post(reverse("knowledge:import"), {"kind": "questions:csqa", "name": name, "file": upload, **extra})

    assert post("qa").status_code == 302
    asked = post("qa-copy")
    body = asked.content.decode()
    assert asked.status_code == 400
    assert "already imported as question set" in body
    assert "&#x27;qa&#x27;" in body
    assert 'type="checkbox" name="allow_duplicate"' in body
    assert not QuestionSet.objects.filter(name="qa-copy").exists()
    assert post("qa-copy", allow_duplicate="on").status_code == 302
    assert QuestionSet.objects.get(name="qa-copy").question_count == QuestionSet.objects.get(name="qa").question_count


def test_the_command_refuses_and_names_the_flag() -> None:
    call_command("import_statements", str(FIXTURES / "statements_demo.csv"), name="st", verbosity=0)
    with pytest.raises(CommandError, match="already imported as statement set 'st'.*--allow-duplicate"):
        call_command("import_statements", str(FIXTURES / "statements_demo.csv"), name="st2", verbosity=0)
    call_command(
        "import_statements", str(FIXTURES / "statements_demo.csv"), name="st2", allow_duplicate=True, verbosity=0
    )
    assert StatementSet.objects.filter(name="st2").exists()
