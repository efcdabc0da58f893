"""Gold files (:mod:`commonsense.io.gold`), the source of a qualification test: every plausible option
marked; cocoweb's own JSONL export is one; every error names the file, the line and the field."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from commonsense.io.errors import DataFormatError
from commonsense.io.gold import read_gold_items
from commonsense.validation import NONE_CORRECT
from tests.conftest import GOLD_FILE


def _write(tmp_path: Path, *rows: object) -> Path:
    p = tmp_path / "gold.jsonl"
    p.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows), encoding="utf-8")
    return p


OK = {"question": "What does Ann feel?", "options": ["happy", "sad", "a chair"], "gold": [0, 1]}


def test_the_demo_gold_file_reads() -> None:
    items = read_gold_items(GOLD_FILE)
    assert len(items) == 10
    assert all(len(i.options) == 5 for i in items)
    assert sum(not i.plausible for i in items) == 2
    assert sum(len(i.plausible) == 2 for i in items) == 3
    assert all(i.why for i in items)


def test_the_three_ways_to_give_the_gold(tmp_path: Path) -> None:
    export_line = {  # a line of cocoweb's own JSONL export of a verified set: option E is "None …"
        "id": "v1",
        "context": "Ann trips.",
        "question": "What does Ann feel?",
        "options": ["proud", "bored", "rich", "tall", NONE_CORRECT],
        "answer_index": 4,
        "answers": [NONE_CORRECT],
    }
    items = read_gold_items(
        _write(
            tmp_path,
            OK,
            {**OK, "id": "b", "gold": []},
            {"id": "c", "stem": "Q?", "options": ["x", "y"], "answers": ["y"]},
            {"id": "d", "question": "Q?", "options": ["x", "y"], "answer_index": 0},
            export_line,
        )
    )
    assert [i.plausible for i in items] == [[0, 1], [], [1], [0], []]
    assert items[4].options == ["proud", "bored", "rich", "tall"]
    assert items[4].context == "Ann trips."
    assert [i.key for i in items] == ["1", "b", "c", "d", "v1"]


@pytest.mark.parametrize(
    ("row", "field", "message"),
    [
        ({**OK, "gold": [3]}, "gold", "[3] outside 0..2"),
        ({**OK, "gold": "0"}, "gold", "must be a list of option indices"),
        ({k: v for k, v in OK.items() if k != "gold"}, "gold", "no gold"),
        ({**OK, "options": ["a", "a"]}, "options", "two options have the same text"),
        ({**OK, "options": ["only"], "gold": [0]}, "options", "needs 2 to 10 options"),
        ({**OK, "question": ""}, "question", "is empty"),
        ({**OK, "gold": None, "answers": ["nope"]}, "answers", "'nope' is not one of the options"),
        ({**OK, "options": ["a", "b", NONE_CORRECT], "gold": [0, 2]}, "gold", "cannot be gold beside"),
    ],
)
def test_errors_name_file_line_and_field(tmp_path: Path, row: dict[str, object], field: str, message: str) -> None:
    if row.get("gold") is None and "answers" in row:
        row = {k: v for k, v in row.items() if k != "gold"}
    with pytest.raises(DataFormatError) as err:
        read_gold_items(_write(tmp_path, OK, row))
    e = err.value
    assert (Path(e.path).name, e.line, e.field) == ("gold.jsonl", 2, field)
    assert message in e.message


def test_bad_json_repeated_ids_and_an_empty_file(tmp_path: Path) -> None:
    with pytest.raises(DataFormatError, match=r"gold.jsonl, line 2: invalid JSON"):
        read_gold_items(_write(tmp_path, OK, "{not json"))
    with pytest.raises(DataFormatError, match=r"line 2, field 'id': 'x' was used on line 1 already"):
        read_gold_items(_write(tmp_path, {**OK, "id": "x"}, {**OK, "id": "x"}))
    (tmp_path / "empty.jsonl").write_text("\n", encoding="utf-8")
    with pytest.raises(DataFormatError, match="empty.jsonl"):
        read_gold_items(tmp_path / "empty.jsonl")
