"""#29 item 11 (last part): a log-probability prediction (no text generated, prompt tokens not
counted) does not read "0 prompt / 19 completion tokens" on the sample viewer; a generating one
keeps its prompt / completion counts."""

from __future__ import annotations

import pytest
from django.urls import reverse

from runs.evaluation import run_execute
from runs.models import Prediction, Run
from runs.services import run_create

pytestmark = pytest.mark.django_db


def test_loglik_token_line_says_what_was_counted(csqa_set, researcher) -> None:  # type: ignore[no-untyped-def]
    run = run_create(question_set=csqa_set, backend="random", scoring="loglik", seed=3, enqueue=False, limit=2)
    run_execute(run.pk, heartbeat=False)
    run = Run.objects.get(pk=run.pk)
    Prediction.objects.filter(run=run, position=0).update(prompt_tokens=0, completion_tokens=19, raw_output="")
    Prediction.objects.filter(run=run, position=1).update(prompt_tokens=40, completion_tokens=3, raw_output="B")
    page = researcher.get(reverse("runs:samples", args=[run.pk])).content.decode()
    assert "0 prompt / 19 completion tokens" not in page
    assert "19 answer tokens scored (log-probabilities" in page
    assert "40 prompt / 3 completion tokens" in page
