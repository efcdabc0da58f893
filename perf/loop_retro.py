"""Replay settlement rules on a measured loop (issue 26; perf/RESULTS.md "verification loop"):
which verified items each rule would have kept, and how many of them the blind readers found sound.

    .venv/bin/python perf/loop_retro.py DB.sqlite3 perf/soundness/loop16 [--json OUT]

``DB`` is the loop's database (opened read-only), the folder holds ``key.json`` (blind id -> item,
written by ``perf/loop_finish.py``) and the readers' ``verdicts-*.jsonl``. Every answer of every item
is read in the order it was given; for each rule the item is judged after each answer from the
campaign's minimum on, through the production core (:func:`commonsense.annotators.judge`, the
campaign's Dawid-Skene fit refitted over all its answers by :func:`commonsense.annotators.fit`,
as ``loop_finish.py`` did), and is kept at the first answer count that settles it. An item the rule
would still want answers for when its answers run out is counted as ``wants more`` (never kept here:
its further answers do not exist). An item is **sound** when its reader judged it sound and picked
the stored gold (the measurement's strict figure); a kept item whose gold under the rule is not the
gold the reader read, or that nobody read (left out by the run), is counted apart.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from commonsense.annotators import AnnotatorModel, fit, judge, verdicts  # noqa: E402
from commonsense.verified_needs import unanimous_on  # noqa: E402
from perf.loop_levers import loop_rows  # noqa: E402
from perf.soundness import _reader_verdicts  # noqa: E402

MIN, MAX = 3, 5


def load(db: Path) -> tuple[dict[tuple[str, str], list[tuple[int, dict[str, Any]]]], dict[tuple[str, str], int]]:
    rows = loop_rows(
        db,
        "SELECT c.name, i.key, r.user_id, r.answer, json_array_length(json_extract(i.payload, '$.options')) "
        "FROM annotation_response r JOIN annotation_item i ON i.id = r.item_id "
        "JOIN annotation_campaign c ON c.id = i.campaign_id WHERE i.role = 'regular' AND c.kind = 'mcqa' ORDER BY r.id",
    )
    answers: dict[tuple[str, str], list[tuple[int, dict[str, Any]]]] = defaultdict(list)
    n_options: dict[tuple[str, str], int] = {}
    for camp, key, user, ans, n in rows:
        answers[(camp, key)].append((user, json.loads(ans)))
        n_options[(camp, key)] = n
    return answers, n_options


def models(answers: dict[tuple[str, str], list[tuple[int, dict[str, Any]]]], n_options: dict) -> dict[str, Any]:
    by_camp: dict[str, list] = defaultdict(list)
    for (camp, key), ans in answers.items():
        for user, a in ans:
            by_camp[camp].append((user, key, verdicts(a, n_options[(camp, key)])))
    return {camp: fit(rows, seed=26, with_mace=False) for camp, rows in by_camp.items()}


def replay(
    ans: Sequence[tuple[int, dict[str, Any]]], n: int, model: AnnotatorModel, settlement: str, threshold: float
) -> tuple[str, int, Any]:
    """(state, answers used, judged) at the first answer count >= MIN that settles the item."""
    j = None
    for k in range(MIN, min(len(ans), MAX) + 1):
        j = judge(
            ans[:k],
            n_options=n,
            model=model,
            min_answers=MIN,
            max_answers=MAX,
            threshold=threshold,
            settlement=settlement,
        )
        if j.settlement.settled:
            return "kept", k, j
        if j.settlement.state == "exhausted":
            return "exhausted", k, j
    return ("wants more" if j is not None else "below min"), len(ans), j


def flagged(a: dict[str, Any]) -> bool:
    return bool(a.get("bad_context") or a.get("none_correct"))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("db", type=Path)
    ap.add_argument("reading", type=Path)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args(argv)
    answers, n_options = load(args.db)
    fitted = models(answers, n_options)
    key = json.loads((args.reading / "key.json").read_text())
    readers = _reader_verdicts(args.reading)  # the same reader as perf/soundness.py score
    read = {(k["campaign"], k["qid"]): (bid, k) for bid, k in key.items()}

    def sound(ck: tuple[str, str]) -> bool | None:
        """Sound for a strict majority of the item's readers (its one reader in the single-reader loops)."""
        if ck not in read:
            return None
        bid, k = read[ck]
        got = [bool(v[bid]["sound"]) and v[bid].get("pick") == k["gold"] for v in readers.values() if bid in v]
        return 2 * sum(got) > len(got)

    def gold_text(ck: tuple[str, str], gold: int | None) -> str:
        bid, k = read[ck]
        src = k["source_options"]
        return "None of the answers are correct." if gold is None else src[gold]

    def read_gold(ck: tuple[str, str]) -> str:
        bid, k = read[ck]
        return k["options"]["ABCDE".index(k["gold"])]

    def same_reading(ck: tuple[str, str], gold: int | None, label: dict[str, Any]) -> bool:
        """The reader's verdict applies: the rule's gold is the one read, or both are plausible
        options of the label (A.4 drew one of them at random and dropped the other; the rule ``needs``
        takes the surer one): the same item up to that draw."""
        if gold is None or gold < 0 or gold_text(ck, gold) == read_gold(ck):
            return True
        src = read[ck][1]["source_options"]
        return read_gold(ck) in {src[i] for i in label.get("plausible", [])}

    items = sorted(answers)
    rules: dict[str, Callable[[tuple[str, str]], tuple[str, int | None, dict[str, Any]]]] = {}

    def settled_rule(settlement: str, threshold: float, extra: Callable | None = None) -> Callable:
        def rule(ck: tuple[str, str]) -> tuple[str, int | None, dict[str, Any]]:
            ans = answers[ck]
            state, k, j = replay(ans, n_options[ck], fitted[ck[0]], settlement, threshold)
            if state != "kept" or j is None:
                return state, None, {}
            lab = j.label.label
            if lab.get("bad_context"):
                return "bad context", None, lab
            if settlement == "needs" and j.settlement.needs is not None:
                gold = j.settlement.needs.gold
            else:
                plaus = lab.get("plausible", [])
                gold = plaus[0] if len(plaus) == 1 else (None if not plaus else -1)
            if extra is not None:
                why = extra(ck, ans[:k], j, gold)
                if why:
                    return why, None, lab
            return "kept", gold, lab

        return rule

    def no_flag(ck, ans, j, gold):
        return "someone said none/bad" if any(flagged(a) for _, a in ans) else None

    def gold_unanimous(ck, ans, j, gold):
        if any(flagged(a) for _, a in ans):
            return "someone said none/bad"
        if gold is None or gold < 0 or not all(gold in a.get("plausible", []) for _, a in ans):
            return "gold not ticked by all"
        return None

    def strict_unanimous(ck, ans, j, gold):
        first = ans[0][1]
        same = all(
            sorted(a.get("plausible", [])) == sorted(first.get("plausible", [])) and flagged(a) == flagged(first)
            for _, a in ans
        )
        if not same or flagged(first) or len(first.get("plausible", [])) != 1:
            return "not unanimous on one option"
        return None

    def unanimous_at_min(ck, ans, j, gold):
        return None if j.settlement.state == "unanimous" and len(ans) == MIN else "not unanimous at the minimum"

    def dissent(ck, ans, j, gold):
        needed = j.settlement.needs
        if needed is None or not unanimous_on(needed, [verdicts(a, n_options[ck]) for _, a in ans], n_options[ck]):
            return "an answer dissents from its verdicts"
        return None

    def no_topup(ck, ans, j, gold):
        needed = j.settlement.needs
        if needed is not None and needed.missing:
            return "topped up"
        if needed is None and ck in read and read[ck][1]["topped_up"]:
            return "topped up"
        return None

    rules["all_verdicts 0.95 (the run's rule)"] = settled_rule("all_verdicts", 0.95)
    rules["all_verdicts 0.95, no top-up"] = settled_rule("all_verdicts", 0.95, no_topup)
    rules["needs 0.95"] = settled_rule("needs", 0.95)
    rules["needs 0.99"] = settled_rule("needs", 0.99)
    rules["all_verdicts 0.95, nobody said none/bad"] = settled_rule("all_verdicts", 0.95, no_flag)
    rules["needs 0.95, nobody said none/bad"] = settled_rule("needs", 0.95, no_flag)
    rules["every answer ticks the gold, nobody none/bad"] = settled_rule("all_verdicts", 0.95, gold_unanimous)
    rules["needs 0.95, every answer ticks the gold, nobody none/bad"] = settled_rule("needs", 0.95, gold_unanimous)
    rules["unanimous at the minimum only"] = settled_rule("all_verdicts", 0.95, unanimous_at_min)
    rules["unanimous at the minimum, nobody none/bad, no top-up"] = settled_rule(
        "all_verdicts", 0.95, lambda *a: unanimous_at_min(*a) or no_flag(*a) or no_topup(*a)
    )
    rules["needs 0.95, unanimous on its verdicts at the minimum"] = settled_rule("needs", 0.95, unanimous_at_min)
    rules["needs 0.95, unanimous at the minimum, nobody none/bad"] = settled_rule(
        "needs", 0.95, lambda *a: unanimous_at_min(*a) or no_flag(*a)
    )
    rules["needs 0.95, no answer dissents from its verdicts"] = settled_rule("needs", 0.95, dissent)
    rules["needs 0.95, no answer dissents, no top-up"] = settled_rule(
        "needs", 0.95, lambda *a: dissent(*a) or no_topup(*a)
    )
    rules["strictly unanimous on one option"] = settled_rule("all_verdicts", 0.95, strict_unanimous)

    out: dict[str, Any] = {"items": len(items), "read": len(read), "rules": {}}
    print(f"{len(items)} items, {len(read)} read blind; sound = reader says sound and picked the stored gold\n")
    head = f"{'rule':58s} {'kept':>5s} {'read':>5s} {'sound':>6s} {'share':>7s} {'yield':>6s}  other"
    print(head)
    for name, rule in rules.items():
        states: Counter[str] = Counter()
        kept = snd = kept_read = other_gold = 0
        for ck in items:
            state, gold, lab = rule(ck)
            states[state] += 1
            if state != "kept":
                continue
            kept += 1
            s = sound(ck)
            if s is None:
                continue
            if not same_reading(ck, gold, lab):
                other_gold += 1
                continue
            kept_read += 1
            snd += bool(s)
        share = snd / kept_read if kept_read else 0.0
        rest = {k: v for k, v in states.items() if k != "kept"}
        if other_gold:
            rest["kept, other gold than read"] = other_gold
        if kept - kept_read - other_gold:
            rest["kept, unread"] = kept - kept_read - other_gold
        print(f"{name:58s} {kept:5d} {kept_read:5d} {snd:6d} {share:7.1%} {snd / len(items):6.1%}  {dict(rest)}")
        out["rules"][name] = {"kept": kept, "read": kept_read, "sound": snd, "share": share, "states": dict(states)}
    # per-item table for the notes: answers, flags and the reader's verdict
    per_kind: dict[str, Counter[str]] = defaultdict(Counter)
    for ck in items:
        s = sound(ck)
        if s is None:
            continue
        k = read[ck][1]
        flags = sum(flagged(a) for _, a in answers[ck])
        tag = f"{k['settlement']}/{'flag' if flags else 'noflag'}"
        per_kind[tag]["sound" if s else "unsound"] += 1
    print("\nby settlement / whether any answer said none or bad:")
    for tag, c in sorted(per_kind.items()):
        print(f"  {tag:22s} sound {c['sound']:3d} of {c['sound'] + c['unsound']:3d}")
    out["by_flag"] = {t: dict(c) for t, c in per_kind.items()}
    if args.json:
        args.json.write_text(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
