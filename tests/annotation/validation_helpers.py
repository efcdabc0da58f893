"""The set-up the verified-set tests share (test_verified_set, test_built_answer, test_review_stage): a COM2
2i set built from the CSKB demo graph through the production builder, and a campaign answered through the
queue by test annotators, each answer chosen by the test."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from django.test import override_settings

from annotation.models import Campaign, Item
from annotation.queue import operations as queue
from knowledge.models import QuestionSet
from knowledge.services.builds import question_set_build
from knowledge.services.imports import graph_import
from tests.conftest import FIXTURES


def demo_2i_set(tmp_path: Path, count: int, name: str = "built") -> QuestionSet:
    """``count`` 2i questions of the CSKB demo graph (seed 2), built as the app builds them."""
    with override_settings(COCOWEB_CACHE_DIR=tmp_path / "cache"):
        graph_import(FIXTURES / "ckbp_demo.csv", name="ckbp", fmt="cskb-csv")
        return question_set_build(graph="ckbp", kind="2i", count=count, seed=2, name=name)


def answer_all(c: Campaign, users: list[Any], answer: Callable[[Item, int], dict[str, Any]]) -> int:
    """Each user, in turn, answers every item the queue serves them: ``answer(item, n)`` for the n-th
    user. Returns how many answers were stored."""
    stored = 0
    for n, user in enumerate(users):
        while (step := queue.next_step(c, user)).assignment is not None:
            item = step.assignment.item
            queue.response_submit(item, user, answer(item, n), idempotency_key=f"{c.pk}-{user.pk}-{item.pk}")
            stored += 1
    return stored
