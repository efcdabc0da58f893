"""COM2-style logical-query MCQA builder: sample, answer set, distractors, verbalise, names."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from commonsense.kg.index import GraphIndex
from commonsense.scoring.plausibility import PlausibilityCheck

from ..queries.sampling import Query, QuerySampler
from ..queries.structures import STRUCTURES
from . import distractors, names, verbalize
from .diverse import EmbeddingCache, select_diverse
from .plausible import pick_checked
from .record import BuiltQuestion, derive_seed

Progress = Callable[[int, int], None]


@dataclass
class BuildParams:
    kind: str
    count: int
    seed: int
    relations: list[str] | None = None
    max_degree: int = 10
    person_names: bool = True
    diverse: bool = False
    extra: dict[str, object] = field(default_factory=dict)

    def as_dict(self) -> dict[str, object]:
        return {
            "kind": self.kind,
            "count": self.count,
            "seed": self.seed,
            "relations": self.relations,
            "max_degree": self.max_degree,
            "person_names": self.person_names,
            "diverse": self.diverse,
        }


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
    check: PlausibilityCheck | None = None,
) -> BuiltQuestion | None:
    """Assemble one MCQA item from a sampled query, or None if it is unusable (an anchor is
    itself an answer, or not enough distractors)."""
    answers = sampler.answers(query) if answers is None else answers
    anchors = query.anchors()
    if query.answer not in answers or answers.intersection(anchors):
        return None
    picked = distractors.pick(index, rng, answers=answers, anchors=anchors)
    refused: list[str] = []
    if picked is not None and check is not None:
        picked, refused = pick_checked(index, rng, query, picked, check, answers=answers, anchors=anchors)
    if picked is None:
        return None
    text = index.names.__getitem__
    rel = index.rel_names.__getitem__
    st = STRUCTURES[query.kind]
    ctx = verbalize.context(query, text, rel, st.negated_branch)
    qtext = verbalize.question(query, text, rel)
    opts, pos = distractors.place(rng, text(query.answer), [text(n) for n, _ in picked])
    mapping = names.draw(rng) if person_names else {}
    ap = names.apply
    chain = query.chain()
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
        chain=[[text(h), rel(r), text(t)] for h, r, t in chain],
        group=group,
        role=role,
        seed=seed,
        metadata={
            "names": mapping,
            "distractors": [how for _, how in picked],
            "template": {"context": ctx, "question": qtext},
            **({"plausible_distractors_refused": refused} if refused else {}),
        },
        triple_refs=[x for x in (index.edge_ref(h, r, t) for h, r, t in chain) if x >= 0],
    )


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
    check: PlausibilityCheck | None = None,
) -> list[BuiltQuestion]:
    """Up to ``count`` distinct questions of ``kind``. Attempt j uses its own rng seeded from
    (seed, kind, j), so the output depends only on the graph, the parameters and the seed."""
    if kind not in STRUCTURES:
        raise ValueError(f"unknown query kind {kind!r}; choose one of {', '.join(STRUCTURES)}")
    sampler = sampler or QuerySampler(index, max_degree=max_degree, relations=relations)
    limit = max_attempts if max_attempts is not None else max(2000, 40 * count)
    out: list[BuiltQuestion] = []
    seen: set[tuple[object, ...]] = set()
    for j in range(limit):
        if len(out) >= count:
            break
        qseed = derive_seed(seed, kind, j)
        rng = random.Random(qseed)
        query = sampler.sample(kind, rng)
        if query is None or query.signature() in seen:
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
            check=check,
        )
        if q is None:
            continue
        seen.add(query.signature())
        out.append(q)
        if progress is not None and (len(out) % 50 == 0 or len(out) == count):
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
    check: PlausibilityCheck | None = None,
) -> list[BuiltQuestion]:
    """``build_questions``: ``params.count`` questions of ``params.kind``. With ``params.diverse``
    a pool of ``pool_factor × count`` is sampled and CoCo's vote-k (k=150, ρ=10) keeps ``count``
    of them, embedding the placeholder (name-free) context + question."""
    if params.diverse and diverse_cache is None:
        raise ValueError("--diverse needs an embedding cache directory")
    n = params.count * (pool_factor if params.diverse else 1)
    qs = sample_questions(
        index,
        params.kind,
        n,
        params.seed,
        relations=params.relations,
        max_degree=params.max_degree,
        person_names=params.person_names,
        progress=None if params.diverse else progress,
        check=check,
    )
    if params.diverse and diverse_cache is not None and len(qs) > params.count:
        texts = [f"{q.metadata['template']['context']} {q.metadata['template']['question']}" for q in qs]
        keep = select_diverse(texts, params.count, diverse_cache)
        qs = renumber([qs[i] for i in keep], "")
        if progress is not None:
            progress(len(qs), params.count)
    return qs
