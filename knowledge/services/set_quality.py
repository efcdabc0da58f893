"""The quality report of a question set (issue 11, item 8), stored in ``QuestionSet.quality``.

``build``: what the builder counted (requested, built, shortfall, dropped attempts, distractors
rejected by reason, negatives the plausibility judge vetoed), written when the set is built.
``text`` and ``chains``: counted over the stored questions by :func:`question_set_quality` (the
same figures as counting the exported JSONL). ``shortcuts``: the shortcut audit
(:mod:`knowledge.services.shortcuts`); its option-only baseline is asked of a worker when missing.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

from commonsense.kg.edges import ORIGIN_FIELD, POPULATED
from commonsense.questions.audit import baseline_table, shortcut_lines
from commonsense.questions.coco_text import checks as coco_checks
from commonsense.questions.funnel import lines as funnel_text
from commonsense.questions.funnel import space_verdict
from commonsense.questions.quality import chain_plausibility, text_checks
from knowledge.models import QuestionSet
from knowledge.services.shortcuts import option_only_enqueue, question_set_shortcuts
from knowledge.signals import question_set_human_quality_wanted


def _chains(qset: QuestionSet) -> tuple[list[list[float | None]], int]:
    """Per item (in set order) the plausibility of every triple of its golden chain, and how many
    items' chains hold a candidate CSKB-Population mined from ASER (a triple whose stored origin is
    in :data:`commonsense.kg.edges.POPULATED`: 0 for a default build), read in one pass."""
    through = qset.questions.model.triples.through
    rows = through.objects.filter(question__question_set=qset).values_list(
        "question_id", "triple__plausibility", "triple__extra"
    )
    by_q: dict[int, list[float | None]] = {}
    populated: set[int] = set()
    for qid, p, extra in rows.iterator(chunk_size=5000):
        by_q.setdefault(qid, []).append(p)
        if (extra or {}).get(ORIGIN_FIELD) in POPULATED:
            populated.add(qid)
    ids = qset.questions.values_list("id", flat=True)
    return [by_q.get(i, []) for i in ids.iterator(chunk_size=5000)], len(populated)


def question_set_quality(qset: QuestionSet, *, store: bool = True) -> dict[str, Any]:
    """Recompute the report's text and chain figures from the stored questions; keep the build's."""
    rows = qset.questions.values_list("context", "stem", "options", "answer_index", "answers")
    items = [
        {"context": c, "question": s, "options": o, "answer_index": i, "answers": a}
        for c, s, o, i, a in rows.iterator(chunk_size=2000)
    ]
    person_names = qset.params.get("person_names", True) is not False
    plausibilities, with_populated = _chains(qset)
    report: dict[str, Any] = {
        "build": (qset.quality or {}).get("build"),
        "text": text_checks(items, person_names=person_names),
        # CoCo's own faults (issue 27 item 7): blanks, split clitics, a distractor that is an answer
        **({"coco_text": coco_checks(items)} if qset.kind == QuestionSet.Kind.COCO else {}),
        "chains": {
            **chain_plausibility(plausibilities),
            "chains_with_populated": with_populated,
        },
    }
    shortcuts = question_set_shortcuts(qset)
    report["shortcuts"] = shortcuts
    # the apps above knowledge (annotation) add the human validation figures
    for _, human in question_set_human_quality_wanted.send(sender=QuestionSet, question_set=qset):
        if human is not None:
            report["human"] = dict(cast(Mapping[str, Any], human))
    verified = (qset.quality or {}).get("verified")  # a verified set's validation figures (annotation) stay
    if verified:
        report["verified"] = verified
    if store:
        qset.quality = report
        qset.save(update_fields=["quality"])
        if shortcuts["option_only"] is None or shortcuts["option_only"].get("error"):
            option_only_enqueue(qset)
    return report


def build_funnels(report: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """The build funnel of every kind of a set's report (:mod:`commonsense.questions.funnel`): a
    COM2 set's one kind, a CoCo set's application kinds; {} for a set built before funnels."""
    b = report.get("build") or {}
    got: dict[str, dict[str, Any]] = {}
    if b.get("funnels"):
        got = dict(b["funnels"])
    elif b.get("funnel"):
        got = {str(b.get("kind") or "built"): b["funnel"]}
    # a short build's verdict: how many queries the graph holds at all (the page shows it under the table)
    return {k: {**f, "verdict": space_verdict(k, f)} if f.get("space") else f for k, f in got.items()}


def funnel_lines(report: Mapping[str, Any]) -> list[str]:
    """Each kind's funnel as a line per chain (:func:`commonsense.questions.funnel.lines`)."""
    return [line for kind, f in build_funnels(report).items() for line in funnel_text(kind, f)]


def shortcut_rows(report: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The shortcut audit as table rows for a page (label, value, low, high, n, chance, flagged);
    [] for a set stored before issue 25. The option-only baseline's state (not yet computed, or
    why it could not be) is the row ``note``."""
    audit = report.get("shortcuts")
    if not audit:
        return []
    rows = [
        {"label": label, **{k: b.get(k) for k in ("value", "low", "high", "n", "chance", "flagged")}}
        for label, b in baseline_table(audit)
    ]
    oo = audit.get("option_only")
    note = None if oo and not oo.get("error") else (f"{oo.get('model')}: {oo['error']}" if oo else "not computed yet")
    if note is not None:
        rows.insert(1, {"label": "option only", "value": None, "note": note})
    return rows


def quality_lines(report: dict[str, Any], *, funnels: bool = True, shortcuts: bool = True) -> list[str]:
    """The report as short lines of text (command output and the set page, which shows the build
    funnels and the shortcut audit as tables: ``funnels=False, shortcuts=False``)."""
    out: list[str] = []
    b = report.get("build")
    if b:
        out.append(f"built {b['built']} of {b['requested']} requested (shortfall {b['shortfall']})")
        rej = b.get("distractors_rejected") or {}
        out.append("distractors rejected: " + (", ".join(f"{k} {v}" for k, v in rej.items()) if rej else "none"))
        vetoed = b.get("judge_vetoed")
        if vetoed is not None:
            out.append(
                "negatives the plausibility judge found a plausible answer and redrew: "
                + (", ".join(f"{k} {v}" for k, v in vetoed.items()) if vetoed else "none")
            )
        dropped = b.get("dropped") or {}
        if dropped:
            out.append("attempts dropped: " + ", ".join(f"{k} {v}" for k, v in dropped.items()))
    t = report.get("text")
    if t:
        out.append(
            f"items {t['items']}: placeholder leaks {t['placeholder_leaks']}, unconverted lemma forms "
            f"{t['lemma_forms']}, 'none' options {t['none_options']}, duplicate options {t['duplicate_options']}"
        )
    ct = report.get("coco_text")
    if ct:
        out.append(
            f'CoCo text: {ct["blanks"]} items with a ___ blank, {ct["split_tokens"]} with a split clitic (" n\'t"), '
            f"{ct['distractor_is_an_answer']} with a distractor that is an accepted answer"
        )
    c = report.get("chains")
    if c:
        share = c["share_all_plausible"]
        out.append(
            f"chains: {c['chains_all_plausible']} all plausible, {c['chains_with_implausible']} with an implausible "
            f"triple, {c['chains_unlabelled']} unlabelled"
            + (f" (share plausible {share:.1%} of labelled)" if share is not None else "")
            + (
                f"; {c['chains_with_populated']} with a candidate populated from ASER"
                if c.get("chains_with_populated")
                else ""
            )
        )
    if shortcuts:
        out += shortcut_lines(report.get("shortcuts"))
    if funnels:
        out.extend(funnel_lines(report))
    h = report.get("human")
    if h:
        agree = h.get("agreement")
        out.append(
            f"validated in campaign {h['campaign']}: {h['accepted']} of {h['items']} items accepted "
            f"({h['share_accepted']:.1%}), gold confirmed in {h['gold_confirmed']}"
            + (f", per-option agreement {agree:.2f}" if agree is not None else "")
        )
    out.extend(_verified_lines(report.get("verified")))
    return out


def _verified_lines(v: dict[str, Any] | None) -> list[str]:
    """A verified set's figures (stored by the annotation app when it made the set)."""
    if not v:
        return []
    c = v.get("counts") or {}
    left = {
        k: n
        for k, n in c.items()
        if k not in ("items", "kept", "none_correct", "needs_manual_negatives", "topped_up") and n
    }
    out = [
        f"verified from campaign {v['campaign']}: {c.get('kept', 0)} of {c.get('items', 0)} items kept, "
        f"{v.get('settled', 0)} of them settled by the campaign's confidence rule; "
        + (
            "UNSETTLED ITEMS INCLUDED by the researcher's choice"
            if v.get("include_unsettled")
            else "only settled items (the default)"
        ),
        "left out: " + (", ".join(f"{k.replace('_', ' ')} {n}" for k, n in left.items()) if left else "none"),
    ]
    if v.get("answers_per_item") is not None:
        out.append(f"answers spent per kept item: {v['answers_per_item']:.2f}")
    if v.get("require_agreement"):
        out.append("agreement required: an item with an answer dissenting from what it publishes was left out")
    if v.get("require_built_answer"):
        out.append(
            "built answer required: an item was kept only when every answer ticked the answer the build drew from "
            "the graph (no gold rewritten to another option or to 'None of the answers are correct.')"
        )
    if v.get("reviews"):
        out.append(
            f"blind review: every kept item was read by {v['reviews']} further people in the reader's framing (exactly "
            "one defensible answer, clear English), without the gold or anybody's answers, and each named the gold"
            + (f"; {v['reviews_per_item']:.2f} reviews per kept item" if v.get("reviews_per_item") is not None else "")
        )
    if "top_up" in v and not v["top_up"]:
        out.append("no top-up: items short of negatives were left out, not filled from their distractor pool")
    if c.get("topped_up"):
        out.append(f"{c['topped_up']} items topped up with negatives from their own checked distractor pool (COM2 A.4)")
    share_i, share_a = v.get("none_correct_items_share"), v.get("none_correct_answers_share")
    if share_i is not None:
        out.append(
            f"'None of the answers are correct.' is the answer of {share_i:.1%} of the items"
            + (f"; {share_a:.1%} of the annotators' answers said so" if share_a is not None else "")
        )
    audit = v.get("shortcut_audit")
    if audit is None:
        out.append("shortcut audit: not run (it comes with the hard-negatives audit, issue 25)")
    elif isinstance(audit, dict) and "flagged" in audit:
        flagged = audit.get("flagged") or []
        out.append(
            f"shortcut audit of the kept items: {len(flagged)} baseline(s) above chance"
            + (f" ({', '.join(map(str, flagged))})" if flagged else "")
        )
    else:
        out.append(f"shortcut audit: {audit}")
    return out
