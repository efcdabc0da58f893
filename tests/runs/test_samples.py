"""The per-sample log viewer (issue 14): every prediction of a run, filtered on the server by
result, relation, query kind, option chosen and text, paginated, with prompt / raw output /
per-option scores; a handful of queries per page; partial metrics polled while the run goes."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.urls import reverse
from django.utils.html import escape

from knowledge.services.builds import question_set_build
from knowledge.services.imports import graph_import
from runs.evaluation import run_execute
from runs.models import Prediction, Run
from runs.selectors.samples import PAGE_SIZE, partial_metrics
from runs.services import run_create
from tests.conftest import FIXTURES

pytestmark = pytest.mark.django_db


@pytest.fixture
def com2_run(db: None) -> Run:
    graph_import(FIXTURES / "ckbp_demo.csv", name="ckbp", fmt="cskb-csv")
    qset = question_set_build(graph="ckbp", kind="2i", count=60, seed=7, name="com2")
    run = run_create(question_set=qset, backend="random", scoring="loglik", seed=5, enqueue=False)
    assert run_execute(run.pk) == Run.State.DONE
    return Run.objects.get(pk=run.pk)


def _positions(html: str) -> list[int]:
    return [int(x) for x in re.findall(r'id="sample-(\d+)"', html)]


def test_samples_page_lists_every_prediction_a_page_at_a_time(researcher: Client, com2_run: Run) -> None:
    url = reverse("runs:samples", args=[com2_run.pk])
    first = researcher.get(url).content.decode()
    total = Prediction.objects.filter(run=com2_run).count()
    assert f"<strong>{total}</strong> predictions" in first
    assert _positions(first) == list(range(PAGE_SIZE))
    second = researcher.get(url + "?page=2").content.decode()
    assert _positions(second) == list(range(PAGE_SIZE, min(total, 2 * PAGE_SIZE)))
    # the detail page links to it
    assert url in researcher.get(reverse("runs:detail", args=[com2_run.pk])).content.decode()


def test_filters_by_result_relation_kind_chosen_and_text(researcher: Client, com2_run: Run) -> None:
    url = reverse("runs:samples", args=[com2_run.pk])
    preds = Prediction.objects.filter(run=com2_run)
    wrong = set(preds.filter(correct=False).values_list("position", flat=True))
    assert wrong
    assert len(wrong) < preds.count()
    page = researcher.get(url, {"correct": "0"}).content.decode()
    assert set(_positions(page)) == set(sorted(wrong)[:PAGE_SIZE])
    assert "wrong" in page

    chosen_c = set(preds.filter(chosen=2).values_list("position", flat=True))
    assert set(_positions(researcher.get(url, {"chosen": "2"}).content.decode())) == set(sorted(chosen_c)[:PAGE_SIZE])

    p = preds.select_related("question").order_by("-position").first()
    assert p is not None
    assert p.item_relation
    rel = set(preds.filter(item_relation=p.item_relation).values_list("position", flat=True))
    page = researcher.get(url, {"relation": p.item_relation, "kind": "2i"}).content.decode()
    assert set(_positions(page)) == set(sorted(rel)[:PAGE_SIZE])
    assert _positions(researcher.get(url, {"kind": "3p"}).content.decode()) == []

    words = p.question.stem.split()
    needle = max(words, key=len)
    expected = {x.position for x in preds.select_related("question") if needle.lower() in x.question.stem.lower()}
    page = researcher.get(url, {"q": needle}).content.decode()
    assert p.position in _positions(page)
    assert set(_positions(page)) <= expected


def test_a_sample_shows_options_with_scores_gold_chosen_prompt_and_raw_output(
    researcher: Client, com2_run: Run
) -> None:
    p = Prediction.objects.filter(run=com2_run).select_related("question").get(position=0)
    html = researcher.get(reverse("runs:samples", args=[com2_run.pk]), {"q": p.question.external_id}).content.decode()
    for option in p.question.options[:3]:
        assert escape(option) in html
    assert f"{p.scores[0]:.3f}" in html  # per-option score
    assert "gold" in html
    assert "chosen" in html
    assert "random baseline prompts no model" in html  # honest: no made-up prompt


def test_unknown_filter_values_are_ignored_not_500(researcher: Client, com2_run: Run) -> None:
    url = reverse("runs:samples", args=[com2_run.pk])
    r = researcher.get(url, {"correct": "maybe", "chosen": "99", "page": "zz", "q": "x" * 5000})
    assert r.status_code == 200


def test_a_page_costs_few_queries_whatever_the_filters(
    researcher: Client, com2_run: Run, django_assert_max_num_queries
) -> None:  # type: ignore[no-untyped-def]
    url = reverse("runs:samples", args=[com2_run.pk])
    researcher.get(url)  # warm the session
    with django_assert_max_num_queries(12):
        researcher.get(
            url, {"correct": "0", "relation": "xWant", "kind": "2i", "chosen": "1", "q": "Person", "page": "2"}
        )
    with django_assert_max_num_queries(12):
        researcher.get(url, HTTP_HX_REQUEST="true", HTTP_HX_TARGET="samples")


def test_htmx_filtering_returns_only_the_table(researcher: Client, com2_run: Run) -> None:
    r = researcher.get(
        reverse("runs:samples", args=[com2_run.pk]), {"correct": "1"}, HTTP_HX_REQUEST="true", HTTP_HX_TARGET="samples"
    )
    body = r.content.decode()
    assert body.lstrip().startswith('<section id="samples">')
    assert "<html" not in body


def test_prompt_is_rebuilt_with_the_scorers_template(com2_run: Run) -> None:
    from commonsense.scoring.prompts import COCO_INSTRUCTION
    from runs.sample_prompts import rebuilt_prompt

    p = Prediction.objects.filter(run=com2_run).select_related("question").first()
    assert p is not None
    com2_run.backend, com2_run.scoring = "hf", "generate"
    text = rebuilt_prompt(com2_run, p)["text"]
    assert text.startswith(COCO_INSTRUCTION)
    assert p.question.stem in text
    assert "A: " in text
    com2_run.scoring = "loglik"
    text = rebuilt_prompt(com2_run, p)["text"]
    assert text.startswith("Question: ")
    assert p.question.stem in text
    assert "\nAnswer:" in text
    assert f"B:  {p.question.options[1]}" in text


def test_live_metrics_poll_while_the_run_goes_and_stop_when_done(researcher: Client, csqa_set) -> None:  # type: ignore[no-untyped-def]
    run = run_create(question_set=csqa_set, backend="random", scoring="loglik", seed=1, enqueue=False)
    page = researcher.get(reverse("runs:samples", args=[run.pk])).content.decode()
    live = reverse("runs:samples_live", args=[run.pk])
    assert f'hx-get="{live}" hx-trigger="every 2s"' in page
    assert "No prediction stored yet" in page
    run_execute(run.pk, heartbeat=False)
    run.refresh_from_db()
    body = researcher.get(live, HTTP_HX_REQUEST="true").content.decode()
    assert "hx-trigger" not in body
    m = partial_metrics(run)
    ok = Prediction.objects.filter(run=run, correct=True).count()
    assert m["ok"] == ok
    assert m["scored"] == 300
    assert m["accuracy"] == pytest.approx(ok / 300)
    assert m["ci_low"] < m["accuracy"] < m["ci_high"]
    assert f"{ok / 300:.3f}" in body
    assert "95% bootstrap, as in Metrics" in body  # the stored interval once the run ended (#29 item 11)


def test_only_researchers_see_samples(client: Client, com2_run: Run) -> None:
    from accounts.services import role_groups_sync, user_create_with_role

    url = reverse("runs:samples", args=[com2_run.pk])
    assert client.get(url).status_code == 302
    role_groups_sync()
    user_create_with_role("ann", "annotator", "pw-long-enough-123")
    client.login(username="ann", password="pw-long-enough-123")
    assert client.get(url).status_code == 403
    assert client.get(reverse("runs:samples_live", args=[com2_run.pk])).status_code == 403


def test_the_run_page_shows_live_partial_metrics_too(researcher: Client, csqa_set) -> None:  # type: ignore[no-untyped-def]
    run = run_create(question_set=csqa_set, backend="random", scoring="loglik", seed=1, enqueue=False)
    live = reverse("runs:samples_live", args=[run.pk])
    page = researcher.get(reverse("runs:detail", args=[run.pk])).content.decode()
    assert f'hx-get="{live}" hx-trigger="every 2s"' in page
    assert "no scored item yet" in page
    run_execute(run.pk, heartbeat=False)
    page = researcher.get(reverse("runs:detail", args=[run.pk])).content.decode()
    ok = Prediction.objects.filter(run=run, correct=True).count()
    assert f'hx-get="{live}"' not in page
    assert f"accuracy <strong>{ok / 300:.3f}</strong>" in page
