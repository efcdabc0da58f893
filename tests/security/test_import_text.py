"""Issue 17 item 6: one bad character must not take pages down. Every reader refuses lone
surrogates, deep JSON nesting and huge integers with a located error (file, line); a hypothesis
property test feeds such strings through every importer and, when an import succeeds, through every
page that shows the imported text (set pages, the graph explorer, a campaign's item page)."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse
from hypothesis import HealthCheck, given
from hypothesis import settings as fuzz_settings
from hypothesis import strategies as st

from accounts.services import role_groups_sync, user_create_with_role
from annotation.services.campaigns import campaign_create, campaign_status_set
from annotation.services.ratings_import import RatingsImportRefused, ratings_import
from commonsense.io import DataFormatError
from commonsense.io.questions import read_questions
from commonsense.scoring.recoms_replay import PathsFile, PathsFileError
from knowledge.models import QuestionSet, StatementSet
from knowledge.services.imports import ImportRefused, graph_import, questions_import, statements_import

pytestmark = pytest.mark.django_db
CHOICES = {"label": list("ABCDE"), "text": ["a", "b", "c", "d", "e"]}


def _csqa_line(**over: Any) -> str:
    return json.dumps({"id": "q1", "question": "Where?", "choices": CHOICES, "answerKey": "A", **over})


@pytest.mark.parametrize(
    ("line", "message"),
    [
        (_csqa_line(choices={"label": list("ABCDE"), "text": ["\ud800", "b", "c", "d", "e"]}), "lone surrogate"),
        (_csqa_line(question="Where \udfff?"), "lone surrogate"),
        ('{"id": "q1", "x": ' + "[" * 200_000 + "]" * 200_000 + "}", "nested more than"),
        ('{"id": ' + "9" * 5000 + ', "question": "Where?"}', "5,000 digits"),
        ('{"id": "q1", "deep": ' + "[" * 40 + "1" + "]" * 40 + "}", "nested more than 32 levels"),
    ],
)
def test_csqa_reader_refuses_with_a_located_error(tmp_path: Path, line: str, message: str) -> None:
    p = tmp_path / "bad.jsonl"
    p.write_text(_csqa_line() + "\n" + line + "\n")
    with pytest.raises(DataFormatError, match=message) as exc:
        list(read_questions(p, "csqa"))
    assert exc.value.line == 2
    assert "bad.jsonl, line 2" in str(exc.value)


def test_rica_probe_options_are_checked(tmp_path: Path) -> None:
    p = tmp_path / "probes.tsv"
    p.write_text(
        "line_no\tsentence\tanswer\toptions\n1\tA is heavier than B, so A is more likely to sink.\tmore\t"
        "['more', '\\ud800']\n"
    )
    with pytest.raises(DataFormatError, match="lone surrogate"):
        list(read_questions(p, "rica-probes"))
    p.write_text("line_no\tsentence\tanswer\toptions\n1\tA sinks, so A is more likely.\tmore\t" + "[" * 500 + "\n")
    with pytest.raises(DataFormatError, match="list literal"):
        list(read_questions(p, "rica-probes"))


def test_paths_file_refuses_surrogates_and_nesting(tmp_path: Path) -> None:
    p = tmp_path / "paths.jsonl"
    p.write_text('{"id": "1", "paths": [{"text": "\\ud800"}]}\n')
    with pytest.raises(PathsFileError, match="paths.jsonl:1: .*lone surrogate"):
        PathsFile(p)
    p.write_text('{"id": "1", "paths": ' + "[" * 100_000 + "]" * 100_000 + "}\n")
    with pytest.raises(PathsFileError, match="nested"):
        PathsFile(p)


def test_ratings_header_with_a_huge_or_odd_number_is_refused(tmp_path: Path) -> None:
    role_groups_sync()
    user = user_create_with_role("r-owner", "researcher", "pw-long-enough-123")
    questions_import(_csqa_file(tmp_path, ["a", "b"]), name="rt", fmt="csqa")
    c = campaign_create(name="rt", title="rt", kind="mcqa", question_set=QuestionSet.objects.get(name="rt"), user=user)
    key = c.items.order_by("position").first().key  # type: ignore[union-attr]
    for q in ("9" * 5000, "²"):
        with pytest.raises(RatingsImportRefused, match="unknown question"):
            ratings_import(c, f"rater,{key}:{q}\nann,1\n")


# ------------------------------------------------------------------ property test: importers and pages

# Any code point, surrogates included; text for JSON goes through json.dumps (\\ud800 escapes).
# (hypothesis' characters() never draws surrogates, so they are mixed in explicitly).
any_text = st.text(
    alphabet=st.one_of(st.characters(min_codepoint=1), st.integers(0xD800, 0xDFFF).map(chr)), min_size=1, max_size=12
)
_names = itertools.count()


def _csqa_file(tmp_path: Path, texts: list[str], question: str = "Where would you go?") -> Path:
    p = tmp_path / f"q{next(_names)}.jsonl"
    opts = (texts + ["x1", "x2", "x3", "x4", "x5"])[:5]
    p.write_text(
        json.dumps(
            {"id": "q1", "question": question, "choices": {"label": list("ABCDE"), "text": opts}, "answerKey": "A"}
        )
        + "\n"
    )
    return p


def _tsv_bytes(text: str) -> bytes:
    return f"PersonX {text}\txWant\tto {text}\n".encode("utf-8", "surrogatepass")


def _statements_bytes(text: str) -> bytes:
    head = ",statement,behavior,everyday,figure_of_speech,judgment,opinion,reasoning,category,elicitation,human_q1\n"
    return (head + f'1,"{text.replace(chr(34), "")}",1,1,0,1,0,1,cat,x,1\n').encode("utf-8", "surrogatepass")


@pytest.fixture
def people() -> dict[str, Client]:
    role_groups_sync()
    out = {}
    for role in ("researcher", "annotator"):
        c = Client()
        c.force_login(user_create_with_role(f"p-{role}", role, "pw-long-enough-123"))
        out[role] = c
    return out


def _ok(client: Client, url: str, **headers: str) -> None:
    r = client.get(url, **headers)
    assert r.status_code == 200, (url, r.status_code)


FUZZ = fuzz_settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@FUZZ
@given(text=any_text)
def test_any_text_imports_cleanly_or_is_refused_and_pages_show_it(
    text: str, tmp_path: Path, people: dict[str, Client]
) -> None:
    n = next(_names)
    # Question set (JSON: surrogates arrive as \\ud800 escapes) -> set page -> campaign item page.
    try:
        questions_import(_csqa_file(tmp_path, [text], question=f"Where {text}?"), name=f"fq{n}", fmt="csqa")
    except (DataFormatError, ImportRefused) as exc:
        assert "line 1" in str(exc) or "field" in str(exc)
    else:
        qset = QuestionSet.objects.get(name=f"fq{n}")
        _ok(people["researcher"], reverse("knowledge:question_set", args=[qset.name]))
        camp = campaign_status_set(
            campaign_create(name=f"fc{n}", title="c", kind="mcqa", question_set=qset, redundancy=1), "open"
        )
        _ok(people["annotator"], reverse("annotation:work", args=[camp.name]))
        _ok(people["annotator"], reverse("annotation:item", args=[camp.name]), HTTP_HX_REQUEST="true")
    # Graph (TSV bytes: a surrogate is invalid UTF-8) -> graph page and explorer.
    tsv = tmp_path / f"g{n}.tsv"
    tsv.write_bytes(_tsv_bytes(text))
    try:
        graph_import(tsv, name=f"fg{n}", fmt="atomic-tsv")
    except (DataFormatError, ImportRefused):
        pass
    else:
        _ok(people["researcher"], reverse("knowledge:graph", args=[f"fg{n}"]))
        _ok(people["researcher"], reverse("explorer:graph", args=[f"fg{n}"]))
    # Statements CSV -> statement set page.
    csv_path = tmp_path / f"s{n}.csv"
    csv_path.write_bytes(_statements_bytes(text))
    try:
        statements_import(csv_path, name=f"fs{n}")
    except (DataFormatError, ImportRefused):
        pass
    else:
        sset = StatementSet.objects.get(name=f"fs{n}")
        _ok(people["researcher"], reverse("knowledge:statement_set", args=[sset.name]))
