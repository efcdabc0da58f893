"""Offline evaluation of the verified-set levers on past loop readings (issue 26, session 19;
perf/RESULTS.md "The chain's levers"): what a rule would have removed from the verified items the blind
readers judged, and how many of those were sound.

    .venv/bin/python perf/loop_levers.py perf/soundness/loop16 perf/soundness/loop18 perf/soundness/loop18b

Each folder holds ``key.json`` (written by ``perf/loop_finish.py``: per blind id the published options and
gold, the source options, the source answer index and the votes over the source options) and the readers'
``verdicts-*.jsonl``. A reading is **sound** when the reader judged the item sound and picked the stored
gold (the loops' strict figure). Printed per folder and pooled: the readings by what the published gold
is (the built answer, another option of the source item, or "None of the answers are correct."), and for
each rule the readings it removes (sound / unsound) and the share sound of the rest. With ``--db
FOLDER=LOOP.sqlite3`` (the loop's database, opened read-only) the shortcut baselines of the verified items
(answer type, gold position, longest and shortest option: ``commonsense.questions.audit``) are printed
beside, before and after each rule - a rule that made items sound by leaving only easy ones would show
there.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from perf.soundness import _reader_verdicts  # noqa: E402

LETTERS = "ABCDE"
Reading = dict[str, Any]


def readings(folder: Path) -> list[Reading]:
    key = json.loads((folder / "key.json").read_text())
    out = []
    for reader, verdicts in _reader_verdicts(folder).items():
        for bid, v in verdicts.items():
            it = key[bid]
            gold = it["options"][LETTERS.index(it["gold"])]
            built = it["source_options"][it["source_answer_index"]]
            published = "built" if gold == built else "none" if gold.startswith("None of") else "other option"
            out.append(
                {
                    "folder": folder.name,
                    "reader": reader,
                    "id": bid,
                    "sound": bool(v["sound"]) and v.get("pick") == it["gold"],
                    "causes": v.get("causes") or [],
                    "published": published,
                    "item": it,
                }
            )
    return out


def _built_ticks(r: Reading) -> tuple[int, int]:
    votes = r["item"]["votes"]
    return int(votes["option_ticks"][r["item"]["source_answer_index"]]), int(votes["n"])


RULES: dict[str, Callable[[Reading], bool]] = {  # True: the rule keeps the item
    "every answer ticked the built answer (require_built_answer)": lambda r: _built_ticks(r)[0] == _built_ticks(r)[1],
    "the published gold is the built answer": lambda r: r["published"] == "built",
    "no 'None of the answers are correct.' gold": lambda r: r["published"] != "none",
}


def loop_rows(db: Path, sql: str) -> list[tuple[Any, ...]]:
    """The rows of ``sql`` from a loop's SQLite database, opened read-only (the loop's record stays as it was)."""
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def attach_rows(rs: list[Reading], db: Path) -> None:
    """Each reading's stored verified question (options, answer, metadata), for the audit."""
    rows = loop_rows(
        db,
        "SELECT s.name, q.external_id, q.options, q.answer_index, q.metadata, q.structure, q.answers "
        "FROM knowledge_question q JOIN knowledge_questionset s ON s.id = q.question_set_id "
        "WHERE s.name LIKE '%-verified'",
    )
    by = {(s, e): (o, a, m, k, ans) for s, e, o, a, m, k, ans in rows}
    for r in rs:
        o, a, m, k, ans = by[(r["item"]["verified_set"], r["item"]["qid"])]
        r["row"] = {
            "options": json.loads(o),
            "answer_index": a,
            "metadata": json.loads(m),
            "structure": k,
            "answers": json.loads(ans),
        }


def baselines(rs: list[Reading]) -> str:
    from commonsense.questions.audit import audit_rows, shortcut_audit

    rows = list({(r["folder"], r["id"]): r["row"] for r in rs if "row" in r}.values())  # once per item
    if not rows:
        return ""
    a = shortcut_audit(audit_rows(rows))
    pct = lambda b: "n/a" if not b or b.get("value") is None else f"{100 * b['value']:.1f} %"  # noqa: E731
    length = a.get("length") or {}
    return (
        f"[{len(rows)} items: answer type {pct(a.get('answer_type'))}, gold position {pct(a.get('position'))}, "
        f"longest {pct(length.get('longest'))}, shortest {pct(length.get('shortest'))}; chance 20 %]"
    )


def report(rs: list[Reading], title: str) -> dict[str, Any]:
    n, ok = len(rs), sum(r["sound"] for r in rs)
    print(f"\n{title}: {ok} / {n} sound ({100 * ok / max(n, 1):.1f} %) {baselines(rs)}")
    by = Counter((r["published"], r["sound"]) for r in rs)
    for p in ("built", "other option", "none"):
        s, u = by[(p, True)], by[(p, False)]
        print(f"  published gold = {p:13} {s:3} / {s + u:3} sound")
    rules = {}
    for name, keep in RULES.items():
        gone = [r for r in rs if not keep(r)]
        g_ok = sum(r["sound"] for r in gone)
        left, left_ok = n - len(gone), ok - g_ok
        causes = Counter(c for r in gone if not r["sound"] for c in r["causes"])
        print(
            f"  {name}: removes {len(gone)} ({g_ok} sound, {len(gone) - g_ok} unsound); "
            f"after {left_ok} / {left} ({100 * left_ok / max(left, 1):.1f} %) {baselines([r for r in rs if keep(r)])}; "
            f"unsound removed by cause {dict(causes)}"
        )
        rules[name] = {"removed": len(gone), "removed_sound": g_ok, "after": [left_ok, left]}
    return {"readings": n, "sound": ok, "rules": rules}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("folders", type=Path, nargs="+", help="loop reading folders (key.json + verdicts-*.jsonl)")
    ap.add_argument("--json", type=Path, help="write the figures here")
    ap.add_argument("--db", action="append", default=[], help="FOLDER=LOOP.sqlite3: audit the verified items too")
    a = ap.parse_args()
    dbs = dict(x.split("=", 1) for x in a.db)
    every: list[Reading] = []
    out = {}
    for f in a.folders:
        rs = readings(f)
        if f.name in dbs:
            attach_rows(rs, Path(dbs[f.name]))
        every += rs
        out[f.name] = report(rs, f.name)
    if len(a.folders) > 1:
        out["pooled"] = report(every, "pooled")
    if a.json:
        a.json.write_text(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
