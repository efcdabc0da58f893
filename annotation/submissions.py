"""Reading an annotator's answer out of a submitted item form (the work page, the crowd pages):
the answer :mod:`commonsense.validation` checks, what the person had ticked when a submit is
refused, and what the page sends with it (its idempotency key, the time on the item)."""

from __future__ import annotations

from typing import Any, TypedDict

from django.core.exceptions import ValidationError

from annotation.services.rica import rica_answer
from commonsense.validation import JUDGEMENTS

from .models import Campaign, Item

YES = {"yes", "y", "1", "true", "on"}
NO = {"no", "n", "0", "false"}


def _yn(data: Any, name: str) -> int | None:
    v = str(data.get(name, "")).strip().lower()
    return 1 if v in YES else 0 if v in NO else None


def elapsed_ms(data: Any) -> int | None:
    """The time on the item the page measured (``elapsed_ms``), or None when it sent none."""
    try:
        return int(float(data.get("elapsed_ms", "")))
    except ValueError:
        return None


class SentWith(TypedDict):
    idempotency_key: str | None
    time_ms: int | None


def web_submission(campaign: Campaign, item: Item, data: Any) -> tuple[dict[str, Any], SentWith]:
    """A work page's answer post, read for :func:`annotation.queue.operations.response_submit`: the answer
    (ValidationError when it is incomplete) and the keywords the page sends with it (its
    idempotency key, the time on the item)."""
    return answer_from_post(campaign, item, data), SentWith(
        idempotency_key=data.get("idempotency_key"), time_ms=elapsed_ms(data)
    )


def review_from_post(data: Any) -> dict[str, Any] | None:
    """A review form's radio (``review``: an option index, or several / none / unclear) as a review answer."""
    value = str(data.get("review", ""))
    if value in ("several", "none", "unclear"):
        return {"verdict": value}
    return {"verdict": "one", "pick": int(value)} if value.isdigit() else None


def answer_from_post(campaign: Campaign, item: Item, data: Any) -> dict[str, Any]:
    """The answer dict of :mod:`commonsense.validation` from a submitted item form."""
    if campaign.kind == Campaign.Kind.SURVEY:
        ans = {"agree": _yn(data, "agree"), "predict": _yn(data, "predict")}
        if campaign.ask_common_sense:
            ans["common"] = _yn(data, "common")
        missing = [k for k, v in ans.items() if v is None]
        if missing:
            raise ValidationError("answer every question (Y or N): " + ", ".join(missing))
        return ans
    if campaign.kind == Campaign.Kind.RICA:
        choice = str(data.get("choice", ""))
        if choice not in ("0", "1"):
            raise ValidationError("choose the statement that follows commonsense (1 or 2)")
        return rica_answer(item, int(choice))
    if campaign.kind == Campaign.Kind.GENERATION:
        judgement = str(data.get("judgement", ""))
        if judgement not in JUDGEMENTS:
            raise ValidationError("judge the answer: 1 Plausible, 2 1-hop or 3 False")
        return {"judgement": judgement}
    if campaign.kind == Campaign.Kind.REVIEW:
        answer = review_from_post(data)
        if answer is None:
            raise ValidationError("choose the one answer you would defend, or several, none, or not clear English")
        return answer
    picked = data.getlist("plausible") if hasattr(data, "getlist") else data.get("plausible", [])
    try:
        plausible = [int(p) for p in picked]
    except ValueError:
        raise ValidationError("option numbers must be integers") from None
    return {
        "plausible": plausible,
        "none_correct": _yn(data, "none_correct") == 1,
        "bad_context": _yn(data, "bad_context") == 1,
    }


def answer_draft(campaign: Campaign, item: Item, data: Any) -> dict[str, Any]:
    """What the person had ticked, read leniently (never raises): the item box shows it again
    next to the reason a submit was refused."""
    if campaign.kind == Campaign.Kind.SURVEY:
        return {k: _yn(data, k) for k in ("agree", "predict", "common")}
    if campaign.kind == Campaign.Kind.RICA:
        choice = str(data.get("choice", ""))
        return {"valid": int(int(choice) == item.payload.get("original", 0))} if choice in ("0", "1") else {}
    if campaign.kind == Campaign.Kind.GENERATION:
        judgement = str(data.get("judgement", ""))
        return {"judgement": judgement} if judgement in JUDGEMENTS else {}
    if campaign.kind == Campaign.Kind.REVIEW:
        return review_from_post(data) or {}
    picked = data.getlist("plausible") if hasattr(data, "getlist") else []
    return {
        "plausible": [int(p) for p in picked if str(p).isdigit()],
        "none_correct": _yn(data, "none_correct") == 1,
        "bad_context": _yn(data, "bad_context") == 1,
    }
