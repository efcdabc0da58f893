"""Adaptive redundancy (issue 26 item 1) through the queue: unanimous items close at the minimum,
split items get answers up to the maximum and are served before untouched items, the REST API's
next/submit loop follows the answers an item wants, and a refit of the annotator models judges
every item again."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from accounts.services import api_token_renew
from annotation.models import AnnotatorQuality, Campaign, FinalLabel, Item, Response
from annotation.queue import operations as queue
from annotation.selectors.campaigns import campaign_progress
from annotation.services.campaigns import campaign_create, campaign_status_set
from annotation.services.quality import annotator_quality_refresh

pytestmark = pytest.mark.django_db


def _campaign(csqa_set, n_items: int, **kw) -> Campaign:  # type: ignore[no-untyped-def]
    # these tests are about the confidence rule itself: every verdict, a dissent may be outweighed (the
    # defaults before session 18; test_well_formed.py holds the defaults' agreement rule)
    kw.setdefault("settlement_rule", "all_verdicts")
    kw.setdefault("require_agreement", False)
    c = campaign_create(name=kw.pop("name", "adapt"), title="t", kind="mcqa", question_set=csqa_set, **kw)
    Item.objects.filter(campaign=c, position__gte=n_items).delete()
    return campaign_status_set(c, "open")


def _answer_next(c: Campaign, user, answer) -> Item | None:  # type: ignore[no-untyped-def]
    step = queue.next_step(c, user)
    if step.state != "item":
        return None
    item = step.assignment.item
    queue.response_submit(item, user, answer(item) if callable(answer) else answer)
    return item


def test_defaults_are_three_to_five(csqa_set) -> None:  # type: ignore[no-untyped-def]
    c = _campaign(csqa_set, 2)
    assert (c.redundancy, c.max_answers, c.answers_max) == (3, 5, 5)
    assert set(Item.objects.filter(campaign=c).values_list("answers_wanted", flat=True)) == {3}
    survey_like = campaign_create(name="fixed", title="t", kind="mcqa", question_set=csqa_set, max_answers=3)
    assert survey_like.answers_max == 3
    assert (survey_like.settlement_rule, survey_like.require_agreement) == ("needs", True)  # the defaults


def test_unanimous_items_close_at_the_minimum(csqa_set, people) -> None:  # type: ignore[no-untyped-def]
    c = _campaign(csqa_set, 4)
    users = people("annotator", *[f"u{i}" for i in range(6)])
    for u in users:
        while _answer_next(c, u, {"plausible": [1]}) is not None:
            pass
    for item in Item.objects.filter(campaign=c):
        assert item.answer_count == 3 == item.answers_wanted == item.slots_taken
        fl = FinalLabel.objects.get(item=item)
        assert fl.settled
        assert fl.settlement == "unanimous"
        assert fl.n_answers == 3
    p = campaign_progress(c)
    assert (p["settled"], p["complete"], p["answers"], p["target"]) == (4, 4, 12, 12)
    # the first three answered every item; the other three found nothing left
    assert Response.objects.values("user").distinct().count() == 3


def test_split_items_get_answers_up_to_the_maximum_first(csqa_set, people) -> None:  # type: ignore[no-untyped-def]
    """Annotators split 2 against 1 on an option: the item wants a fourth answer and is served to the
    next person before any untouched item, then a fifth; at the maximum it closes unsettled."""
    c = _campaign(csqa_set, 3)
    users = people("annotator", *[f"s{i}" for i in range(6)])
    picks = iter([[0], [0], [1], [1], [0]])  # 2-1 after three, 2-2 after four, 3-2 at five
    first = None
    for u in users[:5]:
        item = _answer_next(c, u, lambda _item: {"plausible": next(picks)})
        first = first or item
        assert item is not None
        assert item.pk == first.pk
    item = Item.objects.get(pk=first.pk)
    fl = FinalLabel.objects.get(item=item)
    assert item.answer_count == 5 == item.answers_wanted
    assert fl.settlement == "exhausted"
    assert not fl.settled
    nxt = queue.next_step(c, users[5])
    assert nxt.state == "item"
    assert nxt.assignment.item_id != first.pk
    p = campaign_progress(c)
    assert p["exhausted"] == 1
    assert p["settled"] == 0
    assert p["complete"] == 1


def test_rest_api_loop_follows_the_answers_an_item_wants(csqa_set, people) -> None:  # type: ignore[no-untyped-def]
    """Readers acting as annotators through the REST API (next, response): one item, whose answers
    split, gets five; unanimous ones get three."""
    c = _campaign(csqa_set, 2, name="api-adapt")
    users = people("annotator", *[f"r{i}" for i in range(6)])
    split_uid = Item.objects.filter(campaign=c).order_by("position").first().uid
    served = []
    for i, u in enumerate(users):
        api = APIClient()
        api.credentials(HTTP_AUTHORIZATION="Token " + api_token_renew(u))
        assert api.get(f"/api/annotation/campaigns/{c.name}/").json()["max_answers"] == 5
        while True:
            nxt = api.post(f"/api/annotation/campaigns/{c.name}/next/").json()
            if nxt["state"] != "item":
                assert nxt["state"] == "done"
                break
            uid = nxt["item"]["id"]
            served.append(uid)
            pick = [i % 2] if uid == split_uid else [3]
            r = api.post(
                f"/api/annotation/campaigns/{c.name}/items/{uid}/response/",
                {"answer": {"plausible": pick}},
                format="json",
            )
            assert r.status_code == 201, r.content
    counts = {i.uid: i.answer_count for i in Item.objects.filter(campaign=c)}
    assert counts[split_uid] == 5
    assert [n for u, n in counts.items() if u != split_uid] == [3]
    assert served.count(split_uid) == 5


def test_refit_estimates_every_annotator_and_flags_the_spammer(csqa_set, people) -> None:  # type: ignore[no-untyped-def]
    """Four careful annotators tick each item's gold option; a spammer ticks option 4 everywhere.
    The refit stores one quality row per person, flags the spammer, and judges the items again."""
    c = _campaign(csqa_set, 12, name="refit", redundancy=5, max_answers=5)
    careful = people("annotator", "c1", "c2", "c3", "c4")
    (spam,) = people("annotator", "spam")
    gold = {i.pk: i.question.answer_index for i in Item.objects.filter(campaign=c).select_related("question")}
    for u in careful:
        while _answer_next(c, u, lambda item: {"plausible": [gold[item.pk]]}) is not None:
            pass
    while _answer_next(c, spam, {"plausible": [4]}) is not None:
        pass
    assert annotator_quality_refresh(c) == 5
    q = {r.user.username: r for r in AnnotatorQuality.objects.filter(campaign=c).select_related("user")}
    assert q["spam"].flag in ("spammer", "adversary")
    assert all(q[u.username].flag == "" for u in careful)
    assert min(q[u.username].accuracy for u in careful) > q["spam"].accuracy
    c.refresh_from_db()
    assert c.annotator_model["answers"] == Response.objects.filter(campaign=c).count()
    # items answered 4-1 are settled with confidence under the fitted model
    assert FinalLabel.objects.filter(item__campaign=c, settled=True).count() == 12


def test_refit_is_sent_every_n_answers(
    csqa_set, people, settings, monkeypatch, django_capture_on_commit_callbacks
) -> None:  # type: ignore[no-untyped-def]
    """Every COCOWEB_QUALITY_REFIT_EVERY answers a process stores, one refit goes to the
    housekeeping queue once the answer commits; and the task refits."""
    from annotation import tasks
    from annotation.services import labels as campaign_services

    settings.COCOWEB_QUALITY_REFIT_EVERY = 4
    sent: list[tuple[int, str]] = []
    monkeypatch.setattr(tasks.annotator_quality_task, "apply_async", lambda args, queue: sent.append((*args, queue)))
    campaign_services._refits_since.clear()
    c = _campaign(csqa_set, 3, name="cadence")
    users = people("annotator", "k1", "k2", "k3")
    with django_capture_on_commit_callbacks(execute=True):
        for u in users:
            while _answer_next(c, u, {"plausible": [0]}) is not None:
                pass
    assert Response.objects.filter(campaign=c).count() == 9
    assert sent == [(c.pk, "housekeeping"), (c.pk, "housekeeping")]  # after answers 4 and 8
    assert tasks.annotator_quality_task(c.pk) == 3
    assert AnnotatorQuality.objects.filter(campaign=c).count() == 3


def test_dashboard_shows_settlement_rule_and_annotators(csqa_set, people) -> None:  # type: ignore[no-untyped-def]
    from django.urls import reverse
    from django.utils.html import escape

    from commonsense.annotators import RULE
    from tests.annotation.conftest import login

    c = _campaign(csqa_set, 3, name="dash")
    for u in people("annotator", "d1", "d2", "d3"):
        while _answer_next(c, u, {"plausible": [2]}) is not None:
            pass
    annotator_quality_refresh(c)
    people("researcher", "res")
    page = login("res").get(reverse("annotation:dashboard", args=[c.name])).content.decode()
    assert '<strong data-stat="settled">3</strong> settled' in page
    assert '<strong data-stat="answers-spent">9</strong> answers spent' in page
    assert "3.00 per settled item" in page
    assert escape(RULE)[:60] in page
    assert 'id="annotator-quality"' in page
    assert "d1" in page
    # every answer ticked option 2, which is not the built answer: under the default (the built answer
    # required) the preview keeps none and says why
    assert "0 of 3 items would be kept; 3 left out because not every answer accepted the built answer" in page


def test_annotator_accounts_and_quality_commands(csqa_set, people, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """The commands a REST API campaign needs: accounts with tokens, then the refit and its table."""
    from io import StringIO

    from django.core.management import call_command

    out = tmp_path / "readers.tsv"
    call_command("annotator_accounts", 3, prefix="reader", out=str(out), stdout=StringIO())
    rows = [line.split("\t") for line in out.read_text().splitlines()]
    assert [r[0] for r in rows] == ["reader01", "reader02", "reader03"]
    assert oct(out.stat().st_mode)[-3:] == "600"
    c = _campaign(csqa_set, 2, name="cmd-q")
    for _name, _pw, token in rows:
        api = APIClient()
        api.credentials(HTTP_AUTHORIZATION="Token " + token)
        while (nxt := api.post(f"/api/annotation/campaigns/{c.name}/next/").json())["state"] == "item":
            url = f"/api/annotation/campaigns/{c.name}/items/{nxt['item']['id']}/response/"
            assert api.post(url, {"answer": {"plausible": [1]}}, format="json").status_code == 201
    text = StringIO()
    call_command("annotator_quality", c.name, stdout=text)
    assert "cmd-q: 3 annotators; items 2: 2 settled" in text.getvalue()
    assert "reader03" in text.getvalue()


def test_researcher_switches_to_weighted_labels_and_every_item_is_judged_again(csqa_set, people) -> None:  # type: ignore[no-untyped-def]
    """Three careful annotators, a spammer and an adversary answer every item. Switching the final
    labels to MACE's weights stores MACE's posteriors for every item (judged again at once), and the
    labels follow the careful annotators."""
    from django.urls import reverse

    from annotation.selectors.quality import item_judge
    from tests.annotation.conftest import login

    c = _campaign(csqa_set, 8, name="weights", redundancy=5, max_answers=5)
    gold = {i.pk: i.question.answer_index for i in Item.objects.filter(campaign=c).select_related("question")}
    plans = {
        "careful1": lambda item: {"plausible": [gold[item.pk]]},
        "careful2": lambda item: {"plausible": [gold[item.pk]]},
        "careful3": lambda item: {"plausible": [gold[item.pk]]},
        "spam": lambda item: {"plausible": [4]},
        "adv": lambda item: {"plausible": [(gold[item.pk] + 1) % 5]},
    }
    for u, plan in zip(people("annotator", *plans), plans.values(), strict=True):
        while _answer_next(c, u, plan) is not None:
            pass
    annotator_quality_refresh(c)
    before = {fl.item_id: fl.posteriors for fl in FinalLabel.objects.filter(item__campaign=c)}
    people("researcher", "res")
    client = login("res")
    assert client.post(reverse("annotation:label_rule", args=[c.name]), {"label_rule": "mace"}).status_code == 302
    c.refresh_from_db()
    assert c.label_rule == "mace"
    answers: dict[int, list[tuple[int, dict]]] = {}
    for user, item, answer in (
        Response.objects.filter(campaign=c).order_by("id").values_list("user_id", "item_id", "answer")
    ):
        answers.setdefault(item, []).append((user, answer))
    for fl in FinalLabel.objects.filter(item__campaign=c):
        assert fl.posteriors == pytest.approx(item_judge(c, 5, answers[fl.item_id]).posteriors)
        assert fl.posteriors != pytest.approx(before[fl.item_id])  # MACE's, not Dawid-Skene's
        assert fl.label["plausible"] == [gold[fl.item_id]]
    r = client.post(reverse("annotation:label_rule", args=[c.name]), {"label_rule": "vibes"}, follow=True)
    assert "Choose one of" in r.content.decode()
    assert Campaign.objects.get(pk=c.pk).label_rule == "mace"


def test_crowd_budget_counts_the_answers_items_want_now_and_at_most(csqa_set, people) -> None:  # type: ignore[no-untyped-def]
    from annotation.crowd.selectors import crowd_overview

    c = _campaign(csqa_set, 3, name="budget")
    o = crowd_overview(c)
    assert (o.items_short, o.answers_missing, o.answers_missing_max) == (3, 9, 15)
    picks = iter([[0], [0], [1]])  # the first item splits 2-1: it wants a fourth answer
    for u in people("annotator", "b1", "b2", "b3"):
        _answer_next(c, u, lambda _item: {"plausible": next(picks)})
    o = crowd_overview(c)
    # three answers in; the split item wants one more now (4), the others 3 each; at most 5 each
    assert (o.items_short, o.answers_missing, o.answers_missing_max) == (3, 4 + 3 + 3 - 3, 15 - 3)
