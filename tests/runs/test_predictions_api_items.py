"""#29 item 12: the sample viewer's search finds a word that is only in an item's options, and
/api/runs/<id>/predictions/ honours `page_size` and carries the item's text and options."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from accounts.services import api_token_renew, role_groups_sync, user_create_with_role
from knowledge.models import Question
from runs.evaluation import run_execute
from runs.models import Run
from runs.services import run_create
from tests.conftest import PASSWORD

pytestmark = pytest.mark.django_db


@pytest.fixture
def api() -> Client:
    role_groups_sync()
    user = user_create_with_role("api-researcher", "researcher", PASSWORD)
    return Client(HTTP_AUTHORIZATION=f"Token {api_token_renew(user)}")


@pytest.fixture
def done_run(csqa_set) -> Run:  # type: ignore[no-untyped-def]
    run = run_create(question_set=csqa_set, backend="random", scoring="loglik", seed=3, enqueue=False)
    run_execute(run.pk, heartbeat=False)
    return Run.objects.get(pk=run.pk)


def _option_only_word(run: Run) -> tuple[Question, str]:
    """An option of some question that no stem, context or other option of the set contains."""
    questions = list(Question.objects.filter(question_set=run.question_set).order_by("position"))
    for q in questions:
        for option in q.options:
            word = str(option)
            hits = [
                o
                for o in questions
                if word.lower() in (o.stem + " " + o.context + " " + " | ".join(map(str, o.options))).lower()
            ]
            if hits == [q] and word.isascii() and len(word) > 4:
                return q, word
    raise AssertionError("no option-only word in the set")


def test_search_looks_in_the_options(api: Client, researcher: Client, done_run: Run) -> None:
    question, word = _option_only_word(done_run)
    found = api.get(f"/api/runs/{done_run.pk}/predictions/", {"q": word}).json()
    assert [p["position"] for p in found["results"]] == [question.position]
    page = researcher.get(reverse("runs:samples", args=[done_run.pk]), {"q": word})
    assert [p.position for p in page.context["page"].object_list] == [question.position]


def test_predictions_page_size_and_item_text(api: Client, done_run: Run) -> None:
    url = f"/api/runs/{done_run.pk}/predictions/"
    small = api.get(url, {"page_size": "7"}).json()
    assert small["count"] == 300
    assert len(small["results"]) == 7
    assert len(api.get(url, {"page_size": "5000"}).json()["results"]) == 300  # capped at 1000
    first = small["results"][0]
    q = Question.objects.get(question_set=done_run.question_set, position=first["position"])
    assert first["item_text"] == q.stem
    assert first["item_context"] == q.context
    assert first["options"] == q.options
