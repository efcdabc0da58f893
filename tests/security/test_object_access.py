"""Object-level checks, in HTML and in the REST API: an annotator cannot reach a campaign that is
not open to them, another annotator's answers, the gold of attention / qualification / RICA items
or model predictions — not even by guessing ids — and the pages they get do not depend on gold."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from annotation.models import Assignment, Campaign, Item, Response
from annotation.queue import operations as queue
from tests.security.conftest import World

pytestmark = pytest.mark.django_db

GOLD_KEYS = {"gold", "original", "answer", "flipped", "answer_index", "answers", "correct", "valid"}


def api(world: World, role: str) -> APIClient:
    c = APIClient()
    c.credentials(HTTP_AUTHORIZATION=f"Token {world.tokens[role]}")
    return c


def _html_urls(slug: str, item_id: str) -> list[tuple[str, str]]:
    return [
        ("GET", reverse("annotation:work", args=[slug])),
        ("HX", reverse("annotation:item", args=[slug])),
        ("POST", reverse("annotation:submit", args=[slug, item_id])),
        ("POST", reverse("annotation:skip", args=[slug, item_id])),
        ("POST", reverse("annotation:undo", args=[slug])),
    ]


def _api_urls(slug: str, item_id: str) -> list[tuple[str, str]]:
    base = f"/api/annotation/campaigns/{slug}/"
    return [
        ("GET", base),
        ("POST", base + "next/"),
        ("POST", base + f"items/{item_id}/response/"),
        ("POST", base + f"items/{item_id}/skip/"),
    ]


def _html(c: Client, method: str, url: str, data: dict[str, Any] | None = None) -> Any:
    if method == "GET":
        return c.get(url)
    if method == "HX":
        return c.get(url, HTTP_HX_REQUEST="true")
    return c.post(url, data or {})


@pytest.mark.parametrize("which", ["draft", "closed"])
def test_campaigns_not_open_are_invisible_to_annotators(world: World, which: str) -> None:
    campaign: Campaign = getattr(world, which)
    item = Item.objects.filter(campaign=campaign, role=Item.Role.REGULAR).first()
    assert item is not None
    ann = world.client("annotator")
    for method, url in _html_urls(campaign.name, item.uid):
        # A closed campaign says so where an annotator may still have it open (issue 14 bug 8): the
        # page, the item box and a submit answer 410 "closed", showing nothing of the campaign's items.
        said_closed = which == "closed" and not url.endswith(("/skip/", "/undo/"))
        r = _html(ann, method, url, {"plausible": ["0"]})
        assert r.status_code == (410 if said_closed else 404), (method, url)
        assert item.payload.get("stem", "") not in r.content.decode()
    tok = api(world, "annotator")
    for method, url in _api_urls(campaign.name, item.uid):
        r = tok.get(url) if method == "GET" else tok.post(url, {"answer": {"plausible": [0]}}, format="json")
        assert r.status_code == 404, (method, url, r.status_code)
    listed = [c["name"] for c in tok.get("/api/annotation/campaigns/").json()]
    assert campaign.name not in listed
    assert world.plain.name in listed
    assert campaign.title not in ann.get(reverse("annotation:index")).content.decode()
    assert not Assignment.objects.filter(campaign=campaign).exists()  # nothing reserved behind the 404
    # The researcher who runs it does see it.
    assert world.client("researcher").get(reverse("annotation:dashboard", args=[campaign.name])).status_code == 200


def test_item_ids_of_another_campaign_are_not_found(world: World) -> None:
    foreign = [Item.objects.filter(campaign=world.draft).first(), Item.objects.filter(campaign=world.gold).first()]
    ann, tok = world.client("annotator"), api(world, "annotator")
    for item in foreign:
        assert item is not None
        for url in (
            reverse("annotation:submit", args=[world.plain.name, item.uid]),
            reverse("annotation:skip", args=[world.plain.name, item.uid]),
        ):
            assert ann.post(url, {"plausible": ["0"]}).status_code == 404
        for suffix in ("response/", "skip/"):
            url = f"/api/annotation/campaigns/{world.plain.name}/items/{item.uid}/{suffix}"
            assert tok.post(url, {"answer": {"plausible": [0]}}, format="json").status_code == 404
    assert (
        tok.post(
            f"/api/annotation/campaigns/{world.plain.name}/items/999999/response/",
            {"answer": {"plausible": [0]}},
            format="json",
        ).status_code
        == 404
    )
    assert not Response.objects.filter(user=world.users["annotator"]).exists()


def test_another_annotators_answer_can_be_neither_read_nor_replaced(world: World) -> None:
    other, me = world.users["annotator2"], world.users["annotator"]
    stored = Response.objects.get(user=other, campaign=world.plain)
    before = (stored.pk, stored.answer, stored.item_id)
    item = world.plain_item
    tok = api(world, "annotator")
    url = f"/api/annotation/campaigns/{world.plain.name}/items/{item.uid}/response/"
    # The item is not mine (and full): answering it is refused and shows nothing of the stored answer.
    r = tok.post(url, {"answer": {"plausible": [1]}}, format="json")
    assert r.status_code == 400
    assert "not given to you" in r.json()["detail"]
    assert "response_id" not in r.json()
    assert "plausible" not in r.content.decode()
    # Guessing the other's idempotency key on my own item gives an error, not their answer.
    step = queue.next_step(world.plain, me)
    assert step.assignment is not None
    mine = step.assignment.item
    r = tok.post(
        f"/api/annotation/campaigns/{world.plain.name}/items/{mine.uid}/response/",
        {"answer": {"plausible": [1]}},
        format="json",
        HTTP_IDEMPOTENCY_KEY="annotator2-secret-key",
    )
    assert r.status_code == 400
    assert "belongs to another answer" in r.json()["detail"]
    assert str(stored.pk) not in r.content.decode().replace(str(mine.pk), "")
    # HTML: the same refusal, as a message on the work page.
    page = (
        world.client("annotator")
        .post(reverse("annotation:submit", args=[world.plain.name, item.uid]), {"plausible": ["1"]}, follow=True)
        .content.decode()
    )
    assert "not given to you" in page
    # My undo never touches the other's answer; the campaign list shows only my own progress.
    world.client("annotator").post(reverse("annotation:undo", args=[world.plain.name]))
    stored.refresh_from_db()
    assert (stored.pk, stored.answer, stored.item_id) == before
    index = world.client("annotator").get(reverse("annotation:index")).content.decode()
    assert not re.search(r"\b[1-9][0-9]* answered", index)
    assert other.username not in index
    # Researchers' views of the answers are closed to annotators, HTML and API alike.
    ann = world.client("annotator")
    for url in (
        reverse("annotation:dashboard", args=[world.plain.name]),
        reverse("annotation:adjudication", args=[world.plain.name]),
        reverse("annotation:adjudicate", args=[world.plain.name, item.pk]),
        reverse("annotation:export", args=[world.plain.name, "jsonl"]),
    ):
        r = ann.get(url)
        assert r.status_code == 403, url
        assert other.username not in r.content.decode(), url
    for suffix in ("agreement/", "export/?fmt=jsonl"):
        r = tok.get(f"/api/annotation/campaigns/{world.plain.name}/{suffix}")
        assert r.status_code == 403
        assert other.username not in r.content.decode()


def test_model_predictions_are_closed_to_annotators(world: World) -> None:
    ann, tok = world.client("annotator"), api(world, "annotator")
    run = world.run
    urls = [
        reverse("runs:index"),
        reverse("runs:detail", args=[run.pk]),
        reverse("runs:metrics", args=[run.pk]),
        reverse("runs:predictions", args=[run.pk, "jsonl"]),
        reverse("runs:predictions", args=[run.pk, "csv"]),
        reverse("explorer:run_errors", args=[run.pk]),
        reverse("explorer:run_items", args=[run.pk]),
        reverse("explorer:question", args=[world.question.pk]),
        reverse("explorer:compare") + f"?run={run.pk}&run={world.run2.pk}",
    ]
    for url in urls:
        r = ann.get(url)
        assert r.status_code == 403, url
        assert run.model not in r.content.decode(), url
    for url in (reverse("runs:samples", args=[run.pk]), reverse("runs:samples_live", args=[run.pk])):
        r = ann.get(url)
        assert r.status_code == 403, url
        assert run.model not in r.content.decode(), url
    # Every run, prediction and question-set operation of the API refuses an annotator's token
    # (the schema lists every operation).
    paths = tok.get("/api/schema/?format=json").json()["paths"]
    closed = [p for p in paths if p.startswith(("/api/runs/", "/api/knowledge/"))]
    assert len(closed) == 7
    assert all(p.startswith(("/api/annotation/campaigns/", *closed)) for p in paths)
    ids = {"run_id": run.pk, "name": world.qset.name}
    for path in closed:
        url = path.format(**ids)
        for method in paths[path]:
            r = tok.generic(method.upper(), url, "{}", content_type="application/json")
            assert r.status_code == 403, (method, url)
            assert run.model not in r.content.decode(), (method, url)


# --- gold -------------------------------------------------------------------------------------

_VOLATILE = [
    re.compile(r'name="csrfmiddlewaretoken" value="[^"]*"'),
    re.compile(r'"X-CSRFToken": "[^"]*"'),
    re.compile(r'name="idempotency_key" value="[0-9a-f]{32}"'),
    re.compile(r'"expires_at": ?"[^"]*"'),
]


def _normal(text: str, world: World) -> str:
    for rx in _VOLATILE:
        text = rx.sub("", text)
    for role in ("annotator", "annotator2"):
        text = text.replace(world.users[role].username, "<me>")
    return text


def _keys(obj: Any) -> set[str]:
    if isinstance(obj, dict):
        return set(obj) | {k for v in obj.values() for k in _keys(v)}
    if isinstance(obj, list):
        return {k for v in obj for k in _keys(v)}
    return set()


def _views(world: World, role: str, campaign: Campaign) -> dict[str, str]:
    """Everything an annotator is shown about their current item: page, htmx box, API."""
    c = world.client(role)
    page = c.get(reverse("annotation:work", args=[campaign.name])).content.decode()
    box = c.get(reverse("annotation:item", args=[campaign.name]), HTTP_HX_REQUEST="true").content.decode()
    nxt = api(world, role).post(f"/api/annotation/campaigns/{campaign.name}/next/").json()
    assert not _keys(nxt) & GOLD_KEYS, nxt
    return {"page": _normal(page, world), "box": _normal(box, world), "api": _normal(str(nxt), world)}


def _current(world: World, role: str, campaign: Campaign) -> Item:
    a = Assignment.objects.get(campaign=campaign, user=world.users[role], state=Assignment.State.RESERVED)
    return a.item


def _regold(item: Item) -> None:
    """Change everything gold about an item, keep what the annotator is meant to see."""
    if item.gold is not None and "plausible" in item.gold:
        item.gold = {"plausible": [(item.gold["plausible"][0] + 1) % item.n_options]}
    p = dict(item.payload)
    if "original" in p:  # RICA: the other statement becomes "the original"
        p.update(original=1 - p["original"], answer=p["flipped"], flipped=p["answer"])
    item.payload = p
    item.save(update_fields=["gold", "payload"])
    if item.question is not None:
        q = item.question
        q.answer_index = (q.answer_index + 1) % len(q.options)
        q.answers = [q.options[q.answer_index]]
        q.save(update_fields=["answer_index", "answers"])


@pytest.mark.parametrize("which", ["gold", "rica"])
def test_item_views_do_not_depend_on_gold(world: World, which: str) -> None:
    campaign: Campaign = getattr(world, which)
    before = _views(world, "annotator", campaign)
    item = _current(world, "annotator", campaign)
    if which == "gold":
        assert item.role == Item.Role.QUALIFICATION
        assert item.gold is not None
    _regold(item)
    after = _views(world, "annotator", campaign)
    assert _current(world, "annotator", campaign).pk == item.pk
    for view in before:
        assert before[view] == after[view], f"the annotator's {view} changes with the gold answer"


def _answer_current(world: World, role: str, campaign: Campaign, right: bool) -> tuple[str, Any]:
    """Answer the reserved item right or wrong (by its gold) over HTML; return the page shown next."""
    item = _current(world, role, campaign)
    c = world.client(role)
    if campaign.kind == Campaign.Kind.RICA:
        orig = item.payload["original"]
        data = {"choice": str(orig if right else 1 - orig)}
    else:
        g = item.gold["plausible"][0] if item.gold else 0
        data = {"plausible": [str(g if right else (g + 1) % item.n_options)]}
    part = c.post(reverse("annotation:submit", args=[campaign.name, item.uid]), data, HTTP_HX_REQUEST="true")
    assert part.status_code == 200
    return _normal(part.content.decode(), world), item


def _without_item_text(page: str) -> str:
    """The box without the item's own words: each person draws their qualification items in an
    order of their own (issue 31), so two people see different items at the same step."""
    page = re.sub(r'(<p class="(?:context|question)">).*?(</p>)', r"\1…\2", page, flags=re.S)
    return re.sub(r"(<kbd>\d</kbd>) [^<]*(</label>)", r"\1 …\2", page)


def test_feedback_after_gold_items_is_the_same_right_or_wrong(world: World) -> None:
    """Qualification and attention items are graded silently: what comes next is the same page
    whether the answer matched the gold or not (failing the whole qualification ends the campaign
    by design, with a message; a single item says nothing)."""
    g = world.gold
    pages: dict[str, list[str]] = {"annotator": [], "annotator2": []}
    roles = {"annotator": True, "annotator2": False}  # annotator answers right, annotator2 wrong
    for role in roles:
        world.client(role).get(reverse("annotation:work", args=[g.name]))
    for _step in range(4):  # qualification 1, qualification 2, a regular item, the attention item
        for role, right in roles.items():
            page, _item = _answer_current(world, role, g, right)
            page = re.sub(r"/items/[^/]+/", "/items/<id>/", re.sub(r'data-item="[^"]+"', "", page))
            pages[role].append(_without_item_text(page))
    assert pages["annotator"] == pages["annotator2"]
    roles_seen = set(Response.objects.filter(campaign=g).values_list("item__role", flat=True))
    assert roles_seen == {"qualification", "regular", "attention"}


def test_rica_api_answer_never_reveals_the_original(world: World) -> None:
    tok = api(world, "annotator")
    base = f"/api/annotation/campaigns/{world.rica.name}/"
    nxt = tok.post(base + "next/").json()
    item = Item.objects.get(uid=nxt["item"]["id"])
    assert set(nxt["item"]["payload"]) == {"statements"}
    url = base + f"items/{item.uid}/response/"
    # {valid} would let the caller test a guess about which statement is the original: refused.
    r = tok.post(url, {"answer": {"valid": 1}}, format="json")
    assert r.status_code == 400
    assert "choice" in r.json()["detail"]
    r = tok.post(url, {"answer": {"choice": 1}}, format="json")
    assert r.status_code == 201
    assert r.json()["answer"] == {"choice": 1}
    again = tok.post(url, {"answer": {"choice": 1}}, format="json")
    assert again.status_code == 200
    assert again.json()["answer"] == {"choice": 1}
    stored = Response.objects.get(item=item)
    assert stored.answer == {"valid": int(item.payload["original"] == 1)}  # stored as valid, shown as the choice


def test_attention_items_are_not_named_in_the_api(world: World) -> None:
    g = world.gold
    item = Item.objects.get(campaign=g, role=Item.Role.ATTENTION)
    me = world.users["annotator"]
    # Bring the annotator to the attention item: two qualification items, then one regular item.
    for _ in range(3):
        step = queue.next_step(g, me)
        assert step.assignment is not None
        assert step.assignment.item.role != Item.Role.ATTENTION
        it = step.assignment.item
        queue.response_submit(it, me, {"plausible": it.gold["plausible"] if it.gold else [0]})
    nxt = api(world, "annotator").post(f"/api/annotation/campaigns/{g.name}/next/").json()
    assert nxt["item"]["id"] == item.uid
    assert nxt["item"]["role"] == "regular"
