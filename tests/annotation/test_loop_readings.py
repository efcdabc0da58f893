"""The loop's blind reading with several readers per item (issue 26, session 19): ``perf/soundness.py``
writes each item into P of the reader files (``--per-item``), and ``score`` reports the per-reader
share beside the majority of each item's readers and their agreement - never one without the other."""

from __future__ import annotations

import json
import re
from pathlib import Path

import krippendorff
import pytest

from perf.soundness import _write, score


def _items(n: int) -> list[dict[str, object]]:
    return [
        {
            "set": "CSKB",
            "kind": "2i",
            "context": f"context {i}",
            "question": f"question {i}?",
            "options": [f"o{i}{j}" for j in range(4)] + ["None of the answers are correct."],
            "gold": "A",
        }
        for i in range(n)
    ]


def _ids(text: str) -> list[str]:
    return re.findall(r"^## (r\d+)$", text, flags=re.M)


def test_each_item_goes_to_per_item_readers_in_orders_of_their_own(tmp_path: Path) -> None:
    _write(tmp_path, _items(10), seed=3, readers=3, meta={}, per_item=3)
    files = [_ids((tmp_path / f"reader-{k}.md").read_text()) for k in (1, 2, 3)]
    key = json.loads((tmp_path / "key.json").read_text())
    assert all(sorted(f) == sorted(key) for f in files)  # every reader reads every item
    assert len({tuple(f) for f in files}) == 3  # three different orders
    assert json.loads((tmp_path / "build.json").read_text())["per_item"] == 3
    assert "r001" in key
    assert "gold" in key["r001"]
    assert "gold" not in (tmp_path / "reader-1.md").read_text().lower().split("## r001")[1].split("##")[0]

    _write(tmp_path / "two", _items(9), seed=3, readers=3, meta={}, per_item=2)
    counts = [len(_ids((tmp_path / "two" / f"reader-{k}.md").read_text())) for k in (1, 2, 3)]
    assert counts == [6, 6, 6]  # 9 items x 2 readings over 3 readers, none twice in one file
    with pytest.raises(SystemExit, match="--per-item must be between 1 and --readers"):
        _write(tmp_path / "bad", _items(3), seed=0, readers=2, meta={}, per_item=3)


def test_score_reports_per_reader_share_majority_and_agreement(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    _write(tmp_path, _items(4), seed=0, readers=3, meta={}, per_item=3)
    # sound verdicts per item by readers 1, 2, 3 (the pick is the gold A unless said)
    plan = {"r001": (1, 1, 1), "r002": (1, 1, 0), "r003": (1, 0, 0), "r004": (0, 0, 0)}
    for k in (1, 2, 3):
        lines = []
        for bid, verdicts in plan.items():
            sound = bool(verdicts[k - 1])
            pick = "A" if sound else None
            if bid == "r002" and k == 2:
                pick = "B"  # sound, but another option than the gold: not strict
            lines.append(
                json.dumps({"id": bid, "sound": sound, "pick": pick, "causes": [] if sound else ["near-copy"]})
            )
        (tmp_path / f"verdicts-{k}.jsonl").write_text("\n".join(lines) + "\n")
    s = score(tmp_path, as_json=True)
    assert s["per_reader"] == {
        "1": {"read": 4, "sound": 3, "strict": 3},
        "2": {"read": 4, "sound": 2, "strict": 1},
        "3": {"read": 4, "sound": 1, "strict": 1},
    }
    assert s["readings"] == {"read": 12, "sound": 6, "strict": 5}
    m = s["majority"]
    assert (m["items"], m["sound"], m["strict"]) == (4, 2, 1)  # r001, r002 by 2 of 3; strict r002 has 1 of 3
    assert (m["unanimous_sound"], m["unanimous_unsound"]) == (1, 1)
    a = s["agreement"]
    assert (a["pairs"], a["agree"]) == (12, 8)  # r001 3, r002 1, r003 1, r004 3
    want = krippendorff.alpha(
        reliability_data=[[1, 1, 1, 0], [1, 1, 0, 0], [1, 0, 0, 0]], level_of_measurement="nominal"
    )
    assert a["alpha"] == pytest.approx(want)
    out = capsys.readouterr().out
    assert "per reader" in out
    assert "majority of each item's readers" in out
    assert "agreement" in out
    assert json.loads((tmp_path / "summary.json").read_text())["majority"]["sound"] == 2


def test_one_reader_per_item_says_majority_is_not_applicable(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    _write(tmp_path, _items(4), seed=0, readers=2, meta={})
    for k in (1, 2):
        ids = _ids((tmp_path / f"reader-{k}.md").read_text())
        (tmp_path / f"verdicts-{k}.jsonl").write_text(
            "".join(json.dumps({"id": i, "sound": True, "pick": "A", "causes": []}) + "\n" for i in ids)
        )
    s = score(tmp_path, as_json=False)
    assert s["majority"]["items"] == 0
    assert s["readings"]["strict"] == 4
    assert "majority: not applicable" in capsys.readouterr().out
    # a reader who judged one item twice is refused, naming the file and line
    (tmp_path / "verdicts-1.jsonl").write_text((tmp_path / "verdicts-1.jsonl").read_text() * 2)
    with pytest.raises(SystemExit, match=r"verdicts-1.jsonl:3: a second verdict"):
        score(tmp_path, as_json=False)
