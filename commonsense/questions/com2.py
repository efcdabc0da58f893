"""COM2-style logical-query MCQA builder: sample, answer set, distractors, verbalise, names."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from commonsense.kg.index import GraphIndex
from commonsense.kg.relations import COM2_RELATIONS
from commonsense.scoring.plausibility import PlausibilityCheck

from ..queries.rules import ANSWER_CLASS, DEFAULT_RULES_MODE, CompositionRules, rules_for
from ..queries.sampling import QInter, QProj, Query, QuerySampler
from ..queries.structures import NEGATION_RELATION, STRUCTURES
from . import distractors, fluent, names, negatives, verbalize, wellformed
from . import funnel as stages
from .display import Display
from .diverse import EmbeddingCache, select_diverse
from .neardup import DEFAULT_THRESHOLD, NearDuplicates
from .negatives import NegativeSpec, RelationTails
from .plausible import pick_checked
from .record import BuiltQuestion, derive_seed
from .synonyms import DEFAULT_SYNONYM_THRESHOLD, NearSynonyms

Progress = Callable[[int, int], None]

# COM2 Table 8's twelve relations; HinderedBy only on 2in's negated branch.
DEFAULT_COM2_HOPS: tuple[str, ...] = tuple(r for r in COM2_RELATIONS if r != NEGATION_RELATION)


@dataclass(frozen=True)
class OptionCandidate:
    """What a distractor check sees: the candidate, the query and the item so far."""

    node: int
    text: str  # as displayed, placeholders (PersonX) not yet replaced by names
    answers: Sequence[str]
    options: Sequence[str]  # chosen so far, the gold first
    query: Query
    index: GraphIndex


# A distractor check: a reason to reject the candidate, or None. Plausibility models plug in here.
OptionCheck = Callable[[OptionCandidate], str | None]


@dataclass
class BuildReport:
    """What a build did, stored with the set: requested and built counts, why attempts and
    distractor candidates were dropped."""

    requested: int = 0
    built: int = 0
    kind: str = ""
    attempts: int = 0
    dropped: Counter[str] = field(default_factory=Counter)
    distractors_rejected: Counter[str] = field(default_factory=Counter)
    judge_vetoed: Counter[str] = field(default_factory=Counter)  # by provenance (adversarial / random)
    # the build funnel (:mod:`.funnel`): the graph's stages and what sampling counted
    graph: list[stages.Stage] = field(default_factory=list)
    sampling: stages.SamplingCounts = field(default_factory=stages.SamplingCounts)

    def funnel(self) -> dict[str, object]:
        s = self.sampling
        return stages.funnel(self.graph, stages.sampling_stages(s), stages.candidate_stage(s))

    def as_dict(self) -> dict[str, object]:
        return {
            **({"kind": self.kind} if self.kind else {}),
            "requested": self.requested,
            "built": self.built,
            "shortfall": max(self.requested - self.built, 0),
            "attempts": self.attempts,
            "dropped": dict(sorted(self.dropped.items())),
            "distractors_rejected": dict(sorted(self.distractors_rejected.items())),
            "judge_vetoed": dict(sorted(self.judge_vetoed.items())),
            "funnel": self.funnel(),
        }


@dataclass
class BuildParams:
    kind: str
    count: int
    seed: int
    relations: list[str] | None = None  # None: COM2's twelve (DEFAULT_COM2_HOPS + HinderedBy for 2in)
    max_degree: int = 10
    person_names: bool = True
    diverse: bool = False
    # which hops may be chained and intersected (rules.RULES_MODES): "curated" (the default), "paper"
    # (every pattern the papers print), "any" (no rule: the papers' bare sampler)
    rules: str = DEFAULT_RULES_MODE
    fluent: bool = True
    near_duplicate: float | None = DEFAULT_THRESHOLD  # None: no near-duplicate check
    # no distractor whose predicate means what an answer's does (synonyms.py; MiniLM cosine of the
    # predicates, WordNet adjective clusters); None: off. Runs only with the near-duplicate check
    near_synonym: float | None = DEFAULT_SYNONYM_THRESHOLD
    # COM2's hard negatives (negatives.py): adversarial ones from the query's branches ("branch") or
    # any anchor neighbour ("neighbours"); random ones among the asked relation's tails
    # ("relation"), the graph's shared event tails ("shared") or any tail ("whole-graph", COM2's
    # literal "randomly sampled across the whole CSKG")
    adversarial_negatives: str = "branch"
    # "" : the rules mode's own (issue 27: "paper" draws COM2's whole-graph randoms, the others "relation")
    random_negatives: str = ""
    # the former same-type veto (sessions 11-15), off by default: it removed exactly COM2's
    # adversarial negatives and let option shape answer most items (issue 25). With
    # adversarial_negatives="neighbours": only anchor edges whose tails answer another kind of thing
    adversarial_other_kind: bool = False
    # False: no feeling or attribute as a distractor where one can answer (StateDistractorCheck)
    state_distractors: bool = True
    # checked distractors kept beside the options for the validation's top-up (COM2 A.4)
    spare_distractors: int = 3
    extra: dict[str, object] = field(default_factory=dict)

    def __post_init__(self) -> None:
        rules_for(self.rules)  # an unknown mode is refused here, naming the modes
        if not self.random_negatives:
            self.random_negatives = PAPER_RANDOM_NEGATIVES if self.rules == "paper" else "relation"
        NegativeSpec(self.adversarial_negatives, self.random_negatives)  # so is an unknown source of negatives

    @property
    def composition_rules(self) -> CompositionRules | None:
        return rules_for(self.rules)

    @property
    def hop_relations(self) -> list[str]:
        return list(self.relations) if self.relations else list(DEFAULT_COM2_HOPS)

    def as_dict(self) -> dict[str, object]:
        return {
            "kind": self.kind,
            "count": self.count,
            "seed": self.seed,
            "relations": self.relations,
            "hop_relations": self.hop_relations,
            "max_degree": self.max_degree,
            "person_names": self.person_names,
            "diverse": self.diverse,
            "rules": self.rules,
            "composition_rules": self.composition_rules.name if self.composition_rules is not None else None,
            "fluent": self.fluent,
            "near_duplicate": self.near_duplicate,
            "near_synonym": self.near_synonym if self.near_duplicate is not None else None,
            "adversarial_negatives": self.adversarial_negatives,
            "random_negatives": self.random_negatives,
            "adversarial_other_kind": self.adversarial_other_kind,
            "state_distractors": self.state_distractors,
            "spare_distractors": self.spare_distractors,
        }

    @property
    def negatives(self) -> NegativeSpec:
        return NegativeSpec(self.adversarial_negatives, self.random_negatives)


# ``--rules paper`` builds as COM2 wrote: its random negatives are "randomly sampled across the whole CSKG"
PAPER_RANDOM_NEGATIVES = "whole-graph"

# The distractors of main before issue 25 (the same-type veto): BuildParams(**OLD_VETO, ...) builds
# them again, for A/B measurements and the audit's test that it can fail.
OLD_VETO: dict[str, object] = {
    "adversarial_negatives": "neighbours",
    "random_negatives": "shared",
    "adversarial_other_kind": True,
    "state_distractors": False,
    "near_synonym": None,
}


def other_kind(index: GraphIndex, query: Query) -> Callable[[int], bool]:
    """Relation ids whose tails answer a different kind of thing (rules.ANSWER_CLASS) than the
    query's last hops: "Sara is upset" (xReact) is no adversarial distractor for "what Sara feels",
    "Sara wants to apologise" (xWant) is."""
    root = query.root
    tops = [root] if isinstance(root, QProj) else list(root.branches) if isinstance(root, QInter) else []
    kinds = {ANSWER_CLASS.get(index.rel_names[b.rel]) for b in tops if isinstance(b, QProj)}
    bad = {i for i, r in enumerate(index.rel_names) if ANSWER_CLASS.get(r) in kinds or ANSWER_CLASS.get(r) is None}
    return lambda r: r not in bad


def option_checks(
    index: GraphIndex,
    query: Query,
    display: Callable[[int], str],
    answers: Sequence[str],
    checks: Sequence[OptionCheck],
    chosen_first: str,
) -> distractors.Reject:
    """The checks as a :data:`distractors.Reject` over nodes."""

    def reject(node: int, chosen: list[int]) -> str | None:
        cand = OptionCandidate(
            node, display(node), answers, [chosen_first, *(display(n) for n in chosen)], query, index
        )
        for check in checks:
            why = check(cand)
            if why is not None:
                return why
        return None

    return reject


class NearSynonymCheck:
    """:class:`~.synonyms.NearSynonyms` as an :data:`OptionCheck` (against the item's answers)."""

    def __init__(self, ns: NearSynonyms) -> None:
        self.ns = ns

    def __call__(self, c: OptionCandidate) -> str | None:
        return self.ns.reason(c.text, c.answers)

    def prefetch(self, texts: Sequence[str]) -> None:
        self.ns.prefetch(texts)


class NearDuplicateCheck:
    """The MiniLM near-duplicate veto as an :data:`OptionCheck`; ``prefetch`` embeds a question's
    answers and likely candidates in one batch (one encoder call per question, not per text)."""

    def __init__(self, nd: NearDuplicates) -> None:
        self.nd = nd

    def __call__(self, c: OptionCandidate) -> str | None:
        return self.nd.reason(c.text, c.answers, c.options)

    def prefetch(self, texts: Sequence[str]) -> None:
        self.nd.vectors(list(texts))


STATE_CLASSES = frozenset({"feeling of PersonX", "attribute of PersonX", "feeling of PersonY"})
# relations whose answers a state (a feeling, an attribute) can defensibly be: what happens after
STATE_ANSWERABLE = frozenset({"xEffect", "oEffect", "isAfter", "Causes", "HasSubEvent"})


class StateDistractorCheck:
    """No state (a tail of xReact, oReact or xAttr: "Samantha is happy") as a distractor where a
    state answers the question: to "what Samantha is seen as given …" with gold "Samantha is needy",
    "Samantha is happy" and "Samantha is satisfied" were defensible too; to "the effect on Emma
    after …" so was "Emma feels impatient". Read blind, such options were the main cause of "several
    defensible answers" on ATOMIC builds. Questions about wants, needs and intents keep them (a
    feeling is no answer to what someone needed to do)."""

    def __init__(self, index: GraphIndex) -> None:
        state_rels = np.array([ANSWER_CLASS.get(r) in STATE_CLASSES for r in index.rel_names], dtype=bool)
        self.state = np.zeros(len(index.names), dtype=bool)
        if index.f_rel.shape[0]:
            self.state[index.f_dst[state_rels[index.f_rel]]] = True
        self.names = index.names
        self._shaped: dict[int, bool] = {}
        self._last: tuple[Query, bool] | None = None

    def state_shaped(self, node: int) -> bool:
        """A node that reads as a state whatever relation it came from: "Jake is really sad" as an
        xEffect tail. Read blind, such options beside a feeling gold ("what Jake feels after the
        effect on Jake after …": "Jake is really sad" / "Jake is hurt") were a second defensible
        answer."""
        got = self._shaped.get(node)
        if got is None:
            shown = wellformed.display_form(self.names[node])
            got = self._shaped[node] = any(wellformed.misfit(r, shown) is None for r in ("xReact", "oReact", "xAttr"))
        return got

    def applies(self, index: GraphIndex, query: Query) -> bool:
        if self._last is not None and self._last[0] is query:
            return self._last[1]
        root = query.root
        tops = [root] if isinstance(root, QProj) else list(root.branches) if isinstance(root, QInter) else []
        rels = {index.rel_names[b.rel] for b in tops if isinstance(b, QProj)}
        got = any(ANSWER_CLASS.get(r) in STATE_CLASSES or r in STATE_ANSWERABLE for r in rels)
        self._last = (query, got)
        return got

    def __call__(self, c: OptionCandidate) -> str | None:
        if (self.state[c.node] or self.state_shaped(c.node)) and self.applies(c.index, c.query):
            return "a state where a state answers"
        return None


def _counted(reject: distractors.Reject, counts: stages.SamplingCounts) -> distractors.Reject:
    """``reject`` counting every candidate it sees (the funnel's distractor candidates)."""

    def counted(node: int, chosen: list[int]) -> str | None:
        counts.candidates_checked += 1
        return reject(node, chosen)

    return counted


def near_duplicate_check(nd: NearDuplicates) -> OptionCheck:
    return NearDuplicateCheck(nd)


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
) -> BuiltQuestion | None:
    """Assemble one MCQA item from a sampled query, or None if it is unusable (an anchor is
    itself an answer, or not enough distractors). ``display`` renders node text (default: the
    graph's text); ``checks`` may veto distractor candidates, counted in ``report``.
    ``negative_spec`` says where the negatives come from (:mod:`.negatives`; None: the anchors'
    neighbours and ``random_pool``); ``relation_tails`` is the build's cache of the random pools.
    ``spare`` more distractors that pass the same checks are kept in ``metadata["distractor_pool"]``
    (what a validation tops an item up from when annotators reject some of its options)."""
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
    ctx = verbalize.context(query, text, rel, st.negated_branch)
    fluent_text = isinstance(display, Display) and display.fluent_text
    qtext = verbalize.question(query, text, rel, fluent.hindered_phrase if fluent_text else None)
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
        display=Display(index, fluent_text=params.fluent),
        checks=checks,
        report=report,
        adversarial_other_kind=params.adversarial_other_kind,
        check=check,
        negative_spec=params.negatives,
        spare=params.spare_distractors,
    )
    if near_duplicates is not None:
        near_duplicates.flush()
    if params.diverse and diverse_cache is not None and len(qs) > params.count:
        texts = [f"{q.metadata['template']['context']} {q.metadata['template']['question']}" for q in qs]
        keep = select_diverse(texts, params.count, diverse_cache)
        report.sampling.after.append((*stages.DIVERSE, len(qs) - len(keep)))
        qs = renumber([qs[i] for i in keep], "")
        if progress is not None:
            progress(len(qs), params.count)
    report.built = len(qs)
    return qs
