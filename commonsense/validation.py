"""Human validation of items, as pure functions (no Django): answer checking against gold,
qualification scores, per-item label aggregation and COM2's post-processing of validated MCQA
items (spec seeds-coco-com2 §B3, Appendix A.4).

Answers are plain dicts, one shape per item kind:

- ``survey``: ``{"agree": 0|1, "predict": 0|1}`` and optionally ``"common": 0|1`` (NWW questions
  (a), (b) and the optional (c)); gold is ``{"agree": 0|1}``.
- ``mcqa``: ``{"plausible": [option indices], "none_correct": bool, "bad_context": bool}`` (COM2's
  check boxes, several may be plausible); gold is ``{"plausible": [option indices]}``. ``bad_context``
  is the item-level verdict :data:`NOT_WELL_FORMED` (COM2's "The context doesn't make sense or is
  meaningless. It is of low quality and hard for me to understand.", broadened to the whole item: the
  wording, and whether it has a clear answer; issue 26); an answer may say ``"well_formed": false``
  instead, stored as ``bad_context``.
- ``rica``: ``{"valid": 0|1}``: 1 when the annotator judged the original statement of the pair
  to follow commonsense, 0 when they preferred the flipped one; gold is ``{"valid": 0|1}``.
- ``generation``: ``{"judgement": "plausible"|"one_hop"|"false"}``, a person's judgement of a
  model's generated answer to a COM2 query (COM2 §6.3, Table 4: "Plausible", "1-hop" = "the answer
  is plausible in terms of only one-hop relations": it answers one triple of an intersection, or
  only the first hop of a 2p, "False"); gold is ``{"judgement": …}``.
- ``review``: ``{"verdict": "one"|"several"|"none"|"unclear", "pick": i}`` - the blind review of a
  settled MCQA item as it will be published (:mod:`commonsense.review`).
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from commonsense.review import review_label, review_normalise

Kind = Literal["survey", "mcqa", "rica", "generation", "review"]
KINDS: tuple[Kind, ...] = ("survey", "mcqa", "rica", "generation", "review")
# COM2 Table 4's columns, in its order: #Plau., #1-hop, #False
JUDGEMENTS: tuple[str, ...] = ("plausible", "one_hop", "false")
# The item-level verdict of an MCQA validation answer (stored as ``bad_context``): the form's check box,
# the instructions and the REST API's documentation say it in these words.
NOT_WELL_FORMED = (
    "Not well formed: the context, question or options make no sense or are not clear English, two options "
    "say the same thing, or the question has no clear answer. It is of low quality and hard for me to understand."
)
MCQA_INSTRUCTIONS = (
    "Read the context and the question, then tick every option that is a plausible answer to the question in "
    "that context (several may be; keys 1-5), or 'No answers are correct' (key 0) when none is. "
    "An option is plausible only when it fits every event of the context and every part of the question: where "
    "the question asks what holds after, before or given each of several events, an option that fits one of "
    "them but not the others is not plausible. "
    "Tick an option whenever a careful reader could defend it: when another option fits as well as your first "
    "choice (a near-synonym such as 'sad' and 'upset', or an answer that fits the question just as well), tick "
    "both - an item is published only with exactly one plausible answer. "
    "Tick 'Not well formed' (key X) when the item is not clear English (broken grammar, odd word forms, "
    "placeholders), when two options say the same thing, when the question has no clear answer, or when the "
    "context makes no sense: such an item is left out, so do not answer it as if it were fine. Enter submits."
)
JUDGEMENT_NAMES = {"plausible": "Plausible", "one_hop": "1-hop", "false": "False"}
NONE_CORRECT = "None of the answers are correct."
N_NEGATIVES = 3


def _bit(value: Any, name: str) -> int:
    if isinstance(value, bool):
        return int(value)
    if value in (0, 1):
        return int(value)
    raise ValueError(f"{name} must be 0 or 1, got {value!r}")


def answer_normalise(
    kind: str, answer: Mapping[str, Any], *, n_options: int = 0, ask_common: bool = False
) -> dict[str, Any]:
    """Check an answer's shape and return it in canonical form; ValueError says what is wrong."""
    if not isinstance(answer, Mapping):
        raise ValueError("an answer is an object")
    if kind == "survey":
        out = {"agree": _bit(answer.get("agree"), "agree"), "predict": _bit(answer.get("predict"), "predict")}
        if ask_common:
            out["common"] = _bit(answer.get("common"), "common")
        return out
    if kind == "rica":
        return {"valid": _bit(answer.get("valid"), "valid")}
    if kind == "review":
        return review_normalise(answer, n_options)
    if kind == "generation":
        j = answer.get("judgement")
        if j not in JUDGEMENTS:
            raise ValueError(f"judgement must be one of {', '.join(JUDGEMENTS)}, got {j!r}")
        return {"judgement": j}
    if kind == "mcqa":
        raw = answer.get("plausible", [])
        if not isinstance(raw, (list, tuple)):
            raise ValueError("plausible must be a list of option numbers")
        picked = sorted({int(i) for i in raw})
        if any(i < 0 or i >= n_options for i in picked):
            raise ValueError(f"option numbers must lie in 0..{n_options - 1}")
        none = bool(answer.get("none_correct", False))
        bad = bool(answer.get("bad_context", False))
        if "well_formed" in answer:  # the item-level verdict under its own name
            if not isinstance(answer["well_formed"], bool):
                raise ValueError(f"well_formed must be true or false, got {answer['well_formed']!r}")
            if answer["well_formed"] and bad:
                raise ValueError("well_formed true contradicts bad_context true")
            bad = bad or not answer["well_formed"]
        if none and picked:
            raise ValueError("'No answers are correct' cannot go with a ticked option")
        if not (picked or none or bad):
            raise ValueError("tick at least one option, 'No answers are correct' or 'Not well formed'")
        return {"plausible": picked, "none_correct": none or (not picked and not bad), "bad_context": bad}
    raise ValueError(f"unknown item kind {kind!r}")


def gold_hits(kind: str, answer: Mapping[str, Any], gold: Mapping[str, Any], *, n_options: int = 0) -> tuple[int, int]:
    """(matches, comparisons) of one answer against its gold. MCQA compares every option (COM2's
    pairwise annotation accuracy against the authors' gold); surveys compare (a); RICA the choice."""
    if kind == "survey":
        return int(answer.get("agree") == gold.get("agree")), 1
    if kind == "rica":
        return int(answer.get("valid") == gold.get("valid")), 1
    if kind == "generation":
        return int(answer.get("judgement") == gold.get("judgement")), 1
    if kind == "mcqa":
        mine, theirs = set(answer.get("plausible", [])), set(gold.get("plausible", []))
        return sum((i in mine) == (i in theirs) for i in range(n_options)), n_options
    raise ValueError(f"unknown item kind {kind!r}")


def gold_passed(kind: str, answer: Mapping[str, Any], gold: Mapping[str, Any], *, n_options: int = 0) -> bool:
    """The answer equals the gold. MCQA: the ticked set is the gold set (an empty gold is "none of the
    answers is correct", which "the context doesn't make sense" is not); other kinds: their choice."""
    if kind == "mcqa":
        return sorted(set(answer.get("plausible", []))) == sorted(set(gold.get("plausible", []))) and bool(
            answer.get("bad_context")
        ) == bool(gold.get("bad_context", False))
    hits, total = gold_hits(kind, answer, gold, n_options=n_options)
    return hits == total


@dataclass(frozen=True, slots=True)
class Qualification:
    score: float  # items answered exactly right / items
    passed: bool
    hits: int  # items answered exactly right
    total: int  # items


def items_needed(pass_mark: float, n_items: int) -> int:
    """How many of ``n_items`` must be right to reach ``pass_mark`` (the figure the test states; 0:
    a practice test nobody fails)."""
    return max(0, math.ceil(pass_mark * n_items - 1e-9))


def qualification_grade(
    kind: str, pairs: Sequence[tuple[Mapping[str, Any], Mapping[str, Any], int]], pass_mark: float
) -> Qualification:
    """Grade ``(answer, gold, n_options)`` triples per item: an item counts only when the answer equals
    its gold (:func:`gold_passed`; for MCQA the ticked set is the gold set). COM2 asks six items and
    85 %; per option, ticking "none" everywhere scored 80 % on its gold and two right answers with four
    "none" passed (issue 26)."""
    right = sum(gold_passed(kind, a, g, n_options=n) for a, g, n in pairs)
    total = len(pairs)
    score = right / total if total else 0.0
    return Qualification(score, total > 0 and right >= items_needed(pass_mark, total), right, total)


def constant_answers(kind: str, n_options: int) -> list[tuple[str, dict[str, Any]]]:
    """The answers of a respondent who does not read: the same one on every item."""
    if kind == "mcqa":
        out = [
            ("'No answers are correct' everywhere", {"plausible": [], "none_correct": True, "bad_context": False}),
            (
                "'The context doesn't make sense' everywhere",
                {"plausible": [], "none_correct": False, "bad_context": True},
            ),
            (
                "every option ticked everywhere",
                {"plausible": list(range(n_options)), "none_correct": False, "bad_context": False},
            ),
        ]
        return out + [
            (f"option {k + 1} everywhere", {"plausible": [k], "none_correct": False, "bad_context": False})
            for k in range(n_options)
        ]
    if kind == "survey":
        return [(f"{w} everywhere", {"agree": v, "predict": v}) for w, v in (("agree", 1), ("disagree", 0))]
    if kind == "rica":
        return [(f"statement {v + 1} everywhere", {"valid": 1 - v}) for v in (0, 1)]
    if kind == "generation":
        return [(f"{JUDGEMENT_NAMES[j]} everywhere", {"judgement": j}) for j in JUDGEMENTS]
    raise ValueError(f"unknown item kind {kind!r}")


def qualification_loopholes(
    kind: str, golds: Sequence[tuple[Mapping[str, Any], int]], pass_mark: float, size: int
) -> list[tuple[str, int]]:
    """The constant answers that pass a test of ``size`` items drawn from the pool ``golds`` (``(gold,
    n_options)`` per item) on some draw: ``(the answer, items of the pool it gets right)``. A test
    that screens has none."""
    need = items_needed(pass_mark, size)
    if need == 0:  # a practice test: nobody is screened out, by the researcher's choice
        return []
    most = max((n for _g, n in golds), default=0)
    out = []
    for name, _ in constant_answers(kind, most):
        right = 0
        for gold, n in golds:
            answer = dict(constant_answers(kind, n)).get(name)
            right += answer is not None and gold_passed(kind, answer, gold, n_options=n)
        if min(right, size) >= need:
            out.append((name, right))
    return out


@dataclass(frozen=True, slots=True)
class ItemLabel:
    """The majority label of one item, with its votes and agreement."""

    label: dict[str, Any]
    votes: dict[str, Any]
    agreement: float | None  # mean pairwise agreement (per option for MCQA); None with < 2 answers
    unanimous: bool
    n: int
    decided: bool = True  # False: a tie leaves the majority open (the item needs a person's decision)


def _pairwise(yes: int, n: int) -> float | None:
    if n < 2:
        return None
    no = n - yes
    return (yes * (yes - 1) + no * (no - 1)) / (n * (n - 1))


def item_label(kind: str, answers: Sequence[Mapping[str, Any]], *, n_options: int = 0) -> ItemLabel:
    """Majority label of an item from its answers. MCQA: an option is plausible when a strict
    majority ticked it and negative when a strict majority did not (COM2 A.4 "labeled as
    plausible by majority voting"); "None of the answers are correct" is the label only when
    every option is negative by majority ("If there are no options labeled as plausible"). A tie
    on an option or on "the context doesn't make sense" (an even number of answers) leaves the
    item undecided (``none_correct`` None without a plausible option): two people ticking
    different options did not say that none is correct. With COM2's three answers per item there
    are no ties and the rule is A.4's. Surveys: NWW's majority on (a) with a tie counting as
    agree; RICA: strict majority, a tie leaves the label undecided. Generations: the most chosen
    of Plausible / 1-hop / False; a tie for the most votes leaves the label undecided."""
    n = len(answers)
    if kind == "mcqa":
        ticks = [sum(i in a.get("plausible", []) for a in answers) for i in range(n_options)]
        bad = sum(bool(a.get("bad_context")) for a in answers)
        per = [_pairwise(t, n) for t in ticks]
        agreement = None if n < 2 or not per else sum(p for p in per if p is not None) / len(per)
        plausible = [i for i, t in enumerate(ticks) if 2 * t > n]
        tied = [i for i, t in enumerate(ticks) if n and 2 * t == n]
        decided = n > 0 and not tied and 2 * bad != n
        none_correct: bool | None = False if plausible else (True if decided else None)
        label: dict[str, Any] = {"plausible": plausible, "none_correct": none_correct, "bad_context": 2 * bad > n}
        votes: dict[str, Any] = {"option_ticks": ticks, "bad_context": bad, "n": n, "per_option_agreement": per}
        if tied:
            votes["tied_options"] = tied
        unanimous = n > 0 and all(t in (0, n) for t in ticks) and bad in (0, n)
        return ItemLabel(label, votes, agreement, unanimous, n, decided)
    if kind == "survey":
        yes_a = sum(int(a.get("agree", 0)) for a in answers)
        yes_b = sum(int(a.get("predict", 0)) for a in answers)
        votes = {"agree_yes": yes_a, "predict_yes": yes_b, "n": n}
        commons = [a["common"] for a in answers if "common" in a]
        if commons:
            votes["common_yes"] = sum(int(c) for c in commons)
        label = {"agree": int(2 * yes_a >= n)} if n else {"agree": None}
        return ItemLabel(label, votes, _pairwise(yes_a, n), n > 0 and yes_a in (0, n), n)
    if kind == "rica":
        yes = sum(int(a.get("valid", 0)) for a in answers)
        decided = 2 * yes != n
        label = {"valid": int(2 * yes > n) if decided and n else None}
        return ItemLabel(
            label, {"valid_yes": yes, "n": n}, _pairwise(yes, n), n > 0 and yes in (0, n), n, decided and n > 0
        )
    if kind == "review":
        return ItemLabel(*review_label(answers, n_options))
    if kind == "generation":
        counts = {j: sum(a.get("judgement") == j for a in answers) for j in JUDGEMENTS}
        top = max(counts.values(), default=0)
        leaders = [j for j, c in counts.items() if c == top]
        decided = n > 0 and len(leaders) == 1
        agree = None if n < 2 else sum(c * (c - 1) for c in counts.values()) / (n * (n - 1))
        return ItemLabel(
            {"judgement": leaders[0] if decided else None},
            {**counts, "n": n},
            agree,
            n > 0 and top == n,
            n,
            decided,
        )
    raise ValueError(f"unknown item kind {kind!r}")


@dataclass(frozen=True, slots=True)
class Com2Item:
    """A final COM2 evaluation item: one true answer and three distractors, plus "None of the
    answers are correct." always as the 5th option (E)."""

    options: list[str]
    answer_index: int
    positive: str | None  # None when no option was plausible
    negatives: list[str] = field(default_factory=list)
    needs_manual_negatives: int = 0  # the paper adds one or two negatives by hand in that case
    topped_up: list[int] = field(default_factory=list)  # indices of options taken from the distractor pool


def com2_postprocess(
    options: Sequence[str],
    plausible: Sequence[int],
    *,
    seed: int,
    key: str,
    pool: Sequence[str] = (),
    keep: tuple[int | None, Sequence[int]] | None = None,
) -> Com2Item:
    """COM2 Appendix A.4: "randomly sample one option that is labeled as plausible by majority
    voting as the final positive answer, and sample three negative options"; with no plausible
    option the answer is "None of the answers are correct" (then four negatives fill A-D).
    Where fewer negatives remain than that (the paper adds "one or two negative options" by hand),
    they are topped up from ``pool``, the item's own checked distractors that were not shown
    (texts already among the options are skipped); ``topped_up`` marks them. Seeded by ``(seed, key)``.
    ``keep = (gold, negatives)``: the options the settlement chose (the settlement rule ``needs``,
    :mod:`commonsense.verified_needs`) instead of the random draw; ``plausible`` is then ignored."""
    rng = random.Random(f"{seed}:{key}")
    if keep is not None:
        gold, chosen = keep
        positive = options[gold] if gold is not None else None
        picked = [options[i] for i in chosen]
        want = N_NEGATIVES if positive is not None else N_NEGATIVES + 1
        if len(picked) > want:
            raise ValueError(f"keep: {len(picked)} negatives, at most {want} fit five options")
    else:
        plaus = sorted(set(plausible))
        negatives = [o for i, o in enumerate(options) if i not in plaus and o != NONE_CORRECT]
        positive = options[rng.choice(plaus)] if plaus else None
        want = N_NEGATIVES if positive is not None else N_NEGATIVES + 1  # keep five options A-E
        picked = rng.sample(negatives, min(want, len(negatives)))
    spare = list(dict.fromkeys(p for p in pool if p not in options and p != NONE_CORRECT))
    extra = rng.sample(spare, min(want - len(picked), len(spare))) if len(picked) < want else []
    missing = want - len(picked) - len(extra)
    body = ([positive] if positive is not None else []) + picked + extra
    rng.shuffle(body)
    final = [*body, NONE_CORRECT]
    answer = final.index(positive) if positive is not None else len(final) - 1
    topped = sorted(final.index(e) for e in extra)
    return Com2Item(final, answer, positive, picked + extra, missing, topped)


@dataclass(frozen=True, slots=True)
class JudgementShares:
    """COM2 Table 4 for one group of generations: how many final labels are Plausible / 1-hop /
    False and their shares of the decided ones (``n``); ``undecided`` items (tied votes, not yet
    adjudicated) are counted apart and left out of the shares."""

    group: str
    counts: dict[str, int]
    n: int
    undecided: int

    @property
    def shares(self) -> dict[str, float | None]:
        return {j: (self.counts[j] / self.n if self.n else None) for j in JUDGEMENTS}


def judgement_shares(labels: Sequence[tuple[str, str | None]]) -> list[JudgementShares]:
    """``(query kind, final judgement or None)`` per item -> one row per query kind (sorted) and
    an ``overall`` row last."""
    groups: dict[str, list[str | None]] = {}
    for kind, j in labels:
        if j is not None and j not in JUDGEMENTS:
            raise ValueError(f"unknown judgement {j!r}")
        groups.setdefault(kind or "?", []).append(j)
    out = []
    for name, js in [*sorted(groups.items()), ("overall", [j for _, j in labels])]:
        counts = {j: sum(x == j for x in js) for j in JUDGEMENTS}
        out.append(JudgementShares(name, counts, sum(counts.values()), sum(x is None for x in js)))
    return out
