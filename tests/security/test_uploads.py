"""Upload limits on the browser import forms (data import, ratings import): a file over the size
limit, of the wrong type, or not text at all gets a clear error and nothing is stored; the size
limit holds while the body is read (the file is not kept in memory or on disk past the limit)."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client, RequestFactory
from django.urls import reverse
from hypothesis import HealthCheck, given
from hypothesis import settings as fuzz_settings
from hypothesis import strategies as st

from annotation.models import Assignment, Membership, Response
from cocoweb.uploads import OversizedUpload
from knowledge.models import Graph, ImportSource, Node, Question, QuestionSet, Statement, StatementSet, Triple
from tests.security.conftest import World

pytestmark = pytest.mark.django_db

GOOD_TSV = b"".join(b"PersonX eats bread %d\txWant\tto be full\n" % i for i in range(200))


def _knowledge_state() -> tuple[int, ...]:
    return tuple(
        m.objects.count() for m in (Graph, Node, Triple, ImportSource, QuestionSet, Question, StatementSet, Statement)
    )


def _annotation_state() -> tuple[int, ...]:
    from django.contrib.auth import get_user_model

    return (
        Response.objects.count(),
        Assignment.objects.count(),
        Membership.objects.count(),
        get_user_model().objects.count(),
    )


def _import(c: Client, name: str, content: bytes, kind: str = "graph:atomic-tsv") -> Any:
    return c.post(reverse("knowledge:import"), {"kind": kind, "name": "upl", "file": SimpleUploadedFile(name, content)})


def test_data_import_too_large(world: World, settings: Any) -> None:
    settings.COCOWEB_MAX_UPLOAD_BYTES = 1000
    before = _knowledge_state()
    r = _import(world.client("researcher"), "atomic.tsv", GOOD_TSV)
    page = r.content.decode()
    assert r.status_code == 400
    assert f"the file is {len(GOOD_TSV):,} bytes; the limit is 1,000 bytes" in page
    assert _knowledge_state() == before
    settings.COCOWEB_MAX_UPLOAD_BYTES = 10_000_000  # the same file under the limit imports
    assert _import(world.client("researcher"), "atomic.tsv", GOOD_TSV).status_code == 302
    assert Graph.objects.filter(name="upl", triple_count=200).exists()


@pytest.mark.parametrize("name", ["atomic.exe", "atomic.png", "atomic.tsv.zip", "atomic"])
def test_data_import_wrong_type(world: World, name: str) -> None:
    before = _knowledge_state()
    r = _import(world.client("researcher"), name, GOOD_TSV)
    assert r.status_code == 400
    assert "unsupported file type" in r.content.decode()
    assert _knowledge_state() == before


@pytest.mark.parametrize(
    ("kind", "name"), [("graph:atomic-tsv", "a.tsv"), ("statements:nww-csv", "s.csv"), ("questions:csqa", "q.jsonl")]
)
def test_data_import_binary_content_with_a_text_name(world: World, kind: str, name: str) -> None:
    png = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)) * 4
    before = _knowledge_state()
    r = _import(world.client("researcher"), name, png, kind=kind)
    page = r.content.decode()
    assert r.status_code == 400
    assert "nothing was stored" in page
    assert name in page
    assert _knowledge_state() == before


def _ratings(c: Client, world: World, name: str, content: bytes) -> Any:
    return c.post(
        reverse("annotation:import", args=[world.plain.name]),
        {"file": SimpleUploadedFile(name, content), "create_raters": "on"},
    )


def _ratings_csv(world: World, raters: int) -> bytes:
    keys = [i.key for i in world.plain.items.filter(role="regular").exclude(pk=world.plain_item.pk)[:1]]
    return (f"rater,{keys[0]}:1,{keys[0]}:2\n" + "".join(f"imported-{i},yes,no\n" for i in range(raters))).encode()


def test_ratings_import_too_large(world: World, settings: Any) -> None:
    body = _ratings_csv(world, 1)
    settings.COCOWEB_MAX_RATINGS_BYTES = 20
    before = _annotation_state()
    r = _ratings(world.client("researcher"), world, "ratings.csv", body)
    assert r.status_code == 400
    assert f"the file is {len(body):,} bytes; the limit is 20 bytes" in r.content.decode()
    assert _annotation_state() == before
    settings.COCOWEB_MAX_RATINGS_BYTES = 10_000  # under the limit: imported
    assert _ratings(world.client("researcher"), world, "ratings.csv", body).status_code == 302
    assert Response.objects.filter(user__username="imported-0", source="import").count() == 1


def test_ratings_import_over_the_upload_limit_is_cut_while_read(world: World, settings: Any) -> None:
    settings.COCOWEB_MAX_UPLOAD_BYTES = 64
    body = _ratings_csv(world, 20)
    before = _annotation_state()
    r = _ratings(world.client("researcher"), world, "ratings.csv", body)
    assert r.status_code == 400
    assert f"the file is {len(body):,} bytes; the limit is 64 bytes" in r.content.decode()
    assert _annotation_state() == before


@pytest.mark.parametrize("name", ["ratings.xlsx", "ratings.exe", "ratings"])
def test_ratings_import_wrong_type(world: World, name: str) -> None:
    before = _annotation_state()
    r = _ratings(world.client("researcher"), world, name, _ratings_csv(world, 1))
    assert r.status_code == 400
    assert "is not a CSV file" in r.content.decode()
    assert _annotation_state() == before


@pytest.mark.parametrize(
    ("content", "needle"),
    [
        (b"\x89PNG\r\n\x1a\n" + bytes(range(256)), "not UTF-8 text"),
        (b"rater,k:1\nx," + b"y" * 200_000 + b"\n", "not a CSV file"),  # one field past csv's field limit
        (b"\x00\x00\x00\x00", "the first column must be"),
        (b"", "The submitted file is empty."),
    ],
)
def test_ratings_import_not_a_csv(world: World, content: bytes, needle: str) -> None:
    before = _annotation_state()
    r = _ratings(world.client("researcher"), world, "ratings.csv", content)
    page = r.content.decode()
    assert r.status_code == 400, page[-2000:]
    assert needle in page, page[-2000:]
    assert content == b"" or "Nothing was stored." in page
    assert _annotation_state() == before


def test_the_size_limit_handler_keeps_nothing_past_the_limit(settings: Any) -> None:
    settings.COCOWEB_MAX_UPLOAD_BYTES = 100_000
    big = b"x" * 300_000
    req = RequestFactory().post(
        "/knowledge/import/", {"name": "n", "file": SimpleUploadedFile("big.tsv", big), "after": "still read"}
    )
    f = req.FILES["file"]
    assert isinstance(f, OversizedUpload)
    assert f.size == len(big)
    assert f.read() == b""
    assert req.POST["after"] == "still read"  # the fields after the file still arrive
    small = (
        RequestFactory().post("/knowledge/import/", {"file": SimpleUploadedFile("s.tsv", b"y" * 1000)}).FILES["file"]
    )
    assert not isinstance(small, OversizedUpload)
    assert small.read() == b"y" * 1000


# --- the ratings importer, fuzzed --------------------------------------------------------------

# A well-formed file with none, one or two mistakes of every kind the importer must name.
_YES_NO = st.sampled_from(["yes", "no", "y", "n", "1", "0", "YES", " no ", "true", "false"])
_MISTAKES = [
    "header",
    "unknown key",
    "bad question",
    "ragged",
    "bad cell",
    "repeated rater",
    "empty rater",
    "no rows",
    "partly empty",
]


@st.composite
def _ratings_files(draw: st.DrawFn, keys: list[str]) -> bytes:
    cols = draw(
        st.lists(
            st.tuples(st.sampled_from(keys), st.sampled_from(["1", "2", "3", "4", "5", "bad"])),
            min_size=1,
            max_size=4,
            unique=True,
        )
    )
    raters = draw(
        st.lists(
            st.sampled_from(["sec-annotator", "sec-researcher", "fz-new-1", "fz-new-2", "fz-new-3"]),
            min_size=1,
            max_size=3,
            unique=True,
        )
    )
    header = ["rater"] + [f"{k}:{q}" for k, q in cols]
    rows = [[r] + [draw(_YES_NO) for _ in cols] for r in raters]
    for mistake in draw(st.lists(st.sampled_from(_MISTAKES), max_size=2)) if draw(st.booleans()) else []:
        if not rows:
            break
        row = rows[draw(st.integers(0, len(rows) - 1))]
        if mistake == "header":
            header[0] = draw(st.sampled_from(["who", "", "Rater ", "rater;"]))
        elif mistake == "unknown key":
            header.append("nope:1")
            for r in rows:
                r.append("yes")
        elif mistake == "bad question":
            header[-1] = header[-1].rsplit(":", 1)[0] + ":" + draw(st.sampled_from(["6", "0", "a", "valid", ""]))
        elif mistake == "ragged":
            row.append("yes") if draw(st.booleans()) else row.pop()
        elif mistake == "bad cell" and len(row) > 1:
            row[-1] = draw(st.sampled_from(["maybe", "2", "0.5", "ja", "\x00"]))
        elif mistake == "repeated rater":
            rows.append(list(row))
        elif mistake == "empty rater":
            row[0] = ""
        elif mistake == "no rows":
            rows = []
        elif mistake == "partly empty" and len(row) > 1:
            row[1] = ""
    text = "\n".join(",".join(line) for line in [header, *rows])
    data = text.encode("utf-8")
    if draw(st.integers(0, 9)) == 0:
        data = draw(st.binary(max_size=200))
    elif draw(st.integers(0, 9)) == 0:
        data = data[: draw(st.integers(0, len(data)))] + b"\xff\xfe" + data  # not UTF-8
    return data


def test_ratings_import_fuzz(world: World) -> None:
    from django.contrib.auth import get_user_model

    from annotation.models import Item
    from annotation.services.campaigns import campaign_create
    from annotation.services.ratings_import import RatingsImportRefused, ratings_import

    target = campaign_create(name="sec-fuzz", title="fuzz", kind="mcqa", question_set=world.qset, redundancy=1000)
    keys = list(Item.objects.filter(campaign=target, role="regular").values_list("key", flat=True)[:3])
    outcomes = {"imported": 0, "refused": 0}

    def state() -> tuple[int, ...]:
        return (
            *_annotation_state(),
            get_user_model().objects.filter(is_active=False).count(),
            *Item.objects.filter(campaign=target).values_list("slots_taken", "answer_count"),
        )

    @fuzz_settings(max_examples=80, deadline=None, suppress_health_check=list(HealthCheck), database=None)
    @given(data=_ratings_files(keys), create=st.booleans())
    def run(data: bytes, create: bool) -> None:
        before = state()
        try:
            result = ratings_import(target, data, create_raters=create)
        except RatingsImportRefused as exc:
            assert exc.errors
            assert all(isinstance(e, str) and e for e in exc.errors)
            assert state() == before  # refused: nothing stored
            outcomes["refused"] += 1
        else:
            assert result.responses > 0
            assert Response.objects.count() == before[0] + result.responses
            outcomes["imported"] += 1

    run()
    assert outcomes["refused"] > 0, outcomes
    assert outcomes["imported"] > 0, outcomes
