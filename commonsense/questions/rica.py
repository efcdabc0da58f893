"""RICA probes with fresh novel entities (Zhou et al. 2021, §1.7): every axiom sentence of every
perturbation is re-instantiated with random strings of 3–12 letters (seeded), keeping the axiom's
group id so "all perturbations of an axiom correct" stays computable."""

from __future__ import annotations

import random
import re
import string
from collections.abc import Iterable
from functools import lru_cache

from commonsense.io.questions import QuestionRecord, mask_conclusion

from .record import BuiltQuestion, derive_seed


@lru_cache(maxsize=1)
def english_words() -> frozenset[str]:
    """Lower-case English words of the ``english-words`` package (Webster's 2nd + GCIDE lists,
    ~263k words): a novel entity must not be one of them."""
    from english_words import get_english_words_set

    return frozenset(get_english_words_set(["web2", "gcide"], lower=True, alpha=True))


def novel_entity(rng: random.Random, forbidden: frozenset[str] | None = None) -> str:
    """A random string of 3–12 lower-case letters that is not an English word (redrawn until not)."""
    words = english_words() if forbidden is None else forbidden
    while True:
        s = "".join(rng.choice(string.ascii_lowercase) for _ in range(rng.randint(3, 12)))
        if s not in words:
            return s


def novel_pair(rng: random.Random) -> tuple[str, str]:
    a = novel_entity(rng)
    b = novel_entity(rng)
    while b == a:
        b = novel_entity(rng)
    return a, b


def _entities(rec: QuestionRecord) -> list[str]:
    """The entity strings to replace: RICA axiom sentences use A and B; curated probes carry
    their (already novel) entity names in metadata."""
    ents = rec.metadata.get("entities")
    return [str(e) for e in ents][:2] if ents else ["A", "B"]


def _replace(sentence: str, mapping: dict[str, str]) -> str:
    pat = re.compile(r"\b(" + "|".join(re.escape(o) for o in mapping) + r")\b")

    def sub(m: re.Match[str]) -> str:
        return mapping[m.group(1)]

    return pat.sub(sub, sentence)


def novel_probes(records: Iterable[QuestionRecord], seed: int, variants: int = 1) -> list[BuiltQuestion]:
    """``variants`` fresh probes per imported probe; one entity pair per (axiom group, variant),
    shared by all of that axiom's perturbations."""
    out: list[BuiltQuestion] = []
    pairs: dict[tuple[str, int], tuple[str, str]] = {}
    for rec in records:
        sentence = str(rec.metadata.get("sentence") or "")
        if not sentence or rec.answer_index is None:
            continue
        answer = rec.options[rec.answer_index]
        olds = _entities(rec)
        for v in range(variants):
            key = (rec.group, v)
            if key not in pairs:
                pairs[key] = novel_pair(random.Random(derive_seed(seed, "rica", rec.group, v)))
            new = pairs[key]
            mapping = dict(zip(olds, new, strict=False))
            fresh = _replace(sentence, mapping)
            masked = mask_conclusion(fresh, answer)
            if masked is None:
                continue
            pert = str(rec.metadata.get("perturbation", rec.structure))
            out.append(
                BuiltQuestion(
                    id=f"{rec.external_id}-v{v + 1}",
                    kind="rica-probe",
                    context="",
                    question=masked,
                    options=list(rec.options),
                    answer_index=rec.answer_index,
                    answers=[answer],
                    group=rec.group,
                    role=pert,
                    seed=derive_seed(seed, "rica", rec.group, v),
                    metadata={
                        "perturbation": pert,
                        "entities": dict(zip(olds, new, strict=False)),
                        "sentence": fresh,
                        "source_id": rec.external_id,
                        "logical_form": rec.metadata.get("logical_form", ""),
                    },
                )
            )
    return out
