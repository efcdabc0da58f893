"""COM2-style logical-query MCQA builder: sample, answer set, distractors, verbalise, names."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from commonsense.kg.index import GraphIndex
from commonsense.scoring.plausibility import PlausibilityCheck

from ..queries.rules import CompositionRules
from ..queries.sampling import Query, QuerySampler
from ..queries.space import build_space
from ..queries.structures import NEGATION_RELATION, STRUCTURES
from . import chain_phrasing, distractors, fluent, names, negatives, verbalize
from . import funnel as stages

# what callers import from here: the parameters and report (com2_params), the checks (option_checks)
from .com2_params import DEFAULT_COM2_HOPS as DEFAULT_COM2_HOPS
from .com2_params import OLD_VETO as OLD_VETO
from .com2_params import BuildParams as BuildParams
from .com2_params import BuildReport as BuildReport
from .display import Display
from .diverse import EmbeddingCache, select_diverse
from .neardup import NearDuplicates
from .negatives import NegativeSpec, RelationTails
from .option_checks import STATE_CLASSES as STATE_CLASSES
from .option_checks import (
    NearSynonymCheck,
    StateDistractorCheck,
    _counted,
    near_duplicate_check,
    option_checks,
    other_kind,
)
from .option_checks import OptionCandidate as OptionCandidate
from .option_checks import OptionCheck as OptionCheck
from .plausible import pick_checked
from .record import BuiltQuestion, derive_seed
from .synonyms import NearSynonyms

Progress = Callable[[int, int], None]


def make_question(
    index: GraphIndex,
    sampler: QuerySampler,
    query: Query,
    rng: random.Random,
    *,
    qid: str,
    seed: int,
    person_names: bool = True,
    answers: set[int] | None = None,
    group: str = "",
    role: str = "reasoning",
    display: Callable[[int], str] | None = None,
    checks: Sequence[OptionCheck] = (),
    report: BuildReport | None = None,
    adversarial_other_kind: bool = False,
    random_pool: npt.NDArray[np.int64] | None = None,
    check: PlausibilityCheck | None = None,
    negative_spec: NegativeSpec | None = None,
    relation_tails: RelationTails | None = None,
    spare: int = 0,
    phrasing: str = "stacked",
) -> BuiltQuestion | None:
    """Assemble one MCQA item from a sampled query, or None if it is unusable (an anchor is
    itself an answer, or not enough distractors). ``display`` renders node text (default: the
    graph's text); ``checks`` may veto distractor candidates, counted in ``report``.
    ``negative_spec`` says where the negatives come from (:mod:`.negatives`; None: the anchors'
    neighbours and ``random_pool``); ``relation_tails`` is the build's cache of the random pools.
    ``spare`` more distractors that pass the same checks are kept in ``metadata["distractor_pool"]``
    (what a validation tops an item up from when annotators reject some of its options). ``phrasing``:
    how a fluent build words a 2p chain (:mod:`.chain_phrasing`; "stacked" is the papers' wording)."""
    answers = sampler.answers(query) if answers is None else answers
    anchors = query.anchors()
    if query.answer not in answers or answers.intersection(anchors):
        if report is not None:
            report.dropped["an anchor is an answer"] += 1
            report.sampling.anchor_answers += 1
        return None
    raw = index.names.__getitem__
    text = display or raw
    reject = None
    prefetchers = [p for p in (getattr(c, "prefetch", None) for c in checks) if p is not None]
    shown = [text(a) for a in sorted(answers)] if checks else []

    def prepare(nodes: list[int]) -> None:
        texts = [*shown, *(text(n) for n in nodes)]
        for p in prefetchers:
            p(texts)

    if checks:
        reject = option_checks(index, query, text, shown, checks, text(query.answer))
        if report is not None:
            reject = _counted(reject, report.sampling)
    rejected_before = Counter(report.distractors_rejected) if report is not None else Counter()
    # The chain's intermediate nodes answer the question's first hops: read blind, a 2p item offering
    # both "Adam gains confidence" (the hidden middle step) and the gold "Adam is confident" had two
    # defensible answers (COM2's human evaluation names such answers "1-hop").
    middle = {n for h, _, t in query.chain() for n in (h, t)} - set(anchors) - answers
    pick_options: dict[str, Any] = {
        "reject": reject,
        "rejections": None if report is None else report.distractors_rejected,
        "prepare": prepare if prefetchers else None,
        "adversarial_relations": other_kind(index, query) if adversarial_other_kind else None,
        "random_pool": random_pool,
    }
    if negative_spec is not None:
        if negative_spec.adversarial == "branch":
            pick_options["adversarial_pools"] = negatives.branch_pools(index, sampler, query, answers)
            pick_options["adversarial_relations"] = None
        if negative_spec.random == "relation":
            tails = relation_tails if relation_tails is not None else RelationTails(index)
            # the asked relation's tails first, the build's graph-wide pool where they run short
            pick_options["random_pool"] = tails(negatives.asked_relations(query))
            pick_options["random_fallback"] = index.tail_nodes if random_pool is None else random_pool
    picked = distractors.pick(index, rng, answers=answers | middle, anchors=anchors, **pick_options)
    refused: list[tuple[str, str]] = []
    if picked is not None and check is not None:
        # a redraw passes the same checks (near-duplicates, states) as the first draw
        picked, refused = pick_checked(
            index, rng, query, picked, check, answers=answers | middle, anchors=anchors, **pick_options
        )
        if report is not None and refused:
            report.distractors_rejected[stages.PLAUSIBLE_TO_MODEL] += len(refused)
            report.judge_vetoed.update(how for _, how in refused)
    if report is not None:
        report.sampling.candidates_rejected.update(report.distractors_rejected - rejected_before)
    if picked is None:
        if report is not None:
            report.dropped["too few distractors"] += 1
            report.sampling.too_few[stages.too_few_cause(report.distractors_rejected - rejected_before)] += 1
        return None
    rel = index.rel_names.__getitem__
    st = STRUCTURES[query.kind]
    fluent_text = isinstance(display, Display) and display.fluent_text
    ctx = verbalize.context(query, text, rel, st.negated_branch, chain_phrasing.negated if fluent_text else None)
    qtext = verbalize.question(query, text, rel, fluent.hindered_phrase if fluent_text else None)
    worded = chain_phrasing.two_hop(query, text, rel, phrasing) if fluent_text else None
    if worded is not None:
        ctx, qtext = worded
    opts, pos = distractors.place(rng, text(query.answer), [text(n) for n, _ in picked])
    how_of = {text(n): how for n, how in picked}  # texts are distinct (distractors.pick dedupes them)
    provenance = ["gold" if i == pos else how_of[o] for i, o in enumerate(opts)]
    mapping = names.draw(rng) if person_names else {}
    ap = names.apply
    chain = query.chain()
    pool: list[tuple[int, str]] = []
    if spare > 0:
        # spare distractors for the validation's top-up (COM2 A.4), from their own rng: the item is unchanged
        pool = _spare(
            index,
            random.Random(derive_seed(seed, "spare")),
            query,
            spare,
            answers | middle | {n for n, _ in picked},
            pick_options,
            check,
            [n for n, _ in picked],
        )
    return BuiltQuestion(
        id=qid,
        kind=query.kind,
        context=ap(ctx, mapping),
        question=ap(qtext, mapping),
        options=[ap(o, mapping) for o in opts],
        answer_index=pos,
        answers=sorted(ap(text(a), mapping) for a in answers),
        anchors=[ap(text(a), mapping) for a in anchors],
        relations=[rel(r) for _, r, _ in chain],
        chain=[[raw(h), rel(r), raw(t)] for h, r, t in chain],
        group=group,
        role=role,
        seed=seed,
        metadata={
            "names": mapping,
            "distractors": [how for _, how in picked],
            "distractors_raw": [raw(n) for n, _ in picked],  # the graph's own text (options are shown fluent)
            "option_provenance": provenance,  # per option: gold / adversarial / random
            **(
                {
                    "distractor_pool": [ap(text(n), mapping) for n, _ in pool],
                    "distractor_pool_provenance": [how for _, how in pool],
                }
                if spare > 0
                else {}
            ),
            "template": {"context": ctx, "question": qtext},
            **({"plausible_distractors_refused": [t for t, _ in refused]} if refused else {}),
        },
        triple_refs=[x for x in (index.edge_ref(h, r, t) for h, r, t in chain) if x >= 0],
    )


def _spare(
    index: GraphIndex,
    rng: random.Random,
    query: Query,
    n: int,
    banned: set[int],
    pick_options: dict[str, Any],
    check: PlausibilityCheck | None,
    shown: list[int],
) -> list[tuple[int, str]]:
    """Up to ``n`` more distractors (adversarial first), checked against the options shown too."""
    opts = dict(pick_options, rejections=None)  # the build report counts the shown options' draws only
    reject = pick_options.get("reject")
    if reject is not None:
        opts["reject"] = lambda node, chosen: reject(node, [*shown, *chosen])
    for k in range(n, 0, -1):  # as many as the graph gives, up to n
        got = distractors.pick(
            index, rng, answers=banned, anchors=query.anchors(), n_random=k - min(2, k), n_adversarial=min(2, k), **opts
        )
        if got is not None and check is not None:
            got, _ = pick_checked(index, rng, query, got, check, answers=banned, anchors=query.anchors(), **opts)
        if got is not None:
            return got
    return []


def sample_questions(
    index: GraphIndex,
    kind: str,
    count: int,
    seed: int,
    *,
    relations: Iterable[str] | None = None,
    max_degree: int | None = None,
    person_names: bool = True,
    id_prefix: str = "",
    max_attempts: int | None = None,
    progress: Progress | None = None,
    sampler: QuerySampler | None = None,
    rules: CompositionRules | None = None,
    display: Display | None = None,
    checks: Sequence[OptionCheck] = (),
    report: BuildReport | None = None,
    adversarial_other_kind: bool = False,
    check: PlausibilityCheck | None = None,
    negative_spec: NegativeSpec | None = None,
    spare: int = 0,
    phrasing: str = "stacked",
) -> list[BuiltQuestion]:
    """Up to ``count`` distinct questions of ``kind``. Attempt j uses its own rng seeded from
    (seed, kind, j), so the output depends only on the graph, the parameters and the seed.
    ``rules``, ``display`` and ``checks`` are the quality options (:func:`build_com2` sets them
    from :class:`BuildParams`); without them the papers' bare procedure runs. ``negative_spec``:
    COM2's hard negatives (:mod:`.negatives`); None: any anchor neighbour and any tail."""
    if kind not in STRUCTURES:
        raise ValueError(f"unknown query kind {kind!r}; choose one of {', '.join(STRUCTURES)}")
    if sampler is None:
        usable = display.usable() if display is not None else None
        sampler = QuerySampler(index, max_degree=max_degree, relations=relations, rules=rules, node_ok=usable)
    limit = max_attempts if max_attempts is not None else max(2000, 40 * count)
    if negative_spec is not None and negative_spec.random != "relation":
        pool = distractors.shared_event_tails(index) if negative_spec.random == "shared" else None
    else:  # the graph-wide pool (the asked relation's tails are topped up from it): quality builds only
        pool = distractors.shared_event_tails(index) if display is not None else None
    relation_tails = RelationTails(index) if negative_spec is not None else None
    out: list[BuiltQuestion] = []
    seen: set[tuple[object, ...]] = set()
    for j in range(limit):
        if len(out) >= count:
            break
        qseed = derive_seed(seed, kind, j)
        rng = random.Random(qseed)
        query = sampler.sample(kind, rng)
        if report is not None:
            report.attempts += 1
            report.sampling.attempts += 1
        if query is None or query.signature() in seen:
            if report is not None:
                report.dropped["no query from the sampled answer" if query is None else "repeated query"] += 1
                if query is None:
                    report.sampling.no_query[sampler.last_failure] += 1
                else:
                    report.sampling.repeated += 1
            continue
        q = make_question(
            index,
            sampler,
            query,
            rng,
            qid=f"{id_prefix}{kind}-{len(out) + 1:06d}",
            seed=qseed,
            person_names=person_names,
            group=f"{id_prefix}{kind}-{len(out) + 1:06d}",
            display=display,
            checks=checks,
            report=report,
            adversarial_other_kind=adversarial_other_kind,
            random_pool=pool,
            check=check,
            negative_spec=negative_spec,
            relation_tails=relation_tails,
            spare=spare,
            phrasing=phrasing,
        )
        if q is None:
            continue
        seen.add(query.signature())
        out.append(q)
        if progress is not None:  # every question: the caller throttles its writes (a 30-item build sat at 0 / 30)
            progress(len(out), count)
    return out


def renumber(questions: list[BuiltQuestion], prefix: str) -> list[BuiltQuestion]:
    for i, q in enumerate(questions, 1):
        q.id = q.group = f"{prefix}{q.kind}-{i:06d}"
    return questions


def build_com2(
    index: GraphIndex,
    params: BuildParams,
    *,
    diverse_cache: EmbeddingCache | None = None,
    pool_factor: int = 3,
    progress: Progress | None = None,
    near_duplicates: NearDuplicates | None = None,
    extra_checks: Sequence[OptionCheck] = (),
    report: BuildReport | None = None,
    check: PlausibilityCheck | None = None,
) -> list[BuiltQuestion]:
    """``build_questions``: ``params.count`` questions of ``params.kind``. With ``params.diverse``
    a pool of ``pool_factor × count`` is sampled and CoCo's vote-k (k=150, ρ=10) keeps ``count``
    of them, embedding the placeholder (name-free) context + question.

    Quality defaults (issue 11): hops over COM2's relations only, the composition rules, fluent
    display text, and no distractor within cosine ``params.near_duplicate`` of an answer or another
    option, nor one whose predicate is a near-synonym of an answer's (``params.near_synonym``,
    :mod:`.synonyms`; both use the encoder ``near_duplicates`` supplies, and neither runs with
    ``near_duplicate`` None); ``extra_checks`` add vetoes such as a plausibility model.
    ``report`` receives the counts."""
    if params.diverse and diverse_cache is None:
        raise ValueError("--diverse needs an embedding cache directory")
    if params.near_duplicate is not None and near_duplicates is None:
        from commonsense.kg.normalize import minilm_encoder

        near_duplicates = NearDuplicates(minilm_encoder(), params.near_duplicate)
    checks: list[OptionCheck] = []
    if params.near_duplicate is not None and near_duplicates is not None:
        checks.append(near_duplicate_check(near_duplicates))
        if params.near_synonym is not None:
            checks.append(NearSynonymCheck(NearSynonyms(near_duplicates, params.near_synonym)))
    if not params.state_distractors:
        checks.append(StateDistractorCheck(index))
    checks.extend(extra_checks)
    report = report if report is not None else BuildReport()
    report.requested = params.count
    report.kind = params.kind
    hops = [*params.hop_relations, *([NEGATION_RELATION] if STRUCTURES[params.kind].negated_branch is not None else [])]
    report.graph = stages.graph_stages(index, hops)
    n = params.count * (pool_factor if params.diverse else 1)
    relations = params.hop_relations  # 2in's negated branch always uses HinderedBy (the sampler's own mask)
    display = Display(index, fluent_text=params.fluent)
    qs = sample_questions(
        index,
        params.kind,
        n,
        params.seed,
        relations=relations,
        max_degree=params.max_degree,
        person_names=params.person_names,
        progress=None if params.diverse else progress,
        rules=params.composition_rules,
        display=display,
        checks=checks,
        report=report,
        adversarial_other_kind=params.adversarial_other_kind,
        check=check,
        negative_spec=params.negatives,
        spare=params.spare_distractors,
        phrasing=params.chain_phrasing,
    )
    if near_duplicates is not None:
        near_duplicates.flush()
    if len(qs) < n:  # short: say how many queries the graph holds at all (the funnel's verdict)
        report.sampling.space = build_space(
            index, params.kind, params.max_degree, params.hop_relations, params.composition_rules, display.usable()
        )
    if params.diverse and diverse_cache is not None and len(qs) > params.count:
        texts = [f"{q.metadata['template']['context']} {q.metadata['template']['question']}" for q in qs]
        keep = select_diverse(texts, params.count, diverse_cache)
        report.sampling.after.append((*stages.DIVERSE, len(qs) - len(keep)))
        qs = renumber([qs[i] for i in keep], "")
        if progress is not None:
            progress(len(qs), params.count)
    report.built = len(qs)
    return qs
