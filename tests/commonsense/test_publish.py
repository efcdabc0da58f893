"""The Hugging Face folder writer (:mod:`commonsense.questions.publish`) and the table of known data
(:mod:`commonsense.io.known_data`), without a database: the table's hashes are those of the shipped
and shared files; a folder with no human answers keeps the items' schema; repeated item ids (the
join key of answers and votes) are refused; an unrecognised source makes the licence "unknown"."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pyarrow.parquet as pq
import pytest
import yaml

from commonsense.io.known_data import BY_HASH, CSKB_POPULATION, RICA, known_data
from commonsense.questions.publish import ItemRow, Publication, SourceFile, licences, write_hf
from tests.conftest import FIXTURES, SHARED_DATA

SHIPPED = {
    "atomic2020_demo.tsv": "ATOMIC-2020",
    "ckbp_demo.csv": "CSKB-Population evaluation set",
    "csqa_demo.jsonl": "CommonsenseQA",
    "statements_demo.csv": "Commonsense statements (Whiting & Watts)",
}
SHARED = {
    "atomic2020_sample/atomic2020_triples.tsv": "ATOMIC-2020",
    "ckbp_eval/evaluation_set.csv": "CSKB-Population evaluation set",
    "commonsenseqa_dev/dev_rand_split.jsonl": "CommonsenseQA",
    "commonsense_statements/statements_human_and_model_binary.csv": "Commonsense statements (Whiting & Watts)",
    "rica/RICA_10k_axiom2set.jsonl": "RICA",
    "rica/human_curated_test.tsv": "RICA",
}


def _sha(p: Path) -> str:
    return hashlib.sha256(p.read_bytes()).hexdigest()


@pytest.mark.parametrize("name", sorted(SHIPPED))
def test_shipped_files_are_known_by_content(name: str) -> None:
    data, how = known_data(_sha(FIXTURES / name), "")
    assert data is not None
    assert data.name == SHIPPED[name]
    assert how == "content hash"


@pytest.mark.parametrize("name", sorted(SHARED))
def test_shared_files_are_known_by_content(name: str) -> None:
    path = SHARED_DATA / name
    if not path.exists():
        pytest.skip(f"{path} is not here (a fresh clone without ../shared)")
    data, how = known_data(_sha(path), "")
    assert data is not None
    assert data.name == SHARED[name]
    assert how == "content hash"


def test_the_table_holds_no_hash_of_no_file() -> None:
    files = [FIXTURES / n for n in SHIPPED] + [SHARED_DATA / n for n in SHARED]
    if not all(p.exists() for p in files):
        pytest.skip("../shared is not here")
    assert set(BY_HASH) == {_sha(p) for p in files}


def _item(i: int, ident: str | None = None) -> ItemRow:
    return ItemRow(
        id=ident or f"q{i}",
        position=i,
        kind="2i",
        context="Alex goes to the store.",
        question="What does Alex want?",
        options=["milk", "sleep", "a nap", "to fly", "None of the answers are correct."],
        answer_index=0,
        answer="milk",
        answers=["milk"],
        anchors=[],
        relations=["xWant"],
        chain=[["Alex goes to the store", "xWant", "milk"]],
        group="",
        role="",
        option_provenance=["gold", "adversarial", "random", "adversarial", "random"],
    )


def test_items_only_folder(tmp_path: Path) -> None:
    src = SourceFile("x.csv", "cskb-csv", "0" * 64, 10, CSKB_POPULATION, "format")
    pub = Publication("demo", "", "com2", [_item(0), _item(1)], [src], {"seed": 1})
    card = write_hf(pub, tmp_path / "out")
    assert sorted(p.name for p in (tmp_path / "out" / "data").iterdir()) == ["items.parquet"]
    t = pq.read_table(tmp_path / "out" / "data" / "items.parquet")
    assert t.num_rows == 2
    assert t.column("chain").to_pylist()[0] == [["Alex goes to the store", "xWant", "milk"]]
    assert t.column("option_provenance").to_pylist()[0] == ["gold", "adversarial", "random", "adversarial", "random"]
    meta = yaml.safe_load(card.read_text().split("\n---\n", 1)[0].removeprefix("---\n"))
    assert [c["config_name"] for c in meta["configs"]] == ["items"]
    body = card.read_text()
    assert "recognised by its format only: confirm it" in body
    assert "No validation campaign" in body


def test_empty_answers_keep_their_columns(tmp_path: Path) -> None:
    pub = Publication("demo", "", "com2", [_item(0)], [], {}, answers=[], votes=[])
    write_hf(pub, tmp_path)
    t = pq.read_table(tmp_path / "data" / "answers.parquet")
    assert t.num_rows == 0
    assert t.column_names == [
        "item",
        "annotator",
        "ticked",
        "none_correct",
        "bad_context",
        "time_ms",
    ]


def test_repeated_ids_are_refused(tmp_path: Path) -> None:
    pub = Publication("demo", "", "com2", [_item(0, "same"), _item(1, "same")], [], {})
    with pytest.raises(ValueError, match="item id 'same' occurs twice"):
        write_hf(pub, tmp_path)


def test_licences_of_the_sources() -> None:
    rica = SourceFile("r.jsonl", "rica-probes", "1" * 64, 3, RICA, "format")
    odd = SourceFile("mine.tsv", "atomic-tsv", "2" * 64, 3, None, "")
    cskb = SourceFile("x.csv", "cskb-csv", "0" * 64, 10, CSKB_POPULATION, "content hash")
    assert licences(Publication("a", "", "com2", [], [cskb], {})) == ["mit", "cc-by-4.0"]
    assert licences(Publication("a", "", "com2", [], [cskb, odd], {})) == ["mit", "cc-by-4.0", "unknown"]
    assert licences(Publication("a", "", "rica", [], [rica], {})) == ["unknown"]
    assert licences(Publication("a", "", "com2", [], [], {})) == ["unknown"]
