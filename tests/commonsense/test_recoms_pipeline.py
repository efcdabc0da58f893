"""ReComSBench pipeline (commonsense.scoring.recoms): triple parsing, final-answer reading, a
hand-made paths file scored with real all-MiniLM-L6-v2 embeddings (K_prior, d(Q), KCR, pass@K,
windows checked by hand), the report's arithmetic, and sampling on the tiny GPT-2 (hf backend)."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import pytest

from commonsense.io.questions import read_csqa_jsonl
from commonsense.metrics import RecomsItem, recoms_report
from commonsense.metrics.recoms import triple_text
from commonsense.scoring.extract import extract_final_option
from commonsense.scoring.prompts import rcs_cot
from commonsense.scoring.recoms import MISSING, RecomsScorer, item_seed, option_index
from commonsense.scoring.recoms_replay import PathsFile, PathsFileError
from commonsense.scoring.triples import hint_text, parse_triples
from commonsense.scoring.types import Item
from tests.conftest import FIXTURES

PATHS = Path(__file__).with_name("recoms_paths_demo.jsonl")
OPTS_MAG = ("doctor", "bookstore", "market", "train station", "mortuary")


# ----------------------------------------------------------------------------- parsing


@pytest.mark.parametrize(
    ("text", "triples", "status"),
    [
        ('{"extracted_knowledge": [["dog", "is", "animal"], ["a", "b"]]}', [("dog", "is", "animal")], "ok"),
        ('Output: ```json\n{"extracted_knowledge": []}\n```', [], "empty"),
        (
            'sure {"x": 1} and {"extracted_knowledge": ["(sun, is, hot)"]} Text: {"extracted_knowledge": [["q","r","s"]]}',
            [("sun", "is", "hot")],
            "ok",
        ),
        (
            '[{"subject": " Dog ", "predicate": "needs", "object": "water"}, {"head": "a", "relation": "b", "tail": "c"}]',
            [("Dog", "needs", "water"), ("a", "b", "c")],
            "ok",
        ),
        (
            '{"extracted_knowledge": [["x", "y", "z"], ["x", "y", "z"], ["bread", "is made of", "flour", "and water"]]}',
            [("x", "y", "z"), ("bread", "is made of", "flour and water")],
            "ok",
        ),
        (
            "1. (dog, needs, water)\n- (cat, likes, fish)",
            [("dog", "needs", "water"), ("cat", "likes", "fish")],
            "tuples",
        ),
        ("garbage {not json ]] ((", [], "no_json"),
        ("", [], "no_json"),
        ("\ufffd\x00 {{{{ [[[[", [], "no_json"),
    ],
)
def test_parse_triples_never_raises(text: str, triples: list[tuple[str, str, str]], status: str) -> None:
    got = parse_triples(text)
    assert got.triples == triples
    assert got.status == status


def test_parse_triples_counts_skipped_entries_and_caps() -> None:
    got = parse_triples('{"extracted_knowledge": [["a", {"x": 1}, "c"], "nonsense", ["a", "b", "c"]]}')
    assert got.triples == [("a", "b", "c")]
    assert got.skipped == 2
    many = json.dumps({"extracted_knowledge": [[f"s{i}", "p", "o"] for i in range(100)]})
    assert len(parse_triples(many, limit=10).triples) == 10
    assert hint_text([("dogs", "need", "water"), ("sky", "is", "blue.")]) == "dogs need water. sky is blue."


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("THOUGHT: a. THOUGHT: b. The correct answer is B.", 1),
        ("The answer is A. On reflection, the correct answer is (D) train station", 3),
        ("the correct answer is bookstore.", 1),
        ("The correct answer is OPTION C", 2),
        ("The correct answer is: **E**", 4),
        ("The correct answer is a market", 2),  # the article is not the letter A
        ("THOUGHT: thinking\nB: bookstore", 1),  # no phrase: the last line
        ("The correct answer is OPTION", None),
        ("nothing readable", None),
    ],
)
def test_final_option(text: str, want: int | None) -> None:
    assert extract_final_option(text, OPTS_MAG) == want


def test_option_index_forms() -> None:
    it = Item("x", "q", OPTS_MAG)
    assert [option_index(v, it) for v in (2, "c", "(B)", "Bookstore.", "The correct answer is E", 9, True, None)] == [
        2,
        2,
        1,
        1,
        4,
        None,
        None,
        None,
    ]


# ----------------------------------------------------------------------------- replay, real MiniLM


@pytest.fixture(scope="module")
def embed() -> Any:
    from commonsense.scoring.minilm import MiniLMEmbedder

    return MiniLMEmbedder()


def demo_items() -> list[Item]:
    recs = list(itertools.islice(read_csqa_jsonl(FIXTURES / "csqa_demo.jsonl"), 4))
    return [Item(id=r.external_id, question=r.stem, options=tuple(r.options), gold=r.answer_index) for r in recs]


def cos(embed: Any, a: tuple[str, str, str], b: tuple[str, str, str]) -> float:
    v = embed([triple_text(a), triple_text(b)])
    return float(v[0] @ v[1])


@pytest.mark.slow  # loads the real MiniLM embedder
def test_the_hand_made_file_sits_clearly_on_each_side_of_the_threshold(embed: Any) -> None:
    """The by-hand values below assume these MiniLM similarities (≥ 0.75 same, < 0.75 different)."""
    same = [
        (("magazine", "is a", "printed work"), ("magazines", "are", "printed works")),
        (("bookstore", "sells", "printed works"), ("bookstores", "sell", "printed works")),
        (("people", "aim to", "complete jobs"), ("people", "want", "to complete their job")),
    ]
    different = [
        (("bookstore", "sells", "printed works"), ("printed works", "include", "magazines")),
        (("bookstore", "sells", "printed works"), ("market", "sells", "food")),
        (("printed works", "include", "magazines"), ("market", "sells", "food")),
        (("bookstore", "sells", "printed works"), ("doctor", "has", "magazines")),
        (("people", "go to", "the office"), ("office", "has", "computers")),
        (("people", "go to", "the office"), ("people", "aim to", "complete jobs")),
        (("people", "work to", "earn money"), ("people", "want", "to complete their job")),
        (("people", "aim to", "complete jobs"), ("people", "work to", "earn money")),
        (("people", "go to", "the office"), ("people", "want", "to complete their job")),
        (("people", "kill", "animals"), ("people", "want", "to complete their job")),
    ]
    assert all(cos(embed, a, b) >= 0.80 for a, b in same)
    assert all(cos(embed, a, b) <= 0.70 for a, b in different)


@pytest.mark.slow  # loads the real MiniLM embedder
def test_replayed_paths_give_the_hand_computed_prior_knowledge(embed: Any) -> None:
    scorer = RecomsScorer(None, embed, paths=PathsFile(PATHS), kba_hints="prior")  # Eq. 3's K_prior variant
    work, mag, burger, farm = scorer.score_batch(demo_items())
    # magazines: S* = path 0 (|K| = 2 after "bookstores sell" merges into "bookstore sells"; path 2 has 3);
    # "magazine is a printed work" is the question's own knowledge -> K_prior = the bookstore triple.
    x = mag.extra
    assert [p["correct"] for p in x["paths"]] == [True, False, True]
    assert [p["answer"] for p in x["paths"]] == [1, 0, 1]
    assert x["s_star"] == 0
    assert x["k_prior"] == [["bookstore", "sells", "printed works"]]
    assert x["difficulty"] == 1
    assert [p["kcr"] for p in x["paths"]] == [1.0, 0.0, 1.0]
    assert [p["krr"] for p in x["paths"]] == [1.0, 1.0, 2.0]
    assert mag.chosen == 1
    assert x["chosen_from"] == "replay"
    assert x["kba"]["chosen"] == 1
    assert x["kba"]["hints"] == x["k_prior"]
    assert mag.scores == pytest.approx([1 / 3, 2 / 3, 0, 0, 0])
    # work: paths 1 (3 triples, answer read from its text) and 2 (2 triples) are right -> S* = path 2, d = 2;
    # path 1 covers one prior triple ("aim to complete jobs" ~ "want to complete their job").
    x = work.extra
    assert [p["correct"] for p in x["paths"]] == [False, True, True]
    assert x["paths"][1]["answer"] == 0
    assert x["s_star"] == 2
    assert x["difficulty"] == 2
    assert x["k_prior"] == [["people", "work to", "earn money"], ["people", "want", "to complete their job"]]
    assert [p["kcr"] for p in x["paths"]] == [0.0, 0.5, 1.0]
    assert work.chosen == 2
    assert x["kba"]["chosen"] == 0
    assert x["kba"]["correct"] is True
    # hamburger: no correct path -> no S*, d(Q) undefined, no KCR
    x = burger.extra
    assert [p["answer"] for p in x["paths"]] == [3, 1, 4]
    assert x["s_star"] is None
    assert x["difficulty"] is None
    assert x["k_prior"] == []
    assert all(p["kcr"] is None for p in x["paths"])
    # farmland: the greedy path is right and needs no knowledge -> d = 0
    x = farm.extra
    assert x["s_star"] == 0
    assert x["difficulty"] == 0
    assert [p["correct"] for p in x["paths"]] == [True, False, False]
    assert all(r.error is None and r.extra["errors"] == [] for r in (work, mag, burger, farm))
    assert mag.extra["question_extraction"]["status"] == "given"


@pytest.mark.slow  # loads the real MiniLM embedder
def test_report_of_the_replayed_file_by_hand(embed: Any) -> None:
    res = RecomsScorer(None, embed, paths=PathsFile(PATHS)).score_batch(demo_items())
    gold = {it.id: it.gold for it in demo_items()}
    items = [
        RecomsItem(
            correct=r.chosen == gold[r.item_id],
            kba_correct=r.extra["kba"]["correct"],
            difficulty=r.extra["difficulty"],
            path_correct=tuple(p["correct"] for p in r.extra["paths"]),
            path_kcr=tuple(p["kcr"] for p in r.extra["paths"]),
        )
        for r in res
    ]
    rep = recoms_report(items)
    # first solved at: work 2, magazines 1, hamburger never, farmland 1
    assert rep.k == 3
    assert [e.value for e in rep.pass_at] == pytest.approx([0.5, 0.75, 0.75])
    assert {k: e.value for k, e in rep.msg.items()} == pytest.approx({2: 0.25, 3: 0.0})
    assert rep.msg_sum.value == pytest.approx(0.25)
    assert rep.accuracy.value == 0.5
    assert rep.kba.value == 0.75
    # the paper's 7 windows over the 3 questions with d(Q): farmland (0), magazines (1), work (2);
    # window i = [i·3/9, i·3/9 + 1) rounded half up: items 0, 0, 1, 1, 1, 2, 2
    assert [(w.d_min, w.accuracy.value, w.kba.value) for w in rep.windows] == [
        (0, 1.0, 1.0),
        (0, 1.0, 1.0),
        (1, 1.0, 1.0),
        (1, 1.0, 1.0),
        (1, 1.0, 1.0),
        (2, 0.0, 1.0),
        (2, 0.0, 1.0),
    ]
    assert rep.delta == 1.0
    assert rep.delta_kba == 0.0
    assert rep.difficulty.value == pytest.approx(1.0)
    assert rep.with_difficulty == 3
    assert rep.kcr_correct.value == pytest.approx((1 + 1 + 0.5 + 1) / 4)
    assert rep.kcr_incorrect.value == 0.0
    assert rep.kcr_test is not None
    assert rep.kcr_test.u == 8.0
    assert (rep.kcr_test.n_correct, rep.kcr_test.n_incorrect) == (4, 2)


@pytest.mark.slow  # loads the real MiniLM embedder
def test_kba_all_hints_and_missing_items(embed: Any) -> None:
    """KBA's default hints are the paper's experiments' "all knowledge generated" (§4.3)."""
    items = demo_items()
    scorer = RecomsScorer(None, embed, paths=PathsFile(PATHS))
    assert scorer.describe()["kba_hints"] == "all"
    work = scorer.score_batch(items[:1])[0]
    # every correct path's new triples, deduplicated: path 1's three and path 2's "earn money"
    # ("want to complete their job" merges into "aim to complete jobs")
    assert work.extra["kba"]["hints"] == [
        ["people", "go to", "the office"],
        ["office", "has", "computers"],
        ["people", "aim to", "complete jobs"],
        ["people", "work to", "earn money"],
    ]
    missing = scorer.score_batch([Item("nope", "Is this in the file?", ("a", "b"), gold=0)])[0]
    assert missing.chosen is None
    assert missing.error == MISSING


@pytest.mark.slow  # loads the real MiniLM embedder
def test_paths_file_errors_name_the_line(tmp_path: Path, embed: Any) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text(
        '{"id": "1", "paths": [{"text": "x"}]}\n{"id": "2", "paths": [{"text": "x", "triples": [["a", "b"]]}]}\n'
    )
    with pytest.raises(PathsFileError, match=r"bad.jsonl:2: paths\[0\].triples\[0\]"):
        PathsFile(bad)
    bad.write_text('{"id": "1", "paths": []}\n')
    with pytest.raises(PathsFileError, match="bad.jsonl:1: 'paths' must be a non-empty list"):
        PathsFile(bad)
    no_triples = tmp_path / "texts.jsonl"
    no_triples.write_text('{"id": "q", "paths": ["The correct answer is B.", {"text": "The correct answer is A."}]}\n')
    r = RecomsScorer(None, embed, paths=PathsFile(no_triples)).score_batch([Item("q", "?", ("x", "y"), gold=1)])[0]
    assert [p["extraction"]["status"] for p in r.extra["paths"]] == ["not_extracted"] * 2
    assert r.extra["difficulty"] == 0
    assert r.chosen == 1
    assert r.extra["chosen_from"] == "path0"
    assert any("no model to extract" in e for e in r.extra["errors"])
    assert r.extra["kba"] is None


def test_report_uses_the_smallest_path_count_and_skips_unjudged() -> None:
    items = [
        RecomsItem(True, True, 1, (False, True, True)),
        RecomsItem(False, None, 2, (False, False)),
        RecomsItem(None, None, None, (None, None, None)),
    ]
    rep = recoms_report(items)
    assert rep.k == 2
    assert [e.value for e in rep.pass_at] == [0.0, 0.5]
    assert rep.pass_at[0].n == 2
    assert rep.kba.n == 1
    assert rep.accuracy.n == 2
    assert rep.kcr_test is None
    assert rep.windows == []  # 2 questions with d: a third of them is not one question, no window


# ----------------------------------------------------------------------------- sampling on the tiny GPT-2


@pytest.fixture(scope="module")
def tiny(tiny_gpt2: Path) -> Any:
    from commonsense.scoring.hf import HFBackend

    return HFBackend(tiny_gpt2, dtype="float32")


def tiny_scorer(tiny: Any, embed: Any, **kw: Any) -> RecomsScorer:
    opts = {"k": 3, "seed": 7, "chat": False, "reasoning_tokens": 12, "extract_tokens": 12, "answer_tokens": 4, **kw}
    return RecomsScorer(tiny, embed, **opts)


@pytest.mark.slow
def test_sampling_on_the_tiny_model_is_seeded_and_recorded(tiny: Any, embed: Any) -> None:
    items = demo_items()[:2]
    first = tiny_scorer(tiny, embed).score_batch(items)
    again = tiny_scorer(tiny, embed).score_batch(items[1:])[0]  # a fresh scorer, the item alone (as on resume)
    r, it = first[1], items[1]
    assert again.extra == r.extra
    assert again.chosen == r.chosen
    paths = r.extra["paths"]
    assert len(paths) == 3
    assert paths[0]["greedy"]
    assert paths[0]["temperature"] == 0.0
    assert paths[0]["text"] == tiny.generate([rcs_cot(it)], max_new_tokens=12)[0].text
    base = item_seed(7, it.id)
    assert [p["seed"] for p in paths[1:]] == [base, base + 1]
    assert {p["temperature"] for p in paths[1:]} == {0.7}
    assert paths[1]["text"] != paths[2]["text"]  # two different samples
    other = tiny_scorer(tiny, embed, seed=8).score_batch([it])[0]
    assert [p["text"] for p in other.extra["paths"][1:]] != [p["text"] for p in paths[1:]]
    assert other.extra["paths"][0]["text"] == paths[0]["text"]  # greedy does not depend on the seed
    for res, item in zip(first, items, strict=True):
        x = res.extra
        assert all(p["correct"] == (p["answer"] == item.gold) for p in x["paths"])
        # the random model writes no JSON: each extraction is recorded, none crashes
        assert all(
            p["extraction"]["status"] in ("ok", "empty", "tuples", "no_json") and "raw" in p["extraction"]
            for p in x["paths"]
        )
        assert x["question_extraction"]["status"] in ("ok", "empty", "tuples", "no_json")
        any_correct = any(p["correct"] for p in x["paths"])
        assert (x["difficulty"] is None) == (not any_correct)
        assert x["difficulty"] is None or x["difficulty"] == len(x["k_prior"])
        assert x["direct"]["chosen"] == res.chosen
        assert x["chosen_from"] == "direct"
        assert x["kba"] is not None
        assert res.prompt_tokens > 0
        assert 0 < res.completion_tokens <= 3 * 12 + 4 * 12 + 2 * 4
    assert first[0].extra["paths"] != first[1].extra["paths"]


@pytest.mark.slow
def test_model_extracts_triples_for_replayed_texts(tiny: Any, embed: Any, tmp_path: Path) -> None:
    f = tmp_path / "texts.jsonl"
    f.write_text(
        json.dumps({"id": "q", "paths": [{"text": "THOUGHT: Dogs need water. The correct answer is B."}]}) + "\n"
    )
    sc = tiny_scorer(tiny, embed, paths=PathsFile(f))
    r = sc.score_batch([Item("q", "What do dogs need?", ("food", "water"), gold=1)])[0]
    p = r.extra["paths"][0]
    assert p["correct"] is True
    assert p["extraction"]["status"] != "not_extracted"
    assert "raw" in p["extraction"]
    assert r.extra["chosen_from"] == "direct"
    assert r.extra["difficulty"] == len(r.extra["k_prior"])
    assert sc.describe()["paths_file"] == str(f)
    assert sc.describe()["backend"] == "hf"
