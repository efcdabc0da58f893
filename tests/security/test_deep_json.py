"""Issue 31 item 6: a JSON body nested 1,000 deep answered 500 on the REST API (Python's decoder
raises RecursionError, which DRF does not catch). The API's JSON parser refuses a body nested
deeper than ``MAX_DEPTH`` with a 400 that says so, on every POST route, before any view reads it;
an ordinary answer still goes through."""

from __future__ import annotations

import json

import pytest

from cocoweb.api_parsers import MAX_DEPTH, json_depth
from tests.security.conftest import World

pytestmark = pytest.mark.django_db


def _nested(depth: int, kind: str) -> str:
    return "[" * depth + "]" * depth if kind == "list" else '{"a":' * depth + "1" + "}" * depth


def _post_routes(world: World, item_id: str) -> list[str]:
    c, run = world.plain.name, world.run.pk
    return [
        "/api/runs/",
        f"/api/runs/{run}/cancel/",
        f"/api/annotation/campaigns/{c}/next/",
        f"/api/annotation/campaigns/{c}/items/{item_id}/response/",
        f"/api/annotation/campaigns/{c}/items/{item_id}/skip/",
    ]


@pytest.mark.parametrize("depth", [MAX_DEPTH + 1, 1000, 50_000])
@pytest.mark.parametrize("kind", ["list", "object"])
def test_a_deeply_nested_body_is_a_400_on_every_post_route(world: World, depth: int, kind: str) -> None:
    ann = world.client("annotator", raise_request_exception=False)
    item_id = ann.post(f"/api/annotation/campaigns/{world.plain.name}/next/").json()["item"]["id"]
    for role in ("annotator", "researcher"):
        c = world.client(role, raise_request_exception=False)
        for url in _post_routes(world, item_id):
            r = c.post(url, _nested(depth, kind), content_type="application/json")
            assert r.status_code < 500, (role, url, r.status_code)
            if role == "annotator" and url.startswith("/api/runs/"):
                assert r.status_code == 403  # refused before the body is read
            elif url.endswith(("/response/", "/api/runs/")):  # the routes that read a body
                assert r.status_code == 400, (role, url, r.status_code, r.content[:200])
                assert f"nested deeper than {MAX_DEPTH} levels" in r.json()["detail"], (role, url)


def test_an_answer_within_the_bound_is_stored(world: World) -> None:
    ann = world.client("annotator")
    item_id = ann.post(f"/api/annotation/campaigns/{world.plain.name}/next/").json()["item"]["id"]
    answer = {"plausible": [1], "none_correct": False, "bad_context": False}
    r = ann.post(
        f"/api/annotation/campaigns/{world.plain.name}/items/{item_id}/response/",
        json.dumps({"answer": answer}),
        content_type="application/json",
    )
    assert r.status_code in (200, 201), r.content


def test_json_depth_walks_without_recursion() -> None:
    assert json_depth(1) == 0
    assert json_depth([]) == 1
    assert json_depth({"a": [1, {"b": []}]}) == 4
    deep: list[object] = []
    for _ in range(100_000):  # far past the interpreter's recursion limit
        deep = [deep]
    assert json_depth(deep) == MAX_DEPTH + 1  # stops as soon as it knows
