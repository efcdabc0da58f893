"""Issue 31 item 6: malformed query parameters answer 4xx or are ignored, never 500. A NUL in any
parameter (PostgreSQL refuses it in a string), ids of 21 digits (past a 64-bit integer), numbers
longer than Python converts (4,300 digits), digits that are not ASCII (``²``, ``١``): every GET
filter of every page and API below gets them, deterministically and then from hypothesis."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

import pytest
from django.core.exceptions import ValidationError
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from annotation.crowd.services import identity_from_query
from tests.security.conftest import World

pytestmark = pytest.mark.django_db

NASTY = [
    "\x00",
    "a\x00b",
    "1\x00",
    "1" * 21,
    "9" * 5000,
    "-" + "9" * 21,
    "²",
    "١٢",
    "1e9",
    " 7 ",
    "-1",
    "0",
    "%",
    "<script>",
    "' OR 1=1 --",
    "\ud7ff\ue000",
]


def _routes(w: World) -> list[tuple[str, list[str], str]]:
    """(URL, its GET parameters, the role that may open it)."""
    run = w.run.pk
    drawer = ["relation", "kind", "perturbation", "correct", "answer", "chosen", "question", "statement"]
    drawer += ["d_min", "d_max", "agreement", "human", "coco"]
    return [
        ("/explorer/compare/", ["run", "min_n", "csv"], "researcher"),
        (f"/explorer/runs/{run}/", ["min_n", "csv"], "researcher"),
        (f"/explorer/runs/{run}/items/", drawer, "researcher"),
        ("/explorer/questions/", ["set", "kind", "relation", "answers", "validation", "q", "page"], "researcher"),
        (f"/explorer/graphs/{w.graph.name}/search/", ["q"], "researcher"),
        (f"/explorer/graphs/{w.graph.name}/nodes/{w.node.pk}/", ["hops"], "researcher"),
        ("/runs/", ["page"], "researcher"),
        ("/runs/compare/", ["runs"], "researcher"),
        ("/runs/new/", ["dataset", "seed", "limit", "backend", "model"], "researcher"),
        (f"/runs/{run}/", ["polling"], "researcher"),
        (f"/runs/{run}/samples/", ["correct", "relation", "kind", "chosen", "q", "error", "page"], "researcher"),
        (f"/knowledge/question-sets/{w.qset.name}/", ["page"], "researcher"),
        (f"/knowledge/statement-sets/{w.sset.name}/", ["page"], "researcher"),
        ("/knowledge/build/jobs/", ["page"], "researcher"),
        ("/knowledge/build/questions/", ["graph"], "researcher"),
        ("/knowledge/build/rica/", ["set"], "researcher"),
        ("/annotation/new/", ["source", "redundancy", "name"], "researcher"),
        ("/api/runs/", ["state", "page"], "researcher"),
        (
            f"/api/runs/{run}/predictions/",
            ["correct", "relation", "kind", "chosen", "q", "error", "page"],
            "researcher",
        ),
        ("/api/annotation/campaigns/", ["page"], "researcher"),
        (f"/api/annotation/campaigns/{w.survey.name}/agreement/", ["n_boot"], "researcher"),
        (f"/api/annotation/campaigns/{w.plain.name}/export/", ["fmt"], "researcher"),
        ("/api/knowledge/question-sets/", ["page"], "researcher"),
        (f"/api/knowledge/question-sets/{w.qset.name}/questions/", ["page"], "researcher"),
        (f"/annotation/c/{w.plain.name}/", ["page"], "annotator"),
        (f"/join/{w.survey.name}/", ["PROLIFIC_PID", "STUDY_ID", "SESSION_ID"], "anonymous"),
        (f"/join/{w.survey.name}/", ["workerId", "hitId", "assignmentId"], "anonymous"),
        (f"/join/{w.survey.name}/", ["participant"], "anonymous"),
        (f"/join/{w.survey.name}/items/", ["page"], "participant"),
        (f"/annotation/c/{w.plain.name}/item/", ["page"], "annotator"),
    ]


def _get(w: World, url: str, role: str, query: dict[str, Any]) -> int:
    c = w.client(role, raise_request_exception=False)  # a 500 is collected, not raised
    return c.get(url + "?" + urlencode(query, doseq=True)).status_code


def _base(param: str) -> dict[str, str]:
    # The crowd link needs its id beside the value probed, so the other ids are reached too.
    return (
        {"PROLIFIC_PID": "pid-x"}
        if param in ("STUDY_ID", "SESSION_ID")
        else ({"workerId": "w-x"} if param in ("hitId", "assignmentId") else {})
    )


def test_nasty_values_in_every_get_filter(world: World) -> None:
    bad = []
    for url, params, role in _routes(world):
        for param in params:
            for value in NASTY:
                status = _get(world, url, role, {**_base(param), param: value})
                if status >= 500:
                    bad.append(f"GET {url}?{param}={value[:30]!r} as {role}: {status}")
    assert not bad, "\n".join(bad)


def test_a_nul_anywhere_in_the_query_or_path_is_a_400_naming_it(world: World) -> None:
    r = world.client("researcher").get("/explorer/questions/?q=a%00b")
    assert r.status_code == 400
    assert "q" in r.content.decode()
    assert "NUL" in r.content.decode()
    r = world.client("anonymous").get(f"/join/{world.survey.name}/?PROLIFIC_PID=x&SESSION_ID=%00")
    assert r.status_code == 400
    assert "SESSION_ID" in r.content.decode()
    r = world.client("researcher").get("/knowledge/question-sets/a%00b/")
    assert r.status_code == 400
    r = world.client("researcher").get("/api/runs/?state=%00", headers={"Accept": "application/json"})
    assert r.status_code == 400
    assert r["Content-Type"].startswith("application/json")


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_hypothesis_over_every_get_filter(world: World, data: st.DataObject) -> None:
    value = st.one_of(
        st.text(max_size=40),
        st.from_regex(r"-?[0-9]{15,40}", fullmatch=True),
        st.integers().map(str),
        st.sampled_from(NASTY),
    )
    bad = []
    for url, params, role in _routes(world):
        query = {p: data.draw(value, label=f"{url}?{p}") for p in params}
        status = _get(world, url, role, query)
        if status >= 500:
            bad.append(f"GET {url}?{query!r} as {role}: {status}")
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("field", ["STUDY_ID", "SESSION_ID", "hitId", "assignmentId"])
@pytest.mark.parametrize("value", ["a\x1bb", "x" * 201, "\u202e"])
def test_every_platform_field_is_held_to_the_id_rules(world: World, field: str, value: str) -> None:
    base = {"PROLIFIC_PID": "pid-y"} if field in ("STUDY_ID", "SESSION_ID") else {"workerId": "w-y"}
    with pytest.raises(ValidationError, match=field):
        identity_from_query({**base, field: value})
    r = world.client("anonymous").get(f"/join/{world.survey.name}/?" + urlencode({**base, field: value}))
    assert r.status_code == 400
    assert field in r.content.decode()
    assert identity_from_query({**base, field: ""}).platform  # an empty optional field is no error
