"""CoCo question sets (Li et al.): memorization, comprehension and application, linked so that
MEM / COM / REA / FAI / APP can be computed per set (group id + role on every question)."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from commonsense.io.abstract import AbstractRecord
from commonsense.kg import relations as registry
from commonsense.kg.index import GraphIndex, IndexOptions, Record
from commonsense.kg.relations import COCO_RELATIONS

from ..queries.rules import DEFAULT_RULES, DEFAULT_RULES_MODE, CompositionRules, rules_for
from ..queries.sampling import QuerySampler
from . import distractors, verbalize
from . import funnel as stages
from .coco_text import (
    BLANK,
    answer_key,
    head_shown,
    not_an_answer,
    option_form,
    option_texts,
    other_words,
    tidy,
    tidy_question,
)
from .com2 import BuildReport, Progress, sample_questions
from .display import Display
from .diverse import EmbeddingCache, eq9_neighbour_order, vote_k_scored
from .negatives import NegativeSpec
from .record import BuiltQuestion, derive_seed

APPLICATION_KINDS = ("2i", "2p", "ip", "pi")
DEFAULT_NEGATIVES = NegativeSpec()


def one_hop(
    index: GraphIndex,
    head: int,
    rel: int,
    rng: random.Random,
    *,
    answer: int,
    qid: str,
    seed: int,
    group: str,
    role: str,
    head_text: str | None = None,
    kind: str = "1p",
) -> BuiltQuestion | None:
    """A Table 6 question "[prompt] h?" whose answer is ``answer``; every tail of (h, r) is correct.
    Options are shown in the form of the relation they are tails of (:mod:`.coco_text`), and no
    distractor is an answer in other words; a head with an unfilled ``___`` gives no question."""
    htext = head_text if head_text is not None else head_shown(index, head)
    if htext is None:
        return None
    answers = set(index.successors(head, rel).tolist())
    name = index.rel_names[rel]
    shown = option_texts(index)
    keys = {answer_key(option_form(name, index.names[a])) for a in answers}
    picked = distractors.pick(index, rng, answers=answers, anchors=[head], reject=other_words(index, keys))
    if picked is None:
        return None
    opts, pos = distractors.place(rng, option_form(name, index.names[answer]), [shown(n) for n, _ in picked])
    return BuiltQuestion(
        id=qid,
        kind=kind,
        context="",
        question=verbalize.one_hop_question(name, tidy(htext)),
        options=opts,
        answer_index=pos,
        answers=sorted(option_form(name, index.names[a]) for a in answers),
        anchors=[tidy(htext)],
        relations=[name],
        chain=[[index.names[head], name, index.names[answer]]],
        group=group,
        role=role,
        seed=seed,
        metadata={"distractors": [how for _, how in picked]},
        triple_refs=[x for x in [index.edge_ref(head, rel, answer)] if x >= 0],
    )


def _edge_heads(index: GraphIndex) -> npt.NDArray[np.int64]:
    return np.repeat(np.arange(index.n_nodes, dtype=np.int64), np.diff(index.f_off))


def memorization(
    index: GraphIndex,
    per_relation: int,
    seed: int,
    *,
    relations: Sequence[str] = COCO_RELATIONS,
    diverse_cache: EmbeddingCache | None = None,
    k: int = 150,
    rho: float = 10.0,
) -> list[BuiltQuestion]:
    """One question per sampled triple, ``per_relation`` triples per relation (CoCo A2.1).

    With ``diverse_cache`` the triples are chosen as CoCo does: every triple of the relation is
    embedded ("h r t" with the relation's statement phrase), a k-nearest-neighbour graph is built
    over all of them and Eq. 9's greedy vote-k (k=150, ρ=10) picks them one by one; questions are
    made in that order (a triple that yields no question - too few distractors - gives way to
    the next pick) and each records its ``eq9_rank`` and ``eq9_score``. Without it, a seeded
    random sample."""
    heads = _edge_heads(index)
    out: list[BuiltQuestion] = []
    for name in relations:
        if name not in index.rel_ids:
            continue
        r = index.rel_ids[name]
        edges = np.flatnonzero(index.f_rel == r)
        rng = random.Random(derive_seed(seed, "memorization", name))
        ranks: dict[int, tuple[int, float]] = {}
        if diverse_cache is not None:
            phrase = registry.get(name).statement
            texts = [f"{index.names[int(heads[e])]} {phrase} {index.names[int(index.f_dst[e])]}" for e in edges]
            # a few more picks than needed: a triple without enough distractors is skipped
            want = min(edges.shape[0], per_relation + max(10, per_relation // 10))
            order, scores = vote_k_scored(diverse_cache.get(texts), want, k=k, rho=rho)
            pool = [int(i) for i in order]
            ranks = {int(i): (r, s) for r, (i, s) in enumerate(zip(order, scores, strict=True))}
        else:
            first = sorted(rng.sample(range(edges.shape[0]), min(edges.shape[0], per_relation)))
            # then the others, at random: a triple that gives no question (a blank head the graph
            # cannot fill, no distractor that is not an answer in other words) gives way to the next
            taken = set(first)
            rest = [i for i in range(edges.shape[0]) if i not in taken]
            rng.shuffle(rest)
            pool = first + rest
        n = 0
        for i in pool:
            if n >= per_relation:
                break
            e = int(edges[i])
            qseed = derive_seed(seed, "memorization", name, e)
            gid = f"mem-{name}-{n + 1:05d}"
            q = one_hop(
                index,
                int(heads[e]),
                r,
                random.Random(qseed),
                answer=int(index.f_dst[e]),
                qid=gid,
                seed=qseed,
                group=gid,
                role="memorization",
            )
            if q is not None:
                q.metadata["task"] = "memorization"
                if i in ranks:
                    q.metadata["eq9_rank"], q.metadata["eq9_score"] = ranks[i]
                out.append(q)
                n += 1
    return out


def comprehension(
    index: GraphIndex,
    abstract: Iterable[AbstractRecord],
    seed: int,
    *,
    relations: Sequence[str] = COCO_RELATIONS,
    max_concepts: int = 3,
    limit: int | None = None,
    valid: Callable[[list[tuple[str, str, str]]], list[bool]] | None = None,
    min_valid: int = 1,
    diverse_cache: EmbeddingCache | None = None,
    k: int = 150,
    rho: float = 10.0,
) -> list[BuiltQuestion]:
    """Per head with conceptualisations: its memorization question plus up to ``max_concepts``
    questions on the conceptualised heads h^c with the same relation and answer (CoCo A2.2).
    ``valid`` (a plausibility filter on the conceptualised triples (h^c, r, t)) keeps only the
    conceptualisations it accepts, and a head needs ``min_valid`` of them (CoCo: 3). With
    ``diverse_cache`` the heads are taken in Eq. 9's order over their embeddings (A2.2 step 1:
    "embed head events and sample … with Eq. 9"), each question storing ``eq9_rank``."""
    by_head: dict[str, list[AbstractRecord]] = {}
    for a in abstract:
        by_head.setdefault(a.head, []).append(a)
    eq9: dict[str, int] = {}
    if diverse_cache is not None and by_head:
        heads = list(by_head)
        picks, _ = vote_k_scored(diverse_cache.get(heads), len(heads), k=k, rho=rho)
        eq9 = {heads[i]: rank for rank, i in enumerate(picks)}
        by_head = {heads[i]: by_head[heads[i]] for i in picks}
    allowed = {index.rel_ids[r] for r in relations if r in index.rel_ids}
    out: list[BuiltQuestion] = []
    n = 0
    for head_text, concepts in by_head.items():
        if limit is not None and n >= limit:
            break
        h = index.node(head_text)
        if h is None:
            continue
        rels, dsts = index.out_edges(h)
        cands = [(int(r), int(t)) for r, t in zip(rels.tolist(), dsts.tolist(), strict=True) if r in allowed]
        if not cands:
            continue
        rng = random.Random(derive_seed(seed, "comprehension", head_text))
        r, t = cands[rng.randrange(len(cands))]
        if valid is not None:
            ok = valid([(c.abstract_head, index.rel_names[r], index.names[t]) for c in concepts])
            concepts = [c for c, keep in zip(concepts, ok, strict=True) if keep]
        if len(concepts) < min_valid:
            continue
        chosen = concepts if len(concepts) <= max_concepts else rng.sample(concepts, max_concepts)
        gid = f"com-{n + 1:05d}"
        items: list[BuiltQuestion] = []
        base = one_hop(
            index, h, r, rng, answer=t, qid=f"{gid}-m", seed=derive_seed(seed, gid, 0), group=gid, role="memorization"
        )
        if base is None:
            continue
        items.append(base)
        for k, c in enumerate(chosen, 1):
            q = one_hop(
                index,
                h,
                r,
                random.Random(derive_seed(seed, gid, k)),
                answer=t,
                qid=f"{gid}-c{k}",
                seed=derive_seed(seed, gid, k),
                group=gid,
                role=f"conceptualization_{k}",
                head_text=c.abstract_head,
            )
            if q is not None:
                q.metadata.update({"concept": c.concept, "original_head": head_text})
                items.append(q)
        if len(items) < 2:
            continue
        for q in items:
            q.metadata["task"] = "comprehension"
            if head_text in eq9:
                q.metadata["eq9_rank"] = eq9[head_text]
        out.extend(items)
        n += 1
    return out


def one_right_option(q: BuiltQuestion) -> bool:
    """The option-level check of an application item: exactly one of its options is a right answer
    of the query (none or several: the item is dropped)."""
    right = {a.casefold() for a in q.answers}
    return sum(o.casefold() in right for o in q.options) == 1


def application(
    index: GraphIndex,
    per_kind: int,
    seed: int,
    *,
    kinds: Sequence[str] = APPLICATION_KINDS,
    relations: Sequence[str] = COCO_RELATIONS,
    max_degree: int = 10,
    progress: Progress | None = None,
    rules: CompositionRules | None = DEFAULT_RULES,
    negatives: NegativeSpec | None = DEFAULT_NEGATIVES,
    report: BuildReport | None = None,
) -> list[BuiltQuestion]:
    """Reasoning questions (2i, 2p, ip, pi) on the normalised graph, each followed by the atomic
    memorization questions of the triples of its golden chain (CoCo A2.3, "2+1" / "3+1" sets).
    ``rules``: the composition rules of :mod:`commonsense.queries.rules` (None: the bare sampler).
    ``negatives``: where the reasoning question's distractors come from (:mod:`.negatives`: COM2's
    split, which CoCo does not state: two from the query's branches, two among the asked relation's
    tails; None: any anchor neighbour and any tail). ``report`` (one kind at a time) receives the
    build funnel's counts."""
    out: list[BuiltQuestion] = []
    if report is not None:
        report.requested += per_kind * len(kinds)
        report.graph = stages.graph_stages(index, relations)
    # no ATOMIC blank in a query (issue 27 item 7: "___" reached CoCo's questions)
    no_blank = np.fromiter((BLANK not in t for t in index.names), dtype=bool, count=index.n_nodes)
    sampler = QuerySampler(index, max_degree=max_degree, relations=relations, rules=rules, node_ok=no_blank)
    for kind in kinds:
        qs = sample_questions(
            index,
            kind,
            per_kind,
            derive_seed(seed, "application"),
            relations=relations,
            max_degree=max_degree,
            person_names=False,
            progress=progress,
            rules=rules,
            negative_spec=negatives,
            report=report,
            sampler=sampler,
            checks=[not_an_answer],
            display=Display(index),  # the fluent text of every option, as memorization shows it
        )
        kept = 0
        for i, rq in enumerate(qs, 1):
            gid = f"app-{kind}-{i:05d}"
            atomics: list[BuiltQuestion] = []
            for k, (h, rname, t) in enumerate(rq.chain, 1):
                hi, ti, ri = index.node(h), index.node(t), index.rel_ids[rname]
                assert hi is not None
                assert ti is not None
                qseed = derive_seed(seed, gid, k)
                aq = one_hop(
                    index,
                    hi,
                    ri,
                    random.Random(qseed),
                    answer=ti,
                    qid=f"{gid}-a{k}",
                    seed=qseed,
                    group=gid,
                    role=f"atomic_{k}",
                )
                if aq is None:
                    break
                atomics.append(aq)
            if len(atomics) != len(rq.chain) or not one_right_option(rq):
                continue
            rq.id, rq.group, rq.role = f"{gid}-r", gid, "reasoning"
            tidy_question(rq)
            for q in (*atomics, rq):
                q.metadata["task"] = "application"
            out.extend(atomics)
            out.append(rq)
            kept += 1
        if report is not None:
            report.sampling.after.append((*stages.ATOMICS, len(qs) - kept))
            report.built += kept
    return out


@dataclass
class CocoParams:
    seed: int
    per_relation: int = 2000
    per_kind: int = 3000
    max_concepts: int = 3
    max_degree: int = 10
    relations: tuple[str, ...] = COCO_RELATIONS
    rules: str = DEFAULT_RULES_MODE  # rules.RULES_MODES: curated, paper or any


def build_coco(
    records: Sequence[Record],
    params: CocoParams,
    *,
    abstract: Iterable[AbstractRecord] = (),
    diverse_cache: EmbeddingCache | None = None,
    progress: Progress | None = None,
    raw_index: GraphIndex | None = None,
    norm_index: GraphIndex | None = None,
) -> list[BuiltQuestion]:
    """All three CoCo families from one graph: memorization and comprehension on the raw tails
    (the paper's options are raw ATOMIC tails), application on the normalised graph."""
    raw = raw_index or GraphIndex.build(records, IndexOptions(normalize=False))
    norm = norm_index or GraphIndex.build(records, IndexOptions(normalize=True, max_degree=params.max_degree))
    if diverse_cache is not None:  # top-T neighbours by Eq. 9 (CoCo A2.3), not by the index's own order
        norm = eq9_neighbour_order(norm, diverse_cache, params.max_degree, relations=params.relations)
    out = memorization(raw, params.per_relation, params.seed, relations=params.relations, diverse_cache=diverse_cache)
    out += comprehension(raw, abstract, params.seed, relations=params.relations, max_concepts=params.max_concepts)
    out += application(
        norm,
        params.per_kind,
        params.seed,
        relations=params.relations,
        max_degree=params.max_degree,
        progress=progress,
        rules=rules_for(params.rules),
    )
    return out
