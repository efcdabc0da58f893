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
from explorer.selectors.difficulty import _difficulty_present, core_windows, difficulty_buckets, runs_with_difficulty
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
    both = ra.entry([a, b], "coco")
    assert both is not None
    assert both.slot == "coco:1,2"
    assert both.refs == ",run1,run2,"
    assert ra.cache_key([a, b], "coco") == both.key
    assert ra.cache_key([a, Run(pk=3, state=Run.State.SCORING, finished_at=now)], "coco") is None
    # the same runs in another state or finish: the same slot, another scope and key
    for changed in (
        Run(pk=2, state=Run.State.DONE, finished_at=now),
        Run(pk=2, state=Run.State.FAILED, finished_at=now + timedelta(seconds=1)),
    ):
        other = ra.entry([a, changed], "coco")
        assert other is not None
        assert other.slot == both.slot
        assert other.scope != both.scope
        assert other.key != both.key
    # twenty runs: a digest of the whole key, short enough for every cache backend, still per state
    many = [Run(pk=i, state=Run.State.DONE, finished_at=now) for i in range(1, 61)]
    long_key = ra.cache_key(many, "coco")
    assert long_key is not None
    assert len(long_key) <= ra.MAX_KEY
    assert len(ra.entry(many, "coco").slot) <= ra.MAX_KEY  # type: ignore[union-attr]
    failed = [*many[:-1], Run(pk=60, state=Run.State.FAILED, finished_at=now)]
    assert ra.cache_key(failed, "coco") != long_key
    assert ra.cache_key(many, "other") != long_key


def _loop_runs(n_runs: int) -> list[Run]:
    """A CoCo-shaped set with a d(Q) per question, scored by the evaluation loop (random backend):
    the runs end as every run ends, warming their aggregates (runs.signals.run_finished)."""
    from runs.evaluation import run_execute
    from runs.services import run_create

    qset = QuestionSetFactory(name="warm", kind="coco")
    pos = 0
    for s in range(12):
        roles = ["memorization"] if s % 3 == 0 else ["atomic_1", "atomic_2", "reasoning"]
        for role in roles:
            QuestionFactory(
                question_set=qset,
                position=pos,
                role=role,
                group=f"set-{s}",
                metadata={"relation": ["xWant", "xNeed"][s % 2], "difficulty": 1 + pos % 4},
            )
            pos += 1
    qset.question_count = pos
    qset.save()
    runs = []
    for seed in range(n_runs):
        run = run_create(question_set=qset, backend="random", scoring="loglik", seed=seed, enqueue=False)
        assert run_execute(run.pk, heartbeat=False) == Run.State.DONE
        runs.append(es.runs_with_sets().get(pk=run.pk))
    return runs


def _fresh(runs: list[Run]) -> dict[str, object]:
    """Every run-by-run aggregate computed without the cache."""
    dims = ("relation", "kind", "perturbation")
    return {
        "each-dims": es._accuracy_dims_each.__wrapped__(runs, dims),  # type: ignore[attr-defined]
        "coco": es.coco_summary.__wrapped__(runs),  # type: ignore[attr-defined]
        "windows": core_windows.__wrapped__(runs),  # type: ignore[attr-defined]
        "difficulty": _difficulty_present.__wrapped__(runs),  # type: ignore[attr-defined]
    }


def test_aggregates_cached_run_by_run_equal_a_fresh_computation_of_any_combination(django_assert_max_num_queries):
    """A page over several runs is served each run's entry from the cache and computes only the
    others (together); whatever is cached, the result is the fresh computation's."""
    from explorer.panels.runs import compare_panels

    runs = _loop_runs(3)
    dims = ("relation", "kind", "perturbation")
    cache.clear()
    cold = {p.key: p.rows for p in compare_panels(runs)}
    es.coco_summary([runs[0]])  # the first run's entries only, then every combination
    core_windows([runs[2]])
    for combo in ([runs[0]], [runs[1], runs[0]], runs, [runs[2], runs[1]]):
        want = _fresh(combo)
        assert es.coco_summary(combo) == want["coco"]
        assert core_windows(combo) == want["windows"]
        assert runs_with_difficulty(combo) == set(want["difficulty"])  # type: ignore[arg-type]
        got = es.accuracy_by_dims(combo, dims)
        merged = {
            d: sorted((r for rows in want["each-dims"].values() for r in rows[d]), key=lambda r: (r["group"], r["run"]))
            for d in dims
        }  # type: ignore[union-attr]
        assert got == merged
    with django_assert_max_num_queries(3):  # every aggregate cached: the panels' metric reads only
        warm = {p.key: p.rows for p in compare_panels(runs)}
    assert warm == cold


def test_a_run_ends_with_its_pages_aggregates_cached(researcher, django_assert_max_num_queries):  # type: ignore[no-untyped-def]
    """The loop's run_finished warms what the run page and the compare page read, so their first
    view computes no aggregate; the pages equal those computed with an empty cache."""
    import re

    from django.db import connection
    from django.test.utils import CaptureQueriesContext
    from django.urls import reverse

    runs = _loop_runs(2)
    urls = [
        reverse("explorer:run_errors", args=[runs[0].pk]),
        reverse("explorer:compare") + f"?run={runs[0].pk}&run={runs[1].pk}",
    ]

    def page(url: str) -> tuple[str, int]:
        with CaptureQueriesContext(connection) as ctx:
            body = researcher.get(url).content.decode()
        return re.sub(r'(CSRFToken": "|csrfmiddlewaretoken" value=")\w+', "", body), len(ctx.captured_queries)

    warmed = [page(u) for u in urls]
    cache.clear()
    cold = [page(u) for u in urls]
    assert [b for b, _ in warmed] == [b for b, _ in cold]
    assert all(w < c for (_, w), (_, c) in zip(warmed, cold, strict=True))


def test_a_map_cached_by_the_whole_run_decorator_is_not_read_as_a_run_entry() -> None:
    """A shared cache filled before the run-by-run decorator (``per_finished_runs`` stored
    ``{run id: value}`` under the bare name) must not be read as a ("value", x) entry."""
    qset = QuestionSetFactory()
    run = make_run(question_set=qset, finished_at=timezone.now())
    predict(run, QuestionFactory(question_set=qset, metadata={"relation": "xWant"}), 0)
    fresh = es.coco_summary.__wrapped__([run])  # type: ignore[attr-defined]
    for name in ("coco", "core-windows"):
        key = ra.cache_key([run], name)
        assert key is not None
        cache.set(key, {}, ra.TTL)  # the former decorator's entry for a run without CoCo rows
    assert es.coco_summary([run]) == fresh
    assert core_windows([run]) == core_windows.__wrapped__([run])  # type: ignore[attr-defined]


def test_an_argument_given_by_position_by_keyword_or_by_default_is_one_entry(django_assert_num_queries):  # type: ignore[no-untyped-def]
    qset = QuestionSetFactory()
    run = make_run(question_set=qset, finished_at=timezone.now())
    predict(run, QuestionFactory(question_set=qset, metadata={"relation": "xWant"}), 0)
    rows = es.accuracy_by([run], "relation")
    with django_assert_num_queries(0):
        assert es.accuracy_by([run], dimension="relation") == rows
    points = difficulty_buckets([run])
    with django_assert_num_queries(0):
        assert difficulty_buckets([run], difficulty_buckets.__wrapped__.__defaults__[0]) == points  # type: ignore[attr-defined]
