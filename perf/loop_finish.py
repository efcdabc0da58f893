"""The verification loop measured end to end (issue 26, perf/RESULTS.md "verification loop"), step 3 of 3:
the verified sets of the campaigns ``perf/loop_setup.py`` made, their counts, and a blind reader file.

    .venv/bin/python perf/loop_finish.py VAR_DIR [--out DIR] [--readers 3 --per-item 3] [--seed 0]

For each campaign of ``VAR_DIR/loop.json``, through the production services: close it (readers stop),
fit its annotator models (``annotator_quality``: Dawid–Skene and MACE, every item judged again), say
what ``verified_set`` would keep and leave out, and make the verified set ``<campaign>-verified`` with
the default rule (settled items only; with a review stage, only items every review accepted - the
review campaigns are closed too). Printed and written to ``VAR_DIR/finish.json``: per campaign
the items kept, short of the minimum of answers, unsettled and otherwise left out; the answers spent
(all of the campaign's, on the kept items, and all of them per verified item); the verified set's
shortcut audit (issue 25's baselines: answer type, option-only, position, length, with their chance
levels) and the same baselines pooled over every verified item. The option-only baseline is a worker's
job (queue ``eval``: the loop's documented worker serves it); ``finish`` waits ``--option-only-wait``
seconds for it, then computes what is still missing in this process through the same service
(``knowledge.services.shortcuts.question_set_option_only``), so all four baselines are always reported.

``--out`` (default ``VAR_DIR/reading``) receives every verified item, shuffled under blind ids, in
``perf/soundness.py``'s reader format: ``reader-K.md`` for fresh readers who answered none of the
campaigns (``--per-item P``: each item in P of the ``--readers`` files, each file in its own order, so
that ``soundness.py score`` reports the per-reader share beside the majority of the P readers and
their agreement), and ``key.json`` (gold letter, set, kind, campaign, settlement, answers, confidence,
top-up) that stays with the lead. Score their ``verdicts-K.jsonl`` with
``.venv/bin/python perf/soundness.py score DIR``.
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

from perf.loop_setup import commit, django_for  # noqa: E402

LETTERS = "ABCDE"


def finish_campaign(name: str, *, close: bool) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Close, refit, make the verified set; its figures and its items (for the reader file)."""
    from django.core.exceptions import ValidationError

    from annotation.models import Campaign, Response
    from annotation.selectors.campaigns import campaign_progress
    from annotation.services.campaigns import campaign_status_set
    from annotation.services.quality import annotator_quality_refresh
    from annotation.services.verified import preview_text, verified_set_create, verified_set_preview
    from commonsense.questions.audit import shortcut_lines

    campaign = Campaign.objects.get(name=name)
    if close and campaign.status != Campaign.Status.CLOSED:
        campaign_status_set(campaign, Campaign.Status.CLOSED)
    review = Campaign.objects.filter(review_of=campaign).first()  # the review stage (issue 26, session 20)
    if close and review is not None and review.status != Campaign.Status.CLOSED:
        campaign_status_set(review, Campaign.Status.CLOSED)
    annotators = annotator_quality_refresh(campaign)
    progress = campaign_progress(campaign)
    preview = verified_set_preview(campaign)
    answers = Response.objects.filter(campaign=campaign, item__role="regular").count()
    reviews = Response.objects.filter(campaign=review).count() if review is not None else 0
    row: dict[str, Any] = {
        "campaign": name,
        "items": progress["items"],
        "answers": answers,
        "reviews_per_item": campaign.reviews,
        "reviews": reviews,
        "annotators_fitted": annotators,
        "settled": progress["settled"],
        "exhausted": progress["exhausted"],
        "disputed": progress["disputed"],
        "open": progress["open"],
        "unanswered": progress["unanswered"],
        "preview": preview,
        "preview_text": preview_text(campaign, preview),
    }
    print(f"{name}: {row['preview_text']}", flush=True)
    try:
        v = verified_set_create(campaign, name=f"{name}-verified")
    except ValidationError as exc:
        row["error"] = " ".join(exc.messages)
        print(f"  no verified set: {row['error']}")
        return row, []
    qset = v.question_set
    figures = (qset.quality or {}).get("verified", {})
    c = v.counts
    kept = c.get("kept", 0)
    row.update(
        {
            "verified_set": qset.name,
            "kept": kept,
            "short": c.get("below_min", 0),
            "unsettled": c.get("unsettled", 0),
            "disputed": c.get("disputed", 0),
            "left_out": {k: n for k, n in c.items() if k not in ("items", "kept", "none_correct", "topped_up")},
            "none_correct_items": c.get("none_correct", 0),
            "topped_up": c.get("topped_up", 0),
            "answers_per_kept_item": figures.get("answers_per_item"),
            "answers_per_verified_item": round(answers / kept, 3) if kept else None,
            "reviews_per_verified_item": round(reviews / kept, 3) if kept else None,
            "shortcuts": (qset.quality or {}).get("shortcuts"),
        }
    )
    print(
        f"  {qset.name}: kept {kept} of {row['items']}; short of the minimum {row['short']}, unsettled "
        f"{row['unsettled']}, disputed {row['disputed']}, left out {row['left_out']}; answers {answers} "
        f"({row['answers_per_kept_item']} per kept item on the kept items, "
        f"{row['answers_per_verified_item']} of all answers per verified item); reviews {reviews} "
        f"({row['reviews_per_verified_item']} per verified item)"
    )
    for line in shortcut_lines(row["shortcuts"]):
        print(f"  shortcut audit: {line}")
    source = campaign.question_set
    graph = (source.graph.name if source and source.graph else "?").upper()
    kind = (source.params or {}).get("kind", "?") if source else "?"
    items = []
    for q in qset.questions.order_by("position"):
        ver = q.metadata.get("verified", {})
        items.append(
            {
                "set": graph,
                "kind": kind,
                "qid": q.external_id,
                "context": q.context,
                "question": q.stem,
                "options": list(q.options),
                "gold": LETTERS[q.answer_index or 0],  # a verified item always has its answer
                "campaign": name,
                "verified_set": qset.name,
                "settlement": ver.get("settlement"),
                "n_answers": ver.get("n_answers"),
                "confidence": ver.get("confidence"),
                "agreement": ver.get("agreement"),
                "topped_up": ver.get("topped_up"),
                "source_options": ver.get("source_options"),
                "source_answer_index": ver.get("source_answer_index"),
                "label": ver.get("label"),
                "votes": ver.get("votes"),
                "reviews": ver.get("reviews"),
            }
        )
    return row, items


def option_only_baselines(names: list[str], wait: float) -> list[str]:
    """Wait up to ``wait`` seconds for the worker's option-only figures of the verified sets
    ``names``, then compute the missing ones here (the same service the worker runs). The names of
    the sets computed here."""
    from knowledge.models import QuestionSet
    from knowledge.services.shortcuts import question_set_option_only

    def missing() -> list[QuestionSet]:
        out = []
        for q in QuestionSet.objects.filter(name__in=names):
            oo = ((q.quality or {}).get("shortcuts") or {}).get("option_only")
            if not oo or oo.get("error"):
                out.append(q)
        return out

    deadline = time.time() + wait
    todo = missing()
    while todo and time.time() < deadline:
        time.sleep(5)
        todo = missing()
    for q in todo:
        print(f"  option-only baseline of {q.name}: computed here (no worker served queue 'eval')", flush=True)
        question_set_option_only(q)
    return [q.name for q in todo]


def pooled_baselines(names: list[str]) -> dict[str, Any]:
    """The shortcut baselines over every verified item together: the audit of the pooled items, and
    the option-only hits summed over the sets' stored figures."""
    from commonsense.questions.audit import shortcut_audit
    from knowledge.models import QuestionSet
    from knowledge.services.shortcuts import question_set_audit_items

    items: list[Any] = []
    oo: dict[str, list[float]] = {}
    model = None
    for q in QuestionSet.objects.filter(name__in=names).order_by("name"):
        items += question_set_audit_items(q)
        report = ((q.quality or {}).get("shortcuts") or {}).get("option_only") or {}
        model = report.get("model", model)
        for k in ("raw", "norm", "fitted"):
            b = report.get(k) or {}
            if b.get("value") is not None and b.get("n"):
                got = oo.setdefault(k, [0.0, 0.0])
                got[0] += b["value"] * b["n"]
                got[1] += b["n"]
    audit = shortcut_audit(items) if items else {}
    pos = audit.get("position") or {}
    out: dict[str, Any] = {
        "items": len(items),
        "answer_type": (audit.get("answer_type") or {}).get("value"),
        "position": pos.get("value"),
        "position_letters": pos.get("counts"),
        "length": {k: b.get("value") for k, b in (audit.get("length") or {}).items()},
        "option_only_model": model,
        "option_only": {k: round(h / n, 4) for k, (h, n) in oo.items()},
    }
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("var_dir", type=Path, help="the folder perf/loop_setup.py made")
    ap.add_argument("--out", type=Path, help="reader files and key (default VAR_DIR/reading)")
    ap.add_argument("--readers", type=int, default=1, help="reader files (fresh readers) for the verified items")
    ap.add_argument("--per-item", type=int, default=1, help="readers per verified item (default 1; 3 for a majority)")
    ap.add_argument(
        "--option-only-wait", type=float, default=120, help="seconds to wait for the worker's option-only figures"
    )
    ap.add_argument("--seed", type=int, default=0, help="the shuffle of the reader file")
    ap.add_argument("--keep-open", action="store_true", help="do not close the campaigns first")
    a = ap.parse_args()
    meta_path = a.var_dir / "loop.json"
    if not meta_path.is_file():
        raise SystemExit(f"{meta_path} is absent: run perf/loop_setup.py {a.var_dir} first")
    meta = json.loads(meta_path.read_text())
    if not 1 <= a.per_item <= a.readers:
        raise SystemExit(f"--per-item must be between 1 and --readers ({a.readers}), got {a.per_item}")
    out = a.out or a.var_dir / "reading"
    if (out / "key.json").exists():
        raise SystemExit(f"{out / 'key.json'} exists: give another --out")
    django_for(a.var_dir)
    from perf.soundness import _write

    t = time.time()
    rows, items = [], []
    for name in meta["campaigns"]:
        row, its = finish_campaign(name, close=not a.keep_open)
        rows.append(row)
        items.extend(its)
    verified = [r["verified_set"] for r in rows if r.get("verified_set")]
    inline = option_only_baselines(verified, a.option_only_wait)
    from knowledge.models import QuestionSet

    for r in rows:  # the audit as it is now, the option-only figures included
        if r.get("verified_set"):
            r["shortcuts"] = (QuestionSet.objects.get(name=r["verified_set"]).quality or {}).get("shortcuts")
    pooled = pooled_baselines(verified)
    kept = sum(r.get("kept", 0) for r in rows)
    answers = sum(r["answers"] for r in rows)
    reviews = sum(r.get("reviews", 0) for r in rows)
    total = {
        "items": sum(r["items"] for r in rows),
        "kept": kept,
        "short": sum(r.get("short", 0) for r in rows),
        "unsettled": sum(r.get("unsettled", 0) for r in rows),
        "disputed": sum(r.get("disputed", 0) for r in rows),
        "answers": answers,
        "answers_per_item": round(answers / max(sum(r["items"] for r in rows), 1), 3),
        "answers_per_verified_item": round(answers / kept, 3) if kept else None,
        "reviews": reviews,
        "reviews_per_verified_item": round(reviews / kept, 3) if kept else None,
        "review_rejected": sum((r.get("left_out") or {}).get("review_rejected", 0) for r in rows),
        "review_pending": sum((r.get("left_out") or {}).get("review_pending", 0) for r in rows),
    }
    print(
        f"\nall: kept {kept} of {total['items']} items (short {total['short']}, unsettled {total['unsettled']}, "
        f"disputed {total['disputed']}); "
        f"{answers} answers, {total['answers_per_item']} per item, {total['answers_per_verified_item']} per verified item; "
        f"{reviews} reviews, {total['reviews_per_verified_item']} per verified item (rejected by a review "
        f"{total['review_rejected']}, waiting for reviews {total['review_pending']})"
    )
    pct = lambda v: "n/a" if v is None else f"{100 * v:.1f} %"  # noqa: E731
    print(
        f"baselines pooled over the {pooled['items']} verified items (chance 20 %): answer type "
        f"{pct(pooled['answer_type'])}, option-only ({pooled['option_only_model']}) "
        + ", ".join(f"{k} {pct(v)}" for k, v in pooled["option_only"].items())
        + f", gold position {pct(pooled['position'])} (letters {pooled['position_letters']}), "
        + ", ".join(f"{k} option {pct(v)}" for k, v in pooled["length"].items())
    )
    summary = {
        "loop": meta,
        "finished": time.strftime("%Y-%m-%d %H:%M:%S"),
        "commit": commit(),
        "total": total,
        "baselines_pooled": pooled,
        "option_only_computed_here": inline,
    }
    (a.var_dir / "finish.json").write_text(json.dumps({**summary, "campaigns": rows}, indent=1, default=str))
    if items:
        meta_out = {**summary, "command": " ".join(["perf/loop_finish.py", *sys.argv[1:]])}
        _write(out, items, a.seed, a.readers, meta_out, a.per_item)
        print(f"give only {out}/reader-K.md to a fresh reader; key.json stays with you")
    print(f"{time.time() - t:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
