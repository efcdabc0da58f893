"""Plausibility as a model (issue 11 item 3) on the tiny GPT-2 built from a config: the graph is
scored once per (graph, model) into the database, a second build reads the cache (the model is
not asked again and gives the same set), and the edge filter and distractor check do what the
threshold says."""

from __future__ import annotations

import statistics
from pathlib import Path
from typing import Any

import pytest
from django.core.management import CommandError, call_command
from django.test import override_settings
from django.urls import reverse

from commonsense.scoring.hf import HFBackend
from commonsense.scoring.plausibility import PlausibilityScorer
from knowledge.models import Graph, Question, QuestionSet, TriplePlausibility
from knowledge.services.builds import question_set_build
from knowledge.services.imports import graph_import
from knowledge.services.triple_plausibility import graph_plausibility, plausibility_check, triple_key
from tests.conftest import FIXTURES

pytestmark = [pytest.mark.django_db, pytest.mark.slow]


class Counting(HFBackend):
    prompts = 0

    def word_probs(self, prompts: Any, words: Any) -> list[dict[str, float]]:
        Counting.prompts += len(prompts)
        return super().word_probs(prompts, words)


@pytest.fixture
def setup(tmp_path: Path, tiny_gpt2: Path):  # type: ignore[no-untyped-def]
    lines = (FIXTURES / "ckbp_demo.csv").read_text().splitlines()
    small = tmp_path / "ckbp_small.csv"
    # header + 1,200 of the knowledge base's own triples (class test_set: the builds' default edges)
    # keeps the tiny model quick
    kb = [line for line in lines[1:] if ",test_set," in line]
    small.write_text("\n".join([lines[0], *kb[:1200]]) + "\n")
    with override_settings(COCOWEB_CACHE_DIR=tmp_path / "cache"):
        graph_import(small, name="ckbp", fmt="cskb-csv")
        yield Graph.objects.get(name="ckbp"), PlausibilityScorer(Counting(tiny_gpt2, dtype="float32", threads=1))


def _questions(name: str) -> list[tuple[str, list[str], int]]:
    return [(q.stem, q.options, q.answer_index) for q in Question.objects.filter(question_set__name=name)]


def _p(graph: Graph, scorer: PlausibilityScorer, h: str, r: str, t: str) -> float:
    return TriplePlausibility.objects.get(graph=graph, model=scorer.model_key, key=triple_key(h, r, t)).p_yes


def test_scores_are_cached_and_the_threshold_decides(setup, researcher) -> None:  # type: ignore[no-untyped-def]
    graph, scorer = setup
    Counting.prompts = 0
    edges_only = plausibility_check(graph, scorer, threshold=0.0, check_distractors=False)
    scored = TriplePlausibility.objects.filter(graph=graph, model=scorer.model_key)
    texts = graph.triples.exclude(tail__text__iexact="none").values_list("head__text", "relation__name", "tail__text")
    assert scored.count() == len(set(texts)) == Counting.prompts  # every distinct triple scored once, by the model
    assert scored.filter(triple__isnull=True).count() == 0  # graph triples point at their rows
    ps = list(scored.values_list("p_yes", flat=True))
    assert all(0.0 <= p <= 1.0 for p in ps)
    assert len(set(ps)) > 10

    # Threshold 0 keeps every edge: the same questions as without a model.
    question_set_build(graph="ckbp", kind="2i", count=8, seed=4, name="plain")
    question_set_build(graph="ckbp", kind="2i", count=8, seed=4, name="t0", plausibility=edges_only)
    assert _questions("t0") == _questions("plain")

    # The median as threshold: every golden-chain triple scores at or above it, and the set changes.
    t = statistics.median(ps)
    Counting.prompts = 0
    check = plausibility_check(graph, scorer, threshold=t)
    assert Counting.prompts == 0  # the graph was scored already: read from the database
    qs = question_set_build(graph="ckbp", kind="2i", count=8, seed=4, name="median", plausibility=check)
    assert qs.params["plausibility_model"]["threshold"] == t
    assert qs.question_count > 0
    assert _questions("median") != _questions("plain")
    for q in Question.objects.filter(question_set=qs):
        for tr in q.triples.select_related("head", "relation", "tail"):
            assert _p(graph, scorer, tr.head.text, tr.relation.name, tr.tail.text) >= t
        # (b) no distractor answers every branch of the last hop in the model's eyes
        hop = [(h, r) for h, r, tail in q.metadata["chain"]]  # 2i: both edges end at the answer
        for raw in q.metadata["distractors_raw"]:  # the graph's text of each distractor (options read fluent)
            assert min(_p(graph, scorer, h, r, raw) for h, r in hop) < t

    # (c) The explorer's question and node pages show the model's score beside the stored label.
    q = Question.objects.filter(question_set=qs).first()
    tr = q.triples.select_related("head", "relation", "tail").first()
    p = f"{_p(graph, scorer, tr.head.text, tr.relation.name, tr.tail.text):.3f}"
    page = researcher.get(reverse("explorer:question", args=[q.pk])).content.decode()
    assert f'<span title="{scorer.model_key}">{p}</span>' in page
    page = researcher.get(reverse("explorer:node", args=["ckbp", tr.head_id])).content.decode()
    assert f'<span title="{scorer.model_key}">{p}</span>' in page

    # A second build with a fresh check gives the same set without asking the model.
    Counting.prompts = 0
    again = plausibility_check(graph, scorer, threshold=t)
    question_set_build(graph="ckbp", kind="2i", count=8, seed=4, name="median-again", plausibility=again)
    assert Counting.prompts == 0
    assert _questions("median-again") == _questions("median")
    assert again.rejected == check.rejected


def test_build_questions_cli_takes_the_model(setup, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    graph, scorer = setup
    graph_plausibility(graph, scorer)  # the CLI's model has the same key: it reads these scores
    t = statistics.median(TriplePlausibility.objects.filter(graph=graph).values_list("p_yes", flat=True))
    cached = TriplePlausibility.objects.count()
    with override_settings(COCOWEB_CACHE_DIR=tmp_path / "cache"):
        call_command(
            "build_questions",
            graph="ckbp",
            kind="2i",
            count=4,
            seed=1,
            name="cli",
            plausibility_backend="hf",
            plausibility_model=str(scorer.backend.path),
            plausibility_threshold=t,
            no_plausibility_distractors=True,
            verbosity=0,
        )
    qset = QuestionSet.objects.get(name="cli")
    p = qset.params["plausibility_model"]
    assert p["threshold"] == t
    assert p["model"] == scorer.model_key
    assert not p["check_distractors"]
    for q in qset.questions.all():
        for tr in q.triples.select_related("head", "relation", "tail"):
            assert _p(graph, scorer, tr.head.text, tr.relation.name, tr.tail.text) >= t
    assert qset.question_count > 0
    assert TriplePlausibility.objects.count() == cached
    with pytest.raises(CommandError, match="plausibility model: the plausibility threshold is a probability"):
        call_command(
            "build_questions",
            graph="ckbp",
            kind="2i",
            count=4,
            seed=1,
            name="bad",
            plausibility_backend="hf",
            plausibility_model=str(scorer.backend.path),
            plausibility_threshold=1.5,
            verbosity=0,
        )


def test_build_coco_cli_generates_conceptualisations(setup, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    graph, scorer = setup
    model = str(scorer.backend.path)
    with override_settings(COCOWEB_CACHE_DIR=tmp_path / "cache"):
        with pytest.raises(CommandError, match="need a plausibility model"):
            call_command(
                "build_coco", graph="ckbp", seed=1, name="x", conceptualize_backend="hf", conceptualize_model=model
            )
        call_command(
            "build_coco",
            graph="ckbp",
            seed=1,
            name="gen",
            per_relation=2,
            per_kind=2,
            conceptualize_backend="hf",
            conceptualize_model=model,
            conceptualize_heads=3,
            plausibility_backend="hf",
            plausibility_model=model,
            no_plausibility_edges=True,
            no_plausibility_distractors=True,
            verbosity=0,
        )
    gen = QuestionSet.objects.get(name="gen").params["conceptualizations"]
    assert gen["heads"] == 3
    assert gen["n_candidates"] == 5
    assert gen["min_valid"] == 3
    assert gen["heads_with_candidates"] <= 3
    assert gen["heads_kept"] <= gen["heads_with_candidates"]


def test_the_threshold_is_the_named_setting_unless_given(setup) -> None:  # type: ignore[no-untyped-def]
    """COCOWEB_PLAUSIBILITY_THRESHOLD is the default of the builders' hook and of the commands'
    --plausibility-threshold; an explicit value still wins."""
    import argparse

    from knowledge.services.build_options import COM2, add_build_arguments

    graph, scorer = setup
    with override_settings(COCOWEB_PLAUSIBILITY_THRESHOLD=0.8):
        assert plausibility_check(graph, scorer, filter_edges=False, check_distractors=False).threshold == 0.8
        parser = argparse.ArgumentParser()
        add_build_arguments(parser, COM2, group="plausibility")
        assert parser.parse_args([]).plausibility_threshold == 0.8
    assert (
        plausibility_check(graph, scorer, threshold=0.3, filter_edges=False, check_distractors=False).threshold == 0.3
    )
    assert plausibility_check(graph, scorer, filter_edges=False, check_distractors=False).threshold == 0.5
