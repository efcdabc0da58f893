"""Run aggregates cached per finished run (explorer.selectors.errors, decorated by
explorer.selectors.run_aggregates): served from the cache only while the run is finished with the
same finish time; a running run is always counted afresh."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.cache import cache
from django.utils import timezone

from explorer.selectors import errors as es
from explorer.selectors import run_aggregates as ra
from runs.models import Run

from .factories import QuestionFactory, QuestionSetFactory, make_run, predict

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _empty_cache():
    cache.clear()
    yield
    cache.clear()


def _relations(run):  # type: ignore[no-untyped-def]
    return {r["group"]: (r["ok"], r["n"]) for r in es.accuracy_by([run], "relation")}


def test_finished_run_is_served_from_the_cache_until_it_finishes_again(django_assert_num_queries):
    qset = QuestionSetFactory()
    run = make_run(question_set=qset, finished_at=timezone.now())
    predict(run, QuestionFactory(question_set=qset, metadata={"relation": "xWant"}), 0)
    assert _relations(run) == {"xWant": (1, 1)}
    summary = es.coco_summary([run])
    with django_assert_num_queries(0):
        assert _relations(run) == {"xWant": (1, 1)}
        assert es.coco_summary([run]) == summary
    # resumed and finished again: a new finish time, so the new prediction counts
    predict(run, QuestionFactory(question_set=qset, metadata={"relation": "xWant"}), 1)
    run.finished_at = run.finished_at + timedelta(seconds=5)
    run.save()
    assert _relations(run) == {"xWant": (1, 2)}


@pytest.mark.parametrize("state,finished", [(Run.State.SCORING, False), (Run.State.DONE, False)])
def test_a_run_without_a_finish_is_counted_afresh(state, finished, django_assert_num_queries):
    qset = QuestionSetFactory()
    run = make_run(question_set=qset, state=state)
    assert ra.cache_key([run], "x") is None
    predict(run, QuestionFactory(question_set=qset, metadata={"relation": "xNeed"}), 0)
    assert _relations(run) == {"xNeed": (1, 1)}
    predict(run, QuestionFactory(question_set=qset, metadata={"relation": "xNeed"}), 1)
    with django_assert_num_queries(1):
        assert _relations(run) == {"xNeed": (1, 2)}


def test_key_names_every_run_with_its_state_and_finish():
    now = timezone.now()
    a = Run(pk=1, state=Run.State.DONE, finished_at=now)
    b = Run(pk=2, state=Run.State.FAILED, finished_at=now)
    key = ra.cache_key([a, b], "coco")
    assert key is not None and "1.done." in key and "2.failed." in key
    assert ra.cache_key([a, Run(pk=3, state=Run.State.SCORING, finished_at=now)], "coco") is None
