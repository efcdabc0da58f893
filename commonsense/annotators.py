"""Annotator quality and the confidence rule of adaptive redundancy (issue 26), as pure functions.

An MCQA validation answer is read as one binary **verdict** per option (ticked as plausible or
not) plus one for "the item is not well formed" (the answer's ``bad_context``): the cells COM2's per-option agreement counts.
Every verdict of every item is a task of a two-class crowd model fitted over a whole campaign:

- **Dawid–Skene** (1979): per annotator a 2×2 confusion matrix, here its sensitivity
  P(tick | plausible) and specificity P(no tick | not plausible), and one class prior;
- **MACE** (Hovy et al. 2013): per annotator a competence P(knows the answer) and, when guessing,
  a strategy P(tick).

Both are fitted by crowd-kit (Apache-2.0; its dependencies - pandas, scikit-learn, nltk, pyarrow,
transformers - were all in the project already, so it adds no package but itself), imported inside
:func:`fit` only. What runs on every answer is the E-step of one item under the fitted parameters
(:func:`ds_posterior`, :func:`mace_posterior`): a few products in plain Python, the same formula
as crowd-kit's own E-step (``tests/commonsense/test_annotators.py`` compares them on one input).

**The confidence rule** (:func:`settle`, written in the README and on the dashboard): an item is
*settled* when it has at least the campaign's minimum of answers and either every answer gives
every verdict alike (unanimity, of two answers or more), or, under the campaign's latest Dawid–Skene fit, the posterior of
each verdict of its final label is at least 0.95 (the campaign's threshold). An unsettled item wants one more answer, up to
the campaign's maximum; an item that reaches the maximum unsettled is *exhausted*: it gets no more
answers and stays out of a verified set unless the researcher overrides that.

**Agreement** (``agreement=True``, a campaign's ``require_agreement``; :data:`AGREEMENT_RULE`): the
confidence rule is not enough to publish an item; every answer must also agree on what is published.
An item with the minimum of answers or more on which one answer dissents from a verdict the verified
item rests on (under ``needs``: the gold plausible, its kept negatives implausible, the item well
formed; under ``all_verdicts``: every verdict) is *disputed*: it gets no more answers (further answers
cannot take a dissent back) and stays out of verified sets. Measured on the session-17 loop
(perf/RESULTS.md, "Which rule would have kept only sound items?"): items without such a dissent were
79 % sound for a blind reader, items with one 23 %, whatever the Dawid–Skene posterior said.

Before any fit (a new campaign), every annotator is :data:`COLD_START`'s: the average annotator that
COM2's reported agreement implies (per-option agreement 78 %, Fleiss κ 0.445 -> a tick rate of
0.27 and a per-verdict accuracy of 0.874 -> a plausible share of 0.19 of verdicts).
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any, Literal

from .validation import ItemLabel, item_label
from .verified_needs import SETTLEMENT_RULES, Needs, needs, unanimous_on

THRESHOLD = 0.95  # the posterior each verdict of a settled item's label needs
RULE = (
    "An item is settled when it has at least the campaign's minimum of answers and either all its answers give "
    "every verdict alike (each option plausible or not, and whether the context makes sense; two answers or more), "
    "or the posterior of each verdict of its final label is at least the campaign's threshold (0.95 by default) "
    "under the campaign's latest Dawid-Skene fit of its annotators (MACE's when labels are weighted by MACE). "
    "An item that is not settled goes to further annotators first, one more answer at a time, up to the maximum; "
    "at the maximum it closes unsettled (exhausted) and stays out of verified sets unless the researcher includes it."
)
AGREEMENT_RULE = (
    "Agreement required: an item settles only when every answer gives alike the verdicts its verified item rests on "
    "(the item well formed, the gold plausible, the kept negatives implausible; every verdict under the rule "
    "'every verdict'). An item with the minimum of answers on which one answer dissents there - a 'not well formed' "
    "flag, 'none', another gold, a kept negative ticked - is disputed: it gets no more answers and stays out of "
    "verified sets unless the researcher includes unsettled items."
)
LABEL_RULES = ("majority", "dawid_skene", "mace")
_EPS = 1e-10  # crowd-kit clips its error matrices at 1e-10 too
MIN_VERDICTS_TO_FLAG = 12  # two items' worth of verdicts before an annotator is flagged
SPAMMER_J = 0.2  # sensitivity + specificity - 1 (Youden's J) below this: answers carry little information


def verdicts(answer: Mapping[str, Any], n_options: int) -> tuple[int, ...]:
    """An MCQA answer as its verdicts: one bit per option (ticked as plausible), then the
    "context doesn't make sense" bit."""
    ticked = set(answer.get("plausible", []))
    return (*(int(i in ticked) for i in range(n_options)), int(bool(answer.get("bad_context"))))


def label_verdicts(label: Mapping[str, Any], n_options: int) -> tuple[int | None, ...]:
    """A final MCQA label as verdicts; None where a tie left the verdict undecided."""
    tied = set(label.get("tied_options", []))
    plausible = set(label.get("plausible", []))
    bad = label.get("bad_context")
    return (*(None if i in tied else int(i in plausible) for i in range(n_options)), None if bad is None else int(bad))


@dataclass(frozen=True, slots=True)
class Worker:
    sensitivity: float  # Dawid–Skene: P(tick | plausible)
    specificity: float  # Dawid–Skene: P(no tick | not plausible)
    competence: float  # MACE: P(knows the answer)
    guess_yes: float  # MACE: P(tick) when guessing
    guess_no: float  # MACE: P(no tick) when guessing (crowd-kit smooths: not exactly 1 - guess_yes)
    guessing: float | None = None  # MACE: P(guessing); None: 1 - competence (crowd-kit's sum to 1 + smoothing)
    verdicts: int = 0  # how many verdicts the fit saw from this annotator

    @property
    def youden(self) -> float:
        """sensitivity + specificity - 1: 1 for a perfect annotator, 0 for one whose ticks do not
        depend on the truth (a spammer), negative for one who ticks the opposite (an adversary)."""
        return self.sensitivity + self.specificity - 1

    def accuracy(self, prior: float) -> float:
        """Expected share of verdicts given right, at the campaign's plausible share ``prior``."""
        return prior * self.sensitivity + (1 - prior) * self.specificity

    @property
    def flag(self) -> str:
        """``adversary``, ``spammer`` or ``""``; nobody is flagged on fewer than
        :data:`MIN_VERDICTS_TO_FLAG` verdicts."""
        if self.verdicts < MIN_VERDICTS_TO_FLAG:
            return ""
        if self.youden <= -SPAMMER_J:
            return "adversary"
        if self.youden < SPAMMER_J:
            return "spammer"
        return ""


COLD_WORKER = Worker(sensitivity=0.874, specificity=0.874, competence=0.748, guess_yes=0.27, guess_no=0.73)


@dataclass(frozen=True, slots=True)
class AnnotatorModel:
    prior: float  # P(plausible) of a verdict
    default: Worker  # an annotator the fit has not seen
    workers: Mapping[Hashable, Worker] = field(default_factory=dict)

    def worker(self, key: Hashable) -> Worker:
        return self.workers.get(key, self.default)


COLD_START = AnnotatorModel(prior=0.19, default=COLD_WORKER)


def _log(p: float) -> float:
    return math.log(min(max(p, _EPS), 1.0))


@lru_cache(maxsize=4096)
def _ds_logs(w: Worker) -> tuple[tuple[float, float], tuple[float, float]]:
    """One annotator's Dawid–Skene log-likelihoods ``(yes, no)`` of a verdict left unticked, then
    of one ticked: the same four logs :func:`ds_posterior` adds for each of their verdicts, taken
    once per annotator (a ``Worker`` is frozen: its logs cannot change under the cache)."""
    return (
        (_log(1 - w.sensitivity), _log(w.specificity)),
        (_log(w.sensitivity), _log(1 - w.specificity)),
    )


def ds_posterior(votes: Sequence[tuple[Worker, Sequence[int]]], prior: float) -> list[float]:
    """P(verdict is "yes") for each verdict of one item, from ``(annotator, verdict bits)`` of its
    answers: Dawid–Skene's E-step, Pr(z=c) Π_w e^w[y_w, c], normalised."""
    if not votes:
        return []
    out = []
    start = _log(prior), _log(1 - prior)
    logs = [(_ds_logs(w), bits) for w, bits in votes]
    for j in range(len(votes[0][1])):
        yes, no = start
        for by_bit, bits in logs:
            dy, dn = by_bit[1 if bits[j] else 0]
            yes, no = yes + dy, no + dn
        out.append(1.0 / (1.0 + math.exp(max(min(no - yes, 700.0), -700.0))))
    return out


def mace_posterior(votes: Sequence[tuple[Worker, Sequence[int]]]) -> list[float]:
    """P(verdict is "yes") for each verdict under MACE (a uniform class prior, as crowd-kit's):
    Π_w (P(guess)·strategy_w[y_w] + P(knows)·[y_w = c]), normalised."""
    if not votes:
        return []
    out = []
    for j in range(len(votes[0][1])):
        yes = no = 0.0
        for w, bits in votes:
            spam = 1 - w.competence if w.guessing is None else w.guessing
            guess = spam * (w.guess_yes if bits[j] else w.guess_no)
            yes += _log(guess + w.competence * (bits[j] == 1))
            no += _log(guess + w.competence * (bits[j] == 0))
        out.append(1.0 / (1.0 + math.exp(max(min(no - yes, 700.0), -700.0))))
    return out


def posterior(rule: str, votes: Sequence[tuple[Worker, Sequence[int]]], model: AnnotatorModel) -> list[float]:
    """The posterior a label rule weighs answers with (``majority`` and ``dawid_skene``: Dawid–Skene's)."""
    return mace_posterior(votes) if rule == "mace" else ds_posterior(votes, model.prior)


def weighted_label(posteriors: Sequence[float], n_options: int) -> dict[str, Any]:
    """A final MCQA label from verdict posteriors (a verdict is "yes" at 0.5 or more), in the
    shape :func:`commonsense.validation.item_label` gives a majority label."""
    plausible = [i for i in range(n_options) if posteriors[i] >= 0.5]
    bad = posteriors[n_options] >= 0.5
    return {"plausible": plausible, "none_correct": not plausible and not bad, "bad_context": bad}


State = Literal["below_min", "unanimous", "confident", "open", "exhausted", "disputed"]


@dataclass(frozen=True, slots=True)
class Settlement:
    state: State
    confidence: (
        float | None
    )  # all_verdicts: the least posterior of a verdict of the label; needs: P(verified item right)
    wanted: int  # the answers the item wants now: the queue's cap for it
    needs: Needs | None = None  # settlement rule "needs": the verified item it settles (gold, negatives)

    @property
    def settled(self) -> bool:
        return self.state in ("unanimous", "confident")


def settle(
    answer_bits: Sequence[Sequence[int]],
    label_bits: Sequence[int | None],
    posteriors: Sequence[float],
    *,
    min_answers: int,
    max_answers: int,
    threshold: float = THRESHOLD,
    agreement: bool = False,
) -> Settlement:
    """The confidence rule (module docstring). ``answer_bits``: each answer's verdicts;
    ``label_bits``: the final label's verdicts (None: undecided); ``posteriors``: P("yes") of each
    verdict under the campaign's annotator model; ``agreement``: :data:`AGREEMENT_RULE` (a dissent on
    any verdict at the minimum or later closes the item, disputed)."""
    n = len(answer_bits)
    max_answers = max(max_answers, min_answers)
    if not n:
        return Settlement("below_min", None, min_answers)
    confidence = min(
        (p if lab == 1 else 1 - p) if lab is not None else min(p, 1 - p)
        for p, lab in zip(posteriors, label_bits, strict=True)
    )
    if n < min_answers:
        return Settlement("below_min", confidence, min_answers)
    unanimous = n >= 2 and all(bits == answer_bits[0] for bits in answer_bits)  # one answer agrees with nobody
    if agreement and n >= 2 and not unanimous:
        return Settlement("disputed", confidence, n)
    if unanimous or confidence >= threshold - 1e-12:
        return Settlement("unanimous" if unanimous else "confident", confidence, n)
    if n >= max_answers:
        return Settlement("exhausted", confidence, n)
    return Settlement("open", confidence, n + 1)


def settle_needs(
    answer_bits: Sequence[Sequence[int]],
    needed: Needs,
    *,
    min_answers: int,
    max_answers: int,
    threshold: float = THRESHOLD,
    agreement: bool = False,
) -> Settlement:
    """The settlement rule ``needs`` (:data:`commonsense.verified_needs.NEEDS_RULE`): settled at the
    minimum of answers or more when the posterior probability that the verified item ``needed``
    describes is right reaches ``threshold``; ``unanimous`` names a settled item whose answers all
    give its verdicts alike. ``agreement`` (:data:`AGREEMENT_RULE`): an answer that dissents from those
    verdicts at the minimum or later closes the item, disputed (a dissent on an option the verified
    item drops does not count)."""
    n = len(answer_bits)
    max_answers = max(max_answers, min_answers)
    if not n:
        return Settlement("below_min", None, min_answers, needed)
    if n < min_answers:
        return Settlement("below_min", needed.confidence, min_answers, needed)
    alike = unanimous_on(needed, answer_bits, len(answer_bits[0]) - 1)
    if agreement and n >= 2 and not alike:
        return Settlement("disputed", needed.confidence, n, needed)
    if needed.confidence >= threshold - 1e-12:
        return Settlement("unanimous" if alike else "confident", needed.confidence, n, needed)
    if n >= max_answers:
        return Settlement("exhausted", needed.confidence, n, needed)
    return Settlement("open", needed.confidence, n + 1, needed)


@dataclass(frozen=True, slots=True)
class Judged:
    label: ItemLabel  # the final label (majority, or weighted by the annotator model), its votes and agreement
    settlement: Settlement
    posteriors: list[float]  # P("yes") of each verdict under the rule's model


def judge(
    answers: Sequence[tuple[Hashable, Mapping[str, Any]]],
    *,
    n_options: int,
    model: AnnotatorModel,
    rule: str = "majority",
    min_answers: int,
    max_answers: int,
    threshold: float = THRESHOLD,
    settlement: str = "all_verdicts",
    agreement: bool = False,
) -> Judged:
    """One MCQA item's final label and settlement from its ``(annotator, answer)`` pairs: what the
    queue stores on every answer and the simulated study (``perf/settle_sim.py``) calls.
    ``settlement``: ``all_verdicts`` (:data:`RULE`) or ``needs`` (:mod:`commonsense.verified_needs`);
    ``agreement``: :data:`AGREEMENT_RULE` on top of either."""
    if rule not in LABEL_RULES:
        raise ValueError(f"label rule must be one of {', '.join(LABEL_RULES)}, got {rule!r}")
    if settlement not in SETTLEMENT_RULES:
        raise ValueError(f"settlement rule must be one of {', '.join(SETTLEMENT_RULES)}, got {settlement!r}")
    lab = item_label("mcqa", [a for _, a in answers], n_options=n_options)
    bits = [verdicts(a, n_options) for _, a in answers]
    post = posterior(rule, [(model.worker(w), b) for (w, _), b in zip(answers, bits, strict=True)], model)
    if rule != "majority" and answers:
        lab = replace(lab, label=weighted_label(post, n_options), decided=True)
    label_bits = label_verdicts({**lab.label, "tied_options": lab.votes.get("tied_options", [])}, n_options)
    if not lab.decided and lab.label.get("bad_context") is False and 2 * lab.votes.get("bad_context", 0) == lab.n:
        label_bits = (*label_bits[:-1], None)  # a tie on "the context doesn't make sense"
    if settlement == "needs" and answers:
        needed = needs(lab.label, post, n_options, tied=lab.votes.get("tied_options", []) if rule == "majority" else ())
        s = settle_needs(
            bits, needed, min_answers=min_answers, max_answers=max_answers, threshold=threshold, agreement=agreement
        )
    else:
        s = settle(
            bits,
            label_bits,
            post,
            min_answers=min_answers,
            max_answers=max_answers,
            threshold=threshold,
            agreement=agreement,
        )
    return Judged(lab, s, post)


def fit(
    rows: Iterable[tuple[Hashable, Hashable, Sequence[int]]], *, seed: int = 0, with_mace: bool = True
) -> AnnotatorModel:
    """Fit Dawid–Skene and MACE (crowd-kit) over ``(annotator, item, verdict bits)`` rows, one
    per answer. Too little data to fit (no row, or every verdict alike) gives :data:`COLD_START`.
    ``with_mace=False`` skips MACE (its fields keep the cold-start values): the simulated study,
    whose rules read Dawid–Skene only."""
    cells = [(w, f"{item}\x1f{j}", int(b)) for w, item, bits in rows for j, b in enumerate(bits)]
    if not cells or len({c[2] for c in cells}) < 2:
        return COLD_START
    import warnings

    import pandas as pd

    df = pd.DataFrame(cells, columns=["worker", "task", "label"])
    with warnings.catch_warnings():  # crowd-kit 1.4.2 uses pandas keywords pandas 3 deprecates
        warnings.simplefilter("ignore", DeprecationWarning)
        warnings.simplefilter("ignore", FutureWarning)
        return _fit(df, seed, with_mace)


def _fit(df: Any, seed: int, with_mace: bool) -> AnnotatorModel:
    import numpy as np
    import pandas as pd
    from crowdkit.aggregation import MACE, DawidSkene

    ds = DawidSkene(n_iter=100).fit(df)
    errors: Any = ds.errors_
    priors: Any = ds.priors_
    prior = float(priors.get(1, 0.0))
    worker_names = list(pd.factorize(df["worker"])[1])
    competence = [(COLD_WORKER.competence, 1 - COLD_WORKER.competence)] * len(worker_names)
    guess = [(COLD_WORKER.guess_yes, COLD_WORKER.guess_no)] * len(worker_names)
    if with_mace:  # one restart: three gave the same estimates on the planted test, at three times the cost
        mace = MACE(n_restarts=1, n_iter=50, random_state=seed).fit(df)
        yes_col = list(pd.factorize(df["label"])[1]).index(1)
        competence = [(float(x[1]), float(x[0])) for x in mace.spamming_]
        guess = [(float(t[yes_col]), float(t[1 - yes_col])) for t in mace.thetas_]
    counts = df.groupby("worker", sort=False).size()

    def cell(w: Hashable, observed: int, true: int, missing: float) -> float:
        try:
            return float(errors.loc[(w, observed), true])
        except KeyError:  # the annotator never gave that label
            return missing

    workers: dict[Hashable, Worker] = {}
    for i, w in enumerate(worker_names):
        workers[w] = Worker(
            sensitivity=cell(w, 1, 1, _EPS),
            specificity=cell(w, 0, 0, _EPS),
            competence=competence[i][0],
            guessing=competence[i][1],
            guess_yes=guess[i][0],
            guess_no=guess[i][1],
            verdicts=int(counts[w]),
        )
    pooled = Worker(
        sensitivity=float(np.mean([x.sensitivity for x in workers.values()])),
        specificity=float(np.mean([x.specificity for x in workers.values()])),
        competence=float(np.mean([x.competence for x in workers.values()])),
        guess_yes=float(np.mean([x.guess_yes for x in workers.values()])),
        guess_no=float(np.mean([x.guess_no for x in workers.values()])),
    )
    return AnnotatorModel(prior=min(max(prior, 0.01), 0.99), default=pooled, workers=workers)
