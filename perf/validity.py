"""Benchmark validity (issue 25): the shortcut baselines of default builds, before and after COM2's
hard negatives, and how SmolLM2-135M scores on both.

For each of the soundness sets (CSKB-Population 2i, 3i, 2p, 2in and the ATOMIC-2020 sample's 2i,
3i from ../shared/data; :data:`perf.soundness.SETS`) two builds at the same seed: ``before`` with
:data:`commonsense.questions.com2.OLD_VETO` (main's distractors before issue 25: the same items
as main's code builds, which ``--dump`` lets one compare with a build of main's code) and
``after`` with the builders' defaults. Per build: yield (built of requested, attempts), the audit of
:mod:`commonsense.questions.audit` (answer type, gold position, length; option only with SmolLM2,
question and context withheld) and SmolLM2-135M's accuracy with the question (lm-eval's cloze
prompt: raw log-likelihood ``acc`` and per-character ``acc_norm``), each with its 95 % interval.

    .venv/bin/python perf/validity.py [--seed 101] [--count 40] [--no-model] [--json OUT]
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

from perf.soundness import SETS, _indexes  # noqa: E402


def _items(qs: list[Any]) -> list[Any]:
    from commonsense.questions.audit import audit_item

    return [
        audit_item(q.options, q.answer_index, {**q.metadata, "chain": q.chain}, kind=q.kind, answers=q.answers)
        for q in qs
    ]


def _with_question(backend: Any, qs: list[Any]) -> dict[str, Any]:
    """SmolLM2 as a run scores the items: lm-eval's cloze prompt, acc and acc_norm."""
    from commonsense.metrics.shortcuts import baseline
    from commonsense.scoring.loglik import LoglikScorer
    from commonsense.scoring.types import Item

    scorer = LoglikScorer(backend)
    items = [Item(id=q.id, question=q.question, options=tuple(q.options), context=q.context) for q in qs]
    got = [r for i in range(0, len(items), 16) for r in scorer.score_batch(items[i : i + 16])]
    chance = [1 / len(q.options) for q in qs]
    raw = [float(r.chosen == q.answer_index) for r, q in zip(got, qs, strict=True)]
    norm = [float(r.chosen_norm == q.answer_index) for r, q in zip(got, qs, strict=True)]
    return {"acc": baseline(raw, chance).as_dict(), "acc_norm": baseline(norm, chance).as_dict()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, default=101)
    ap.add_argument("--count", type=int, default=40)
    ap.add_argument("--no-model", action="store_true", help="leave SmolLM2 out (the figures without a model)")
    ap.add_argument("--json", type=Path, default=None)
    ap.add_argument("--dump", type=Path, default=None, help="write each build's questions (for --check-main)")
    a = ap.parse_args()

    from commonsense.questions.audit import option_only, score_options, shortcut_audit
    from commonsense.questions.com2 import OLD_VETO, BuildParams, BuildReport, build_com2

    backend = None
    if not a.no_model:
        from commonsense.scoring.factory import build_backend
        from commonsense.scoring.locate import smollm2_gguf

        backend = build_backend("hf", model=str(smollm2_gguf()), cache_dir=ROOT / "var/cache/models", dtype="float32")
    graphs = _indexes()
    out: dict[str, Any] = {"seed": a.seed, "count": a.count, "edge_filter": graphs["edge_filter"], "sets": {}}
    dump: dict[str, Any] = {}
    for graph, kinds in SETS:
        for kind in kinds:
            for label, extra in (("before", OLD_VETO), ("after", {})):
                t0 = time.perf_counter()
                report = BuildReport()
                params = BuildParams(kind=kind, count=a.count, seed=a.seed, **extra)  # type: ignore[arg-type]
                qs = build_com2(graphs[graph], params, report=report)
                built_s = time.perf_counter() - t0
                items = _items(qs)
                row: dict[str, Any] = {
                    "built": len(qs),
                    "requested": a.count,
                    "attempts": report.attempts,
                    "build_seconds": round(built_s, 1),
                    "audit": shortcut_audit(items),
                }
                if backend is not None and qs:
                    row["audit"] = shortcut_audit(
                        items,
                        option_only_report=option_only(items, score_options(backend, items), model="SmolLM2-135M"),
                    )
                    row["smollm2"] = _with_question(backend, qs)
                out["sets"][f"{graph} {kind} {label}"] = row
                dump[f"{graph} {kind} {label}"] = [[q.question, q.options, q.answer_index] for q in qs]
                au = row["audit"]
                oo = au.get("option_only") or {}
                sm = row.get("smollm2") or {}

                def v(b: Any) -> str:
                    return "  -  " if not b or b.get("value") is None else f"{100 * b['value']:5.1f}"

                print(
                    f"{graph:6} {kind:3} {label:6} built {len(qs):3}/{a.count} ({report.attempts:4} att.) "
                    f"type {v(au['answer_type'])} pos {v(au['position'])} "
                    f"oo raw {v(oo.get('raw'))} norm {v(oo.get('norm'))} fit {v(oo.get('fitted'))} "
                    f"long {v(au['length']['longest'])} short {v(au['length']['shortest'])} "
                    f"| smol acc {v(sm.get('acc'))} norm {v(sm.get('acc_norm'))}",
                    flush=True,
                )
    if a.json:
        a.json.write_text(json.dumps(out, indent=1))
    if a.dump:
        a.dump.write_text(json.dumps(dump, indent=0, ensure_ascii=False))


if __name__ == "__main__":
    main()
