"""``perf/loop_finish.py`` reports all four shortcut baselines of a loop's verified sets (issue 26,
session 19): the option-only figures the worker did not store (no worker served queue ``eval``) are
computed through the production service, and the baselines are pooled over every set's items."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.core.management import call_command
from django.test import override_settings

from knowledge.models import Graph, QuestionSet
from perf.loop_finish import option_only_baselines, pooled_baselines

pytestmark = pytest.mark.django_db


def test_missing_option_only_figures_are_computed_and_pooled(demo_graph: Graph, tiny_gpt2: Path) -> None:
    for name, kind in (("a2i", "2i"), ("a3i", "3i")):
        call_command("build_questions", graph="demo", kind=kind, count=5, seed=4, name=name, verbosity=0)
    names = ["a2i", "a3i"]
    assert all(QuestionSet.objects.get(name=n).quality["shortcuts"]["option_only"] is None for n in names)
    with override_settings(COCOWEB_OPTION_ONLY_MODEL="tiny", COCOWEB_MODELS_DIRS=[tiny_gpt2.parent]):
        assert option_only_baselines(names, wait=0) == names  # no worker: both computed here
        assert option_only_baselines(names, wait=0) == []  # stored now: nothing to do
    sets = [QuestionSet.objects.get(name=n) for n in names]
    reports = [q.quality["shortcuts"]["option_only"] for q in sets]
    assert all(r["model"] == "tiny" and "error" not in r for r in reports)
    pooled = pooled_baselines(names)
    n = [r["raw"]["n"] for r in reports]
    assert pooled["items"] == sum(q.question_count for q in sets)
    hits = sum(r["raw"]["value"] * r["raw"]["n"] for r in reports)
    assert pooled["option_only"]["raw"] == pytest.approx(hits / sum(n), abs=1e-4)
    assert pooled["option_only_model"] == "tiny"
    for k in ("answer_type", "position"):
        assert pooled[k] is not None
        assert 0 <= pooled[k] <= 1
    assert set(pooled["length"]) >= {"longest", "shortest"}
