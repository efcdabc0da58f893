"""A fuzz pass of the REST API from its own OpenAPI schema (schemathesis, in-process WSGI), as an
admin and as an annotator (token authentication), with valid and invalid inputs, aimed both at
random ids and at real campaigns and items: no 5xx, and every response conforms to the schema
(documented status code, content type and body)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import hypothesis
import pytest
import schemathesis
from django.core.signals import request_finished, request_started
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from hypothesis import HealthCheck, given
from hypothesis import strategies as st
from schemathesis import GenerationMode
from schemathesis.checks import (
    content_type_conformance,
    not_a_server_error,
    response_schema_conformance,
    status_code_conformance,
)
from schemathesis.core.failures import FailureGroup

from annotation.models import Item
from tests.security.conftest import World

pytestmark = pytest.mark.django_db

EXAMPLES_PER_OPERATION = 10
CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance]


@contextmanager
def _same_connection() -> Iterator[None]:
    """Serve WSGI requests inside the test's transaction, as Django's test client does (the
    request signals would otherwise close the test's database connection)."""
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    try:
        yield
    finally:
        request_started.connect(close_old_connections)
        request_finished.connect(close_old_connections)


def _real_targets(world: World) -> list[dict[str, Any]]:
    """Path parameters that name real rows: campaigns of every kind and state, their items."""
    out = []
    for campaign in (world.plain, world.gold, world.rica, world.survey, world.draft):
        for item in Item.objects.filter(campaign=campaign).order_by("pk")[:3]:
            out.append({"slug": campaign.name, "item_id": item.pk})
    # the runs and question-set API: a finished run with predictions, a queued one, a real set
    for run in (world.run, world.run2):
        out.append({"run_id": run.pk, "name": world.qset.name})
    return out


def _call(
    case: schemathesis.Case, role: str, headers: dict[str, str], failures: list[str], calls: dict[str, int]
) -> None:
    try:
        resp = case.call_and_validate(headers=headers, checks=CHECKS)
    except (Exception, FailureGroup) as exc:  # collect every operation's failures, then fail once
        failures.append(
            f"{role} {case.method} {case.formatted_path} query={case.query} body={str(case.body)[:200]}: "
            f"{type(exc).__name__}: {str(exc)[:800]}"
        )
        return
    calls["2xx" if resp.status_code < 300 else "4xx"] += 1


def _fuzz(
    strategy: st.SearchStrategy[Any], role: str, headers: dict[str, str], failures: list[str], calls: dict[str, int]
) -> None:
    @hypothesis.settings(
        max_examples=EXAMPLES_PER_OPERATION,
        deadline=None,
        database=None,
        derandomize=True,
        suppress_health_check=list(HealthCheck),
    )
    @given(case=strategy)
    def run(case: schemathesis.Case) -> None:
        _call(case, role, headers, failures, calls)

    run()


def test_rest_api_fuzz(world: World) -> None:
    app = get_wsgi_application()
    failures: list[str] = []
    calls = {"2xx": 0, "4xx": 0}
    with _same_connection():
        schema = schemathesis.openapi.from_wsgi(
            "/api/schema/?format=json", app, headers={"Authorization": f"Token {world.tokens['admin']}"}
        )
        operations = [op.ok() for op in schema.get_all_operations()]
        assert len(operations) >= 14
        paths = {op.path for op in operations}
        assert {
            "/api/runs/",
            "/api/runs/{run_id}/predictions/",
            "/api/knowledge/question-sets/{name}/questions/",
        } <= paths
        targets = _real_targets(world)
        for role in ("admin", "annotator"):
            headers = {"Authorization": f"Token {world.tokens[role]}"}
            for op in operations:
                names = {p.name for p in op.path_parameters}
                real = [{k: v for k, v in t.items() if k in names} for t in targets] if names else [{}]
                real = [r for r in real if r] or [{}]
                # 1. schemathesis' coverage cases (boundary and wrong-typed values of every parameter and
                #    body field, missing required parts), each aimed at a real campaign / item in turn.
                coverage = schema.iter_coverage_cases(
                    op,
                    generation_modes=list(GenerationMode),
                    generation_config=schema.config.generation_for(operation=op),
                )
                for i, case in enumerate(coverage):
                    case.path_parameters = {**(case.path_parameters or {}), **real[i % len(real)]}
                    _call(case, role, headers, failures, calls)
                # 2. random valid and invalid requests, at random ids and at real ones.
                strategy = st.one_of(
                    op.as_strategy(GenerationMode.POSITIVE),
                    op.as_strategy(GenerationMode.NEGATIVE),
                    st.sampled_from(real).flatmap(
                        lambda p, op=op: st.one_of(
                            op.as_strategy(GenerationMode.POSITIVE, path_parameters=p),
                            op.as_strategy(GenerationMode.NEGATIVE, path_parameters=p),
                        )
                    ),
                )
                _fuzz(strategy, role, headers, failures, calls)
    assert calls["2xx"] > 20, calls
    assert calls["4xx"] > 20, calls  # both real successes and refusals were exercised
    assert not failures, f"{len(failures)} failing API calls:\n" + "\n".join(dict.fromkeys(failures))
