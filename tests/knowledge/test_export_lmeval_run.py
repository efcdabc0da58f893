"""``export_questions --format lm-eval`` writes a task that the ``lm_eval`` command line runs
unmodified: the real CLI (a subprocess, offline) on a tiny GPT-2 built from a config with a
locally trained tokenizer, loaded by lm-eval's own ``hf`` model class. Its per-option
log-likelihoods and choices equal cocoweb's ``loglik`` scorer given the same prompt (float32).
The zip the set page downloads runs as it is after unzipping anywhere, from any working folder
(issue 26 item 6: it used to name the server's deleted temp folder)."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest
from django.core.management import call_command
from django.test import Client, override_settings
from django.urls import reverse

from commonsense.scoring.hf import HFBackend
from commonsense.scoring.loglik import LoglikScorer
from commonsense.scoring.types import Item
from knowledge.models import Question
from knowledge.services.imports import graph_import
from tests.conftest import FIXTURES
from tests.lm_eval_cli import lm_eval_samples

pytestmark = [pytest.mark.django_db, pytest.mark.slow, pytest.mark.once]


def test_lm_eval_cli_runs_the_exported_task(tmp_path: Path, tiny_gpt2: Path) -> None:
    with override_settings(COCOWEB_CACHE_DIR=tmp_path / "cache"):
        graph_import(FIXTURES / "ckbp_demo.csv", name="ckbp", fmt="cskb-csv")
        call_command("build_questions", graph="ckbp", kind="2i", count=6, seed=1, name="ckbp-2i", verbosity=0)
    call_command("export_questions", "ckbp-2i", fmt="lm-eval", out=str(tmp_path / "task"), verbosity=0)
    samples = lm_eval_samples(tmp_path / "task", "cocoweb_ckbp_2i", tiny_gpt2, tmp_path)
    assert len(samples) == 6
    questions = list(Question.objects.filter(question_set__name="ckbp-2i").order_by("position"))
    assert all(q.context for q in questions)  # COM2 2i questions carry a context: the task's first line
    template = "Context: {context}\nQuestion: {question}\nAnswer:"  # the exported doc_to_text, rendered
    ours = LoglikScorer(HFBackend(tiny_gpt2, dtype="float32"), template=template).score_batch(
        [Item(id=str(q.pk), question=q.stem, context=q.context, options=tuple(q.options)) for q in questions]
    )
    for s in sorted(samples, key=lambda s: s["doc_id"]):
        q, own = questions[s["doc_id"]], ours[s["doc_id"]]
        assert int(s["target"]) == q.answer_index
        lm_scores = [float(r[0]) for r in s["filtered_resps"]]
        assert lm_scores == pytest.approx(own.scores, abs=1e-4)
        assert max(range(len(lm_scores)), key=lm_scores.__getitem__) == own.chosen
        assert s["acc"] == float(own.chosen == q.answer_index)


def test_set_page_zip_runs_unzipped_elsewhere(researcher: Client, tmp_path: Path, tiny_gpt2: Path) -> None:
    with override_settings(COCOWEB_CACHE_DIR=tmp_path / "cache"):
        graph_import(FIXTURES / "ckbp_demo.csv", name="ckbp", fmt="cskb-csv")
        call_command("build_questions", graph="ckbp", kind="2i", count=5, seed=2, name="ckbp-zip", verbosity=0)
    r = researcher.get(reverse("knowledge:question_set_export", args=["ckbp-zip", "lm-eval"]))
    assert r.status_code == 200
    unpacked, elsewhere = tmp_path / "downloads" / "unpacked here", tmp_path / "another" / "folder"
    elsewhere.mkdir(parents=True)
    zipfile.ZipFile(io.BytesIO(r.content)).extractall(unpacked)
    samples = lm_eval_samples(unpacked, "cocoweb_ckbp_zip", tiny_gpt2, tmp_path, cwd=elsewhere)
    golds = list(Question.objects.filter(question_set__name="ckbp-zip").order_by("position"))
    assert sorted((s["doc_id"], int(s["target"])) for s in samples) == [
        (i, q.answer_index) for i, q in enumerate(golds)
    ]
