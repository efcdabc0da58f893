"""Node text as data (issue 27 item 1): every node text of a graph is stored with its display and
the text rules' verdict, equal to what the rules compute; builds read the stored texts; a rule
change and the recompute command change exactly the nodes the change affects; the explorer shows the
display beside the graph's text and finds a node by either."""

from __future__ import annotations

import json
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.test import Client
from django.urls import reverse

from commonsense.io.triples import read_cskb_csv
from commonsense.kg.normalize import clean, is_none, normalize_tail
from commonsense.questions import text_rules
from commonsense.questions.node_text import judge
from commonsense.questions.rule_table import Rule
from knowledge.models import Graph, Node, NodeText, QuestionSet
from knowledge.services import node_texts
from knowledge.services.builds import question_set_build
from knowledge.services.imports import graph_import
from tests.conftest import FIXTURES

pytestmark = pytest.mark.django_db


@pytest.fixture
def ckbp(build_dirs: Path) -> Graph:
    graph_import(FIXTURES / "ckbp_demo.csv", name="ckbp", fmt="cskb-csv")
    return Graph.objects.get(name="ckbp")


def _stored(graph: Graph) -> dict[str, tuple[str, str, str, str]]:
    return {
        t: (d, r, w, v)
        for t, d, r, w, v in NodeText.objects.filter(graph=graph).values_list(
            "text", "display", "rule", "reason", "rules_version"
        )
    }


def test_stored_node_texts_are_what_the_rules_compute(ckbp: Graph) -> None:
    out = StringIO()
    call_command("text_rules", graph="ckbp", json=True, stdout=out)
    report = json.loads(out.getvalue())
    stored = _stored(ckbp)
    # every node of the file, as the query graph names it (the file read apart from the store)
    expected = set()
    for r in read_cskb_csv(FIXTURES / "ckbp_demo.csv"):
        expected.add(clean(r.head))
        if not is_none(r.tail):
            expected.add(normalize_tail(r.relation, r.tail))
    assert set(stored) == expected
    assert report["node_texts"] == len(expected) == report["computed"]
    version = text_rules.rules_version()
    for text, (display, rule, reason, v) in stored.items():
        got = judge(text)
        assert (display, rule, reason, v) == (got.display, got.rule, got.reason, version), text
    assert 0 < report["readable"] < len(expected)
    assert sum(r["decides"] for r in report["rules"]) == len(expected) - report["readable"]
    assert all(r["fires"] >= r["decides"] for r in report["rules"])
    # the text of a node links back to the graph's node it came from
    row = NodeText.objects.filter(graph=ckbp, text="PersonX be hungry").select_related("node").first()
    if row is not None:
        assert row.node is not None
        assert row.node.text == "PersonX be hungry"
        assert row.display == "PersonX is hungry"
    # a second run computes nothing
    again = StringIO()
    call_command("text_rules", graph="ckbp", json=True, stdout=again)
    assert json.loads(again.getvalue())["computed"] == 0


def test_texts_judged_in_forked_workers_are_stored_as_one_process_judges_them(
    ckbp: Graph, settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first build's node texts in COCOWEB_TEXT_WORKERS forked workers (small tasks here, so
    that the demo graph's few hundred texts are split): the same rows, in the same order of
    progress, as one process computes them; the database connection of the build is still usable."""
    settings.COCOWEB_TEXT_WORKERS = 2
    monkeypatch.setattr(node_texts, "CHUNK", 40)
    seen: list[tuple[int, int]] = []
    texts, outcome = node_texts.node_texts_ensure(ckbp, progress=lambda n, total: seen.append((n, total)))
    assert outcome.computed == outcome.total > 2 * 40  # split over the workers
    assert seen[-1] == (outcome.total, outcome.total)
    stored = _stored(ckbp)
    assert set(stored) == set(texts)
    for text, (display, rule, reason, _) in stored.items():
        got = judge(text)
        assert (display, rule, reason) == (got.display, got.rule, got.reason), text
        assert texts[text] == got
    assert NodeText.objects.filter(graph=ckbp).count() == outcome.total  # the connection still works


def test_a_build_reads_the_stored_texts(ckbp: Graph) -> None:
    node_texts.node_texts_ensure(ckbp)
    # plant a marker in every stored display: the build's questions show the store, not a recomputation
    for row in NodeText.objects.filter(graph=ckbp):
        row.display = f"«{row.display}»"
        row.save(update_fields=["display"])
    qset = question_set_build(graph="ckbp", kind="2i", count=5, seed=2, name="planted", near_duplicate=None)
    qs = list(qset.questions.all())
    assert qs
    assert all(o.startswith("«") and o.endswith("»") for q in qs for o in q.options)
    # planted verdicts decide the edges too: a build's funnel counts what the store rejects
    assert QuestionSet.objects.get(name="planted").quality["build"]["funnel"]["graph"][2]["stage"] == "readable"


def test_a_rule_change_and_the_recompute_command_change_exactly_the_affected_nodes(
    ckbp: Graph, monkeypatch: pytest.MonkeyPatch
) -> None:
    node_texts.node_texts_ensure(ckbp)
    before = _stored(ckbp)
    affected = {t for t, (display, *_) in before.items() if "park" in display.split()}
    assert affected
    assert len(affected) < len(before)
    # a new rule, first in the table: no text that mentions a park
    planted = Rule(
        "no-park",
        "a park",
        lambda toks, text: "a park" if "park" in toks else None,
        accept=("PersonX sleeps",),
        reject=("PersonX goes to the park",),
    )
    monkeypatch.setattr(text_rules, "TABLE", (planted, *text_rules.TABLE))
    monkeypatch.setattr(node_texts, "rules_version", lambda: "planted-version")
    text_rules.verdict.cache_clear()
    try:
        out = StringIO()
        call_command("text_rules", graph="ckbp", json=True, stdout=out)
    finally:
        text_rules.verdict.cache_clear()
    report = json.loads(out.getvalue())
    after = _stored(ckbp)
    changed = {t for t in before if before[t][:3] != after[t][:3]}
    assert changed == affected
    assert report["changed"] == len(affected)
    assert all(after[t][1] == "no-park" for t in affected)
    assert {v for *_, v in after.values()} == {"planted-version"}
    assert report["computed"] == len(before)


def test_explorer_shows_the_display_beside_the_graph_text_and_finds_either(ckbp: Graph, researcher: Client) -> None:
    node = Node.objects.filter(graph=ckbp, text__startswith="PersonX be ").order_by("id").first()
    assert node is not None
    page = researcher.get(reverse("explorer:node", args=["ckbp", node.pk])).content.decode()
    assert "shown as" not in page  # nothing stored yet
    node_texts.node_texts_ensure(ckbp)
    shown = NodeText.objects.get(graph=ckbp, text=clean(node.text)).display
    assert shown != node.text
    assert shown.startswith("PersonX is ")
    page = researcher.get(reverse("explorer:node", args=["ckbp", node.pk])).content.decode()
    assert f"shown as <strong>{shown}</strong>" in page
    # the display's words find the node though the graph's text does not hold them ("is")
    words = shown.split()[1:4]
    r = researcher.get(reverse("explorer:search", args=["ckbp"]), {"q": " ".join(words)})
    html = r.content.decode()
    assert reverse("explorer:node", args=["ckbp", node.pk]) in html
    assert f"shown as “{shown}”" in html
    # and the graph's own words still do
    raw = researcher.get(reverse("explorer:search", args=["ckbp"]), {"q": node.text}).content.decode()
    assert reverse("explorer:node", args=["ckbp", node.pk]) in raw
