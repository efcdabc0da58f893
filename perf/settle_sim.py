"""Simulated study of the verification loop (issue 26, perf/RESULTS.md "verification loop"): how
accurate are the final labels, and how many answers do they cost, with a fixed redundancy of 3,
with adaptive redundancy (the confidence rule) and with labels weighted by the annotators'
Dawid–Skene estimates?

The items and annotators are simulated; everything that decides goes through the production core
the queue and the labels use: :func:`commonsense.annotators.judge` (final label, posterior,
settlement and the answers an item wants, on every answer), :func:`commonsense.annotators.fit`
(crowd-kit's Dawid–Skene, refitted every ``--refit`` answers as the campaign's annotator model is,
after which every item is judged again, as ``annotator_quality_refresh`` does) and
:func:`commonsense.agreement.option_agreement` / :func:`commonsense.agreement.fleiss_kappa` for the
calibration. The queue's order is the production one: items that want more than the minimum first
(escalated), then the most-answered, then position; nobody sees an item twice.

Items: ``--items`` questions of 5 options; one plausible option on 85 %, two on 5 %, none on 10 %
(0.95 plausible options per item, 19 % of option verdicts: the share COM2's agreement implies), a
context that makes no sense on 3 %. Annotators: a pool of ``--pool``, ``--spammers`` of them tick
each option at random at COM2's tick rate (0.27); the others give each option's verdict right with
their own accuracy, drawn from a Beta distribution whose mean is calibrated (bisection) so that a
fixed-3 run shows COM2's per-option agreement of 78 % (the Fleiss κ it then shows is printed beside
COM2's 0.445). Each arrival is a random annotator of the pool who answers one item.

    .venv/bin/python perf/settle_sim.py                       # 1,000 items, 10 % spammers
    .venv/bin/python perf/settle_sim.py --items 300 --refit 100   # quicker
    .venv/bin/python perf/settle_sim.py --hard-share 0.15     # disagreement concentrated on ambiguous options
    .venv/bin/python perf/settle_sim.py --only 1,2 --sweep    # + a grid of the settings the campaign form offers

``--sweep`` appends to the configurations (``--only`` picks among the fixed list) one run per
combination of ``--sweep-rules`` (settlement rule, default ``needs``), ``--sweep-min`` (minimum
answers, default 2), ``--sweep-max`` (maximum, default 3,4,5), ``--sweep-labels`` (label rule,
default ``dawid_skene``) and ``--sweep-thresholds`` (confidence to settle, default 0.6,0.7,0.8,0.9).
Answers per item are counted over every item (settled, exhausted, left out alike), as for fixed 3;
"exhausted" is the share of items that reached the maximum unsettled.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from commonsense.agreement import fleiss_kappa, option_agreement  # noqa: E402
from commonsense.annotators import COLD_START, AnnotatorModel, Judged, fit, judge, label_verdicts, verdicts  # noqa: E402
from commonsense.validation import NONE_CORRECT, com2_postprocess  # noqa: E402

N_OPTIONS = 5
TICK_RATE = 0.27


HARD_ACCURACY = 0.6  # every good annotator on a hard (ambiguous) option verdict


@dataclass
class World:
    truth: list[tuple[int, ...]]  # per item: option verdicts + context verdict
    accuracy: list[float]  # per annotator (spammers: nan)
    spammer: list[bool]
    hard: list[tuple[bool, ...]]  # per item and option: an ambiguous verdict (--hard-share)


def make_world(n_items: int, pool: int, spammers: float, mean_acc: float, seed: int, hard_share: float = 0.0) -> World:
    rng = random.Random(seed)
    truth = []
    hard = []
    for _ in range(n_items):
        r = rng.random()
        k = 1 if r < 0.85 else (2 if r < 0.90 else 0)
        plausible = set(rng.sample(range(N_OPTIONS), k))
        truth.append((*(int(i in plausible) for i in range(N_OPTIONS)), int(rng.random() < 0.03)))
        hard.append(tuple(rng.random() < hard_share for _ in range(N_OPTIONS)))
    n_spam = round(pool * spammers)
    conc = 40.0  # Beta concentration: sd of accuracy ~0.05 around the mean
    acc = [float("nan")] * n_spam + [
        min(0.995, max(0.5, rng.betavariate(mean_acc * conc, (1 - mean_acc) * conc))) for _ in range(pool - n_spam)
    ]
    return World(truth, acc, [True] * n_spam + [False] * (pool - n_spam), hard)


def answer_of(world: World, w: int, item: int, rng: random.Random) -> dict[str, Any]:
    t = world.truth[item]
    if world.spammer[w]:
        bits = [int(rng.random() < TICK_RATE) for _ in range(N_OPTIONS)]
        bad = rng.random() < 0.05
    else:
        a = world.accuracy[w]
        hard = world.hard[item]
        bits = [b if rng.random() < (HARD_ACCURACY if hard[j] else a) else 1 - b for j, b in enumerate(t[:N_OPTIONS])]
        bad = bool(t[-1]) if rng.random() < 0.97 else not t[-1]
    return {"plausible": [i for i, b in enumerate(bits) if b], "bad_context": bad}


@dataclass
class Outcome:
    name: str
    answers_per_item: float
    exact: float  # items whose final label gives every verdict right
    per_verdict: float
    settled: float
    exact_settled: float | None
    kept: float = 0.0  # share of the items the verified set keeps
    verified: float | None = None  # share of the kept verified items that are right (gold plausible, negatives not)
    right_per_item: float = 0.0  # right verified items per item (the yield)
    answers_per_kept: float | None = None  # all answers spent per kept verified item
    none_share: float | None = None  # share of kept items whose gold is "None of the answers are correct."
    spent: dict[int, int] | None = None  # items by the answers they got
    exhausted: float = 0.0  # share of the items that reached the maximum unsettled


def verified_item(world: World, i: int, j: Judged, settlement: str, keep_all: bool) -> bool | None:
    """What ``verified_set`` would make of item ``i`` (None: left out) and whether it is right: its
    context makes sense, its gold is truly plausible (or no shown option is, for "None of the answers
    are correct.") and its kept negatives are truly implausible. ``keep_all``: COM2 as published (every
    item whose label does not reject the context, settled or not; A.4's random draw)."""
    truth = world.truth[i]
    if not keep_all and not j.settlement.settled:
        return None
    options = [str(k) for k in range(N_OPTIONS)]
    if settlement == "needs":
        nd = j.settlement.needs
        if nd is None or nd.use == "bad_context":
            return None
        post = com2_postprocess(options, [], seed=0, key=str(i), keep=(nd.gold, nd.negatives))
    else:
        if j.label.label.get("bad_context") or (
            j.label.label.get("none_correct") is None and not j.label.label.get("plausible")
        ):
            return None  # rejected context, or a tie with no plausible option (awaits adjudication)
        post = com2_postprocess(options, j.label.label.get("plausible", []), seed=0, key=str(i))
    if post.needs_manual_negatives:  # no distractor pool in the simulation: left out (too_few_negatives)
        return None
    shown = [int(o) for o in post.options if o != NONE_CORRECT]
    gold = None if post.positive is None else int(post.positive)
    if truth[-1]:
        return False
    return all(truth[k] == (1 if k == gold else 0) for k in shown)


def run(
    world: World,
    *,
    name: str,
    min_a: int,
    max_a: int,
    rule: str,
    refit: int,
    seed: int,
    threshold: float = 0.95,
    settlement: str = "all_verdicts",
    keep_all: bool = False,
) -> Outcome:
    rng = random.Random(seed)
    n = len(world.truth)
    answers: list[list[tuple[int, dict[str, Any]]]] = [[] for _ in range(n)]
    wanted = [min_a] * n
    model: AnnotatorModel = COLD_START
    since = 0
    pool = list(range(len(world.accuracy)))

    def rejudge(i: int) -> None:
        j = judge(
            answers[i],
            n_options=N_OPTIONS,
            model=model,
            rule=rule,
            min_answers=min_a,
            max_answers=max_a,
            threshold=threshold,
            settlement=settlement,
        )
        wanted[i] = j.settlement.wanted

    def refit_all() -> None:
        nonlocal model
        rows = [(w, i, verdicts(a, N_OPTIONS)) for i, ans in enumerate(answers) for w, a in ans]
        model = fit(rows, seed=seed, with_mace=rule == "mace")
        for i in range(n):
            if answers[i]:
                rejudge(i)

    seen: list[set[int]] = [set() for _ in pool]
    idle = 0
    while idle < 3 * len(pool):
        w = rng.choice(pool)
        # the production order: escalated (wanting more than the minimum) first, then most-answered, then position
        best, key = None, None
        for i in range(n):
            if len(answers[i]) < wanted[i] and i not in seen[w]:
                k = (-wanted[i], -len(answers[i]), i)
                if key is None or k < key:
                    best, key = i, k
        if best is None:
            idle += 1
            continue
        idle = 0
        seen[w].add(best)
        answers[best].append((w, answer_of(world, w, best, rng)))
        rejudge(best)
        since += 1
        if since >= refit:
            since = 0
            refit_all()
    refit_all()  # the final labels are computed under the last fit, as after a refresh
    exact = per = settled = exact_s = kept = n_right = none = exhausted = 0
    for i in range(n):
        j = judge(
            answers[i],
            n_options=N_OPTIONS,
            model=model,
            rule=rule,
            min_answers=min_a,
            max_answers=max_a,
            threshold=threshold,
            settlement=settlement,
        )
        exhausted += j.settlement.state == "exhausted"
        v = verified_item(world, i, j, settlement, keep_all)
        if v is not None:
            kept += 1
            n_right += v
            nd = j.settlement.needs
            none += (nd.use == "none") if nd is not None else not j.label.label.get("plausible")
        got = label_verdicts({**j.label.label, "tied_options": j.label.votes.get("tied_options", [])}, N_OPTIONS)
        right = [g == t for g, t in zip(got, world.truth[i], strict=True)]
        exact += all(right)
        per += sum(right)
        if j.settlement.settled:
            settled += 1
            exact_s += all(right)
    total = sum(len(a) for a in answers)
    return Outcome(
        name,
        total / n,
        exact / n,
        per / (n * (N_OPTIONS + 1)),
        settled / n,
        exact_s / settled if settled else None,
        kept / n,
        n_right / kept if kept else None,
        n_right / n,
        total / kept if kept else None,
        none / kept if kept else None,
        dict(sorted(Counter(len(a) for a in answers).items())),
        exhausted / n,
    )


def fixed3_agreement(world: World, seed: int) -> tuple[float, float, float]:
    """Per-option pairwise agreement and Fleiss κ of three random annotators per item, and the
    share of items whose first two answers give every verdict alike (what can settle at two)."""
    rng = random.Random(seed)
    pool = len(world.accuracy)
    sel = np.full((pool, len(world.truth), N_OPTIONS), np.nan)
    alike = 0
    for i in range(len(world.truth)):
        bits = []
        for w in rng.sample(range(pool), 3):
            a = answer_of(world, w, i, rng)
            bits.append(verdicts(a, N_OPTIONS))
            for o in range(N_OPTIONS):
                sel[w, i, o] = int(o in a["plausible"])
        alike += bits[0] == bits[1]
    agr = option_agreement(sel).overall
    flat = sel.reshape(pool, -1)
    kappa = fleiss_kappa(flat, n_categories=2).kappa
    return float(agr or 0.0), float(kappa or 0.0), alike / len(world.truth)


def calibrate(
    n_items: int, pool: int, spammers: float, seed: int, hard_share: float = 0.0, target: float = 0.78
) -> float:
    lo, hi = 0.6, 0.999
    for _ in range(18):
        mid = (lo + hi) / 2
        agr, _, _ = fixed3_agreement(make_world(n_items, pool, spammers, mid, seed, hard_share), seed)
        lo, hi = (mid, hi) if agr < target else (lo, mid)
    return (lo + hi) / 2


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--items", type=int, default=1000)
    ap.add_argument("--pool", type=int, default=60, help="annotators")
    ap.add_argument("--spammers", type=float, default=0.10)
    ap.add_argument("--refit", type=int, default=300, help="answers between two fits of the annotator model")
    ap.add_argument("--seed", type=int, default=26)
    ap.add_argument(
        "--hard-share",
        type=float,
        default=0.0,
        help="share of option verdicts that are ambiguous (every good annotator right with 0.6 there); 0: "
        "disagreement comes from the annotators' accuracy spread alone, as the issue asks",
    )
    ap.add_argument("--only", help="comma-separated indices of the configurations to run (0, fixed 3, always runs)")
    ap.add_argument("--sweep", action="store_true", help="append the grid of the --sweep-* settings")
    ap.add_argument("--sweep-rules", default="needs", help="settlement rules: needs, all_verdicts")
    ap.add_argument("--sweep-min", default="2", help="minimum answers per item")
    ap.add_argument("--sweep-max", default="3,4,5", help="maximum answers per item")
    ap.add_argument("--sweep-labels", default="dawid_skene", help="label rules: majority, dawid_skene, mace")
    ap.add_argument("--sweep-thresholds", default="0.6,0.7,0.8,0.9", help="confidence to settle (the form: 0.5-1)")
    args = ap.parse_args()
    t0 = time.time()
    mean_acc = calibrate(args.items, args.pool, args.spammers, args.seed, args.hard_share)
    world = make_world(args.items, args.pool, args.spammers, mean_acc, args.seed, args.hard_share)
    agr, kappa, alike = fixed3_agreement(world, args.seed)
    good = [a for a, s in zip(world.accuracy, world.spammer, strict=True) if not s]
    print(
        f"{args.items} items, {args.pool} annotators ({sum(world.spammer)} spammers); good annotators' per-verdict "
        f"accuracy mean {statistics.mean(good):.3f} sd {statistics.pstdev(good):.3f} (min {min(good):.3f}, max "
        f"{max(good):.3f}) on the {1 - args.hard_share:.0%} of option verdicts that are not ambiguous; fixed-3 "
        f"per-option agreement {agr:.3f} (COM2 0.78), Fleiss kappa {kappa:.3f} (COM2 0.445); two answers give "
        f"every verdict alike on {alike:.1%} of the items: a rule that settles no split item at two answers "
        f"spends at least {2 + (1 - alike):.2f} answers per item ({(2 + (1 - alike)) / 3 - 1:+.1%} answers vs fixed 3)"
    )
    configs = [  # name, min, max, label rule, settlement rule, threshold, keep every item (COM2 as published)
        ("fixed 3 (majority; COM2: every item kept)", 3, 3, "majority", "all_verdicts", 0.95, True),
        ("adaptive 3-5 (majority, all verdicts)", 3, 5, "majority", "all_verdicts", 0.95, False),
        ("weighted 2-5 (Dawid-Skene, all verdicts)", 2, 5, "dawid_skene", "all_verdicts", 0.95, False),
        ("needs 3-5 (majority)", 3, 5, "majority", "needs", 0.95, False),
        ("needs 2-5 (majority)", 2, 5, "majority", "needs", 0.95, False),
        ("needs 2-5 (Dawid-Skene)", 2, 5, "dawid_skene", "needs", 0.95, False),
        ("needs 2-4 (Dawid-Skene)", 2, 4, "dawid_skene", "needs", 0.95, False),
        ("needs 2-5 (Dawid-Skene), threshold 0.90", 2, 5, "dawid_skene", "needs", 0.90, False),
    ]
    if args.only:
        keep = {int(k) for k in args.only.split(",")}
        configs = [c for k, c in enumerate(configs) if k in keep or k == 0]
    if args.sweep:
        configs += [
            (f"{st} {lo}-{hi} ({lab}), threshold {th:g}", lo, hi, lab, st, th, False)
            for st in args.sweep_rules.split(",")
            for lab in args.sweep_labels.split(",")
            for lo in map(int, args.sweep_min.split(","))
            for hi in map(int, args.sweep_max.split(","))
            for th in map(float, args.sweep_thresholds.split(","))
            if hi >= lo
        ]
    results = []
    head = "answers/item  exact  per-verdict  settled  kept   verified  right/item  answers/kept  none   exhausted"
    print(f"{'config (min-max answers, label rule, settlement rule)':<44} {head}")
    for name, lo, hi, rule, settlement, threshold, keep_all in configs:
        t = time.time()
        o = run(
            world,
            name=name,
            min_a=lo,
            max_a=hi,
            rule=rule,
            refit=args.refit,
            seed=args.seed,
            threshold=threshold,
            settlement=settlement,
            keep_all=keep_all,
        )
        results.append(o)
        print(
            f"{o.name:<44} {o.answers_per_item:12.2f}  {o.exact:.3f}  {o.per_verdict:11.4f}  {o.settled:7.3f}  "
            f"{o.kept:.3f}  {(o.verified or 0):8.3f}  {o.right_per_item:10.3f}  {(o.answers_per_kept or 0):12.2f}  "
            f"{(o.none_share or 0):.3f}  {o.exhausted:9.3f}  ({time.time() - t:.0f} s)",
            flush=True,
        )
    base = results[0]
    for o in results[1:]:
        saved = 1 - o.answers_per_item / base.answers_per_item
        ok = (o.verified or 0) >= (base.verified or 0) and saved >= 0.20
        print(
            f"{o.name:<44} vs fixed 3: verified-item accuracy {(o.verified or 0) - (base.verified or 0):+.3f}, "
            f"exact {o.exact - base.exact:+.3f}, right verified items per item {o.right_per_item - base.right_per_item:+.3f}, "
            f"answers {-saved:+.1%} -> target (>= fixed-3 verified-item accuracy, >= 20 % fewer answers) "
            f"{'met' if ok else 'not met'}"
        )
    print(f"total {time.time() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
