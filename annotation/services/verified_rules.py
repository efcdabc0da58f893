"""Which items of an MCQA validation campaign a verified set keeps, item by item (the rules
:mod:`annotation.services.verified` applies, and :mod:`annotation.services.reviews` applies before an
item goes to review): why an item is left out, the built-answer rule, and the gold and negatives the
settlement rule ``needs`` rests on."""

from __future__ import annotations

from annotation.models import Campaign, FinalLabel, Item
from commonsense.verified_needs import Needs, needs
from knowledge.models import Question


def built_answer_accepted(item: Item, final: FinalLabel) -> bool:
    """Every answer of ``item`` ticked the option its source question has as the answer (True for a
    question without one, and for an adjudicated item: a person decided)."""
    q: Question | None = item.question
    if final.adjudication_id is not None or q is None or q.answer_index is None:
        return True
    ticks = final.votes.get("option_ticks") or []
    n = int(final.votes.get("n") or final.n_answers)
    return q.answer_index < len(ticks) and int(ticks[q.answer_index]) >= n > 0


def why_left_out(
    campaign: Campaign, item: Item, final: FinalLabel | None, include_unsettled: bool, require_built_answer: bool
) -> str | None:
    if final is None:
        return "unanswered"
    if final.n_answers < campaign.redundancy and final.adjudication_id is None:
        return "below_min"  # never kept: a gold rewritten from fewer votes than the campaign asks for
    if final.label.get("bad_context"):
        return "not_well_formed"  # the majority marked it not well formed (COM2: "the context doesn't make sense")
    if final.below_threshold and final.adjudication_id is None:
        return "awaiting_adjudication"
    if campaign.adaptive and not final.settled and not include_unsettled:
        return "disputed" if final.settlement == "disputed" else "unsettled"
    if item.question_id is None:
        return "no_source_question"
    if require_built_answer and not built_answer_accepted(item, final):
        return "built_answer_rejected"
    return None


def needed_verdicts(campaign: Campaign, item: Item, final: FinalLabel) -> Needs | None:
    """Under the settlement rule ``needs``, the gold and negatives the settlement rested on (the verified
    item keeps exactly those instead of A.4's random draw); None otherwise, or for an adjudicated item
    (a person's label: A.4's draw) or one stored without posteriors."""
    n = len(item.payload.get("options", []))
    if campaign.settlement_rule != "needs" or final.adjudication_id is not None or len(final.posteriors) != n + 1:
        return None
    tied = final.votes.get("tied_options", []) if campaign.label_rule == "majority" else ()
    return needs(final.label, [float(p) for p in final.posteriors], n, tied=tied)
