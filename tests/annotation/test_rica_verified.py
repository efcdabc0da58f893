"""RICA's two-round pair verification (issue 28 item 6): the rule by hand, then a RICA pair campaign
answered through the queue by five annotators and turned into a verified probe set whose gold is
flipped where the raters overturned it."""

from __future__ import annotations

import pytest
from django.core.management import call_command

from annotation.models import Response
from annotation.queue import operations as queue
from annotation.services.campaigns import campaign_create, campaign_status_set
from annotation.services.rica import rica_answer
from commonsense.rica_verify import round_matrices, verdict
from knowledge.models import Question, QuestionSet


def test_two_rounds_by_hand() -> None:
    assert verdict([]).state == "pending"
    assert verdict([1]).votes_needed == 1
    assert verdict([1, 1]) == verdict([1, 1, 0, 0, 0])  # round 1 agreed: later votes are not used
    assert (verdict([1, 1]).valid, verdict([1, 1]).round) == (True, 1)
    assert (verdict([0, 0]).valid, verdict([0, 0]).round) == (False, 1)  # both prefer the flip: flipped
    split = verdict([1, 0, 0])
    assert split.state == "needs_round_2"
    assert split.votes_needed == 2
    assert (verdict([1, 0, 0, 0, 1]).valid, verdict([1, 0, 0, 0, 1]).round) == (False, 2)  # round 2's majority
    assert verdict([0, 1, 1, 0, 1]).valid is True
    r1, r2 = round_matrices([[1, 1], [1, 0, 0, 0, 1], [0]])
    assert r1 == [[1, 1], [1, 0]]
    assert r2 == [[0, 0, 1]]


PROBES = [  # (stem, options, gold index); raters' picks of the original (1) or the flip (0)
    ("A is heavier than B, so A is [MASK] likely to sink.", ["more", "less"], 0, [1, 1]),
    ("A is colder than B, so A is [MASK] likely to melt.", ["more", "less"], 0, [0, 0]),  # overturned
    ("A is taller than B, so A is [MASK] able to reach the shelf.", ["better", "worse"], 0, [1, 0, 0, 0, 1]),
    ("A is louder than B, so A is [MASK] likely to be heard.", ["more", "less"], 0, [0, 1, 1, 1, 0]),
    ("A is faster than B, so A is [MASK] likely to win.", ["more", "less"], 0, [1, 0]),  # split, no round 2
]


@pytest.mark.django_db
def test_verified_probe_set_from_a_pair_campaign(people, capsys) -> None:  # type: ignore[no-untyped-def]
    qs = QuestionSet.objects.create(name="rica-mini", kind=QuestionSet.Kind.RICA_PROBES)
    for i, (stem, opts, gold, _) in enumerate(PROBES):
        Question.objects.create(question_set=qs, position=i, stem=stem, options=opts, answer_index=gold, group=f"ax{i}")
    c = campaign_status_set(
        campaign_create(
            name="rc", title="rc", kind="rica", question_set=qs, redundancy=5, max_items_per_annotator=None
        ),
        "open",
    )
    users = people("annotator", "a1", "a2", "a3", "a4", "a5")
    for k, user in enumerate(users):  # rater k answers the pairs that have a k-th vote planned, skips the rest
        for _ in range(20):
            step = queue.next_step(c, user)
            if step.state != "item":
                break
            item = step.assignment.item
            picks = PROBES[item.position][3]
            if k >= len(picks):
                queue.assignment_skip(c, user, item)
                continue
            choice = item.payload["original"] if picks[k] == 1 else 1 - item.payload["original"]
            queue.response_submit(item, user, rica_answer(item, choice))
    assert Response.objects.filter(campaign=c).count() == sum(len(p[3]) for p in PROBES)
    call_command("verified_set", "rc", "--name", "rica-mini-verified")
    out = capsys.readouterr().out
    assert "4 of 5 pairs settled (2 in round 1, 2 in round 2), 2 flipped" in out
    v = QuestionSet.objects.get(name="rica-mini-verified")
    got = {q.stem: q for q in v.questions.all()}
    assert len(got) == 4
    assert PROBES[4][0] not in got
    assert got[PROBES[0][0]].answer_index == 0
    assert got[PROBES[1][0]].answer_index == 1
    assert got[PROBES[2][0]].answer_index == 1
    assert got[PROBES[3][0]].answer_index == 0
    meta = got[PROBES[2][0]].metadata["rica_verification"]
    assert meta["round_1"] == [1, 0]
    assert meta["round_2"] == [0, 0, 1]
    assert meta["flipped"] is True
    counts = v.verified_from.counts
    assert counts["needs_round_2"] == 1
    assert counts["kappa_round_1"] is not None
