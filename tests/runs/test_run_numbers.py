"""Run numbers as a reader sees them (#29 item 11): the run page and the explorer's question page
print each score at three decimals beside the option it belongs to (a statement run's pair as
``no`` / ``yes``), the drawer says the human majority in words; the exports keep full precision."""

from __future__ import annotations

import json
import re

import pytest
from django.test import Client
from django.urls import reverse

from runs.models import Prediction
from runs.templatetags.run_numbers import option_scores
from tests.explorer.factories import (
    QuestionFactory,
    QuestionSetFactory,
    StatementFactory,
    StatementSetFactory,
    make_run,
    predict,
)

pytestmark = pytest.mark.django_db
LONG = re.compile(r"\d\.\d{6,}")  # a float printed with six decimals or more


def _shown(html: str) -> str:
    """The page without its scripts (the figures' JSON keeps full precision)."""
    return re.sub(r"<script.*?</script>", "", html, flags=re.S)


def test_option_scores_names_each_score() -> None:
    assert option_scores([-1.2345678901234567, -0.1]) == "A -1.235 · B -0.100"
    assert option_scores([0.30000000000000004, 0.7], "statement") == "no 0.300 · yes 0.700"
    assert option_scores([0.5, None], ["left", "right"]) == "left 0.500 · right –"
    assert option_scores([]) == ""


def test_run_page_and_question_page_print_labelled_short_scores(researcher: Client) -> None:
    qset = QuestionSetFactory(name="numbers")
    q = QuestionFactory(question_set=qset, position=0, options=["a", "b", "c"], answer_index=1)
    run = make_run(question_set=qset)
    predict(run, q, 1, scores=[-2.718281828459045, -0.6931471805599453, -3.141592653589793])
    page = researcher.get(reverse("runs:detail", args=[run.pk])).content.decode()
    assert "A -2.718 · B -0.693 · C -3.142" in page
    assert "Score per option" in page
    assert not LONG.search(page.split("First items", 1)[1])
    question = researcher.get(reverse("explorer:question", args=[q.pk])).content.decode()
    assert "A -2.718 · B -0.693 · C -3.142" in question
    assert not LONG.search(_shown(question))
    # the export keeps every digit
    line = b"".join(researcher.get(reverse("runs:predictions", args=[run.pk, "jsonl"])).streaming_content)
    assert json.loads(line)["scores"][1] == -0.6931471805599453


def test_statement_run_page_says_which_score_is_yes(researcher: Client) -> None:
    sset = StatementSetFactory(name="numbers-statements")
    st = StatementFactory(statement_set=sset, position=0, text="Water is wet.", human_majority=1)
    run = make_run(statement_set=sset, scoring="yesno")
    p = 0.8123456789012345
    Prediction.objects.create(
        run=run, statement=st, position=0, chosen=1, correct=True, scores=[1 - p, p], extra={"q1": {"p_yes": p}}
    )
    page = researcher.get(reverse("runs:detail", args=[run.pk])).content.decode()
    assert "no 0.188 · yes 0.812" in page
    assert not LONG.search(page.split("First items", 1)[1])
    drawer = researcher.get(reverse("explorer:run_items", args=[run.pk])).content.decode()
    assert "human majority yes · P(yes) 0.812" in drawer


def test_a_finished_run_page_prints_one_interval_per_accuracy(researcher: Client, csqa_set) -> None:  # type: ignore[no-untyped-def]
    """The live card printed a Wilson interval, the Metrics table the stored bootstrap one, for the
    same accuracy: a finished run's page now prints the stored one and names it everywhere."""
    from runs.evaluation import run_execute
    from runs.models import RunMetric
    from runs.selectors.samples import wilson
    from runs.services import run_create

    run = run_create(question_set=csqa_set, backend="random", scoring="loglik", seed=1, enqueue=False)
    run_execute(run.pk, heartbeat=False)
    m = RunMetric.objects.get(run=run, scope="overall", name="accuracy")
    ok = Prediction.objects.filter(run=run, correct=True).count()
    w_low, w_high = wilson(ok, m.n)
    assert (f"{w_low:.3f}", f"{w_high:.3f}") != (f"{m.ci_low:.3f}", f"{m.ci_high:.3f}")
    for url in (reverse("runs:detail", args=[run.pk]), reverse("runs:samples", args=[run.pk])):
        page = _shown(researcher.get(url).content.decode())
        assert f"[{m.ci_low:.3f}–{m.ci_high:.3f}, 95% bootstrap, as in Metrics]" in page, url
        assert f"{w_low:.3f}–{w_high:.3f}" not in page, url
        assert "Wilson 95%" not in page, url
    page = researcher.get(reverse("runs:detail", args=[run.pk])).content.decode()
    assert "this run: accuracy (bootstrap interval)" in page
    assert "this run's interval is the 95 % percentile bootstrap" in page


def test_wilson_many_is_wilson_of_each_pair() -> None:
    """The explorer's bars take their intervals in one vectorised call: the same floats as one
    statsmodels call per bar, None where a group has no item."""
    import random

    from runs.selectors.samples import wilson, wilson_many

    rng = random.Random(7)
    pairs = [(0, 0), (0, 1), (1, 1), (3, 0), (7, 7)] + [
        (rng.randint(0, n), n) for n in (rng.randint(1, 60_000) for _ in range(500))
    ]
    expected = [None if n == 0 else wilson(ok, n) for ok, n in pairs]
    assert wilson_many(pairs) == expected
    assert wilson_many([]) == []
    assert wilson_many([(0, 0)]) == [None]
