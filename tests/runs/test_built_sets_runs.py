"""Runs on sets built from a graph (issue 3 → issue 5): a CoCo set's run reports MEM/COM/REA/FAI/APP
equal to the consistency computed by hand from its stored predictions; a COM2 set (every question
its own "reasoning" group) gets accuracy and no CoCo rows; a ``--limit`` that cuts a CoCo set in
the middle leaves that set out (counted) instead of failing the run."""

from __future__ import annotations

from collections import defaultdict

import pytest

from knowledge.models import QuestionSet
from knowledge.services.builds import question_set_build
from knowledge.services.coco_builds import coco_build
from knowledge.services.imports import graph_import
from runs.evaluation import run_execute
from runs.models import Prediction, Run, RunMetric
from runs.services import run_create
from tests.conftest import FIXTURES

pytestmark = pytest.mark.django_db


@pytest.fixture
def built_sets(db: None) -> tuple[QuestionSet, QuestionSet]:
    """The demo's own builds: CoCo on the ATOMIC-2020 demo graph, COM2 2i on the CSKB demo graph."""
    graph_import(FIXTURES / "atomic2020_demo.tsv", name="atomic", fmt="atomic-tsv")
    graph_import(FIXTURES / "ckbp_demo.csv", name="ckbp", fmt="cskb-csv")
    coco = coco_build(
        graph="atomic", seed=7, name="coco", abstract=FIXTURES / "abstract_demo.tsv", per_relation=20, per_kind=30
    )
    com2 = question_set_build(graph="ckbp", kind="2i", count=40, seed=7, name="com2")
    return coco, com2


def _metric(run: Run, name: str, scope: str = "overall") -> RunMetric:
    return RunMetric.objects.get(run=run, name=name, scope=scope)


def _random_run(qset, **kw):  # type: ignore[no-untyped-def]
    run = run_create(question_set=qset, backend="random", scoring="loglik", seed=5, enqueue=False, **kw)
    assert run_execute(run.pk) == Run.State.DONE, Run.objects.get(pk=run.pk).error
    return Run.objects.get(pk=run.pk)


def test_coco_run_reports_consistency_equal_to_a_hand_count(built_sets) -> None:  # type: ignore[no-untyped-def]
    coco, _com2 = built_sets
    run = _random_run(coco)
    sets: dict[str, dict[str, bool]] = defaultdict(dict)
    for p in Prediction.objects.filter(run=run).select_related("question"):
        q = p.question
        sets[q.group][q.role] = p.chosen == q.answer_index
    mem = [s["memorization"] for s in sets.values() if set(s) == {"memorization"}]
    com = [s for s in sets.values() if any(r.startswith("conceptualization_") for r in s)]
    app = [s for s in sets.values() if "reasoning" in s]
    assert mem, "the demo graph must give all three CoCo families"
    assert com, "the demo graph must give all three CoCo families"
    assert app, "the demo graph must give all three CoCo families"
    atomic_ok = [all(v for r, v in s.items() if r.startswith("atomic_")) for s in app]
    # CoCo Eqs. 4-8, pooled (micro): MEM over memorization sets; REA = P(reasoning right);
    # FAI (Eq. 7) = P(all atomic right | reasoning right); APP (Eq. 8) = P(reasoning right | all atomic right).
    assert _metric(run, "MEM").value == pytest.approx(sum(mem) / len(mem))
    assert _metric(run, "REA").value == pytest.approx(sum(s["reasoning"] for s in app) / len(app))
    right = [ok for s, ok in zip(app, atomic_ok, strict=True) if s["reasoning"]]
    if right:
        assert _metric(run, "FAI").value == pytest.approx(sum(right) / len(right))
    knows = [s["reasoning"] for s, ok in zip(app, atomic_ok, strict=True) if ok]
    if knows:
        assert _metric(run, "APP").value == pytest.approx(sum(knows) / len(knows))
    assert _metric(run, "REA_macro", "aspect").value is not None
    kinds = {
        scope.split("=", 1)[1]
        for scope in RunMetric.objects.filter(run=run, name="REA")
        .exclude(scope="overall")
        .values_list("scope", flat=True)
    }
    assert kinds <= {"2i", "2p", "ip", "pi"}, kinds
    assert kinds, kinds  # application sets by query kind, never "1p"
    assert _metric(run, "MEM").data["incomplete_sets_left_out"] == 0


def test_com2_run_has_accuracy_and_no_coco_rows(built_sets) -> None:  # type: ignore[no-untyped-def]
    _coco, com2 = built_sets
    run = _random_run(com2)
    assert _metric(run, "accuracy").n == com2.question_count
    assert not RunMetric.objects.filter(run=run, name__in=["MEM", "REA", "APP"]).exists()
    # by relation: a built question has no metadata.relation; it is grouped by its chain's relations
    by_rel = RunMetric.objects.filter(run=run, name="accuracy", scope__startswith="relation=")
    assert by_rel.exists()
    assert sum(m.n for m in by_rel) == com2.question_count
    for q in com2.questions.all():
        rels = list(dict.fromkeys(q.metadata["relations"]))
        if q.structure in ("2i", "3i"):  # an intersection's branches have no order (issue 14)
            rels.sort()
        assert by_rel.filter(scope="relation=" + "+".join(rels)).exists()
    assert set(Prediction.objects.filter(run=run).values_list("item_relation", flat=True)) == {
        m.scope.split("=", 1)[1] for m in by_rel
    }


def test_a_limit_that_cuts_a_coco_set_leaves_it_out(built_sets) -> None:  # type: ignore[no-untyped-def]
    coco, _com2 = built_sets
    roles = list(coco.questions.order_by("position").values_list("group", flat=True))
    # cut inside the first group that has more than one question
    cut = next(i for i in range(1, len(roles)) if roles[i] == roles[i - 1])
    run = _random_run(coco, limit=cut)
    assert run.state == Run.State.DONE
    assert _metric(run, "MEM").data["incomplete_sets_left_out"] == 1
