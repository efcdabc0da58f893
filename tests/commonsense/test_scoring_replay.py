"""Replay of predictions made elsewhere (real files of ../shared/data) and the seeded random baseline."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from commonsense.io.statements import read_statements_csv
from commonsense.scoring import build_scorer
from commonsense.scoring.replay import MISSING, CometReplay, LmEvalSamplesReplay, NwwRawReplay, make_replay
from commonsense.scoring.types import Item
from tests.commonsense.nww_table_c1 import TABLE_C1
from tests.conftest import shared_file

CSV = "commonsense_statements/statements_human_and_model_binary.csv"


def _items(path: Path) -> tuple[list[Item], dict[str, int | None]]:
    items, human = [], {}
    for rec in read_statements_csv(path):
        items.append(Item(id=rec.external_id, question=rec.text, options=("no", "yes")))
        human[rec.external_id] = rec.human_majority
    return items, human


@pytest.mark.slow  # replays the NWW statements CSV for all 35 models (~20 s)
def test_statements_csv_replay_all_35_models() -> None:
    path = shared_file(CSV)
    items, human = _items(path)
    models = sorted({m for rec in read_statements_csv(path) for m in rec.model_answers})
    assert len(models) == 35
    for model in models:
        res = build_scorer("replay", "yesno", model=model, source=path).score_batch(items)
        assert all(r.error is None and r.chosen in (0, 1) for r in res)
        c = 100 * sum(r.chosen == human[r.item_id] for r in res) / len(res)
        a = 100 * sum(r.extra["q2"]["chosen"] == human[r.item_id] for r in res) / len(res)
        assert c == pytest.approx(TABLE_C1[model][0], abs=3), model  # NWW Table C.1: consensus
        assert a == pytest.approx(TABLE_C1[model][1], abs=3), model  # awareness


def test_statements_replay_matches_by_text_and_reports_missing() -> None:
    path = shared_file(CSV)
    rec = next(read_statements_csv(path))
    scorer = make_replay(path, "Mixtral-8x22B")
    by_text, missing = scorer.score_batch([Item(id="other-id", question=rec.text), Item(id="nope", question="zz")])
    assert by_text.chosen == rec.model_answers["Mixtral-8x22B"]["q1"]
    assert missing.chosen is None
    assert missing.error == MISSING
    with pytest.raises(ValueError, match="not in"):
        make_replay(path, "GPT-7")


def test_nww_raw_probabilities_binarise_like_the_csv() -> None:
    q1 = shared_file(
        "commonsense_statements/llm_raw_responses/meta-llama--Meta-Llama-3-70B-Instruct__results_raw_q1.jsonl"
    )
    items, _ = _items(shared_file(CSV))
    csv = {r.external_id: r.model_answers["LLaMA-3-70B"] for r in read_statements_csv(shared_file(CSV))}
    res = NwwRawReplay(q1).score_batch(items)
    first = json.loads(q1.read_text().splitlines()[0])["response"]
    assert res[0].extra["q1"]["p_yes"] == pytest.approx(first["yes"] / (first["yes"] + first["no"]))
    agree1 = sum(r.chosen == csv[r.item_id]["q1"] for r in res) / len(res)
    agree2 = sum(r.extra["q2"]["chosen"] == csv[r.item_id]["q2"] for r in res) / len(res)
    assert agree1 > 0.99
    assert agree2 > 0.99


def test_nww_raw_text_answers() -> None:
    q1 = shared_file("commonsense_statements/llm_raw_responses/claude-3-opus__results_raw_q1.jsonl")
    first = json.loads(q1.read_text().splitlines()[0])
    r = make_replay(q1).score_batch([Item(id=str(first["id"]), question="")])[0]
    assert r.chosen == (1 if first["response"].lower().startswith("yes") else 0)
    assert "q2" in r.extra


def test_comet_replay_picks_the_generated_option() -> None:
    path = shared_file("atomic2020_sample/comet_bart_generations.jsonl")
    row = json.loads(path.read_text().splitlines()[1])
    beam = row["generations"][1]
    it = Item(
        id="c1",
        question="?",
        options=("to eat a sandwich", beam.upper() + ".", row["greedy"]),
        fields={"head": row["head"], "relation": row["relation"]},
    )
    r = CometReplay(path).score_batch([it])[0]
    greedy_idx = 2 if row["greedy"].lower() != beam.lower() else 1
    assert r.chosen == greedy_idx
    assert r.raw_output == row["greedy"]
    none = CometReplay(path).score_batch(
        [Item(id="c2", question="?", options=("x",), fields={"head": row["head"], "relation": row["relation"]})]
    )[0]
    assert none.chosen is None
    assert none.error is None


def test_lmeval_samples_file(tmp_path: Path) -> None:
    # the layout of lm-eval 0.4's samples_<task>_<date>.jsonl (numbers logged as strings)
    lines = [
        {
            "doc_id": 0,
            "doc": {"id": "abc"},
            "arguments": {
                "gen_args_0": {"arg_0": "Q", "arg_1": " yes"},
                "gen_args_1": {"arg_0": "Q", "arg_1": " maybe"},
            },
            "resps": [[["-1.0", "False"]], [["-1.5", "False"]]],
            "filtered_resps": [["-1.0", "False"], ["-1.5", "False"]],
            "acc": 1.0,
            "acc_norm": 0.0,
        },
        {
            "doc_id": 1,
            "doc": {"q": "?"},
            "arguments": [["Q", " a"], ["Q", " b"]],
            "filtered_resps": [[-2.0, False], [-2.0, False]],
            "acc": 1.0,
            "acc_norm": 1.0,
        },
    ]
    f = tmp_path / "samples_task_2025.jsonl"
    f.write_text("".join(json.dumps(x) + "\n" for x in lines))
    sc = make_replay(f)
    assert isinstance(sc, LmEvalSamplesReplay)
    a, b, c = sc.score_batch([Item(id="abc", question=""), Item(id="doc:1", question=""), Item(id="zzz", question="")])
    assert (a.chosen, a.chosen_norm) == (0, 1)  # -1/3 < -1.5/5
    assert a.norm_scores == pytest.approx([-1 / 3, -1.5 / 5])
    assert (b.chosen, b.chosen_norm) == (0, 0)  # tie: lowest index
    assert c.chosen is None
    assert c.error == MISSING


def test_random_is_seeded_per_item_and_chunking_free() -> None:
    items = [Item(id=str(i), question="q", options=("a", "b", "c", "d", "e")) for i in range(200)]
    s = build_scorer("random", "loglik", seed=7)
    whole = [r.chosen for r in s.score_batch(items)]
    chunked = [r.chosen for k in range(0, 200, 33) for r in s.score_batch(items[k : k + 33])]
    assert whole == chunked
    assert whole != [r.chosen for r in build_scorer("random", "loglik", seed=8).score_batch(items)]
    assert set(whole) == {0, 1, 2, 3, 4}
