"""Every page perf/explorer_pages.py times (issue 32 item 3: explorer pages, drawers, compares of up to
12 runs, the per-sample viewer and its filters) within 12 SQL statements, cold (the cache cleared, the
stored aggregates as the runs' ends left them) and warm, on the benchmark's own data at a small size:
a CoCo-shaped set with six finished runs, statement runs with and without a survey (the survey's
answers through the ratings import), a RICA pair, a synthetic graph through the graph import. The
statement counts do not depend on the size (the timings at 1,000,000 predictions: perf/RESULTS.md)."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.core.cache import cache
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

MAX_STATEMENTS = 12

pytestmark = [pytest.mark.django_db, pytest.mark.slow]  # builds every kind of run the benchmark does


@pytest.fixture
def pages(tmp_path: Path) -> list[str]:
    from perf import explorer_pages as ep

    graph = ep.build_graph(3000, tmp_path)
    qset, runs = ep.build_questions(300, 6)
    srun = ep.build_statements(200)
    rica = ep.build_rica_pair(80)
    surveyed = ep.build_surveyed_statements(200, 20, 50)
    ep.warm_ups()  # what each run's end and the survey tick compute in production
    return ep.page_urls(graph, qset, runs, srun, rica, surveyed)


def test_every_page_within_twelve_statements_cold_and_warm(pages: list[str], researcher: Client) -> None:
    assert any("/compare/?run=" in u and u.count("run=") == 6 for u in pages)  # the many-run compare is there
    assert any(u.startswith("/runs/") and "samples" in u for u in pages)
    counts: dict[tuple[str, str], int] = {}
    for url in pages:
        for state in ("cold", "warm"):
            if state == "cold":
                cache.clear()
            with CaptureQueriesContext(connection) as ctx:
                response = researcher.get(url)
            assert response.status_code == 200, url
            counts[(url, state)] = len(ctx.captured_queries)
    over = {k: n for k, n in counts.items() if n > MAX_STATEMENTS}
    assert not over, over
