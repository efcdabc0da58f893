"""Readers refuse malformed input with an error naming file, line and field."""

from __future__ import annotations

from pathlib import Path

import pytest

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
    assert err.value.line == line and err.value.field == field
    assert needle in str(err.value) and "bad.tsv" in str(err.value)


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
    assert rows[0].plausibility == 1.0 and rows[1].relation == "general Effect"
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
    assert first.features["behavior"] == 1 and first.human_majority == 1
    assert len(first.model_answers) == 35
    assert set(first.model_answers["Mixtral-8x22B"]) == {"q1", "q2"}


def test_statements_reader_refuses_non_binary(tmp_path: Path) -> None:
    lines = (FIXTURES / "statements_demo.csv").read_text().splitlines()
    cells = lines[2].split(",")
    cells[-1] = "maybe"
    p = _write(tmp_path, "s.csv", "\n".join([lines[0], lines[1], ",".join(cells)]) + "\n")
    with pytest.raises(DataFormatError) as err:
        list(read_statements_csv(p))
    assert err.value.line == 3 and err.value.field == "Qwen2-72B_q2"


def test_csqa_reader_and_errors(tmp_path: Path) -> None:
    rows = list(read_csqa_jsonl(FIXTURES / "csqa_demo.jsonl"))
    assert len(rows) == 300 and all(len(r.options) == 5 for r in rows)
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
        assert "[MASK]" in r.stem and r.options[r.answer_index] in r.metadata["sentence"]


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
