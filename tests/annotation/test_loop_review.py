"""perf/loop_review.py, the blind reviewer's client of the REST API (issue 26's review stage), against a live
server: it prints exactly what a reader sees of a settled item as it will be published (context, question,
options 1-5) and nothing else, stores the reviewer's verdict, and tells an annotator of the campaign that
its reviews are for others."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path
from typing import Any

import pytest

from accounts.services import api_token_renew
from annotation.models import Campaign, Item, Response
from annotation.queue import operations as queue
from annotation.services.campaigns import campaign_create, campaign_status_set
from perf.loop_review import main

pytestmark = pytest.mark.django_db(transaction=True)


def _run(base: str, token: str, state: Path) -> Any:
    def run(*argv: str) -> tuple[int, str]:
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            try:
                rc = main(["--url", base, "--token", token, "--state", str(state), *argv])
            except SystemExit as exc:
                rc = 2 if exc.code else 0
                out.write(str(exc.code))
        return rc, out.getvalue()

    return run


def test_reviewer_sees_only_the_published_item_and_stores_a_verdict(live_server, csqa_set, people, tmp_path) -> None:
    c = campaign_create(name="loop-r", title="r", kind="mcqa", question_set=csqa_set, redundancy=3, reviews=1)
    Item.objects.filter(campaign=c, position__gte=2).delete()
    campaign_status_set(c, "open")
    annotators = people("annotator", "a1", "a2", "a3")
    for user in annotators:
        while (step := queue.next_step(c, user)).assignment is not None:
            item = step.assignment.item
            queue.response_submit(
                item, user, {"plausible": [item.question.answer_index]}, idempotency_key=f"{user.pk}-{item.pk}"
            )
    review = Campaign.objects.get(review_of=c)
    (reviewer,) = people("annotator", "rev1")
    run = _run(live_server.url, api_token_renew(reviewer), tmp_path / "s.json")

    rc, out = run("next")
    assert rc == 0
    shown = Item.objects.get(campaign=review, assignments__user=reviewer)
    p = shown.payload
    expected = [
        "Item 1",
        f"Context: {p.get('context', '')}",
        f"Question: {p['stem']}",
        *(f"  {i}. {o}" for i, o in enumerate(p["options"], 1)),
    ]
    lines = out.strip().splitlines()
    assert lines[:-1] == expected  # nothing but the item, then how to reply
    assert lines[-1].startswith("Reply with: answer N (the one option you would defend)")
    assert len(p["options"]) == 5
    rc, out = run("answer", "several")
    assert rc == 0
    assert "Saved (1 reviewed)" in out
    assert Response.objects.get(item=shown, user=reviewer).answer == {"verdict": "several"}
    rc, out = run("answer", "9")
    assert rc == 2
    assert "is not an option number 1-5" in out
    rc, out = run("answer", str(int(Item.objects.exclude(pk=shown.pk).get(campaign=review).gold["answer"]) + 1))
    assert rc == 0
    assert "Nothing left for you to review" in out

    annotator = _run(live_server.url, api_token_renew(annotators[0]), tmp_path / "a.json")
    rc, out = annotator("next")
    assert rc == 0
    assert "its reviews are read by people who did not" in out
