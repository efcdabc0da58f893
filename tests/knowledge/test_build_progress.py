"""A COM2 build's progress moves question by question (issue 29 item 10): the job page of a
30-question build said "step 2 of 3 · 0 / 30" for its whole 48 s, because the sampler reported only
every 50 questions; the job's Reporter throttles the writes (COCOWEB_BUILD_PROGRESS_SECONDS)."""

from __future__ import annotations

from knowledge.models import Graph
from knowledge.services.builds import question_set_build


def test_com2_build_reports_every_question(demo_graph: Graph) -> None:
    calls: list[tuple[int, int]] = []
    qset = question_set_build(
        graph="demo",
        kind="1p",
        count=12,
        seed=3,
        name="progress-1p",
        near_duplicate=None,
        progress=lambda done, total: calls.append((done, total)),
    )
    assert qset.question_count == 12
    assert calls == [(n, 12) for n in range(1, 13)]  # before: [(12, 12)] only
