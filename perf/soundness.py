"""Item soundness, read blind (issue 11; protocol: ../shared/spec/item-soundness.md), made repeatable.

``build`` makes the six sets the issue names with the builders' defaults (CSKB-Population 2i, 2p,
3i, 2in and the ATOMIC-2020 sample's 2i, 3i, 40 items each, from ../shared/data), shuffles them
together under blind ids and writes, in ``DIR``:

* ``reader-K.md``: what an annotator sees (context, question, options A-E), one file per reader;
* ``key.json``: for each blind id its set, kind, gold letter, chain, distractor provenance and the
  build parameters (kept from the readers);
* ``build.json``: the command, commit, seed, build reports and edge-filter name.

Each reader writes ``verdicts-K.jsonl``: one line per item,
``{"id": "r001", "sound": true|false, "pick": "A".."E"|null, "causes": [...]}`` with the causes of
the spec (implausible chain, distractor also right, near-copy, no defensible answer, unreadable,
wrong relation, degenerate). ``score`` joins verdicts and key and prints the share sound per set and
kind, the causes, and how often a reader's pick was the gold; ``--json`` writes the same to
``DIR/summary.json``.

    .venv/bin/python perf/soundness.py build DIR [--seed 11] [--readers 4] [--count 40] [--rules paper]
        [--chain-phrasing step|named|stacked] [--only "CSKB 2p,CSKB 2in"]
    .venv/bin/python perf/soundness.py mix DIR_A DIR_B --out DIR [--seed 0] [--readers 4] [--only "CSKB 2p"] [--apart]
    .venv/bin/python perf/soundness.py score DIR [--json]

``mix`` makes an A/B reading: the items of two builds shuffled together under new blind ids, each
keyed with its build's folder name, which ``score`` then reports apart.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

SHARED = ROOT.parent / "shared" / "data"
SETS = (("CSKB", ("2i", "2p", "3i", "2in")), ("ATOMIC", ("2i", "3i")))
CAUSES = (
    "implausible chain",
    "distractor also right",
    "near-copy",
    "no defensible answer",
    "unreadable",
    "wrong relation",
    "degenerate",
)
LETTERS = "ABCDE"

READER_HEAD = """# Items to judge (blind)

Protocol (../shared/spec/item-soundness.md): an item is **sound** when a careful reader, seeing only
the context, the question and the five options, finds **exactly one defensible answer** and every
sentence (options included) reads as English. For each item write one JSON line:

    {{"id": "r001", "sound": true, "pick": "C", "causes": []}}

`pick` is the one option you would defend (null if none or several); `causes` (for an unsound item,
every one that applies): {causes}.

"""


def _indexes() -> dict[str, Any]:
    from commonsense.io.triples import read_atomic_tsv, read_cskb_csv
    from commonsense.kg.edges import ORIGIN_FIELD
    from commonsense.kg.index import GraphIndex, IndexOptions
    from commonsense.questions.wellformed import build_edges

    edges = build_edges()  # the builders' default edge filter
    # (head, relation, tail, label, ref, origin): the origin is CSKB-Population's class, as stored on import
    ckbp = [
        (r.head, r.relation, r.tail, r.plausibility, None, dict(r.extra).get(ORIGIN_FIELD))
        for r in read_cskb_csv(SHARED / "ckbp_eval/evaluation_set.csv")
    ]
    atomic = [
        (r.head, r.relation, r.tail) for r in read_atomic_tsv(SHARED / "atomic2020_sample/atomic2020_triples.tsv")
    ]
    opts = IndexOptions(normalize=True)
    return {
        "CSKB": GraphIndex.build(edges(ckbp), opts),
        "ATOMIC": GraphIndex.build(edges(atomic), opts),
        "edge_filter": edges.name,
    }


def _commit() -> str:
    try:
        out = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True)
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "commonsense"], cwd=ROOT, capture_output=True, text=True
        )
        return out.stdout.strip() + ("+dirty" if dirty.stdout.strip() else "")
    except OSError:
        return "unknown"


def build(
    out: Path,
    seed: int,
    readers: int,
    count: int,
    rules: str = "curated",
    per_item: int = 1,
    chain_phrasing: str = "step",
    only: set[str] | None = None,
) -> None:
    from commonsense.questions.com2 import BuildParams, BuildReport, build_com2

    graphs = _indexes()
    items: list[dict[str, Any]] = []
    reports: dict[str, Any] = {}
    for graph, kinds in SETS:
        for kind in kinds:
            if only and f"{graph} {kind}" not in only:
                continue
            params = BuildParams(kind=kind, count=count, seed=seed, rules=rules, chain_phrasing=chain_phrasing)
            report = BuildReport()
            qs = build_com2(graphs[graph], params, report=report)
            reports[f"{graph} {kind}"] = report.as_dict()
            print(f"{graph:6} {kind:3} built {len(qs):3} of {count} ({report.attempts} attempts)", flush=True)
            for q in qs:
                items.append(
                    {
                        "set": graph,
                        "kind": kind,
                        "qid": q.id,
                        "context": q.context,
                        "question": q.question,
                        "options": q.options,
                        "gold": LETTERS[q.answer_index],
                        "chain": q.chain,
                        "distractors": q.metadata.get("distractors"),
                        "option_provenance": q.metadata.get("option_provenance"),
                        "params": params.as_dict(),
                    }
                )
    meta = {
        "command": " ".join(["perf/soundness.py", *sys.argv[1:]]),
        "commit": _commit(),
        "seed": seed,
        "count": count,
        "readers": readers,
        "edge_filter": graphs["edge_filter"],
        "reports": reports,
    }
    _write(out, items, seed, readers, meta, per_item)


def _write(
    out: Path,
    items: list[dict[str, Any]],
    seed: int,
    readers: int,
    meta: dict[str, Any],
    per_item: int = 1,
    apart: bool = False,
) -> None:
    """Shuffle ``items`` under blind ids into ``readers`` files; the key and ``meta`` beside them.
    ``per_item`` readers read each item (1: the items are split between the files; ``readers``: every
    file holds every item), each file in its own order, so that a majority of readers can be scored.
    ``apart`` (one reader per item): the copies of one query from different builds (same set and
    qid) go to different readers, the builds rotated over the readers, so that no reader sees a
    query twice (one wording would give the other away)."""
    if not 1 <= per_item <= readers:
        raise SystemExit(f"--per-item must be between 1 and --readers ({readers}), got {per_item}")
    builds = sorted({str(it.get("build", "")) for it in items})
    queries = sorted({(it["set"], str(it.get("qid", ""))) for it in items})
    if apart and (per_item > 1 or len(builds) > readers):
        raise SystemExit(f"--apart needs --per-item 1 and at least as many readers as builds ({len(builds)})")
    out.mkdir(parents=True, exist_ok=True)
    random.Random(seed).shuffle(items)
    key: dict[str, Any] = {}
    shards: list[list[str]] = [[] for _ in range(readers)]
    for i, it in enumerate(items):
        bid = f"r{i + 1:03d}"
        key[bid] = it
        opts = "\n".join(f"   {LETTERS[j]}. {o}" for j, o in enumerate(it["options"]))
        first = i
        if apart:
            first = builds.index(str(it.get("build", ""))) + queries.index((it["set"], str(it.get("qid", ""))))
            key[bid] = {**it, "reader": first % readers + 1}
        for j in range(per_item):  # P consecutive readers (round robin), never the same one twice
            shards[(first + j) % readers].append(
                f"## {bid}\nContext: {it['context']}\nQuestion: {it['question']}\n{opts}\n"
            )
    for k, shard in enumerate(shards, 1):
        if per_item > 1:  # each reader meets the items in an order of its own
            random.Random(f"{seed}:{k}").shuffle(shard)
        text = READER_HEAD.format(causes=", ".join(f'"{c}"' for c in CAUSES)) + "\n".join(shard)
        (out / f"reader-{k}.md").write_text(text)
    (out / "key.json").write_text(json.dumps(key, indent=1, ensure_ascii=False))
    (out / "build.json").write_text(json.dumps({**meta, "per_item": per_item}, indent=1))
    print(f"{len(items)} items in {readers} reader files under {out}, each item read by {per_item}")


def mix(
    builds: list[Path],
    out: Path,
    seed: int,
    readers: int,
    per_item: int = 1,
    only: set[str] | None = None,
    apart: bool = False,
) -> None:
    """An A/B reading: the items of several builds (each a ``build`` folder) shuffled together, so
    that the same readers judge every build without knowing which item came from which; ``only``
    keeps the sets named "GRAPH KIND" (e.g. "CSKB 2p")."""
    items: list[dict[str, Any]] = []
    meta: dict[str, Any] = {"command": " ".join(["perf/soundness.py", *sys.argv[1:]]), "seed": seed, "builds": {}}
    for d in builds:
        name = d.name
        for it in json.loads((d / "key.json").read_text()).values():
            if only and f"{it['set']} {it['kind']}" not in only:
                continue
            items.append({**it, "build": name})
        meta["builds"][name] = json.loads((d / "build.json").read_text())
    _write(out, items, seed, readers, {**meta, "readers": readers, "apart": apart}, per_item, apart)


def _reader_verdicts(d: Path) -> dict[str, dict[str, dict[str, Any]]]:
    """Each reader's verdicts (``verdicts-K.jsonl`` -> reader ``K``), by blind id."""
    got: dict[str, dict[str, dict[str, Any]]] = {}
    for f in sorted(d.glob("verdicts-*.jsonl")):
        mine = got.setdefault(f.stem.removeprefix("verdicts-"), {})
        for n, line in enumerate(f.read_text().splitlines(), 1):
            if not line.strip():
                continue
            try:
                v = json.loads(line)
            except json.JSONDecodeError as exc:
                raise SystemExit(f"{f}:{n}: not JSON ({exc})") from None
            if not isinstance(v, dict) or "id" not in v or not isinstance(v.get("sound"), bool):
                raise SystemExit(f'{f}:{n}: needs "id" and a true/false "sound"')
            bad = [c for c in v.get("causes") or [] if c not in CAUSES]
            if bad:
                raise SystemExit(f"{f}:{n}: field causes: unknown cause {bad[0]!r} (one of {', '.join(CAUSES)})")
            if str(v["id"]) in mine:
                raise SystemExit(f"{f}:{n}: a second verdict for {v['id']}")
            mine[str(v["id"])] = v
    return got


def _share(n: int, m: int) -> str:
    return f"{n:3} / {m:3} ({100 * n / max(m, 1):4.1f} %)"


def readers_figures(key: dict[str, Any], by_reader: dict[str, dict[str, dict[str, Any]]]) -> dict[str, Any]:
    """Per reader and pooled over readings (the per-reader share), the majority of each item's
    readers (items read by two or more; a tie is not a majority), and the readers' agreement on the
    sound verdict. ``strict``: sound and the reader's pick is the stored gold."""
    from commonsense.agreement import krippendorff_alpha

    def strict(bid: str, v: dict[str, Any]) -> bool:
        return bool(v["sound"]) and v.get("pick") == key[bid]["gold"]

    per_reader = {
        r: {
            "read": len(vs),
            "sound": sum(bool(v["sound"]) for v in vs.values()),
            "strict": sum(strict(b, v) for b, v in vs.items()),
        }
        for r, vs in sorted(by_reader.items())
    }
    readings = {k: sum(x[k] for x in per_reader.values()) for k in ("read", "sound", "strict")}
    by_item: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for vs in by_reader.values():
        for b, v in vs.items():
            by_item[b].append(v)
    multi = {b: vs for b, vs in by_item.items() if len(vs) >= 2}
    majority = {
        "items": len(multi),
        "readers_per_item": dict(sorted(Counter(len(vs) for vs in multi.values()).items())),
        "sound": sum(2 * sum(bool(v["sound"]) for v in vs) > len(vs) for vs in multi.values()),
        "strict": sum(2 * sum(strict(b, v) for v in vs) > len(vs) for b, vs in multi.items()),
        "unanimous_sound": sum(all(v["sound"] for v in vs) for vs in multi.values()),
        "unanimous_unsound": sum(not any(v["sound"] for v in vs) for vs in multi.values()),
    }
    pairs = agree = 0
    for vs in multi.values():
        for i in range(len(vs)):
            for j in range(i + 1, len(vs)):
                pairs += 1
                agree += int(vs[i]["sound"] == vs[j]["sound"])
    readers = sorted(by_reader)
    items = sorted(multi)
    alpha = None
    if items and len(readers) >= 2:
        matrix = [
            [float(by_reader[r][b]["sound"]) if b in by_reader[r] else float("nan") for b in items] for r in readers
        ]
        alpha = krippendorff_alpha(matrix, level="nominal", n_categories=2)
    agreement = {"pairs": pairs, "agree": agree, "share": agree / pairs if pairs else None, "alpha": alpha}
    return {"per_reader": per_reader, "readings": readings, "majority": majority, "agreement": agreement}


def score(d: Path, as_json: bool) -> dict[str, Any]:
    key = json.loads((d / "key.json").read_text())
    by_reader = _reader_verdicts(d)
    read_ids = {b for vs in by_reader.values() for b in vs}
    missing = sorted(set(key) - read_ids)
    unknown = sorted(read_ids - set(key))
    if unknown:
        raise SystemExit(f"verdicts for ids not in key.json: {', '.join(unknown[:5])}")
    rows: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    causes: Counter[str] = Counter()
    picked = gold = 0
    for vs in by_reader.values():  # every reading counts: with several readers per item, per reader
        for bid, v in vs.items():
            it = key[bid]
            prefix = f"{it['build']} " if "build" in it else ""
            r = rows[f"{prefix}{it['set']} {it['kind']}"]
            r[0] += int(v["sound"])
            r[1] += 1
            if not v["sound"]:
                causes.update(f"{prefix}{c}" for c in v.get("causes") or [])
            if v.get("pick"):
                picked += 1
                gold += int(v["pick"] == it["gold"])
    total = [sum(v[0] for s, v in rows.items()), sum(v[1] for s, v in rows.items())]
    builds = sorted({it["build"] for it in key.values() if "build" in it})
    order = [f"{b} {g} {k}".lstrip() for b in builds or [""] for g, ks in SETS for k in ks]
    for b in builds:
        n = sum(v[0] for s, v in rows.items() if s.startswith(b + " "))
        m = sum(v[1] for s, v in rows.items() if s.startswith(b + " "))
        rows[f"{b} all"] = [n, m]
        order.append(f"{b} all")
    figures = readers_figures(key, by_reader)
    summary = {
        "per_set": {s: {"sound": rows[s][0], "read": rows[s][1]} for s in order if s in rows},
        "all": {"sound": total[0], "read": total[1]},
        "causes": dict(causes.most_common()),
        "picked": picked,
        "picked_gold": gold,
        "missing": missing,
        **figures,
    }
    for s in order:
        if s in rows:
            print(f"{s:16} {_share(*rows[s])}")
    print(f"{'all':16} {_share(*total)}   (every reading; with several readers per item: the per-reader share)")
    print("causes on unsound readings:", ", ".join(f"{c} {n}" for c, n in causes.most_common()))
    print(f"a single option picked in {picked} readings; it was the gold in {gold}")
    rd, mj, ag = figures["readings"], figures["majority"], figures["agreement"]
    print("per reader (sound | sound and the pick is the gold):")
    for r, x in figures["per_reader"].items():
        print(f"  reader {r:4} {_share(x['sound'], x['read'])} | {_share(x['strict'], x['read'])}")
    print(f"  {'pooled':11} {_share(rd['sound'], rd['read'])} | {_share(rd['strict'], rd['read'])}")
    if mj["items"]:
        print(
            f"majority of each item's readers ({mj['items']} items read by {mj['readers_per_item']} readers; "
            f"a tie is no majority): sound {_share(mj['sound'], mj['items'])} | strict "
            f"{_share(mj['strict'], mj['items'])}; all readers sound {mj['unanimous_sound']}, all unsound "
            f"{mj['unanimous_unsound']}"
        )
        alpha = "undefined" if ag["alpha"] is None else f"{ag['alpha']:.3f}"
        print(
            f"readers' agreement on 'sound': {ag['agree']} of {ag['pairs']} pairs "
            f"({100 * (ag['share'] or 0):.1f} %), Krippendorff's alpha {alpha}"
        )
    else:
        print("majority: not applicable (one reader per item)")
    if missing:
        print(f"no verdict for {len(missing)} items: {', '.join(missing[:10])}")
    if as_json:
        (d / "summary.json").write_text(json.dumps(summary, indent=1))
    return summary


def _only(arg: str) -> set[str] | None:
    got = {s.strip() for s in arg.split(",") if s.strip()}
    return got or None


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build")
    b.add_argument("dir", type=Path)
    b.add_argument("--seed", type=int, default=11)
    b.add_argument("--readers", type=int, default=4)
    b.add_argument("--per-item", type=int, default=1, help="readers per item (default 1: items split between them)")
    b.add_argument("--count", type=int, default=40)
    b.add_argument("--rules", default="curated", help="composition rules: curated (default), paper, any")
    b.add_argument("--chain-phrasing", default="step", help="how 2p chains are worded: step (default), named, stacked")
    b.add_argument(
        "--only", default="", help='comma-separated sets to build, e.g. "CSKB 2p,CSKB 2in" (default: all six)'
    )
    m = sub.add_parser("mix")
    m.add_argument("builds", type=Path, nargs="+", help="build folders (each with key.json and build.json)")
    m.add_argument("--out", type=Path, required=True)
    m.add_argument("--seed", type=int, default=0)
    m.add_argument("--readers", type=int, default=4)
    m.add_argument("--per-item", type=int, default=1, help="readers per item (default 1: items split between them)")
    m.add_argument("--only", default="", help='comma-separated sets to keep, e.g. "CSKB 2p,CSKB 2in" (default: all)')
    m.add_argument("--apart", action="store_true", help="no reader sees one query in two builds' wordings")
    s = sub.add_parser("score")
    s.add_argument("dir", type=Path)
    s.add_argument("--json", action="store_true")
    a = ap.parse_args()
    if a.cmd == "build":
        if not SHARED.is_dir():
            raise SystemExit(f"{SHARED} is absent: the soundness sets are built from ../shared/data")
        build(a.dir, a.seed, a.readers, a.count, a.rules, a.per_item, a.chain_phrasing, _only(a.only))
    elif a.cmd == "mix":
        mix(a.builds, a.out, a.seed, a.readers, a.per_item, _only(a.only), a.apart)
    else:
        score(a.dir, a.json)


if __name__ == "__main__":
    main()
