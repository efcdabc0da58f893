"""What a verified item needs (issue 26 follow-up): the settlement rule ``needs`` of MCQA validation.

COM2's post-processing (Appendix A.4; spec seeds-coco-com2 §B3) drops an item whose context the
majority finds meaningless, takes **one** majority-plausible option as the gold and **three**
majority-negative options as distractors (topped up when fewer), and adds "None of the answers are
correct."; with no plausible option that line is the gold and four negatives fill A-D. The options
it drops are never shown again, so a verdict on them settles nothing. The rule ``needs`` asks the
answers only for the verdicts the verified item rests on:

- the context makes sense, the gold option is plausible, and each of the three negatives it keeps
  is implausible (with no plausible option: the four negatives it keeps are implausible); or
- the context makes no sense (the item is left out: that settles it too).

The gold is the label's plausible option with the highest posterior, the negatives are the label's
negative options the posterior is surest of (ties: the earlier option; the build shuffled them).
An option the label leaves tied (a 1-1 split under the majority rule) is neither. Its
**confidence** is the posterior probability that the verified item is right: the product of the
posteriors of the verdicts it rests on (each verdict is its own task of the Dawid–Skene model,
independent given the annotators), so two annotators the fit trusts can settle an item at two
answers, and one the fit finds a spammer cannot. Where the label leaves fewer negatives than the
verified item needs (several plausible options, or options a 1-1 split left tied), the confidence
also multiplies the posteriors that each remaining option is plausible: a tied or doubtful option
keeps the item open (a further answer may make it the missing negative); only options the answers
are sure are plausible let it settle short of negatives, for A.4's top-up from the distractor pool.

:func:`needs` is pure; :func:`commonsense.annotators.judge` calls it when a campaign's settlement rule
is ``needs``, and ``annotation/services/verified.py`` builds the verified item from exactly the gold
and negatives it names (``FinalLabel.verified_item``).
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any, Literal

N_NEGATIVES = 3  # COM2 A.4: one gold, three negatives, "None of the answers are correct."
SETTLEMENT_RULES = ("needs", "all_verdicts")
NEEDS_RULE = (
    "An item is settled when it has at least the campaign's minimum of answers and the posterior probability that its "
    "verified item is right is at least the campaign's threshold (0.95 by default): the context makes sense, the gold "
    "(the label's plausible option the answers are surest of) is plausible and the three negatives the verified item "
    "keeps (the label's implausible options the answers are surest of; four when no option is plausible and the gold "
    "is 'None of the answers are correct.') are implausible; or the context makes no sense (the item is left out). "
    "Where the label leaves fewer negatives, every other option must be confidently plausible too (A.4 then tops the "
    "negatives up from the item's distractor pool). "
    "Options the verified item drops need no verdict. The probability multiplies the Dawid-Skene posteriors of those "
    "verdicts under the campaign's latest fit of its annotators, so answers count by the annotator's estimated "
    "quality: two reliable annotators can settle an item, a likely spammer adds little. An item that is not settled "
    "goes to further annotators first, one more answer at a time, up to the maximum; at the maximum it closes "
    "unsettled (exhausted) and stays out of verified sets unless the researcher includes it."
)

Use = Literal["gold", "none", "bad_context"]


@dataclass(frozen=True, slots=True)
class Needs:
    """The verified item one MCQA item's label and posteriors make, and how sure they are of it."""

    use: Use  # "gold": an option is the answer; "none": "None of the answers are correct." is; "bad_context": left out
    gold: int | None  # the option that becomes the answer (None: "none" or "bad_context")
    negatives: tuple[int, ...]  # the options kept as distractors, surest first
    missing: int  # negatives the item lacks: A.4's top-up from the item's distractor pool
    confidence: float  # P(the verified item is right | the answers), under the annotator model

    @property
    def verdicts(self) -> tuple[int, ...]:
        """The verdicts (option indices) it rests on, besides the context's."""
        return ((self.gold,) if self.gold is not None else ()) + self.negatives

    def as_dict(self) -> dict[str, Any]:
        return {**asdict(self), "negatives": list(self.negatives)}


def needs(
    label: Mapping[str, Any], posteriors: Sequence[float], n_options: int, *, tied: Collection[int] = ()
) -> Needs:
    """The verified item of an MCQA item whose final ``label`` is ``{plausible: [i], bad_context}``,
    given ``posteriors`` (P("yes") of each option's verdict, then of "the context makes no sense")
    and the options the label left ``tied``."""
    if len(posteriors) != n_options + 1:
        raise ValueError(
            f"posteriors: {n_options + 1} values expected (options, then the context), got {len(posteriors)}"
        )
    p_bad = posteriors[n_options]
    if label.get("bad_context"):
        return Needs("bad_context", None, (), 0, p_bad)
    tied = set(tied)
    plausible = [i for i in label.get("plausible", []) if i not in tied]
    negative = [i for i in range(n_options) if i not in plausible and i not in tied]
    gold = max(plausible, key=lambda i: (posteriors[i], -i)) if plausible else None
    want = N_NEGATIVES if gold is not None else N_NEGATIVES + 1
    kept = tuple(sorted(negative, key=lambda i: (posteriors[i], i))[:want])
    p = (1 - p_bad) * (posteriors[gold] if gold is not None else 1.0)
    p *= math.prod(1 - posteriors[i] for i in kept)
    if len(kept) < want:  # too few negatives: settled only if no further answer could make one of the rest
        p *= math.prod(posteriors[i] for i in range(n_options) if i != gold and i not in kept)
    return Needs("gold" if gold is not None else "none", gold, kept, want - len(kept), p)


def unanimous_on(needed: Needs, answer_bits: Sequence[Sequence[int]], n_options: int) -> bool:
    """Every answer (two or more) gives the verdicts ``needed`` rests on alike: all tick the gold,
    none ticks a kept negative, all agree on the context."""
    if len(answer_bits) < 2:
        return False
    cells = [*needed.verdicts, n_options]
    first = [answer_bits[0][j] for j in cells]
    return all([bits[j] for j in cells] == first for bits in answer_bits)
