"""Pages and API: htmx partials and plain posts, who may see what, the campaign form, the
adjudication trail, exports (JSONL/CSV/Parquet, COM2 post-processing), REST with token and
Idempotency-Key, OpenAPI."""

from __future__ import annotations

import csv
import io
import json
import re

import pyarrow.parquet as pq
import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse
from rest_framework.test import APIClient

from accounts.services import api_token_renew
from annotation.models import Adjudication, Campaign, FinalLabel, Item, Response
from annotation.queue import operations as queue
from annotation.services.campaigns import campaign_create, campaign_status_set
from commonsense.validation import NONE_CORRECT
from tests.annotation.conftest import login
from tests.conftest import GOLD_FILE

pytestmark = pytest.mark.django_db


def test_permissions(mcqa_campaign, people) -> None:  # type: ignore[no-untyped-def]
    people("annotator", "ann")
    people("researcher", "res")
    people("admin", "adm")
    ann, res, adm = login("ann"), login("res"), login("adm")
    dash = reverse("annotation:dashboard", args=[mcqa_campaign.name])
    export = reverse("annotation:export", args=[mcqa_campaign.name, "jsonl"])
    assert ann.get(reverse("annotation:index")).status_code == 200
    assert ann.get(reverse("annotation:work", args=[mcqa_campaign.name])).status_code == 200
    assert ann.get(dash).status_code == 403
    assert ann.get(reverse("annotation:campaign_new")).status_code == 403
    assert res.get(dash).status_code == 200
    assert res.get(export).status_code == 403
    assert adm.get(export).status_code == 200
    campaign_status_set(mcqa_campaign, "draft")
    assert ann.get(reverse("annotation:work", args=[mcqa_campaign.name])).status_code == 404  # not open: hidden


def test_closing_asks_first_and_a_closed_campaign_says_so(mcqa_campaign, people) -> None:  # type: ignore[no-untyped-def]
    """Issue 14 bug 8 (also in the browser: test_browser_closed.py)."""
    people("annotator", "ann")
    people("researcher", "res")
    ann, res = login("ann"), login("res")
    status = reverse("annotation:status", args=[mcqa_campaign.name])
    asked = res.post(status, {"status": "closed"})
    assert asked.status_code == 200
    assert "Close campaign MCQA validation?" in asked.content.decode()
    mcqa_campaign.refresh_from_db()
    assert mcqa_campaign.status == "open"
    assert res.post(status, {"status": "closed", "confirm": "yes"}).status_code == 302
    mcqa_campaign.refresh_from_db()
    assert mcqa_campaign.status == "closed"
    assert res.post(status, {"status": "open"}).status_code == 302  # opening again needs no confirmation
    campaign_status_set(mcqa_campaign, "closed")
    work = ann.get(reverse("annotation:work", args=[mcqa_campaign.name]))
    assert work.status_code == 410
    assert "This campaign is closed" in work.content.decode()
    box = ann.get(reverse("annotation:item", args=[mcqa_campaign.name]), headers={"HX-Request": "true"})
    assert box.status_code == 410
    assert "<html" not in box.content.decode()
    assert "closed" in box.content.decode()
    assert ann.get(reverse("annotation:work", args=["no-such-campaign"])).status_code == 404


def test_htmx_flow_partial_vs_page_and_plain_post(mcqa_campaign, people) -> None:  # type: ignore[no-untyped-def]
    people("annotator", "ann")
    c = login("ann")
    page = c.get(reverse("annotation:work", args=[mcqa_campaign.name])).content.decode()
    assert "<html" in page
    assert 'id="item"' in page
    assert "annotate.js" in page
    assert "Answered 0 / " in page
    part = c.get(reverse("annotation:item", args=[mcqa_campaign.name]), HTTP_HX_REQUEST="true").content.decode()
    assert "<html" not in part
    assert 'class="card item-form"' in part
    assert c.get(reverse("annotation:item", args=[mcqa_campaign.name]))["Location"].endswith(
        f"/c/{mcqa_campaign.name}/"
    )
    item = queue.next_step(mcqa_campaign, get_user_model().objects.get(username="ann")).assignment.item
    url = reverse("annotation:submit", args=[mcqa_campaign.name, item.uid])
    r = c.post(url, {"plausible": ["0", "2"], "idempotency_key": "k1", "elapsed_ms": "1234"}, HTTP_HX_REQUEST="true")
    assert r.status_code == 200
    assert "<html" not in r.content.decode()
    assert "Answered 1 / " in r.content.decode()
    again = c.post(url, {"plausible": ["1"], "idempotency_key": "k1"}, HTTP_HX_REQUEST="true")  # double click
    assert again.status_code == 200
    resp = Response.objects.get()
    assert resp.answer == {"plausible": [0, 2], "none_correct": False, "bad_context": False}
    assert resp.time_ms is not None
    assert resp.time_ms <= 5000
    nxt = queue.next_step(mcqa_campaign, resp.user).assignment.item
    plain = c.post(
        reverse("annotation:submit", args=[mcqa_campaign.name, nxt.uid]),
        {"none_correct": "yes", "idempotency_key": "k2"},
    )
    assert plain.status_code == 302
    assert Response.objects.count() == 2
    bad = c.post(
        reverse(
            "annotation:submit",
            args=[mcqa_campaign.name, queue.next_step(mcqa_campaign, resp.user).assignment.item.uid],
        ),
        {"idempotency_key": "k3"},
        HTTP_HX_REQUEST="true",
    )
    assert bad.status_code == 422
    assert "tick at least one option" in bad.content.decode()
    undo = c.post(reverse("annotation:undo", args=[mcqa_campaign.name]), HTTP_HX_REQUEST="true").content.decode()
    assert Response.objects.count() == 1
    assert 'name="none_correct" value="yes" data-key="0" checked' in undo


def test_survey_and_rica_items_render_and_submit(statement_set, people, db) -> None:  # type: ignore[no-untyped-def]
    from knowledge.models import Question, QuestionSet

    survey = campaign_status_set(
        campaign_create(name="sv", title="sv", kind="survey", statement_set=statement_set, ask_common_sense=True),
        "open",
    )
    qs = QuestionSet.objects.create(name="rica-mini", kind=QuestionSet.Kind.RICA_PROBES)
    Question.objects.create(
        question_set=qs,
        position=0,
        stem="A is heavier than B, so A is [MASK] likely to sink.",
        options=["more", "less"],
        answer_index=0,
    )
    rica = campaign_status_set(campaign_create(name="rc", title="rc", kind="rica", question_set=qs), "open")
    (u,) = people("annotator", "ann")
    c = login("ann")
    page = c.get(reverse("annotation:work", args=["sv"])).content.decode()
    assert "Do you agree with this statement?" in page
    assert "Do you think most people would agree" in page
    assert "Is this statement common sense?" in page
    item = queue.next_step(survey, u).assignment.item
    c.post(reverse("annotation:submit", args=["sv", item.uid]), {"agree": "yes", "predict": "no", "common": "yes"})
    assert Response.objects.get(item=item).answer == {"agree": 1, "predict": 0, "common": 1}
    page = c.get(reverse("annotation:work", args=["rc"])).content.decode()
    assert "more likely to sink" in page
    assert "less likely to sink" in page
    assert "Statement 2" in page
    ritem = Item.objects.get(campaign=rica)
    flipped = 1 - ritem.payload["original"]
    c.post(reverse("annotation:submit", args=["rc", ritem.uid]), {"choice": str(flipped)})
    assert Response.objects.get(item=ritem).answer == {"valid": 0}


def test_campaign_form_creates_items_with_qualification(csqa_set, researcher) -> None:  # type: ignore[no-untyped-def]
    r = researcher.post(
        reverse("annotation:campaign_new"),
        {
            "name": "com2-val",
            "title": "COM2 validation",
            "kind": "mcqa",
            "source": "qs:csqa-demo",
            "qualification_source": "file:com2_demo_gold.jsonl",
            "qualification_size": "6",
            "qualification_pass_mark": "0.8",
            "attention_positions": "6, 7",
            "attention_every": "10",
            "attention_max_failures": "1",
            "agreement_threshold": "0.6",
            "reservation_ttl_seconds": "600",
            "seed": "3",
            "open_now": "on",
        },
    )
    assert r.status_code == 302
    c = Campaign.objects.get(name="com2-val")
    assert (c.redundancy, c.status, c.seed) == (3, "open", 3)
    assert Item.objects.filter(campaign=c, role="qualification").count() == 10  # the gold file's pool
    assert (c.qualification_size, c.qualification_source) == (6, "gold file com2_demo_gold.jsonl")
    assert Item.objects.filter(campaign=c, role="attention").count() == 2
    assert Item.objects.filter(campaign=c, role="regular").count() == csqa_set.question_count - 2
    bad = researcher.post(
        reverse("annotation:campaign_new"),
        {
            "name": "x",
            "title": "x",
            "kind": "survey",
            "source": "qs:csqa-demo",
            "qualification_pass_mark": "0.85",
            "attention_every": "0",
            "attention_max_failures": "1",
            "agreement_threshold": "0.6",
            "reservation_ttl_seconds": "600",
            "seed": "0",
        },
    )
    assert bad.status_code == 400
    assert "needs a statement set" in bad.content.decode()


def _three_answers(campaign, people, answers):  # type: ignore[no-untyped-def]
    users = people("annotator", *[f"w{i}" for i in range(len(answers))])
    item = None
    for u, ans in zip(users, answers, strict=True):
        step = queue.next_step(campaign, u)
        item = item or step.assignment.item
        assert step.assignment.item_id == item.pk
        queue.response_submit(item, u, ans)
    return item


def test_adjudication_queue_decision_and_exports(mcqa_campaign, people) -> None:  # type: ignore[no-untyped-def]
    item = _three_answers(mcqa_campaign, people, [{"plausible": [0]}, {"plausible": [1, 2]}, {"plausible": [3]}])
    people("admin", "boss")
    boss = login("boss")
    q = boss.get(reverse("annotation:adjudication", args=[mcqa_campaign.name])).content.decode()
    assert reverse("annotation:adjudicate", args=[mcqa_campaign.name, item.pk]) in q
    url = reverse("annotation:adjudicate", args=[mcqa_campaign.name, item.pk])
    assert boss.post(url, {"plausible": ["1"], "reason": ""}).status_code == 400
    r = boss.post(url, {"plausible": ["1"], "reason": "B is the only answer that fits the context"})
    assert r.status_code == 302
    adj = Adjudication.objects.get()
    assert adj.decided_by.username == "boss"
    assert adj.label["plausible"] == [1]
    assert adj.decided_at is not None
    f = FinalLabel.objects.get(item=item)
    assert f.provenance == "adjudicated"
    assert f.below_threshold
    assert (
        "Nothing to adjudicate"
        in boss.get(reverse("annotation:adjudication", args=[mcqa_campaign.name])).content.decode()
    )
    body = boss.get(reverse("annotation:export", args=[mcqa_campaign.name, "jsonl"])).content.decode()
    (rec,) = [json.loads(x) for x in body.splitlines()]
    assert rec["provenance"] == "adjudicated"
    assert rec["adjudicated_by"] == "boss"
    assert rec["votes"]["option_ticks"] == [1, 1, 1, 1, 0]
    assert rec["agreement"] == pytest.approx(0.4667, abs=1e-3)
    assert [a["rater"] for a in rec["answers"]] == ["w0", "w1", "w2"]
    com2 = rec["com2"]
    assert com2["positive"] == item.payload["options"][1]
    assert com2["options"][com2["answer_index"]] == com2["positive"]
    assert com2["options"][4] == NONE_CORRECT
    assert len(com2["options"]) == 5
    assert com2["needs_manual_negatives"] == 0
    rows = list(
        csv.DictReader(
            io.StringIO(boss.get(reverse("annotation:export", args=[mcqa_campaign.name, "csv"])).content.decode())
        )
    )
    assert rows[0]["provenance"] == "adjudicated"
    assert json.loads(rows[0]["label"])["plausible"] == [1]
    pq_body = boss.get(reverse("annotation:export", args=[mcqa_campaign.name, "parquet"])).content
    table = pq.read_table(io.BytesIO(pq_body)).to_pylist()
    assert table[0]["item_id"] == item.pk
    assert json.loads(table[0]["com2"])["positive"] == com2["positive"]


def test_unanimous_none_plausible_and_bad_context(mcqa_campaign, people) -> None:  # type: ignore[no-untyped-def]
    none = {"none_correct": True}
    item = _three_answers(mcqa_campaign, people, [none, none, none])
    people("admin", "boss")
    (rec,) = [
        json.loads(x)
        for x in login("boss")
        .get(reverse("annotation:export", args=[mcqa_campaign.name, "jsonl"]))
        .content.decode()
        .splitlines()
    ]
    assert rec["provenance"] == "unanimous"
    assert rec["agreement"] == 1.0
    assert not rec["below_threshold"]
    assert rec["com2"]["positive"] is None
    assert rec["com2"]["answer_index"] == 4
    assert rec["com2"]["options"][4] == NONE_CORRECT
    assert set(rec["com2"]["options"][:4]) <= set(item.payload["options"])


def test_api_token_flow_idempotency_and_schema(mcqa_campaign, people) -> None:  # type: ignore[no-untyped-def]
    (u,) = people("annotator", "bot")
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION="Token " + api_token_renew(u))
    assert [c["name"] for c in api.get("/api/annotation/campaigns/").json()] == ["mcqa"]
    nxt = api.post(f"/api/annotation/campaigns/{mcqa_campaign.name}/next/").json()
    assert nxt["state"] == "item"
    assert len(nxt["item"]["payload"]["options"]) == 5
    url = f"/api/annotation/campaigns/{mcqa_campaign.name}/items/{nxt['item']['id']}/response/"
    first = api.post(url, {"answer": {"plausible": [2]}, "time_ms": 900}, format="json", HTTP_IDEMPOTENCY_KEY="abc")
    retry = api.post(url, {"answer": {"plausible": [2]}, "time_ms": 900}, format="json", HTTP_IDEMPOTENCY_KEY="abc")
    assert first.status_code == 201
    assert retry.status_code == 200
    assert first.json()["response_id"] == retry.json()["response_id"]
    assert Response.objects.get().time_ms == 900
    assert Response.objects.get().source == "api"
    assert (
        api.post(
            url.replace(nxt["item"]["id"], Item.objects.exclude(uid=nxt["item"]["id"]).first().uid),
            {"answer": {"plausible": [0]}},
            format="json",
        ).status_code
        == 400
    )
    assert api.get(f"/api/annotation/campaigns/{mcqa_campaign.name}/agreement/").status_code == 403
    assert APIClient().get("/api/annotation/campaigns/").status_code == 401
    (adm,) = people("admin", "adm")
    admin = APIClient()
    admin.credentials(HTTP_AUTHORIZATION="Token " + api_token_renew(adm))
    agr = admin.get(f"/api/annotation/campaigns/{mcqa_campaign.name}/agreement/").json()
    assert agr["progress"]["answers"] == 1
    assert agr["raters"] == 1
    exp = admin.get(f"/api/annotation/campaigns/{mcqa_campaign.name}/export/?fmt=jsonl")
    assert exp.status_code == 200
    assert json.loads(exp.content.decode().splitlines()[0])["n_answers"] == 1
    schema = admin.get("/api/schema/", HTTP_ACCEPT="application/json").content.decode()
    assert "/api/annotation/campaigns/{slug}/items/{item_id}/response/" in schema
    assert "Idempotency-Key" in schema


def test_dashboard_shows_numbers_charts_and_answers(survey_campaign, people, researcher) -> None:  # type: ignore[no-untyped-def]
    users = people("annotator", "p1", "p2", "p3")
    for j, u in enumerate(users):
        for _ in range(4):
            item = queue.next_step(survey_campaign, u).assignment.item
            queue.response_submit(item, u, {"agree": int(j != 2), "predict": 1})
    page = researcher.get(reverse("annotation:dashboard", args=[survey_campaign.name])).content.decode()
    for needle in (
        'data-chart="agreement"',
        'data-chart="annotators"',
        'data-chart="annotator_m"',
        "Fleiss",
        "Krippendorff",
        "annotator_M",
        "p3",
        "agree no · most agree yes",
        "charts.js",
        "plotly-cocoweb.min.js",
    ):
        assert needle in page, needle
    assert page.count("<tr>") > 12


def test_failed_qualification_shows_the_score_and_the_mark_needed(csqa_set, people) -> None:  # type: ignore[no-untyped-def]
    """Issue 14 bug 13: the page said only that the campaign had ended. An annotator account has one
    attempt: its failure says how many items were right and how many were needed."""
    c = campaign_create(
        name="q",
        title="Q",
        kind="mcqa",
        question_set=csqa_set,
        qualification_file=GOLD_FILE,
        qualification_size=6,
        qualification_pass_mark=0.8,
    )
    campaign_status_set(c, "open")
    people("annotator", "ann")
    web = login("ann")
    page = web.get(reverse("annotation:work", args=["q"])).content.decode()
    assert "First comes a qualification of 6 questions. You pass with at least 5 of 6 answered exactly right" in page
    assert "You have one attempt" in page  # stated before the test
    assert re.search(r'<form class="undo"[^>]*\shidden[\s>]', page)  # no Undo offered in it
    for i in range(6):
        item = Item.objects.get(pk=int(web.get(reverse("annotation:work", args=["q"])).context["item"].pk))
        gold = item.gold["plausible"]
        picked = [k for k in range(5) if k not in gold][:1] if i < 3 else gold  # three items wrong
        post = {"plausible": [str(k) for k in picked]} if picked else {"none_correct": "yes"}
        web.post(reverse("annotation:submit", args=["q", item.uid]), post)
    page = web.get(reverse("annotation:work", args=["q"])).content.decode()
    assert "did not pass the qualification" in page
    assert "you answered 3 of its 6 questions exactly right, and 5 were needed" in page
    assert web.post(reverse("annotation:undo", args=["q"]), follow=True).status_code == 200
    assert Response.objects.filter(item__campaign=c).count() == 6  # nothing undone
