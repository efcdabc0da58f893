"""Question-set actions in the browser (issue 14): export as JSONL / CSV / lm-eval zip (the
``export_questions`` command's bytes), "evaluate a model on this" and "open a validation
campaign on this" prefilled, rename, and delete refused with the reason while runs or
campaigns use the set."""

from __future__ import annotations

import io
import json
import tempfile
import zipfile
from pathlib import Path

import pytest
from django.core.management import call_command
from django.test import Client
from django.urls import reverse

from annotation.services.campaigns import campaign_create
from knowledge.models import Question, QuestionSet
from knowledge.services.imports import questions_import
from runs.services import run_create
from tests.conftest import FIXTURES

pytestmark = pytest.mark.django_db


@pytest.fixture
def qset(db: None) -> QuestionSet:
    questions_import(FIXTURES / "csqa_demo.jsonl", name="csqa-demo", fmt="csqa")
    return QuestionSet.objects.get(name="csqa-demo")


@pytest.fixture
def researcher(role_clients: dict[str, Client]) -> Client:
    return role_clients["researcher"]


@pytest.mark.parametrize("fmt", ["jsonl", "csv", "finetune-prompt", "finetune-chat"])
def test_export_gives_the_commands_file(researcher: Client, qset: QuestionSet, tmp_path: Path, fmt: str) -> None:
    r = researcher.get(reverse("knowledge:question_set_export", args=[qset.name, fmt]))
    assert r.status_code == 200
    assert f'filename="csqa-demo.{fmt}"' in r["Content-Disposition"]
    call_command("export_questions", qset.name, "--format", fmt, "--out", str(tmp_path / f"x.{fmt}"))
    assert r.content == (tmp_path / f"x.{fmt}").read_bytes()
    if fmt == "jsonl":
        assert len(r.content.decode().splitlines()) == 300


def test_export_lm_eval_is_a_zip_of_the_task(researcher: Client, qset: QuestionSet) -> None:
    r = researcher.get(reverse("knowledge:question_set_export", args=[qset.name, "lm-eval"]))
    assert r.status_code == 200
    assert r["Content-Type"] == "application/zip"
    zf = zipfile.ZipFile(io.BytesIO(r.content))
    names = sorted(zf.namelist())
    assert names == ["cocoweb_csqa_demo.jsonl", "cocoweb_csqa_demo.yaml", "cocoweb_csqa_demo_data.py"]
    rows = [json.loads(x) for x in zf.read(names[0]).decode().splitlines()]
    assert len(rows) == 300
    assert rows[0]["label"] == 0
    assert "output_type: multiple_choice" in zf.read(names[1]).decode()
    assert not any(tempfile.gettempdir() in zf.read(n).decode() for n in names)  # no server path: runs anywhere
    assert researcher.get(reverse("knowledge:question_set_export", args=[qset.name, "xml"])).status_code == 404


def test_set_page_links_to_evaluate_and_validate_prefilled(researcher: Client, qset: QuestionSet) -> None:
    page = researcher.get(reverse("knowledge:question_set", args=[qset.name])).content.decode()
    run_link = reverse("runs:new") + "?dataset=qs:csqa-demo"
    campaign_link = reverse("annotation:campaign_new") + "?source=qs:csqa-demo&amp;kind=mcqa"
    assert run_link in page
    assert campaign_link in page
    form = researcher.get(run_link).content.decode()
    assert '<option value="qs:csqa-demo" selected>' in form
    form = researcher.get(campaign_link.replace("&amp;", "&")).content.decode()
    assert '<option value="qs:csqa-demo" selected>' in form
    assert '<option value="mcqa" selected>' in form


def test_rename(researcher: Client, qset: QuestionSet) -> None:
    url = reverse("knowledge:question_set_rename", args=[qset.name])
    r = researcher.post(url, {"new_name": "csqa-renamed"}, follow=True)
    assert r.redirect_chain[-1][0] == reverse("knowledge:question_set", args=["csqa-renamed"])
    assert "Question set csqa-demo is now called csqa-renamed." in r.content.decode()
    questions_import(FIXTURES / "csqa_demo.jsonl", name="other", fmt="csqa", allow_duplicate=True)
    url = reverse("knowledge:question_set_rename", args=["csqa-renamed"])
    page = researcher.post(url, {"new_name": "other"}, follow=True).content.decode()
    assert "there is already a question set named &#x27;other&#x27;" in page
    page = researcher.post(url, {"new_name": "no spaces/please"}, follow=True).content.decode()
    assert "is not a valid name" in page
    assert QuestionSet.objects.filter(name="csqa-renamed").exists()
    assert researcher.get(url).status_code == 405


def test_rename_refused_while_a_run_or_campaign_uses_the_set(researcher: Client, qset: QuestionSet) -> None:
    run_create(question_set=qset, backend="random", scoring="loglik", enqueue=False)
    url = reverse("knowledge:question_set_rename", args=[qset.name])
    page = researcher.post(url, {"new_name": "csqa-renamed"}, follow=True).content.decode()
    assert "Not renamed: question set &#x27;csqa-demo&#x27; is used by 1 runs: renaming it would change" in page
    assert "can be neither renamed nor deleted while they exist" in page
    assert QuestionSet.objects.filter(name="csqa-demo").exists()
    campaign_create(name="val", title="Validate", kind="mcqa", question_set=qset)
    page = researcher.post(url, {"new_name": "csqa-renamed"}, follow=True).content.decode()
    assert "is used by 1 runs, 1 campaigns" in page


def test_delete_refused_while_a_run_uses_the_set(researcher: Client, qset: QuestionSet) -> None:
    run_create(question_set=qset, backend="random", scoring="loglik", enqueue=False)
    url = reverse("knowledge:question_set_delete", args=[qset.name])
    page = researcher.get(url).content.decode()
    assert "cannot be deleted: it is used by 1 runs" in page
    assert "<form" not in page.split("</header>")[1]
    page = researcher.post(url, follow=True).content.decode()
    assert "Not deleted: question set &#x27;csqa-demo&#x27; is used by 1 runs" in page
    assert Question.objects.filter(question_set=qset).count() == 300


def test_delete_refused_while_a_campaign_uses_the_set(researcher: Client, qset: QuestionSet) -> None:
    campaign_create(name="val", title="Validate", kind="mcqa", question_set=qset)
    page = researcher.post(reverse("knowledge:question_set_delete", args=[qset.name]), follow=True).content.decode()
    assert "is used by 1 campaigns" in page
    assert QuestionSet.objects.filter(pk=qset.pk).exists()


def test_delete_an_unused_set_after_confirmation(researcher: Client, qset: QuestionSet) -> None:
    url = reverse("knowledge:question_set_delete", args=[qset.name])
    page = researcher.get(url).content.decode()
    assert "This deletes the set and its 300 questions" in page
    r = researcher.post(url, follow=True)
    assert "Question set csqa-demo and its 300 questions were deleted." in r.content.decode()
    assert not QuestionSet.objects.exists()
    assert not Question.objects.exists()


def test_actions_are_for_researchers(role_clients: dict[str, Client], qset: QuestionSet) -> None:
    annotator = role_clients["annotator"]
    for url in (
        reverse("knowledge:question_set_export", args=[qset.name, "jsonl"]),
        reverse("knowledge:question_set_delete", args=[qset.name]),
    ):
        assert annotator.get(url).status_code == 403
    assert (
        annotator.post(reverse("knowledge:question_set_rename", args=[qset.name]), {"new_name": "x"}).status_code == 403
    )
    assert annotator.post(reverse("knowledge:question_set_delete", args=[qset.name])).status_code == 403
    assert QuestionSet.objects.filter(name="csqa-demo").exists()
