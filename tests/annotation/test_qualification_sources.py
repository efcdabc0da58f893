"""Where a qualification's items come from (issue 26 item 4): a verified set or a gold file the
researcher chose, through the campaign form (a shipped file or an upload) and ``campaign_create``;
never the unverified items being validated. A bad gold file is refused with its file, line and
field; a pool a respondent who does not read would pass is refused, naming that answer."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.urls import reverse

from annotation.models import Campaign, Item
from commonsense.validation import NONE_CORRECT
from knowledge.models import Question
from tests.annotation.test_verified_set import answered  # noqa: F401 - a validated CSKB 2i set
from tests.conftest import GOLD_FILE

pytestmark = pytest.mark.django_db

FORM = {
    "name": "up",
    "title": "Upload",
    "kind": "mcqa",
    "source": "qs:csqa-demo",
    "qualification_pass_mark": "1.0",
    "attention_every": "0",
    "attention_max_failures": "1",
    "agreement_threshold": "0.6",
    "reservation_ttl_seconds": "600",
    "seed": "0",
}


def _upload(rows: list[dict[str, Any]], name: str = "mine.jsonl") -> SimpleUploadedFile:
    body = "".join(json.dumps(r) + "\n" for r in rows).encode()
    return SimpleUploadedFile(name, body, content_type="application/jsonl")


def _row(i: int, gold: list[int]) -> dict[str, Any]:
    return {"id": f"g{i}", "question": f"Question {i}?", "options": ["a", "b", "c", "d"], "gold": gold}


def test_the_form_takes_an_uploaded_gold_file(csqa_set, researcher) -> None:  # type: ignore[no-untyped-def]
    rows = [_row(0, [0]), _row(1, [1, 2]), _row(2, []), _row(3, [3])]
    r = researcher.post(reverse("annotation:campaign_new"), {**FORM, "qualification_file": _upload(rows)})
    assert r.status_code == 302, r.content.decode()[-2000:]
    c = Campaign.objects.get(name="up")
    assert c.qualification_source == "gold file mine.jsonl"
    quals = Item.objects.filter(campaign=c, role=Item.Role.QUALIFICATION).order_by("position")
    assert [(q.key, q.gold, q.payload["options"]) for q in quals][:2] == [
        ("gold:g0", {"plausible": [0]}, ["a", "b", "c", "d"]),
        ("gold:g1", {"plausible": [1, 2]}, ["a", "b", "c", "d"]),
    ]
    assert Item.objects.filter(campaign=c, role=Item.Role.REGULAR).count() == csqa_set.question_count
    page = researcher.get(reverse("annotation:dashboard", args=["up"])).content.decode()
    assert "Qualification: gold file mine.jsonl; pass mark 100 % of them exactly right." in page


def test_the_form_refuses_a_bad_file_and_a_test_that_does_not_screen(csqa_set, researcher) -> None:  # type: ignore[no-untyped-def]
    bad = [_row(0, [0]), {**_row(1, [0]), "gold": [7]}]
    r = researcher.post(reverse("annotation:campaign_new"), {**FORM, "qualification_file": _upload(bad)})
    page = r.content.decode()
    assert r.status_code == 400
    assert "gold file mine.jsonl, line 2, field &#x27;gold&#x27;: [7] outside 0..3" in page
    lazy = [_row(0, []), _row(1, []), _row(2, []), _row(3, [1])]  # "none" is right on three of four
    data = {**FORM, "qualification_pass_mark": "0.75", "qualification_file": _upload(lazy)}
    page = researcher.post(reverse("annotation:campaign_new"), data).content.decode()
    assert "would pass someone who does not read" in page
    assert "&#x27;No answers are correct&#x27; everywhere gets 3 of the pool&#x27;s 4 items right" in page
    own = {**FORM, "qualification_positions": "0-5"}  # the campaign's own, unverified items
    page = researcher.post(reverse("annotation:campaign_new"), own).content.decode()
    assert "come from a verified set or a gold file" in page
    assert not Campaign.objects.filter(name="up").exists()


def test_the_form_offers_verified_sets_and_the_shipped_gold_files(researcher, answered) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    call_command("verified_set", "val", name="val-verified", any_gold=True, verbosity=0)
    page = researcher.get(reverse("annotation:campaign_new")).content.decode()
    assert '<option value="qs:val-verified">Verified set · val-verified (6)</option>' in page
    assert '<option value="file:com2_demo_gold.jsonl">Gold file · com2_demo_gold.jsonl</option>' in page
    assert 'value="qs:ckbp-2i"' not in page.split('name="qualification_source"')[1].split("</select>")[0]


def test_campaign_create_takes_a_verified_set(csqa_set, answered) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    call_command("verified_set", "val", name="val-verified", any_gold=True, verbosity=0)
    call_command(
        "campaign_create", "--set", "csqa-demo", "--type", "mcqa", "--name", "vq", "--qualification-set", "val-verified"
    )
    c = Campaign.objects.get(name="vq")
    assert c.qualification_source == "verified set val-verified"
    verified = list(Question.objects.filter(question_set__name="val-verified").order_by("position"))
    quals = list(Item.objects.filter(campaign=c, role=Item.Role.QUALIFICATION).order_by("position"))
    assert len(quals) == len(verified) == 6
    for item, q in zip(quals, verified, strict=True):
        assert item.question_id == q.pk
        assert NONE_CORRECT not in item.payload["options"]
        answer = q.options[q.answer_index]
        expected = [] if answer == NONE_CORRECT else [item.payload["options"].index(answer)]
        assert item.gold == {"plausible": expected}
    assert sum(not i.gold["plausible"] for i in quals) == 1
    with pytest.raises(CommandError, match="'ckbp-2i' is not a verified set"):
        call_command(
            "campaign_create", "--set", "csqa-demo", "--type", "mcqa", "--name", "vq2", "--qualification-set", "ckbp-2i"
        )


def test_campaign_create_takes_a_gold_file_and_a_size(csqa_set, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    call_command(
        "campaign_create",
        *("--set", "csqa-demo", "--type", "mcqa", "--name", "gf", "--pass-mark", "0.8"),
        *("--qualification-file", str(GOLD_FILE), "--qualification-size", "6", "--qualification", "0-8"),
    )
    c = Campaign.objects.get(name="gf")
    assert (c.qualification_size, Item.objects.filter(campaign=c, role="qualification").count()) == (6, 9)
    (tmp_path / "x.jsonl").write_text('{"question": "Q?", "options": ["a"], "gold": [0]}\n')
    with pytest.raises(CommandError, match=r"gold file x.jsonl, line 1, field 'options': needs 2 to 10 options"):
        call_command(
            "campaign_create",
            *(
                "--set",
                "csqa-demo",
                "--type",
                "mcqa",
                "--name",
                "gf2",
                "--qualification-file",
                str(tmp_path / "x.jsonl"),
            ),
        )
