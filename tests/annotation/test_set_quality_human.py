"""Issue 11 item 8: once a validation campaign has answered a set, its quality report carries the
share humans accepted and the agreement (counted here from the answers themselves)."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import call_command

from annotation.models import FinalLabel, Item
from annotation.selectors.agreement import campaign_agreement
from annotation.services.campaigns import campaign_create
from annotation.services.labels import final_labels_refresh
from annotation.services.ratings_import import ratings_import
from knowledge.models import QuestionSet

pytestmark = pytest.mark.django_db


def test_report_has_the_humans_share_and_agreement(csqa_set: QuestionSet) -> None:
    out = StringIO()
    call_command("set_quality", csqa_set.name, json=True, stdout=out)
    assert "human" not in json.loads(out.getvalue())  # no campaign yet

    c = campaign_create(name="val", title="v", kind="mcqa", question_set=csqa_set, redundancy=3)
    items = list(Item.objects.filter(campaign=c, role=Item.Role.REGULAR).select_related("question")[:9])
    header = "rater," + ",".join(f"{i.key}:{o}" for i in items for o in range(1, 6))
    lines = [header]
    for r in range(3):
        cells = []
        for k, it in enumerate(items):
            gold = it.question.answer_index
            # items 0-2: everyone ticks the gold; 3-5: everyone ticks another option; 6-8: nothing
            tick = gold if k < 3 else (gold + 1) % 5 if k < 6 else None
            if k == 4 and r == 0:
                tick = None  # one rater disagrees: still a majority of two
            cells += ["yes" if o == tick else "no" for o in range(5)]
        lines.append(f"h{r}," + ",".join(cells))
    ratings_import(c, "\n".join(lines) + "\n", create_raters=True)
    final_labels_refresh(c)
    assert FinalLabel.objects.filter(item__campaign=c).count() == 9

    out = StringIO()
    call_command("set_quality", csqa_set.name, json=True, stdout=out)
    human = json.loads(out.getvalue())["human"]
    assert human["campaign"] == "val"
    assert human["items"] == 9
    assert human["accepted"] == 6
    assert human["gold_confirmed"] == 3
    assert human["share_accepted"] == pytest.approx(6 / 9, abs=1e-4)
    assert human["agreement"] == pytest.approx(campaign_agreement(c).pairwise, abs=1e-4)
    csqa_set.refresh_from_db()
    assert csqa_set.quality["human"] == human
    text = StringIO()
    call_command("set_quality", csqa_set.name, stdout=text)
    assert "6 of 9 items accepted" in text.getvalue()
