"""The node page's neighbourhood graph on a phone (390 px wide, as Chromium draws it): no label of a
node or an edge's relation overlaps another, every label stays inside the chart, and the graph
still names the centre and some neighbours (session 18: the labels, placed for a desktop's scale,
piled up on a phone)."""

from __future__ import annotations

from typing import Any

import pytest
from django.urls import reverse

from accounts.services import role_groups_sync, user_create_with_role
from tests.browser import DESKTOP, PASSWORD, PHONE, signed_in

from .factories import GraphFactory, NodeFactory, RelationFactory, TripleFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

TAILS = [  # ATOMIC-like neighbours of one event, over the usual relations
    ("xWant", "to buy some groceries for dinner"),
    ("xEffect", "gets tired after walking"),
    ("xIntent", "to have food in the house"),
    ("xNeed", "to take a shopping bag"),
    ("xReact", "satisfied and relaxed"),
    ("oReact", "happy to see a customer"),
    ("xAttr", "organised"),
    ("HinderedBy", "PersonX has no money left"),
    ("isAfter", "PersonX makes a shopping list"),
    ("xWant", "to cook a nice meal"),
]


def _overlaps(boxes: list[dict[str, Any]]) -> list[tuple[str, str]]:
    out = []
    for i, a in enumerate(boxes):
        for b in boxes[i + 1 :]:
            if (
                a["x"] + a["width"] - 1 > b["x"]
                and b["x"] + b["width"] - 1 > a["x"]
                and a["y"] + a["height"] - 1 > b["y"]
                and b["y"] + b["height"] - 1 > a["y"]
            ):
                out.append((a["text"], b["text"]))
    return out


LABEL_BOXES = """el => [...el.querySelectorAll('.textpoint text, .annotation-text-g text')]
  .filter(t => t.textContent.trim())
  .map(t => { const r = t.getBoundingClientRect();
              return {text: t.textContent, x: r.x, y: r.y, width: r.width, height: r.height}; })"""


@pytest.mark.parametrize("screen", ["phone", "desktop"])
def test_the_neighbourhood_labels_never_overlap(browser, live_server, screen: str) -> None:  # type: ignore[no-untyped-def]
    role_groups_sync()
    user_create_with_role("graphs", "researcher", PASSWORD)
    g = GraphFactory(name="phone-graph")
    centre = NodeFactory(graph=g, text="PersonX goes to the store")
    for rel, text in TAILS:
        TripleFactory(graph=g, head=centre, relation=RelationFactory(name=rel), tail=NodeFactory(graph=g, text=text))
    page, watch = signed_in(browser, live_server.url, "graphs", PHONE if screen == "phone" else DESKTOP)
    page.goto(live_server.url + reverse("explorer:node", args=[g.name, centre.pk]))
    chart = page.locator('#panel-neighbourhood .chart[data-ready="1"]')
    chart.wait_for()
    boxes = chart.evaluate(LABEL_BOXES)
    area = chart.bounding_box()
    texts = [b["text"] for b in boxes]
    assert "PersonX goes to the store" in texts
    assert len(texts) >= 4  # the centre and some neighbours or relations, not an empty picture
    assert _overlaps(boxes) == []
    outside = [
        b["text"] for b in boxes if b["x"] < area["x"] - 1 or b["x"] + b["width"] > area["x"] + area["width"] + 1
    ]
    assert outside == []
    assert page.evaluate("document.documentElement.scrollWidth") <= page.viewport_size["width"]
    assert watch.errors == []
