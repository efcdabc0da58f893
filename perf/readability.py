"""Node text read blind (issue 27 item 3): do the English rules keep what reads as English and drop
what does not? Per graph of ../shared/data, ``build`` draws node texts at random, half of them
accepted by the rules and half rejected, shows them as questions show them (names drawn for the
placeholders) and writes, shuffled and without a verdict:

* ``perf/readability/<graph>/reader.md``: what a fresh reader sees;
* ``perf/readability/keys/<graph>.json``: for each id the node text, its display, the verdict, the
  rule that decided and every rule that fires, and the graph's counts (kept apart: never give it
  to a reader).

A reader writes ``perf/readability/<graph>/verdicts-K.jsonl``, one line per text:
``{"id": "t001", "english": true|false}``. ``score`` joins verdicts and key and prints, per graph
and reader and pooled: the **precision** of the accepted texts (the share that reads as English;
target >= 97 %), the **recall** of readable texts (the share of the graph's readable texts that
the rules accept, the two strata weighted by their sizes in the graph; target >= 80 %), and each
rule's precision where it decides and where it fires (the share of its texts that do *not* read
as English; a rule right less often than wrong should go), and each display repair's
(:mod:`commonsense.questions.repairs`; the key lists the repairs that made a text's display) share
of its texts that read as English, with 95 % Wilson intervals.

``estimate`` re-judges an old reading's texts with the rules as they are now and estimates what the
same readers' verdicts say of them (an estimate fitted to those texts when the rules were tightened
on them, never a fresh measurement): the accepted share that reads as English and the recall, both
strata of the old draw weighted by their sizes in the graph; a text whose display changed is left
out (its reader saw another text) and counted, and so is a text with an ATOMIC blank (``___``: a
build fills it or leaves the node out, so ``build`` no longer draws one).

Several readings live side by side: ``--dir perf/readability/r18`` (keys in ``<dir>/keys``).

    .venv/bin/python perf/readability.py build [--per-side 150] [--seed 27] [--dir DIR] [--exclude DIR...]
    .venv/bin/python perf/readability.py score [--json] [--dir DIR]
    .venv/bin/python perf/readability.py estimate [--dir DIR] [--show]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import random
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

SHARED = ROOT.parent / "shared" / "data"
OUT = ROOT / "perf" / "readability"
GRAPHS = ("ckbp", "atomic")

READER_HEAD = """# Does it read as English? ({n} short texts, blind)

Each line below is an event as a question would show it (the names are random). For each one,
decide only this: **does it read as an English sentence that says something a reader can picture?**
Spelling slips, missing words, words in the wrong form, a pronoun that points at nothing you were
told, or a fragment that stops mid-thought: answer false. Whether the event is likely, polite or
interesting does not matter.

Write one JSON line per text, in any order, to `verdicts-K.jsonl` (K: your reader number):

    {{"id": "t001", "english": true}}

"""


def _rows(graph: str) -> list[tuple[str, str, str]]:
    from commonsense.io.triples import read_atomic_tsv, read_cskb_csv

    if graph == "ckbp":
        return [(r.head, r.relation, r.tail) for r in read_cskb_csv(SHARED / "ckbp_eval/evaluation_set.csv")]
    return [(r.head, r.relation, r.tail) for r in read_atomic_tsv(SHARED / "atomic2020_sample/atomic2020_triples.tsv")]


def build(per_side: int, seed: int, out: Path = OUT, exclude: tuple[Path, ...] = ()) -> None:
    from commonsense.kg.normalize import is_none
    from commonsense.questions import names, repairs
    from commonsense.questions.display import BLANK
    from commonsense.questions.node_text import event_texts, judge
    from commonsense.questions.text_rules import firing, rules_version

    (out / "keys").mkdir(parents=True, exist_ok=True)
    for graph in GRAPHS:
        # a text with an ATOMIC blank is never shown as it is (a build fills it from isFilledBy or leaves
        # the node out: commonsense/questions/display.py), so it is not read either
        texts = sorted({t for t, _ in event_texts(_rows(graph)) if t and not is_none(t) and BLANK not in t})
        # texts an earlier reading showed (its rules were fitted to them): a fresh reading draws others
        seen = {
            item["text"]
            for folder in exclude
            if (folder / "keys" / f"{graph}.json").exists()
            for item in json.loads((folder / "keys" / f"{graph}.json").read_text(encoding="utf-8"))["items"].values()
        }
        texts = [t for t in texts if t not in seen]
        verdicts = {t: judge(t) for t in texts}
        accepted = [t for t in texts if verdicts[t].readable]
        rejected = [t for t in texts if not verdicts[t].readable]
        rng = random.Random(f"{seed}:{graph}")
        drawn = rng.sample(accepted, min(per_side, len(accepted))) + rng.sample(rejected, min(per_side, len(rejected)))
        rng.shuffle(drawn)
        key: dict[str, Any] = {
            "graph": graph,
            "seed": seed,
            "rules_version": rules_version(),
            "population": {"texts": len(texts), "accepted": len(accepted), "rejected": len(rejected)},
            "excluded_earlier_readings": [str(p) for p in exclude],
            "items": {},
        }
        lines = []
        for i, text in enumerate(drawn, 1):
            v = verdicts[text]
            shown = names.apply(v.display, names.draw(random.Random(f"{seed}:{graph}:{i}")))
            tid = f"t{i:03d}"
            lines.append(f"- **{tid}** {shown}")
            key["items"][tid] = {
                "text": text,
                "display": v.display,
                "shown": shown,
                "accepted": v.readable,
                "rule": v.rule,
                "fires": [name for name, _ in firing(v.display)],
                "repairs": repairs.applied(text),
            }
        folder = out / graph
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "reader.md").write_text(READER_HEAD.format(n=len(drawn)) + "\n".join(lines) + "\n", encoding="utf-8")
        (out / "keys" / f"{graph}.json").write_text(json.dumps(key, indent=1, ensure_ascii=False), encoding="utf-8")
        print(f"{graph}: {len(drawn)} texts ({len(texts):,} in the graph, {len(accepted):,} accepted)")


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    if n == 0:
        return (0.0, 1.0)
    p = k / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return (max(0.0, c - h), min(1.0, c + h))


def _share(k: int, n: int) -> dict[str, Any]:
    lo, hi = wilson(k, n)
    return {"k": k, "n": n, "share": round(k / n, 4) if n else None, "ci95": [round(lo, 4), round(hi, 4)]}


def score_graph(key: dict[str, Any], verdicts: dict[str, bool]) -> dict[str, Any]:
    """The figures of one reading (one reader, or pooled verdicts) of one graph's key."""
    items = {i: v for i, v in key["items"].items() if i in verdicts}
    acc = [i for i, v in items.items() if v["accepted"]]
    rej = [i for i, v in items.items() if not v["accepted"]]
    acc_ok = sum(verdicts[i] for i in acc)
    rej_ok = sum(verdicts[i] for i in rej)
    pop = key["population"]
    # recall of readable texts in the graph: the strata weighted by their sizes there
    read_acc = pop["accepted"] * (acc_ok / len(acc)) if acc else 0.0
    read_rej = pop["rejected"] * (rej_ok / len(rej)) if rej else 0.0
    recall = read_acc / (read_acc + read_rej) if read_acc + read_rej else None
    rules: dict[str, dict[str, list[bool]]] = defaultdict(lambda: {"decides": [], "fires": []})
    for i in rej:
        item = items[i]
        rules[item["rule"]]["decides"].append(not verdicts[i])
        for name in item["fires"]:
            rules[name]["fires"].append(not verdicts[i])
    # a display repair is right where its text reads as English (keys from before the repairs have none)
    fixes: dict[str, dict[str, list[bool]]] = defaultdict(lambda: {"accepted": [], "rejected": []})
    for i, item in items.items():
        for name in item.get("repairs", ()):
            fixes[name]["accepted" if item["accepted"] else "rejected"].append(verdicts[i])
    return {
        "judged": len(items),
        "precision_accepted": _share(acc_ok, len(acc)),
        "rejected_readable": _share(rej_ok, len(rej)),
        "recall_readable": round(recall, 4) if recall is not None else None,
        "rules": {name: {kind: _share(sum(v), len(v)) for kind, v in r.items()} for name, r in sorted(rules.items())},
        "repairs": {name: {kind: _share(sum(v), len(v)) for kind, v in r.items()} for name, r in sorted(fixes.items())},
    }


def _readings(out: Path, graph: str) -> tuple[dict[str, Any], dict[str, dict[str, bool]]] | None:
    """The key of one graph's reading and each reader's verdicts (id -> reads as English)."""
    key_path = out / "keys" / f"{graph}.json"
    if not key_path.exists():
        return None
    key = json.loads(key_path.read_text(encoding="utf-8"))
    readers: dict[str, dict[str, bool]] = {}
    for path in sorted((out / graph).glob("verdicts-*.jsonl")):
        readers[path.stem] = {
            (d := json.loads(line))["id"]: bool(d["english"])
            for line in path.read_text(encoding="utf-8").splitlines()
            if line.strip()
        }
    return key, readers


def _majority(readers: dict[str, dict[str, bool]]) -> dict[str, bool]:
    """The readers' majority (a tie counts as not English: the strict side of the precision target)."""
    judged: dict[str, list[bool]] = defaultdict(list)
    for v in readers.values():
        for i, ok in v.items():
            judged[i].append(ok)
    return {i: sum(v) * 2 > len(v) for i, v in judged.items()}


def score(as_json: bool, out: Path = OUT) -> None:
    report: dict[str, Any] = {}
    for graph in GRAPHS:
        got = _readings(out, graph)
        if got is None:
            continue
        key, readers = got
        if not readers:
            print(f"{graph}: no verdicts yet")
            continue
        scores = {name: score_graph(key, v) for name, v in readers.items()}
        scores["majority"] = score_graph(key, _majority(readers))
        report[graph] = scores
        if not as_json:
            for name, s in scores.items():
                p, r = s["precision_accepted"], s["recall_readable"]
                print(
                    f"{graph} {name}: precision of accepted {p['share']:.1%} {p['ci95']} (n={p['n']}), "
                    f"recall of readable {r:.1%}"
                    if r is not None
                    else f"{graph} {name}: no recall"
                )
            for rule, s in scores["majority"]["rules"].items():
                d, f = s["decides"], s["fires"]
                print(f"  {rule:32} decides {d['k']}/{d['n']} right, fires {f['k']}/{f['n']} right")
            for name, s in scores["majority"]["repairs"].items():
                a, r = s["accepted"], s["rejected"]
                print(f"  repair {name:25} reads as English: accepted {a['k']}/{a['n']}, rejected {r['k']}/{r['n']}")
    if as_json:
        print(json.dumps(report, indent=1))


def held_out(text: str) -> bool:
    """Whether a read text is in the held-out third of the past verdicts: rules are tuned on the other
    two thirds (``estimate --part tune --show``) and the effect is reported on this third, never
    looked at text by text (a digest of the text, so the split is the same in every reading)."""
    return int(hashlib.md5(f"held-out:{text}".encode()).hexdigest(), 16) % 3 == 0


def estimate(show: bool, out: Path = OUT, part: str = "all") -> dict[str, Any]:
    """The old reading's verdicts under the rules as they are now (see the module's docstring);
    ``part``: ``tune`` or ``held-out`` (:func:`held_out`) or ``all`` of the read texts."""
    from commonsense.questions.display import BLANK
    from commonsense.questions.node_text import judge

    report: dict[str, Any] = {}
    for graph in GRAPHS:
        got = _readings(out, graph)
        if got is None or not got[1]:
            continue
        key, readers = got
        verdicts = _majority(readers)
        pop = key["population"]
        # per old stratum: sample size, and the new-accepted / new-accepted-and-readable / readable counts
        strata = {True: [0, 0, 0, 0], False: [0, 0, 0, 0]}
        changed = blanks = 0
        flips: list[str] = []
        rules: dict[str, list[bool]] = defaultdict(list)  # rule -> right where it decides now
        for tid, item in key["items"].items():
            if tid not in verdicts:
                continue
            if part != "all" and held_out(item["text"]) != (part == "held-out"):
                continue
            if BLANK in item["text"]:
                blanks += 1  # never shown unfilled by a build (build() no longer draws them)
                continue
            now = judge(item["text"])
            if now.display != item["display"]:
                changed += 1
                continue
            st = strata[bool(item["accepted"])]
            ok = verdicts[tid]
            st[0] += 1
            st[1] += now.readable
            st[2] += now.readable and ok
            st[3] += ok
            if not now.readable:
                rules[now.rule].append(not ok)
            if now.readable != item["accepted"] or (now.readable and not ok):
                mark = "+" if now.readable else "-"
                flips.append(f"  {mark} {'ok ' if ok else 'BAD'} {now.rule or 'accepted':28} {item['shown']}")
        sizes = {True: pop["accepted"], False: pop["rejected"]}
        acc = sum(sizes[k] * s[1] / s[0] for k, s in strata.items() if s[0])
        acc_ok = sum(sizes[k] * s[2] / s[0] for k, s in strata.items() if s[0])
        readable = sum(sizes[k] * s[3] / s[0] for k, s in strata.items() if s[0])
        old_acc = strata[True]
        report[graph] = {
            "precision": round(acc_ok / acc, 4) if acc else None,
            "recall": round(acc_ok / readable, 4) if readable else None,
            "accepted_share": round(acc / (sizes[True] + sizes[False]), 4),
            "old_accepted_sample_still_accepted": f"{old_acc[1]}/{old_acc[0]}",
            "old_accepted_sample_still_accepted_and_readable": f"{old_acc[2]}/{old_acc[1]}",
            "display_changed": changed,
            "blanks_left_out": blanks,
            "rules_decide_right": {name: f"{sum(v)}/{len(v)}" for name, v in sorted(rules.items())},
        }
        print(f"{graph}: {json.dumps(report[graph])}")
        if show and part != "held-out":
            print("\n".join(sorted(flips)))
    return report


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build")
    b.add_argument("--per-side", type=int, default=150)
    b.add_argument("--seed", type=int, default=27)
    b.add_argument(
        "--exclude", type=Path, nargs="*", default=[], help="earlier readings' folders: their texts are not drawn"
    )
    s = sub.add_parser("score")
    s.add_argument("--json", action="store_true")
    e = sub.add_parser("estimate")
    e.add_argument("--show", action="store_true", help="list the texts whose verdict changed or that are still wrong")
    e.add_argument(
        "--part",
        choices=("all", "tune", "held-out"),
        default="all",
        help="a third of the read texts is held out of tuning (never shown): report it apart",
    )
    for p in (b, s, e):
        p.add_argument("--dir", type=Path, default=OUT, help="the reading's folder (keys in DIR/keys)")
    args = ap.parse_args()
    if args.cmd == "build":
        build(args.per_side, args.seed, args.dir, tuple(args.exclude))
    elif args.cmd == "score":
        score(args.json, args.dir)
    else:
        estimate(args.show, args.dir, args.part)


if __name__ == "__main__":
    main()
