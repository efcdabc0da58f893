"""perf/readability.py's scoring (issue 27 item 3) on a planted key: the precision of accepted texts,
the recall of readable ones weighted by the strata's sizes in the graph, and each rule's precision."""

from __future__ import annotations

import json
from pathlib import Path

from perf.readability import estimate, held_out, score_graph, wilson


def test_precision_recall_and_per_rule_precision_on_a_planted_reading() -> None:
    items = {f"a{i}": {"accepted": True, "rule": "", "fires": []} for i in range(10)}
    items |= {f"r{i}": {"accepted": False, "rule": "no-article", "fires": ["no-article", "no-parse"]} for i in range(6)}
    items |= {f"s{i}": {"accepted": False, "rule": "vague-end", "fires": ["vague-end"]} for i in range(4)}
    key = {"population": {"texts": 3000, "accepted": 1000, "rejected": 2000}, "items": items}
    verdicts = {f"a{i}": i < 9 for i in range(10)}  # 9 of 10 accepted read as English
    verdicts |= {f"r{i}": i < 2 for i in range(6)}  # no-article: 2 of 6 were English after all
    verdicts |= {f"s{i}": False for i in range(4)}  # vague-end: right every time
    s = score_graph(key, verdicts)
    assert s["precision_accepted"]["k"] == 9
    assert s["precision_accepted"]["n"] == 10
    # readable: 1000 * 0.9 accepted, 2000 * 0.2 rejected -> recall 900 / 1300
    assert s["recall_readable"] == round(900 / 1300, 4)
    assert s["rules"]["no-article"]["decides"]["k"] == 4
    assert s["rules"]["no-article"]["decides"]["n"] == 6
    assert s["rules"]["no-parse"]["fires"]["n"] == 6
    assert "decides" in s["rules"]["no-parse"]
    assert s["rules"]["vague-end"]["decides"]["share"] == 1.0
    lo, hi = wilson(9, 10)
    assert lo < 0.9 < hi
    assert s["precision_accepted"]["ci95"] == [round(lo, 4), round(hi, 4)]


def test_each_repair_is_scored_where_it_made_the_display() -> None:
    items = {f"a{i}": {"accepted": True, "rule": "", "fires": [], "repairs": ["article"]} for i in range(4)}
    items |= {"b": {"accepted": False, "rule": "no-parse", "fires": ["no-parse"], "repairs": ["article", "agreement"]}}
    items |= {"c": {"accepted": True, "rule": "", "fires": []}}  # a key from before the repairs: none listed
    key = {"population": {"texts": 20, "accepted": 10, "rejected": 10}, "items": items}
    verdicts = {"a0": True, "a1": True, "a2": True, "a3": False, "b": True, "c": False}
    s = score_graph(key, verdicts)
    assert s["repairs"]["article"]["accepted"]["k"] == 3
    assert s["repairs"]["article"]["accepted"]["n"] == 4
    assert s["repairs"]["article"]["rejected"]["n"] == 1
    assert s["repairs"]["agreement"]["rejected"]["k"] == 1
    assert s["repairs"]["agreement"]["accepted"]["n"] == 0
    assert set(s["repairs"]) == {"article", "agreement"}


def test_estimate_splits_the_past_verdicts_into_a_tune_and_a_held_out_third(tmp_path: Path) -> None:
    from commonsense.questions.node_text import judge

    texts = [f"PersonX buys {n} apples" for n in range(2, 62)]
    assert held_out(texts[0]) == held_out(texts[0])  # a digest of the text: the same split every time
    held = [t for t in texts if held_out(t)]
    assert 0.15 < len(held) / len(texts) < 0.5
    items = {}
    for i, t in enumerate(texts):
        v = judge(t)
        items[f"t{i:03d}"] = {
            "text": t,
            "display": v.display,
            "shown": v.display,
            "accepted": True,  # one stratum: its count is every text the part reads
            "rule": "",
        }
    (tmp_path / "keys").mkdir()
    key = {"population": {"texts": 200, "accepted": 100, "rejected": 100}, "items": items}
    (tmp_path / "keys" / "ckbp.json").write_text(json.dumps(key), encoding="utf-8")
    (tmp_path / "ckbp").mkdir()
    lines = [json.dumps({"id": i, "english": True}) for i in items]
    (tmp_path / "ckbp" / "verdicts-1.jsonl").write_text("\n".join(lines), encoding="utf-8")
    counts = {}
    for part in ("all", "tune", "held-out"):
        got = estimate(False, tmp_path, part)["ckbp"]["old_accepted_sample_still_accepted"]
        counts[part] = int(got.split("/")[1])
    assert counts["held-out"] == len(held)
    assert counts["tune"] + counts["held-out"] == counts["all"] == len(texts)
