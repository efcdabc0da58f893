"""The composition rules' modes side by side (issue 27 item 4): for ``curated``, ``paper`` and ``any``,
the six sets of the blind readings (CSKB-Population 2i, 2p, 3i, 2in and the ATOMIC-2020 sample's 2i,
3i, plus CSKB ip and pi) built with the builders' defaults from ../shared/data, and per set: how
many of the requested items were built, the funnel's composition refusals, and the shortcut audit's
baselines (answer type by option shape, gold position, longest option; accuracy and 95 % interval).
Blind soundness per mode comes from ``perf/soundness.py build DIR --rules MODE`` + ``mix``.

    .venv/bin/python perf/rules_modes.py [--count 40] [--seed 11] [--modes curated,paper,any] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

SETS = (("CSKB", ("2i", "2p", "3i", "2in", "ip", "pi")), ("ATOMIC", ("2i", "3i")))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--count", type=int, default=40)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--modes", default="curated,paper,any")
    ap.add_argument("--json", type=Path)
    a = ap.parse_args()

    from commonsense.questions.audit import shortcut_audit_rows
    from commonsense.questions.com2 import BuildParams, BuildReport, build_com2
    from perf.soundness import _indexes

    graphs = _indexes()
    out: dict[str, Any] = {}
    for mode in a.modes.split(","):
        for graph, kinds in SETS:
            for kind in kinds:
                report = BuildReport()
                t = time.perf_counter()
                qs = build_com2(
                    graphs[graph], BuildParams(kind=kind, count=a.count, seed=a.seed, rules=mode), report=report
                )
                took = time.perf_counter() - t
                rows = [
                    {"options": q.options, "answer_index": q.answer_index, "metadata": q.metadata, "structure": q.kind}
                    for q in qs
                ]
                audit = shortcut_audit_rows(rows) if rows else {}
                refused = report.sampling.no_query.get("refused by the composition rules", 0)
                row = {
                    "built": len(qs),
                    "requested": a.count,
                    "attempts": report.attempts,
                    "refused_by_rules": refused,
                    "seconds": round(took, 1),
                    "answer_type": (audit.get("answer_type") or {}).get("value"),
                    "position": (audit.get("position") or {}).get("value"),
                    "longest": ((audit.get("length") or {}).get("longest") or {}).get("value"),
                }
                out[f"{mode} {graph} {kind}"] = row

                def pct(v: Any) -> str:
                    return f"{v:.0%}" if isinstance(v, float) else "-"

                print(
                    f"{mode:8} {graph:6} {kind:3} built {len(qs):3}/{a.count} attempts {report.attempts:5} "
                    f"refused by rules {refused:5}  shape {pct(row['answer_type'])} position {pct(row['position'])} "
                    f"longest {pct(row['longest'])}  {took:.1f} s",
                    flush=True,
                )
    if a.json:
        a.json.write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
