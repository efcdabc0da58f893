"""The shortcut audit of a multiple-choice set (issue 25): can it be answered without common sense?

One code path for every set (COM2, CoCo, RICA, imported, verified): items in, a dict out, stored
in the set's quality report. Three baselines (Gururangan et al. 2018; Poliak et al. 2018), each
with n, a 95 % interval and a flag above chance + 15 points (:mod:`commonsense.metrics.shortcuts`):

* **answer type** (:func:`answer_type_scores`): keep the options whose form fits the relation
  the question asks (the edges into the answer of its golden chain, or an imported item's
  ``relation``), judged by the well-formed filter's own check
  (:func:`commonsense.questions.wellformed.misfit`: a state for "feels" / "is seen as", a verb
  phrase about the right person for an action); for wants and needs prefer "wants to …" /
  "needs to …" (:data:`~commonsense.questions.wellformed.WANT`, ``NEED``) when any option says so;
  then pick among those kept. Items whose relation is unknown are not counted.
* **option only** (:func:`option_only`): a language model scores each option alone, question and
  context withheld: its raw and length-normalised log-likelihood choices, and a conditional logit
  over those and the options' lengths fitted by cross-validation. Computed after a build, off
  the request path (it needs a model).
* **position**: the gold letters' spread and the leave-one-out majority letter.

Beside them, without a model: the longest and the shortest option (``length``), and
``answer_members``: items offering a member of their own answer set as a distractor (0 for a
sound build).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, TypedDict

import numpy as np

from commonsense.kg import relations as registry
from commonsense.kg.normalize import normalize_tail
from commonsense.metrics.shortcuts import MARGIN, baseline, fitted_choice, pick_expected, position_baseline
from commonsense.scoring.types import Backend, LoglikRequest

from .wellformed import NEED, WANT, WANTS, display_form, misfit
from .words import tokens

AUDIT_VERSION = "shortcuts-v1"
BASELINES = ("answer_type", "option_only", "position")


class AuditItem(TypedDict):
    kind: str
    options: list[str]
    answer_index: int
    relations: list[str]  # what the question asks: the relations of the edges into the answer
    names: dict[str, str]  # PersonX -> the name shown
    answers: list[str]  # every correct answer's text, as shown


def asked_relations(metadata: Mapping[str, Any]) -> list[str]:
    """The relations of the golden chain's edges into the answer (2i: both branches; 2p: the
    last hop), else an imported item's ``relation``, else nothing."""
    chain = metadata.get("chain")
    if isinstance(chain, list) and chain and all(isinstance(c, list | tuple) and len(c) == 3 for c in chain):
        gold = chain[-1][2]
        return list(dict.fromkeys(str(r) for _, r, t in chain if t == gold))
    rel = metadata.get("relation")
    return [str(rel)] if rel else []


def audit_item(
    options: Sequence[Any],
    answer_index: int | None,
    metadata: Mapping[str, Any] | None,
    *,
    kind: str = "",
    answers: Sequence[Any] = (),
) -> AuditItem | None:
    """An item as the audit reads it (None: no gold to audit)."""
    opts = [str(o) for o in options]
    if answer_index is None or not 0 <= answer_index < len(opts) or len(opts) < 2:
        return None
    md = metadata or {}
    names = md.get("names") if isinstance(md.get("names"), dict) else {}
    return AuditItem(
        kind=kind,
        options=opts,
        answer_index=int(answer_index),
        relations=asked_relations(md),
        names={str(k): str(v) for k, v in (names or {}).items() if v},
        answers=[str(a) for a in answers],
    )


def audit_rows(rows: Iterable[Mapping[str, Any]]) -> list[AuditItem]:
    """Stored questions (``knowledge.models.Question``'s fields as a mapping: ``options``,
    ``answer_index``, ``metadata``, ``structure``, ``answers``) as audit items; rows without a
    gold are left out."""
    out: list[AuditItem] = []
    for r in rows:
        it = audit_item(
            r.get("options") or [],
            r.get("answer_index"),
            r.get("metadata") or {},
            kind=str(r.get("structure") or ""),
            answers=r.get("answers") or [],
        )
        if it is not None:
            out.append(it)
    return out


def shortcut_audit_rows(rows: Iterable[Mapping[str, Any]], **options: Any) -> dict[str, Any]:
    """:func:`shortcut_audit` of stored questions (:func:`audit_rows`): the one call a set page
    or a verified set needs (``options``: ``option_only_report``, ``margin``)."""
    return shortcut_audit(audit_rows(rows), **options)


def fingerprint(items: Sequence[AuditItem]) -> str:
    """What the option-only figures were computed on: the options and golds, in order."""
    import hashlib

    h = hashlib.sha256()
    for it in items:
        h.update(repr((it["options"], it["answer_index"])).encode())
    return h.hexdigest()[:16]


def _placeholders(text: str, names: Mapping[str, str]) -> str:
    """The names shown turned back into PersonX / PersonY, which the form checks read."""
    back = {v: k for k, v in names.items()}
    if not back:
        return text
    pattern = re.compile(r"\b(" + "|".join(re.escape(n) for n in sorted(back, key=len, reverse=True)) + r")\b")
    return pattern.sub(lambda m: back[m.group(1)], text)


def _known(relation: str) -> bool:
    try:
        registry.get(relation)
    except (KeyError, ValueError):
        return False
    return True


def form_text(option: str, relation: str, names: Mapping[str, str]) -> str:
    """``option`` as the well-formed checks read a tail of ``relation``: placeholders back, a
    subject-less raw tail ("to go home", CoCo's memorization options) given the relation's
    subject, present tense."""
    text = _placeholders(option, names)
    if _known(relation):
        text = normalize_tail(relation, text)
    return display_form(text)


def fits(option: str, relation: str, names: Mapping[str, str]) -> bool:
    return misfit(relation, form_text(option, relation, names)) is None


def _preferred(relations: Sequence[str]) -> re.Pattern[str] | None:
    pats = {WANT if r in WANTS else NEED if r == "xNeed" else None for r in relations}
    return next(iter(pats)) if len(pats) == 1 else None


def _predicate(option: str, relation: str, names: Mapping[str, str]) -> str:
    return " ".join(tokens(form_text(option, relation, names))[1:])


def kept_by_form(item: AuditItem) -> list[int] | None:
    """The options the answer-type rule keeps, or None when the item's relation is unknown."""
    rels = [r for r in item["relations"] if r]
    if not rels:
        return None
    opts, names = item["options"], item["names"]
    keep = [i for i, o in enumerate(opts) if all(fits(o, r, names) for r in rels)]
    if not keep:
        return list(range(len(opts)))
    pat = _preferred(rels)
    if pat is not None:
        preferred = [i for i in keep if pat.match(_predicate(opts[i], rels[0], names))]
        keep = preferred or keep
    return keep


def answer_type_scores(items: Iterable[AuditItem]) -> tuple[list[float], list[float]]:
    """(expected accuracy, chance) per item whose relation is known."""
    scores: list[float] = []
    chances: list[float] = []
    for it in items:
        keep = kept_by_form(it)
        if keep is None:
            continue
        scores.append(1.0 / len(keep) if it["answer_index"] in keep else 0.0)
        chances.append(1.0 / len(it["options"]))
    return scores, chances


def fitting_distractors(item: AuditItem) -> int | None:
    """How many distractors have the form the question asks (None: relation unknown)."""
    rels = [r for r in item["relations"] if r]
    if not rels:
        return None
    return sum(
        all(fits(o, r, item["names"]) for r in rels) for i, o in enumerate(item["options"]) if i != item["answer_index"]
    )


def _key(text: str) -> str:
    return " ".join(text.casefold().rstrip(".").split())


def answer_members(item: AuditItem) -> list[str]:
    """Distractors that are members of the item's own answer set (a broken build)."""
    answers = {_key(a) for a in item["answers"]}
    return [o for i, o in enumerate(item["options"]) if i != item["answer_index"] and _key(o) in answers]


def _length(items: Sequence[AuditItem], highest: bool, margin: float) -> dict[str, Any]:
    scores = [pick_expected([len(o) for o in it["options"]], it["answer_index"], highest=highest) for it in items]
    return baseline(scores, [1.0 / len(it["options"]) for it in items], margin).as_dict()


def _static(items: Sequence[AuditItem], margin: float) -> dict[str, Any]:
    scores, chances = answer_type_scores(items)
    return {
        "items": len(items),
        "answer_type": baseline(scores, chances, margin).as_dict(),
        "position": position_baseline(
            [it["answer_index"] for it in items], [len(it["options"]) for it in items], margin
        ),
        "length": {"longest": _length(items, True, margin), "shortest": _length(items, False, margin)},
    }


def shortcut_audit(
    items: Sequence[AuditItem], *, option_only_report: Mapping[str, Any] | None = None, margin: float = MARGIN
) -> dict[str, Any]:
    """The audit without a model (answer type, position, length, answer-set members), per kind
    as well when the set mixes kinds; ``option_only_report`` (:func:`option_only`) is kept as given."""
    kinds = sorted({it["kind"] for it in items})
    report = {"version": AUDIT_VERSION, "margin": margin, "fingerprint": fingerprint(items), **_static(items, margin)}
    if len(kinds) > 1:
        report["by_kind"] = {k: _static([it for it in items if it["kind"] == k], margin) for k in kinds}
    members = [it for it in items if answer_members(it)]
    report["answer_members"] = len(members)
    report["option_only"] = dict(option_only_report) if option_only_report else None
    report["flagged"] = flagged(report)
    return report


def flagged(report: Mapping[str, Any]) -> list[str]:
    """Names of the baselines above chance + the margin."""
    out = [name for name in ("answer_type", "position") if (report.get(name) or {}).get("flagged")]
    out += [f"length {k}" for k, b in (report.get("length") or {}).items() if b.get("flagged")]
    oo = report.get("option_only") or {}
    out += [f"option only {k}" for k in ("raw", "norm", "fitted") if (oo.get(k) or {}).get("flagged")]
    return out


OptionScores = list[list[tuple[float, int]]]  # per item, per option: (log-likelihood, tokens)


def score_options(
    backend: Backend, items: Sequence[AuditItem], *, batch: int = 32, progress: Callable[[int], None] | None = None
) -> OptionScores:
    """Each option's log-likelihood with nothing before it (question and context withheld)."""
    out: OptionScores = []
    for i in range(0, len(items), batch):
        chunk = items[i : i + batch]
        got = backend.loglikelihood([LoglikRequest("", tuple(it["options"])) for it in chunk])
        out.extend([(float(c.logprob), int(c.n_tokens)) for c in row] for row in got)
        if progress is not None:
            progress(len(out))
    return out


def option_only(
    items: Sequence[AuditItem], scores: OptionScores, *, model: str, margin: float = MARGIN, seed: int = 0
) -> dict[str, Any]:
    """The option-only baseline from :func:`score_options`: ``raw`` (highest log-likelihood),
    ``norm`` (per character, lm-eval's acc_norm) and ``fitted`` (the cross-validated conditional
    logit over log-likelihood, per-character log-likelihood, characters and tokens)."""
    if len(items) != len(scores):
        raise ValueError(f"{len(items)} items but {len(scores)} scored")
    golds = [it["answer_index"] for it in items]
    chances = [1.0 / len(it["options"]) for it in items]
    raw, norm, feats = [], [], []
    for it, row, g in zip(items, scores, golds, strict=True):
        lls = [ll for ll, _ in row]
        chars = [max(1, len(o)) for o in it["options"]]
        per_char = [ll / c for ll, c in zip(lls, chars, strict=True)]
        raw.append(pick_expected(lls, g))
        norm.append(pick_expected(per_char, g))
        feats.append(np.array([[ll, pc, c, t] for ll, pc, c, (_, t) in zip(lls, per_char, chars, row, strict=True)]))
    fitted = fitted_choice(feats, golds, seed=seed) if items else []
    return {
        "model": model,
        "items": len(items),
        "raw": baseline(raw, chances, margin).as_dict(),
        "norm": baseline(norm, chances, margin).as_dict(),
        "fitted": baseline(fitted, chances, margin).as_dict(),
    }


def baseline_table(audit: Mapping[str, Any] | None) -> list[tuple[str, Mapping[str, Any]]]:
    """(label, baseline) in a fixed order, for tables beside a model's accuracy (run pages)."""
    if not audit:
        return []
    out: list[tuple[str, Mapping[str, Any]]] = [
        ("answer type (option form vs the relation asked)", audit.get("answer_type") or {})
    ]
    oo = audit.get("option_only") or {}
    if oo and not oo.get("error"):
        labels = {"raw": "log-likelihood", "norm": "log-likelihood per character", "fitted": "fitted, held out"}
        out += [(f"option only, {oo.get('model', '')}: {labels[k]}", oo.get(k) or {}) for k in labels]
    out.append(("gold position (held-out majority letter)", audit.get("position") or {}))
    out += [(f"{k} option", b) for k, b in (audit.get("length") or {}).items()]
    return out


def shortcut_lines(audit: Mapping[str, Any] | None) -> list[str]:
    """The audit as short lines of text (command output, set pages)."""
    if not audit:
        return []

    def fmt(name: str, b: Mapping[str, Any] | None) -> str:
        if not b or b.get("value") is None:
            return f"{name}: not applicable"
        flag = "  ⚑ above chance + 15 points" if b.get("flagged") else ""
        return (
            f"{name}: {b['value']:.1%} [{b['low']:.1%}, {b['high']:.1%}] of {b['n']} (chance {b['chance']:.1%}){flag}"
        )

    out = [fmt("answer-type baseline", audit.get("answer_type"))]
    oo = audit.get("option_only")
    if oo and oo.get("error"):
        out.append(f"option-only baseline ({oo.get('model', '')}): not computed, {oo['error']}")
    elif oo:
        sampled = oo.get("sampled_from")
        of = f", a sample of {oo.get('items')} of {sampled} items" if sampled and sampled > oo.get("items", 0) else ""
        out += [fmt(f"option-only {k} ({oo.get('model', '')}{of})", oo.get(k)) for k in ("raw", "norm", "fitted")]
    else:
        out.append("option-only baseline: not computed yet")
    pos = audit.get("position") or {}
    out.append(fmt("gold-position baseline", pos) + f"; gold letters {pos.get('counts')}")
    for k, b in (audit.get("length") or {}).items():
        out.append(fmt(f"{k} option", b))
    if audit.get("answer_members"):
        out.append(f"items offering a member of their answer set as a distractor: {audit['answer_members']}")
    return out
