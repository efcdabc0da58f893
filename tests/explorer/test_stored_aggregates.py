"""Aggregates kept in the database behind the cache (explorer.models.StoredAggregate, written by
explorer.selectors.run_aggregates): served after the cache lost them, one statement for every
aggregate of a scope, never across a change of the runs, the survey's answers or the code, and gone
with the runs and campaigns they read. Runs through the evaluation loop, answers through the
ratings import."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.cache import cache
from django.db import connection
from django.test.utils import CaptureQueriesContext

from explorer.models import StoredAggregate
from explorer.panels.accuracy import accuracy_rows
from explorer.panels.runs import compare_panels
from explorer.panels.statements import statement_run_panels
from explorer.selectors import errors as es
from explorer.selectors import run_aggregates as ra
from explorer.selectors.difficulty import core_windows

from .test_run_aggregates import _empty_cache, _fresh, _loop_runs  # noqa: F401  (the autouse fixture applies here too)
from .test_survey_cache import _figures, _ratings, surveyed_set

pytestmark = pytest.mark.django_db


def _aggregates(runs):  # type: ignore[no-untyped-def]
    """Aggregates a run's page computes (so its end stored them)."""
    return {
        "coco": es.coco_summary(runs),
        "windows": core_windows(runs),
        "dims": accuracy_rows(runs, lambda *keys: True),
        "positions": es.position_table(runs[0]),
    }


def test_a_run_ends_with_its_aggregates_stored_and_read_back_in_one_statement():
    runs = _loop_runs(2)  # the loop's run_finished computed the runs' pages: stored
    assert StoredAggregate.objects.filter(refs__contains=f",run{runs[0].pk},").exists()
    cache.clear()  # a restart, another process: the cache is empty, the rows are not
    with CaptureQueriesContext(connection) as ctx:
        got = _aggregates([runs[0]])
    assert len(ctx.captured_queries) == 1, [q["sql"] for q in ctx.captured_queries]
    assert "explorer_storedaggregate" in ctx.captured_queries[0]["sql"]
    fresh = _fresh([runs[0]])
    assert got["coco"] == fresh["coco"]
    assert got["windows"] == fresh["windows"]
    with CaptureQueriesContext(connection) as ctx:  # now in the cache as well
        assert _aggregates([runs[0]]) == got
    assert not ctx.captured_queries


def test_the_compare_page_from_the_store_equals_the_page_computed_afresh():
    runs = _loop_runs(3)
    cache.clear()
    StoredAggregate.objects.all().delete()
    computed = {p.key: p.rows for p in compare_panels(runs)}
    n_rows = StoredAggregate.objects.count()
    assert n_rows > 0
    cache.clear()
    with CaptureQueriesContext(connection) as ctx:
        stored = {p.key: p.rows for p in compare_panels(runs)}
    assert stored == computed
    assert StoredAggregate.objects.count() == n_rows  # read, nothing written again
    store_reads = [q for q in ctx.captured_queries if "explorer_storedaggregate" in q["sql"]]
    assert 1 <= len(store_reads) <= 3, len(store_reads)  # per scope read, not per aggregate


def test_a_run_finished_again_is_computed_afresh_and_replaces_its_rows():
    runs = _loop_runs(1)
    run = runs[0]
    before = _aggregates([run])
    slots = StoredAggregate.objects.filter(refs__contains=f",run{run.pk},").count()
    # resumed and finished again: what was stored under the former finish is not served
    from runs.models import Prediction

    Prediction.objects.filter(run=run).update(correct=True)
    run.finished_at = run.finished_at + timedelta(seconds=5)  # type: ignore[operator]
    run.save()
    cache.clear()
    again = _aggregates([run])
    assert again != before
    assert again["coco"] == _fresh([run])["coco"]
    assert StoredAggregate.objects.filter(refs__contains=f",run{run.pk},").count() == slots  # replaced


def test_code_of_another_version_is_not_served(monkeypatch):  # type: ignore[no-untyped-def]
    run = _loop_runs(1)[0]
    _aggregates([run])
    cache.clear()
    wanted = ra.entry([run], "coco@run")
    assert wanted is not None
    assert wanted.key in ra.get_many([wanted])
    cache.clear()
    monkeypatch.setattr(ra, "code_version", lambda: "another-deploy")
    wanted = ra.entry([run], "coco@run")
    assert wanted is not None
    assert ra.get_many([wanted]) == {}, "a row computed by other code was served"


def test_a_slots_row_of_another_state_is_not_served_after_an_eviction():
    """The scope was read into the cache (its marker is there), the entry was evicted since, and
    meanwhile the slot's row was written under another state (the run finished again, elsewhere)."""
    run = _loop_runs(1)[0]
    _aggregates([run])
    coco = ra.entry([run], "coco@run")
    assert coco is not None
    assert cache.get(coco.marker)
    cache.delete(coco.key)
    StoredAggregate.objects.filter(slot=coco.slot).update(scope="0" * 64)
    assert ra.get_many([coco]) == {}


def test_stored_values_are_signed(settings):  # type: ignore[no-untyped-def]
    """Only what this deployment wrote is unpickled: a row written by other means (or under another
    SECRET_KEY) is computed again, not loaded."""
    import pickle

    run = _loop_runs(1)[0]
    want = _aggregates([run])
    coco = ra.entry([run], "coco@run")
    assert coco is not None
    forged = pickle.dumps(("value", {"forged": True}))
    StoredAggregate.objects.filter(slot=coco.slot).update(value=forged)
    cache.clear()
    assert _aggregates([run]) == want
    cache.clear()
    settings.SECRET_KEY = "another-" + settings.SECRET_KEY
    assert ra.get_many([coco]) == {}


def test_a_failed_write_keeps_the_value_and_the_transaction(monkeypatch):  # type: ignore[no-untyped-def]
    run = _loop_runs(1)[0]
    coco = ra.entry([run], "coco@run")
    assert coco is not None
    StoredAggregate.objects.all().delete()
    monkeypatch.setattr(StoredAggregate._meta, "db_table", "explorer_no_such_table")
    ra.put_many({coco: ("value", {"n": 1})})  # fails inside the test's transaction: a savepoint
    monkeypatch.undo()
    assert cache.get(coco.key) == ("value", {"n": 1})
    assert StoredAggregate.objects.count() == 0  # the transaction is still usable (PostgreSQL aborts it otherwise)


def test_rows_not_computed_again_are_pruned():
    from datetime import timedelta

    from django.utils import timezone

    run = _loop_runs(1)[0]
    n = StoredAggregate.objects.count()
    assert n > 0
    StoredAggregate.objects.filter(slot=ra.entry([run], "coco@run").slot).update(  # type: ignore[union-attr]
        computed_at=timezone.now() - timedelta(days=40)
    )
    assert ra.prune(timedelta(days=30)) == 1
    assert StoredAggregate.objects.count() == n - 1


def test_an_unreadable_row_is_computed_again():
    run = _loop_runs(1)[0]
    want = _aggregates([run])
    rows = StoredAggregate.objects.filter(refs__contains=f",run{run.pk},")
    for row in rows:  # signed, but no pickle (or a pickle of a class that is gone)
        row.value = ra._sign(b"not a pickle")
        row.save()
    cache.clear()
    assert _aggregates([run]) == want
    coco = ra.entry([run], "coco@run")
    assert coco is not None
    assert ra._unpickle(rows.get(slot=coco.slot).value) is not None


def test_an_entry_evicted_from_the_cache_is_read_back_alone():
    run = _loop_runs(1)[0]
    want = _aggregates([run])
    cache.clear()
    _aggregates([run])  # the scope's rows read into the cache
    coco = ra.entry([run], "coco@run")
    assert coco is not None
    assert cache.get(coco.marker)
    cache.delete(coco.key)  # evicted alone
    with CaptureQueriesContext(connection) as ctx:
        assert _aggregates([run]) == want
    assert len(ctx.captured_queries) == 1
    assert "explorer_storedaggregate" in ctx.captured_queries[0]["sql"]


def test_deleting_a_run_deletes_its_rows():
    a, b = _loop_runs(2)
    compare_panels([a, b])
    assert StoredAggregate.objects.filter(refs__contains=f",run{a.pk},").exists()
    kept_b = StoredAggregate.objects.filter(refs__contains=f",run{b.pk},").exclude(refs__contains=f",run{a.pk},")
    n_b = kept_b.count()
    a.delete()
    assert not StoredAggregate.objects.filter(refs__contains=f",run{a.pk},").exists()
    assert kept_b.count() == n_b > 0


def test_survey_figures_are_stored_under_the_answers_and_go_with_the_campaign():
    sset, run, camp = surveyed_set()
    five = _figures(run)
    cache.clear()
    with CaptureQueriesContext(connection) as ctx:  # the survey's figures from the database
        assert _figures(run) == five
    read = [q["sql"] for q in ctx.captured_queries]
    assert not any('"annotation_response"."answer"' in q for q in read), "the answers were read again"
    assert any("explorer_storedaggregate" in q for q in read)

    _ratings(camp, sset, range(5, 7))  # new answers: a new scope, computed and stored
    cache.clear()
    seven = _figures(run)
    assert seven["humans compared"] == [7, 7]
    survey_rows = StoredAggregate.objects.filter(refs__contains=f",campaign{camp.pk},")
    n_rows = survey_rows.count()
    assert n_rows > 0
    _ratings(camp, sset, range(7, 8))
    _figures(run)
    assert survey_rows.count() == n_rows  # each slot's row replaced, not one more per state of the answers
    camp.delete()
    assert not survey_rows.exists()
    assert all(
        not p.rows for p in statement_run_panels(run) if p.key == "human-percentile"
    )  # and the page no longer shows them


def test_the_housekeeping_tick_computes_the_figures_of_surveys_that_received_answers():
    from datetime import timedelta

    from django.utils import timezone

    from annotation.models import Response
    from explorer.tasks import surveys_warm_task

    sset, run, camp = surveyed_set(("Mixtral-8x22B",))
    Response.objects.filter(campaign=camp).update(created_at=timezone.now() - timedelta(hours=1))
    assert surveys_warm_task(within_seconds=120) == {}  # nothing new within the window
    _ratings(camp, sset, range(5, 8))  # three raters come in
    StoredAggregate.objects.all().delete()
    cache.clear()
    assert surveys_warm_task(within_seconds=120) == {sset.pk: [run.pk]}
    assert surveys_warm_task(within_seconds=120) == {}  # the same answers: computed once, whoever ticks
    cache.clear()  # the web process's cache knows nothing of it
    with CaptureQueriesContext(connection) as ctx:
        figures = _figures(run)
    read = [q["sql"] for q in ctx.captured_queries]
    assert not any('"annotation_response"."answer"' in q for q in read), "the view computed the survey figures"
    assert figures["humans compared"] == [8]
    assert len(figures["raters' M"]) == 8


def test_explorer_warm_computes_the_figures_again_under_new_code(monkeypatch):  # type: ignore[no-untyped-def]
    from io import StringIO

    from django.core.management import call_command

    runs = _loop_runs(2)
    monkeypatch.setattr(ra, "code_version", lambda: "an-upgrade")  # every row is of the former code
    cache.clear()
    wanted = ra.entry([runs[0]], "coco@run")
    assert wanted is not None
    assert ra.get_many([wanted]) == {}
    out = StringIO()
    call_command("explorer_warm", "--days", "1", stdout=out)
    assert "computed the figures of 2 run(s)" in out.getvalue()
    cache.clear()
    assert wanted.key in ra.get_many([wanted])  # the first view reads it
    with pytest.raises(SystemExit):
        call_command("explorer_warm", "--days", "0", stderr=StringIO())
