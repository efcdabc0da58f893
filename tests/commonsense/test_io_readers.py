"""Readers refuse malformed input with an error naming file, line and field."""

from __future__ import annotations

import re
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from commonsense.io import DataFormatError
from commonsense.io.questions import read_csqa_jsonl, read_rica_axioms_jsonl, read_rica_probes_tsv
from commonsense.io.statements import read_statements_csv
from commonsense.io.triples import read_atomic_tsv, read_cskb_csv
from tests.conftest import FIXTURES, shared_file


def _write(tmp_path: Path, name: str, data: bytes | str) -> Path:
    p = tmp_path / name
    p.write_bytes(data.encode() if isinstance(data, str) else data)
    return p


def test_atomic_tsv_reads_rows_with_line_numbers(tmp_path: Path) -> None:
    p = _write(tmp_path, "a.tsv", "PersonX eats\txWant\tto sleep\n\nPersonX runs\txReact\ttired\n")
    rows = list(read_atomic_tsv(p))
    assert [(r.head, r.relation, r.tail, r.line) for r in rows] == [
        ("PersonX eats", "xWant", "to sleep", 1),
        ("PersonX runs", "xReact", "tired", 3),
    ]


@pytest.mark.parametrize(
    ("content", "line", "field", "needle"),
    [
        ("PersonX eats\txWant\n", 1, None, "expected 3 tab-separated columns"),
        ("a\txWant\tb\nPersonX eats\tisFriendOf\tc\n", 2, "relation", "unknown relation 'isFriendOf'"),
        ("a\txWant\tb\n\txWant\tc\n", 2, "head", "is empty"),
        ("a\txWant\t" + "x" * 20_000 + "\n", 1, "tail", "characters long"),
    ],
)
def test_atomic_tsv_errors(tmp_path: Path, content: str, line: int, field: str | None, needle: str) -> None:
    p = _write(tmp_path, "bad.tsv", content)
    with pytest.raises(DataFormatError) as err:
        list(read_atomic_tsv(p))
    assert err.value.line == line
    assert err.value.field == field
    assert needle in str(err.value)
    assert "bad.tsv" in str(err.value)


def test_bad_encoding_empty_and_huge_line(tmp_path: Path) -> None:
    bad = _write(tmp_path, "enc.tsv", b"a\txWant\tb\nPersonX caf\xe9\txWant\tc\n")
    with pytest.raises(DataFormatError, match=r"enc.tsv, line 2: not valid UTF-8"):
        list(read_atomic_tsv(bad))
    empty = _write(tmp_path, "empty.tsv", b"")
    with pytest.raises(DataFormatError, match="file is empty"):
        list(read_atomic_tsv(empty))
    huge = _write(tmp_path, "huge.tsv", b"a\txWant\tb\n" + b"y" * 2_000_000 + b"\n")
    with pytest.raises(DataFormatError, match=r"huge.tsv, line 2: line longer than"):
        list(read_atomic_tsv(huge))


def test_cskb_csv_keeps_label_and_checks_it(tmp_path: Path) -> None:
    ok = _write(
        tmp_path,
        "c.csv",
        "head,relation,tail,label,class,split\nPersonX go,xWant,PersonX eat,1,test_set,tst\n"
        "PersonX go,general Effect,PersonY cry,0,cs_head,dev\n",
    )
    rows = list(read_cskb_csv(ok))
    assert rows[0].plausibility == 1.0
    assert rows[1].relation == "general Effect"
    assert dict(rows[1].extra) == {"class": "cs_head", "split": "dev"}
    bad = _write(tmp_path, "c2.csv", "head,relation,tail,label,class,split\nPersonX go,xWant,PersonX eat,yes,t,tst\n")
    with pytest.raises(DataFormatError) as err:
        list(read_cskb_csv(bad))
    assert (err.value.line, err.value.field) == (2, "label")
    ragged = _write(tmp_path, "c3.csv", "head,relation,tail,label,class,split\nPersonX go,xWant,1\n")
    with pytest.raises(DataFormatError, match="expected 6 columns, found 3"):
        list(read_cskb_csv(ragged))
    nohead = _write(tmp_path, "c4.csv", "h,r,t\n")
    with pytest.raises(DataFormatError, match="header lacks column"):
        list(read_cskb_csv(nohead))


def test_statements_reader_on_fixture() -> None:
    rows = list(read_statements_csv(FIXTURES / "statements_demo.csv"))
    assert len(rows) == 1000
    first = rows[0]
    assert first.text == "A balanced diet and regular exercise is needed to remain healthy."
    assert first.features["behavior"] == 1
    assert first.human_majority == 1
    assert len(first.model_answers) == 35
    assert set(first.model_answers["Mixtral-8x22B"]) == {"q1", "q2"}


def test_statements_reader_refuses_non_binary(tmp_path: Path) -> None:
    lines = (FIXTURES / "statements_demo.csv").read_text().splitlines()
    cells = lines[2].split(",")
    cells[-1] = "maybe"
    p = _write(tmp_path, "s.csv", "\n".join([lines[0], lines[1], ",".join(cells)]) + "\n")
    with pytest.raises(DataFormatError) as err:
        list(read_statements_csv(p))
    assert err.value.line == 3
    assert err.value.field == "Qwen2-72B_q2"


def test_csqa_reader_and_errors(tmp_path: Path) -> None:
    rows = list(read_csqa_jsonl(FIXTURES / "csqa_demo.jsonl"))
    assert len(rows) == 300
    assert all(len(r.options) == 5 for r in rows)
    assert rows[0].options[rows[0].answer_index] == "complete job"
    bad = _write(
        tmp_path,
        "q.jsonl",
        '{"id": "x", "question": "Q?", "choices": {"label": ["A","B"], "text": ["a","b"]}, "answerKey": "C"}\n',
    )
    with pytest.raises(DataFormatError) as err:
        list(read_csqa_jsonl(bad))
    assert (err.value.line, err.value.field) == (1, "answerKey")
    broken = _write(tmp_path, "q2.jsonl", '{"id": "x", "question": "Q?"\n')
    with pytest.raises(DataFormatError, match="line 1: invalid JSON"):
        list(read_csqa_jsonl(broken))


def test_rica_probe_reader_masks_and_groups() -> None:
    rows = list(read_rica_probes_tsv(shared_file("rica/human_curated_test.tsv")))
    assert len(rows) == 1047
    first = rows[0]
    assert first.stem == "axih is smaller than exdvxr, so axih is [MASK] to put into a box than exdvxr"
    assert first.options[first.answer_index] == "easier"
    assert first.group == "A is smaller than B"
    assert len({r.group for r in rows}) < len(rows)


def test_rica_axiom_reader_keeps_axiom_groups() -> None:
    rows = list(read_rica_axioms_jsonl(shared_file("rica/RICA_10k_axiom2set.jsonl")))
    groups = {r.group for r in rows}
    assert len(groups) > 900  # nearly all of the 1,058 axioms yield maskable sentences
    perts = {r.metadata["perturbation"] for r in rows}
    assert {"original", "negated", "asymmetric_premise"} <= perts
    for r in rows[:50]:
        assert "[MASK]" in r.stem
        assert r.options[r.answer_index] in r.metadata["sentence"]


def test_nul_characters_are_refused_with_their_line(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """PostgreSQL cannot store NUL in text (psycopg DataError): the readers refuse it first."""
    import pytest

    from commonsense.io.errors import DataFormatError, check_field
    from commonsense.io.triples import iter_atomic_tsv

    f = tmp_path / "nul.tsv"
    f.write_bytes(b"PersonX eats\txWant\tto rest\nPersonX\x00 runs\txWant\tto rest\n")
    with pytest.raises(DataFormatError, match=r"nul\.tsv.*line 2.*NUL character \(column 8\)"):
        list(iter_atomic_tsv(f))
    with pytest.raises(DataFormatError, match="question.*NUL"):
        check_field(f, 3, "question", "why\x00")


def test_a_json_nul_escape_is_refused_with_its_line(tmp_path) -> None:  # type: ignore[no-untyped-def]
    import pytest

    from commonsense.io.errors import DataFormatError
    from commonsense.io.questions import read_csqa_jsonl

    f = tmp_path / "q.jsonl"
    f.write_text(
        '{"id": "a", "question": "Why?\\u0000", "choices": {"label": ["A"], "text": ["x"]}, "answerKey": "A"}\n'
    )
    with pytest.raises(DataFormatError, match=r"q\.jsonl.*line 1.*NUL"):
        list(read_csqa_jsonl(f))


def _line_by_line(p: Path) -> list[tuple[str, str, str, int]]:
    """The reference: every line through the per-line checks (the reader before block reading)."""
    from commonsense.io.text import iter_lines
    from commonsense.io.triples import _atomic_rows

    rows = list(_atomic_rows(p, iter_lines(p), {}))
    if not rows:
        raise DataFormatError(p, None, None, "no triples found")
    return rows


def _outcome(read, p: Path) -> tuple:  # type: ignore[no-untyped-def,type-arg]
    try:
        return ("rows", read(p))
    except DataFormatError as exc:
        return ("error", exc.line, exc.field, str(exc))


def _blocks(block_bytes: int):  # type: ignore[no-untyped-def]
    from commonsense.io.triples import iter_atomic_tsv_columns

    return lambda p: [row for cols in iter_atomic_tsv_columns(p, block_bytes) for row in zip(*cols, strict=True)]


BAD_LINES = {
    "columns": ("a\txWant\n", None, "expected 3 tab-separated columns"),
    # the block's tab count is right (four fields, then two): read as a whole it would pass as two
    # triples with a relation where the next line's head is; the shape check is per line
    "shifted columns": (
        "a\txWant\tb\tc\nxNeed\td\n",
        None,
        "expected 3 tab-separated columns (head, relation, tail), found 4",
    ),
    "relation": ("a\tLikes\tb\n", "relation", "unknown relation 'Likes'"),
    "empty head": (" \txWant\tb\n", "head", "is empty"),
    "long tail": ("a\txWant\t" + "x" * 10_001 + "\n", "tail", "characters long"),
    "nul": ("a\x00\txWant\tb\n", None, "NUL character (column 2)"),
    "encoding": (b"caf\xe9\txWant\tb\n", None, "not valid UTF-8"),
    "huge line": (b"y" * 1_100_000 + b"\n", None, "line longer than"),
}


@pytest.mark.parametrize("kind", sorted(BAD_LINES))
def test_block_reader_locates_an_error_in_a_later_block_like_the_line_reader(tmp_path: Path, kind: str) -> None:
    """The bulk importer reads whole blocks at once; a bad line deep in the file (many blocks in)
    is reported with the same line, field and message as the line-by-line reader gives."""
    bad, field, needle = BAD_LINES[kind]
    good = "".join(f"PersonX eats {i}\txWant\tto sleep {i % 5}\r\n" for i in range(400))
    p = tmp_path / "deep.tsv"
    p.write_bytes(
        "\ufeff".encode() + good.encode() + (bad if isinstance(bad, bytes) else bad.encode()) + b"a\txNeed\tb\n"
    )
    expected = _outcome(_line_by_line, p)
    assert expected[:3] == ("error", 401, field)
    assert needle in expected[3]
    assert "deep.tsv, line 401" in expected[3]
    for block_bytes in (64, 1000, 1 << 20):
        assert _outcome(_blocks(block_bytes), p) == expected


def test_block_reader_gives_the_line_readers_rows(tmp_path: Path) -> None:
    """Blank lines, CRLF endings, a byte-order mark, padded fields, relation spellings: the same
    rows and line numbers whichever block size."""
    p = tmp_path / "ok.tsv"
    p.write_bytes(
        "\ufeffPersonX eats\txWant\tto sleep\r\n\n  \t \n PersonX runs \t xReact \ttired\n"
        "PersonY sings\tHinderedBy\t  loud  \r\r\n".encode()
    )
    expected = [
        ("PersonX eats", "xWant", "to sleep", 1),
        ("PersonX runs", "xReact", "tired", 4),
        ("PersonY sings", "HinderedBy", "loud", 5),
    ]
    assert _line_by_line(p) == expected
    assert [(r.head, r.relation, r.tail, r.line) for r in read_atomic_tsv(p)] == expected
    for block_bytes in (1, 7, 64, 1 << 20):
        assert _outcome(_blocks(block_bytes), p) == ("rows", expected)


_cell = st.text(alphabet=st.sampled_from(["a", "b", " ", "\r", "\t", "\x00", "\ufeff", "\u00e9", "\x1c"]), max_size=6)
_line = st.one_of(
    st.tuples(_cell, st.sampled_from(["xWant", " xNeed", "Likes", "", "\r"]), _cell).map("\t".join),
    _cell,
)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(_line, max_size=12).map(lambda ls: "\n".join(ls).encode()),
    st.sampled_from([b"", b"\xff", b"\xef\xbb\xbf"]),
    st.integers(1, 80),
)
def test_block_reader_equals_the_line_reader_on_any_input(body: bytes, prefix: bytes, block_bytes: int) -> None:
    """Any content, any block size: the block reader gives the line reader's rows, or its error
    (same line, field and message)."""
    with tempfile.TemporaryDirectory() as d:
        p = Path(d) / "f.tsv"
        p.write_bytes(prefix + body)
        assert _outcome(_blocks(block_bytes), p) == _outcome(_line_by_line, p)


def _encoded_rows(p: Path) -> list[tuple[str, str, str, int]] | None:
    from commonsense.io.triples import read_atomic_tsv_encoded

    enc = read_atomic_tsv_encoded(p)
    if enc is None:
        return None
    assert enc.texts == sorted(set(enc.texts), key=str.encode)  # distinct, in UTF-8 byte order
    codes = enc.relation_codes.tolist()
    return [
        (enc.texts[h], enc.relations[r], enc.texts[t], i)
        for i, (h, r, t) in enumerate(zip(enc.heads.tolist(), codes, enc.tails.tolist(), strict=True), 1)
    ]


def test_python_whitespace_is_what_str_strip_removes() -> None:
    from commonsense.io.triples import PY_WHITESPACE

    assert set(PY_WHITESPACE) == {c for c in map(chr, range(0x110000)) if c.isspace()}


_arrow_cell = st.text(
    alphabet=st.sampled_from(
        ["a", "b", "é", "Ω", "☕", " ", "\r", "\t", "\x00", "\ufeff", "\x1c", "\x85", "\u3000", '"']
    ),
    max_size=6,
)
_arrow_line = st.one_of(
    st.tuples(_arrow_cell, st.sampled_from(["xWant", " xNeed", "Likes", "", "\r", "xReact\u3000"]), _arrow_cell).map(
        "\t".join
    ),
    _arrow_cell,
)


# mostly well-formed lines (texts padded with str.strip's whitespace, quotes, a byte-order mark
# inside a text), so that the fast path is taken often and its rows compared
_pad = st.text(alphabet=st.sampled_from([" ", "\x1c", "\x85", "\u3000", "\x0b"]), max_size=2)
_word = st.text(alphabet=st.sampled_from(["a", "b", "é", "Ω", "☕", '"', "\ufeff"]), min_size=1, max_size=4).map(
    "a".__add__
)
_plain_text = st.tuples(_pad, st.lists(_word, min_size=1, max_size=3).map(" ".join), _pad).map("".join)
_plain_line = st.tuples(
    _plain_text, st.sampled_from(["xWant", " xNeed", "xReact\u3000", "HinderedBy", "isAfter"]), _plain_text
).map("\t".join)


@settings(max_examples=400, deadline=None)
@given(
    st.lists(st.one_of(*[_plain_line] * 8, _arrow_line), min_size=1, max_size=12).map(
        lambda ls: "\n".join(ls).encode()
    ),
    st.sampled_from([b""] * 8 + [b"\xff", b"\xef\xbb\xbf", b"\xed\xa0\x80", b"\xc0\x80"]),
    st.sampled_from([b"", b"\n", b"\n", b"\n", b"\r\n", b"\r", b"\n\n"]),
)
def test_arrow_reader_gives_the_line_readers_rows_or_declines(body: bytes, prefix: bytes, suffix: bytes) -> None:
    """The Arrow fast path either declines the file (the importer then reads it block by block,
    which names any error) or gives exactly the line reader's rows and line numbers: it never
    accepts a file the line reader refuses, and never reads a row differently."""
    with tempfile.TemporaryDirectory() as d:
        p = Path(d) / "f.tsv"
        p.write_bytes(prefix + body + suffix)
        if not (prefix + body + suffix):
            return  # the readers refuse an empty file before reading
        got = _encoded_rows(p)
        if got is not None:
            assert _outcome(_line_by_line, p) == ("rows", got)


@settings(max_examples=200, deadline=None)
@given(st.lists(_plain_line, min_size=1, max_size=30), st.sampled_from(["\n", "\r\n"]), st.booleans())
def test_arrow_reader_takes_plain_files_and_gives_the_line_readers_rows(
    lines: list[str], eol: str, last_eol: bool
) -> None:
    """Well-formed files (fields padded with any of str.strip's whitespace, LF or CRLF, with or
    without a last newline) take the fast path, with the line reader's rows."""
    with tempfile.TemporaryDirectory() as d:
        p = Path(d) / "f.tsv"
        p.write_bytes((eol.join(lines) + (eol if last_eol else "")).encode())
        got = _encoded_rows(p)
        assert got is not None
        assert ("rows", got) == _outcome(_line_by_line, p)
        assert len(got) == len(lines)


def test_arrow_reader_reads_plain_files_and_declines_what_it_cannot_place(tmp_path: Path) -> None:
    """A plain file (no header, LF or CRLF endings, padded fields, texts beyond Latin-1) takes the
    fast path with the line reader's rows; a blank line, a lone carriage return, a byte-order mark
    or a short line make it decline, and the block reader then names the bad line."""
    from commonsense.io.triples import iter_atomic_tsv_columns

    plain = "PersonX eats\txWant\tto sleep\n PersonX runs \t xReact \ttired  \nPersonY Ωmega\tHinderedBy\t☕ break"
    for eol in ("\n", "\r\n"):
        p = _write(tmp_path, "plain.tsv", plain.replace("\n", eol) + eol)
        assert (
            _encoded_rows(p)
            == _line_by_line(p)
            == [
                ("PersonX eats", "xWant", "to sleep", 1),
                ("PersonX runs", "xReact", "tired", 2),
                ("PersonY Ωmega", "HinderedBy", "☕ break", 3),
            ]
        )
    for name, data, error in [
        ("blank.tsv", plain + "\n\nPersonZ\txWant\tz\n", None),
        (
            "cr.tsv",
            "a\txWant\tb\rc\txWant\td\n",
            "line 1: expected 3 tab-separated columns (head, relation, tail), found 5",
        ),
        ("bom.tsv", "\ufeff" + plain, None),
        ("short.tsv", plain + "\nPersonZ\txWant\n", "line 4: expected 3 tab-separated columns"),
        ("relation.tsv", plain + "\nPersonZ\tLikes\tz\n", "line 4, field 'relation': unknown relation 'Likes'"),
    ]:
        p = _write(tmp_path, name, data)
        assert _encoded_rows(p) is None, name
        if error is None:
            assert _outcome(_line_by_line, p)[0] == "rows"
        else:
            with pytest.raises(DataFormatError, match=re.escape(f"{name}, {error}")):
                list(iter_atomic_tsv_columns(p))
