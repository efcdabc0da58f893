"""How labels and votes read on the researcher pages: plain words and option numbers (as the
annotators see them, 1-based), never a Python dict. And what the NWW figures need."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from commonsense.validation import JUDGEMENT_NAMES, JUDGEMENTS


def _yes_no(v: Any) -> str:
    return "undecided" if v is None else ("yes" if int(v) else "no")


def label_text(kind: str, label: Mapping[str, Any] | None) -> str:
    if not isinstance(label, Mapping):
        return "–"
    if kind == "survey":
        return f"most agree: {_yes_no(label.get('agree'))}"
    if kind == "generation":
        j = label.get("judgement")
        return "undecided (tie)" if j is None else JUDGEMENT_NAMES.get(j, str(j))
    if kind == "rica":
        v = label.get("valid")
        if v is None:
            return "undecided (tie)"
        return "original follows commonsense" if int(v) else "flipped follows commonsense"
    parts = []
    picked = label.get("plausible") or []
    parts.append("plausible: " + ", ".join(str(int(i) + 1) for i in picked) if picked else "no answers are correct")
    if label.get("bad_context"):
        parts.append("not well formed")
    return " · ".join(parts)


def votes_text(kind: str, votes: Mapping[str, Any] | None) -> str:
    if not isinstance(votes, Mapping):
        return "–"
    n = int(votes.get("n") or 0)
    if kind == "survey":
        out = f"agree {votes.get('agree_yes', 0)}/{n} · most agree {votes.get('predict_yes', 0)}/{n}"
        return out + (f" · common {votes['common_yes']}/{n}" if "common_yes" in votes else "")
    if kind == "rica":
        return f"original follows commonsense {votes.get('valid_yes', 0)}/{n}"
    if kind == "generation":
        return " · ".join(f"{JUDGEMENT_NAMES[j]} {votes.get(j, 0)}/{n}" for j in JUDGEMENTS)
    ticks = votes.get("option_ticks") or []
    out = "ticked: " + ", ".join(f"{i + 1}: {t}/{n}" for i, t in enumerate(ticks))
    if votes.get("bad_context"):
        out += f" · not well formed {votes['bad_context']}/{n}"
    return out


# -- the item box (annotation/_item.html), the same for annotators and the crowd ----------------

SURVEY_QUESTIONS = (
    ("agree", "Do you agree with this statement?"),
    ("predict", "Do you think most people would agree with this statement?"),
)
COMMON_SENSE_QUESTION = ("common", "Is this statement common sense?")


def survey_questions(ask_common_sense: bool, previous: Mapping[str, Any] | None = None) -> list[dict[str, Any]]:
    """The survey's yes/no questions, (a) (b) and (c) when the campaign asks it, each with the
    answer being shown again (None: none)."""
    questions = [*SURVEY_QUESTIONS, *([COMMON_SENSE_QUESTION] if ask_common_sense else [])]
    return [{"name": n, "text": t, "value": (previous or {}).get(n)} for n, t in questions]


def option_rows(options: list[str], picked: set[int] | frozenset[int] = frozenset()) -> list[dict[str, Any]]:
    """An MCQA item's options: index, key (1-based, as the annotator types it), text, ticked."""
    return [{"index": i, "key": i + 1, "text": t, "checked": i in picked} for i, t in enumerate(options)]
