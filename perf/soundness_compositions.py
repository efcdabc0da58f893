"""Which relation compositions of multi-hop queries read as nonsense, from the blind readings.

Joins every ``key.json`` / ``verdicts-K.jsonl`` pair under ``perf/soundness/`` (or the folders
given) and counts, per relation pair (inner, outer) of a chain (a hop whose head is another hop's
tail: 2p, 3p, ip, pi), the items and the share judged sound, with a 95 % Wilson interval, the
causes readers gave on the unsound ones and a one-sided Fisher exact p-value against all other
composed items. ``--sets`` adds the same table for the relation sets of intersections (2i, 3i, 2in).
An item's verdict is the majority of its readers (ties unsound); in the kept readings every item was
read once, so that is the one reader's verdict. Whether the current default rules still compose a
pair is shown in the ``now`` column.

    .venv/bin/python perf/soundness_compositions.py [DIR ...] [--sets] [--min 3]
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

READINGS = ROOT / "perf" / "soundness"


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    if n == 0:
        return 0.0, 1.0
    p = k / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return max(0.0, c - h), min(1.0, c + h)


def fisher_less(k: int, n: int, k2: int, n2: int) -> float:
    """P(a group of ``n`` drawn from the pooled items has at most ``k`` sound), hypergeometric."""
    total, sound = n + n2, k + k2
    denom = math.comb(total, n)
    lo = max(0, sound - n2)
    return sum(math.comb(sound, i) * math.comb(total - sound, n - i) for i in range(lo, k + 1)) / denom


def load(dirs: list[Path]) -> list[dict[str, Any]]:
    """One record per distinct item (same set, kind, text and options): its key and verdicts."""
    items: dict[tuple[Any, ...], dict[str, Any]] = {}
    for d in dirs:
        key = json.loads((d / "key.json").read_text())
        for f in sorted(d.glob("verdicts-*.jsonl")):
            for line in f.read_text().splitlines():
                if not line.strip():
                    continue
                v = json.loads(line)
                it = key[str(v["id"])]
                ident = (it["set"], it["kind"], it["context"], it["question"], tuple(it["options"]))
                rec = items.setdefault(ident, {**it, "folder": d.name, "verdicts": []})
                rec["verdicts"].append(v)
    out = list(items.values())
    for rec in out:
        ups = sum(bool(v["sound"]) for v in rec["verdicts"])
        rec["sound"] = ups * 2 > len(rec["verdicts"])
        rec["causes"] = sorted({c for v in rec["verdicts"] if not v["sound"] for c in v.get("causes") or []})
    return out


def pairs(chain: list[list[str]]) -> list[tuple[str, str]]:
    """(inner, outer) for every hop whose head is another hop's tail."""
    got = []
    for i, (_, r1, t1) in enumerate(chain):
        for j, (h2, r2, _) in enumerate(chain):
            if i != j and h2 == t1:
                got.append((r1, r2))
    return got


def table(
    groups: dict[str, list[dict[str, Any]]], label: str, min_n: int, now: dict[str, str], ref: float
) -> list[str]:
    """Print one row per group (worst first); return the groups clearly worse than ``ref`` (the
    share sound of every judged item): their 95 % Wilson interval lies wholly below it."""
    pool_k = sum(r["sound"] for g in groups.values() for r in g)
    pool_n = sum(len(g) for g in groups.values())
    print(f"\n{label}: {pool_k} of {pool_n} sound ({100 * pool_k / max(pool_n, 1):.1f} %)")
    print(
        f"{'group':34} {'now':4} {'n':>4} {'chains':>6} {'sound':>6} {'share':>6} {'95% Wilson':>11}"
        f" {'p(worse)':>8} {'nda':>4}  causes"
    )
    rows = []
    for name, g in groups.items():
        k, n = sum(r["sound"] for r in g), len(g)
        lo, hi = wilson(k, n)
        p = fisher_less(k, n, pool_k - k, pool_n - n)
        causes = Counter(c for r in g if not r["sound"] for c in r["causes"])
        chains = len({json.dumps(r["chain"]) for r in g})
        rows.append((k / n, -n, name, k, n, chains, lo, hi, p, causes))
    rows.sort()
    for share, _, name, k, n, chains, lo, hi, p, causes in rows:
        if n < min_n:
            continue
        cs = ", ".join(f"{c} {m}" for c, m in causes.most_common(3))
        nda = causes["no defensible answer"]
        print(
            f"{name:34} {now.get(name, ''):4} {n:4} {chains:6} {k:6} {100 * share:5.0f}%"
            f" [{100 * lo:3.0f}, {100 * hi:3.0f}] {p:8.3f} {nda:4}  {cs}"
        )
    rare = [r for r in rows if r[4] < min_n]
    if rare:
        k, n = sum(r[3] for r in rare), sum(r[4] for r in rare)
        print(f"({len(rare)} rarer groups, under {min_n} items: {k} of {n} sound)")
    return [r[2] for r in rows if r[7] < ref]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dirs", type=Path, nargs="*")
    ap.add_argument("--sets", action="store_true", help="also the relation sets of 2i / 3i / 2in")
    ap.add_argument("--min", type=int, default=3, help="list groups with at least this many items")
    ap.add_argument("--examples", type=str, default=None, help="print the questions of one pair, e.g. isBefore,xEffect")
    a = ap.parse_args()
    dirs = a.dirs or sorted(p.parent for p in READINGS.glob("*/key.json"))
    items = load(dirs)
    print(f"{len(items)} distinct items from {', '.join(d.name for d in dirs)}")
    ref = sum(r["sound"] for r in items) / max(len(items), 1)
    print(f"all items: {100 * ref:.1f} % sound; 'clearly worse' = 95 % Wilson upper bound below that")
    print("columns: now = the default rules still compose it; chains = distinct golden chains (items repeat")
    print("a chain across builds); p(worse) = one-sided Fisher vs the other groups; nda = 'no defensible answer'")

    from commonsense.queries.rules import ANSWER_CLASS, DEFAULT_RULES, EVENTS

    by_pair: dict[str, list[dict[str, Any]]] = defaultdict(list)
    now: dict[str, str] = {}
    for rec in items:
        for inner, outer in pairs(rec["chain"]):
            name = f"{inner} -> {outer}"
            by_pair[name].append(rec)
            now[name] = "yes" if DEFAULT_RULES.composes(inner, outer) else "no"
    worse = table(by_pair, "chained hops (inner -> outer), items of 2p / 3p / ip / pi", a.min, now, ref)
    # isAfter and isBefore read alike ("what happens after / before …"): pooled, as the families of rules.py
    fam = {r: "event" for r in EVENTS}
    by_family: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for name, g in by_pair.items():
        inner, outer = name.split(" -> ")
        by_family[f"{fam.get(inner, inner)} -> {outer}"].extend(g)
    worse += [w for w in table(by_family, "pooled: event = isAfter / isBefore / ...", a.min, {}, ref) if w not in worse]
    print("\nclearly worse than the average item (pairs; event pairs pooled):", ", ".join(worse) or "none")
    # and by kind of answer (rules.ANSWER_CLASS, events apart from PersonX's actions)
    cls = {**{r: c.split(" of ")[0] for r, c in ANSWER_CLASS.items()}, **fam}
    by_class: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for name, g in by_pair.items():
        inner, outer = name.split(" -> ")
        by_class[f"{cls.get(inner, inner)} -> {cls.get(outer, outer)}"].extend(g)
    wc = table(by_class, "pooled by kind of answer (action = xEffect / xWant / xNeed / xIntent)", a.min, {}, ref)
    print("\nclearly worse than the average item (kinds):", ", ".join(wc) or "none")
    if a.examples:
        inner, outer = a.examples.split(",")
        for rec in by_pair.get(f"{inner} -> {outer}", []):
            print(f"  [{'sound' if rec['sound'] else 'UNSOUND ' + '; '.join(rec['causes'])}] {rec['question']}")
    if a.sets:
        by_set: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for rec in items:
            if rec["kind"] in ("2i", "3i", "2in"):
                rels = sorted({r for _, r, _ in rec["chain"]})
                by_set[f"{rec['kind']} {'+'.join(rels)}"].append(rec)
        table(by_set, "intersections (kind, relation set)", a.min, {}, ref)


if __name__ == "__main__":
    main()
