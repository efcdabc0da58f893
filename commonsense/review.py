"""The blind review of a settled MCQA validation item, as pure functions (no Django; issue 26, session 20).

Validation asks annotators to tick every plausible option; a fresh reader of the published set asks
whether the item has **exactly one defensible answer**, the gold, in clear English
(``../shared/spec/item-soundness.md``). Over four measured loops the two framings parted on the same
items: every annotator accepted the gold alone, and three fresh readers found a second option as
defensible (perf/RESULTS.md "The loop a fifth time"). A review puts the reader's question to further
people, on the item **as it will be published** (the gold, three negatives, "None of the answers are
correct." as E), without the gold or anybody's answers.

A review answer is ``{"verdict": "one", "pick": i}`` (option ``i`` is the one answer the reviewer would
defend), ``{"verdict": "several"}`` (more than one option is defensible), ``{"verdict": "none"}`` (none
is) or ``{"verdict": "unclear"}`` (the item is not clear English). A review **accepts** the item only
with ``one`` on the published gold.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

VERDICTS: tuple[str, ...] = ("one", "several", "none", "unclear")
REVIEW_INSTRUCTIONS = (
    "Read the context, the question and the five options as a careful reader would. If exactly one option is "
    "an answer you would defend, pick it (keys 1-5). If more than one option is defensible - two options fit "
    "equally well, or say the same thing - answer 'several' (key M). If no option is defensible - none fits "
    "every event of the context and every part of the question - answer 'none' (key 0). If the item is not "
    "clear English (broken grammar, odd word forms, placeholders, a question you cannot make sense of), answer "
    "'not clear' (key X). Judge the item as it stands: there is no gold to guess, and your answer decides "
    "whether the item is published."
)


# the review form's other choices: (verdict, key, text)
REVIEW_CHOICES: tuple[tuple[str, str, str], ...] = (
    ("several", "m", "More than one option is defensible (two fit equally well, or say the same thing)."),
    ("none", "0", "No option is defensible."),
    ("unclear", "x", "The item is not clear English."),
)
N_OPTIONS = 5  # a published COM2 item: the gold, three negatives, "None of the answers are correct."
N_CATEGORIES = N_OPTIONS + len(VERDICTS) - 1  # "one" on each option, then several, none, unclear


def review_category(answer: Mapping[str, Any]) -> int:
    """A review as one category (agreement statistics): its pick, or 5 several, 6 none, 7 unclear."""
    if answer.get("verdict") == "one":
        return int(answer["pick"])
    return N_OPTIONS + VERDICTS.index(str(answer.get("verdict"))) - 1


def review_normalise(answer: Mapping[str, Any], n_options: int) -> dict[str, Any]:
    """Check a review answer's shape; ValueError says what is wrong."""
    verdict = answer.get("verdict")
    if verdict not in VERDICTS:
        raise ValueError(f"verdict must be one of {', '.join(VERDICTS)}, got {verdict!r}")
    if verdict != "one":
        if answer.get("pick") is not None:
            raise ValueError(f"a pick goes with the verdict 'one' only, not {verdict!r}")
        return {"verdict": verdict}
    pick = answer.get("pick")
    if isinstance(pick, bool) or not isinstance(pick, int) or not 0 <= pick < n_options:
        raise ValueError(f"verdict 'one' needs pick: an option number in 0..{n_options - 1}, got {pick!r}")
    return {"verdict": "one", "pick": pick}


def review_accepts(answer: Mapping[str, Any], gold: int) -> bool:
    """The review names the published gold as the one defensible answer."""
    return answer.get("verdict") == "one" and answer.get("pick") == gold


def review_label(
    answers: Sequence[Mapping[str, Any]], n_options: int
) -> tuple[dict[str, Any], dict[str, Any], float | None, bool, int, bool]:
    """The reviews of one item, summed: ``(label, votes, agreement, unanimous, n, decided)`` as
    :class:`commonsense.validation.ItemLabel` holds them. The label is the pick every review named
    (None unless all said ``one`` on the same option); agreement is the share of agreeing pairs over
    the categories "one on option i", several, none, unclear."""
    n = len(answers)
    cats = [f"one:{a.get('pick')}" if a.get("verdict") == "one" else str(a.get("verdict")) for a in answers]
    counts: dict[str, int] = {}
    for c in cats:
        counts[c] = counts.get(c, 0) + 1
    picks = [sum(a.get("verdict") == "one" and a.get("pick") == i for a in answers) for i in range(n_options)]
    votes: dict[str, Any] = {
        "picks": picks,
        **{v: sum(a.get("verdict") == v for a in answers) for v in VERDICTS if v != "one"},
        "n": n,
    }
    unanimous = n > 0 and len(counts) == 1
    agreed = cats[0] if unanimous else None
    label = {"pick": int(agreed.split(":")[1]) if agreed and agreed.startswith("one:") else None}
    agreement = None if n < 2 else sum(c * (c - 1) for c in counts.values()) / (n * (n - 1))
    return label, votes, agreement, unanimous, n, unanimous
