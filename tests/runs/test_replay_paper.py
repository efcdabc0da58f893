"""Replaying the 35 models' binary answers of the statements CSV (3,026-statement developer slice)
through real runs: each model's consensus / awareness / commonsensicality lies within 3 points of
NWW Table C.1 (computed on the full 4,407-statement corpus)."""

from __future__ import annotations

import pytest

from knowledge.models import StatementSet
from knowledge.services.imports import statements_import
from runs.evaluation import run_execute
from runs.selectors.runs import run_metrics_overall
from runs.services import run_create
from tests.commonsense.nww_table_c1 import TABLE_C1
from tests.conftest import shared_file

pytestmark = pytest.mark.django_db


@pytest.fixture
def slice_set() -> StatementSet:
    path = shared_file("commonsense_statements/statements_human_and_model_binary.csv")
    statements_import(path, name="nww-slice")
    return StatementSet.objects.get(name="nww-slice")


def _replay(sset: StatementSet, model: str) -> dict[str, float | None]:
    run = run_create(
        statement_set=sset, backend="replay", model=model, scoring="yesno", params={"chunk_size": 1024}, enqueue=False
    )
    assert run_execute(run.pk, heartbeat=False) == "done"
    run.refresh_from_db()
    assert run.items_done == 3026
    return run_metrics_overall(run)


def _close(model: str, m: dict[str, float | None]) -> None:
    got = tuple(100 * float(m[k] or 0) for k in ("consensus", "awareness", "commonsensicality"))
    for g, want, name in zip(got, TABLE_C1[model], "CAM", strict=True):
        assert abs(g - want) <= 3.0, f"{model} {name}: {g:.1f} vs Table C.1 {want}"


@pytest.mark.parametrize("model", ["Mixtral-8x22B", "Flan-T5-Small"])
def test_two_models_within_three_points(slice_set: StatementSet, model: str) -> None:
    _close(model, _replay(slice_set, model))


@pytest.mark.slow
@pytest.mark.once  # the two-model test above replays through PostgreSQL too
def test_all_35_models_within_three_points(slice_set: StatementSet) -> None:
    assert sorted(slice_set.models_answered) == sorted(TABLE_C1)
    for model in TABLE_C1:
        _close(model, _replay(slice_set, model))
