"""ReComSBench windows: the explorer's chart and table use the run metrics' windows (the same
definition) also when N is not a multiple of 9; Fig. 4 (KBA against accuracy per window) is drawn
from them; the path redundancy ratio (Fig. 6) is reported. Data: the hand-made paths file replayed
through a real run."""

from __future__ import annotations

from pathlib import Path

import pytest

from explorer import charts
from explorer.panels.runs import question_run_panels
from runs.evaluation import run_execute
from runs.models import Prediction, Run, RunMetric
from runs.services import run_create

pytestmark = pytest.mark.django_db
PATHS = Path(__file__).parents[1] / "commonsense" / "recoms_paths_demo.jsonl"


@pytest.fixture
def recoms_run(csqa_set) -> Run:  # type: ignore[no-untyped-def]
    run = run_create(
        question_set=csqa_set, backend="replay", scoring="recoms", params={"source": str(PATHS)}, limit=4, enqueue=False
    )
    assert run_execute(run.pk, heartbeat=False) == Run.State.DONE, Run.objects.get(pk=run.pk).error
    return Run.objects.select_related("question_set").get(pk=run.pk)


def test_chart_windows_are_the_metric_windows(recoms_run: Run) -> None:
    stored = RunMetric.objects.filter(run=recoms_run, name="accuracy", scope__startswith="window=").order_by("scope")
    want = [(w.data["d_min"], w.data["d_max"], w.value) for w in stored]
    assert len(want) == 7  # N = 3 items with a d(Q): the paper's seven windows (N/3 at step N/9)
    (panel,) = [p for p in question_run_panels(recoms_run) if p.key == "difficulty"]
    assert [(r[2], r[3], r[6]) for r in panel.rows] == want
    kba = RunMetric.objects.filter(run=recoms_run, name="kba", scope__startswith="window=").order_by("scope")
    (fig4,) = [p for p in question_run_panels(recoms_run) if p.key == "kba-accuracy"]
    assert not charts.is_empty(fig4.figure)
    assert [(r[3], r[4]) for r in fig4.rows] == [(a, k.value) for (_, _, a), k in zip(want, kba, strict=True)]


def test_the_loop_copies_the_kba_answer(recoms_run: Run) -> None:
    """runs.evaluation stores ``extra.kba.correct`` in Prediction.kba_correct (the windows' index reads it)."""
    from runs.item_facets import kba_correct

    preds = list(Prediction.objects.filter(run=recoms_run))
    assert any(p.kba_correct is not None for p in preds)
    assert [p.kba_correct for p in preds] == [kba_correct(p.extra) for p in preds]


def test_redundancy_ratio_per_path(recoms_run: Run) -> None:
    good, bad = [], []
    for p in Prediction.objects.filter(run=recoms_run):
        for path in p.extra.get("paths") or []:
            if path.get("krr") is not None and path.get("correct") is not None:
                (good if path["correct"] else bad).append(path["krr"])
    assert good or bad
    for name, vals in (("krr_correct", good), ("krr_incorrect", bad)):
        m = RunMetric.objects.get(run=recoms_run, name=name, scope="overall")
        assert m.value == (pytest.approx(sum(vals) / len(vals)) if vals else None)
        assert m.n == len(vals)
    (panel,) = [p for p in question_run_panels(recoms_run) if p.key == "redundancy"]
    assert not charts.is_empty(panel.figure)
    assert len(panel.rows) == 2


def test_recoms_sweep_command(recoms_run: Run, capsys: pytest.CaptureFixture[str]) -> None:
    import json

    from django.core.management import CommandError, call_command

    call_command("recoms_sweep", "--run", str(recoms_run.pk), "--thresholds", "0.6,0.75,0.9")
    out = json.loads(capsys.readouterr().out)
    assert [p["threshold"] for p in out["sweep"]] == [0.6, 0.75, 0.9]
    stored = [
        path["kcr"]
        for p in Prediction.objects.filter(run=recoms_run)
        for path in p.extra.get("paths") or []
        if path.get("kcr") is not None and path.get("correct")
    ]
    at_075 = out["sweep"][1]
    assert at_075["n_correct"] == len(stored)
    assert at_075["kcr_correct"] == pytest.approx(sum(stored) / len(stored))
    with pytest.raises(CommandError, match="needs a recoms run"):
        other = Run.objects.create(question_set=recoms_run.question_set, backend="random", scoring="loglik")
        call_command("recoms_sweep", "--run", str(other.pk))


def test_a_run_adopts_another_runs_difficulty(recoms_run: Run, csqa_set) -> None:  # type: ignore[no-untyped-def]
    from django.core.exceptions import ValidationError

    run = run_create(
        question_set=csqa_set,
        backend="random",
        scoring="loglik",
        limit=4,
        seed=2,
        params={"difficulty_run": recoms_run.pk},
        enqueue=False,
    )
    assert run_execute(run.pk, heartbeat=False) == Run.State.DONE
    ref = dict(Prediction.objects.filter(run=recoms_run).values_list("question_id", "item_difficulty"))
    mine = dict(Prediction.objects.filter(run=run).values_list("question_id", "item_difficulty"))
    assert mine == ref
    assert any(v is not None for v in mine.values())
    bounds = lambda r: [  # noqa: E731
        (m.data["start"], m.data["stop"])
        for m in RunMetric.objects.filter(run=r, name="accuracy", scope__startswith="window=").order_by("scope")
    ]
    assert bounds(run) == bounds(recoms_run)
    assert bounds(run)
    with pytest.raises(ValidationError, match="needs a finished recoms run"):
        run_create(
            question_set=csqa_set, backend="random", scoring="loglik", params={"difficulty_run": run.pk}, enqueue=False
        )
    with pytest.raises(ValidationError, match="no such run"):
        run_create(
            question_set=csqa_set, backend="random", scoring="loglik", params={"difficulty_run": 999}, enqueue=False
        )
