"""RICA axiom generation from a knowledge graph (Zhou et al. 2021, §2 and §3.2, Tables 2–4).

Stage 3–4 (knowledge tables, axioms): the crawl strategies of Table 4 that a graph's relations
support fill the logical templates (:data:`STRATEGIES`, :func:`supported`). Stage 5 (statement
sets): the perturbation operators of Table 2 on the conclusion's property — NEGATION, ANTONYM,
PARAPHRASE and their compositions (PARAPHRASE INVERSION = PARA∘ANT, NEGATION ANTONYM, NEGATION
PARAPHRASE, NEGATION PARA_INV) — and ASYM on the premise or the conclusion: 8 × 3 = 24 variants.
The gold comparative follows the parity of logic-inverting operations (NEG and ANT invert, PARA
keeps; each ASYM inverts), which reproduces the paper's Table 7 cell for cell.

Surface realisation is by templates, not by the paper's BART conversion model (fine-tuned on 200
hand-converted pairs that were never released): one sentence pattern per template (``premise, so
conclusion``), the comparative periphrastic ("more pushy") so that the masked word is always
more/less. ANTONYM and PARAPHRASE need a lexicon (WordNet adjectives,
:mod:`commonsense.questions.wordnet_adj`); where it has no word, or for a verb-phrase property,
only NEGATION and ASYM are made — as the paper's raw set, which applied those two automatically.
Entities A and B are replaced by novel entities (:func:`commonsense.questions.rica.novel_pair`).
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from commonsense.io.questions import mask_conclusion

from .record import BuiltQuestion, derive_seed
from .rica import _replace, novel_pair
from .wellformed import display_form
from .wordnet_adj import AdjectiveLexicon

Triple = tuple[str, str, str]
COMPARATIVES = ("more", "less")  # options of every probe; "more" is the positive word (Fig. 5a)
LINGUISTIC = {  # operator -> (negated, antonym, paraphrase)
    "original": (False, False, False),
    "negation": (True, False, False),
    "antonym": (False, True, False),
    "paraphrase": (False, False, True),
    "paraphrase_inversion": (False, True, True),
    "negation_antonym": (True, True, False),
    "negation_paraphrase": (True, False, True),
    "negation_paraphrase_inversion": (True, True, True),
}
ASYMMETRY = ("original", "asymmetric_premise", "asymmetric_conclusion")


@dataclass(frozen=True, slots=True)
class Strategy:
    name: str
    template: str  # LT1..LT5
    relations: tuple[str, ...]  # the graph relations it crawls
    paper: str  # Table 4's strategy, and how this one differs


STRATEGIES = (
    Strategy("LT2-Action", "LT2", ("xAttr",), "ATOMIC events involving two people -> xAttr (Table 4, as the paper)"),
    Strategy("LT3-Action", "LT3", ("xAttr",), "ATOMIC events with PersonX only -> xAttr (Table 4, as the paper)"),
    Strategy("LT4-Action", "LT4", ("xAttr",), "ATOMIC events -> xAttr, the premise compared (Table 4, as the paper)"),
    Strategy(
        "LT3-Role",
        "LT3",
        ("CapableOf",),
        "the paper's LT2-Role crawls Wikipedia occupations -> CapableOf; with no occupation list and no "
        "relational role, the graph's CapableOf heads fill LT3 (A is one, B is not)",
    ),
)
NOT_SUPPORTED = {  # Table 4 strategies that need more than a graph's triples
    "LT1-Material": "ConceptNet HasProperty + NotMadeOf and a list of materials",
    "LT1-Grade": "an ordered list of numbers (no graph)",
    "LT1-Location": "Wikipedia places by latitude",
    "LT1-Animal": "a Wikipedia list of animals",
    "LT3-Physical / LT4-Physical": "a list of object adjectives (ConceptNet UsedFor)",
    "LT5-Temporal": "hand-written temporal events (the human-curated set only)",
}
_WORD = re.compile(r"^[a-z]+$")
_PERSON = re.compile(r"\bPerson[A-Z]\b")


def _base_verb_phrase(text: str) -> bool:
    """A capability that reads after "likely to": lower-case words, the first a verb's base form."""
    if not re.fullmatch(r"[a-z ]+", text):
        return False
    from lemminflect import getAllLemmas

    first = text.split()[0]
    lemmas: tuple[str, ...] = tuple(getAllLemmas(first, upos="VERB").get("VERB", ()))
    return lemmas[:1] == (first,)


def supported(relations: Iterable[str]) -> list[Strategy]:
    """The strategies whose relations the graph has."""
    have = set(relations)
    return [s for s in STRATEGIES if set(s.relations) <= have]


@dataclass(frozen=True, slots=True)
class Axiom:
    """A partially filled template: the premise event or role, the conclusion's property."""

    id: str
    strategy: str
    template: str
    premise: str  # ATOMIC event text (PersonX/PersonY) or a role noun
    prop: str  # an adjective (xAttr) or a verb phrase (CapableOf)
    triple: Triple

    @property
    def adjective(self) -> bool:
        return self.strategy != "LT3-Role"

    def logical_form(self) -> str:
        e, p = self.premise, self.prop
        return {
            "LT2": f"{_fol(e)}(A, B), so More({_fol(p)}(A), {_fol(p)}(B))",
            "LT3": f"{_fol(e)}(A) and not {_fol(e)}(B), so More({_fol(p)}(A), {_fol(p)}(B))",
            "LT4": f"More({_fol(e)}(A), {_fol(e)}(B)), so More({_fol(p)}(A), {_fol(p)}(B))",
        }[self.template]


def _fol(text: str) -> str:
    return re.sub(r"\s+", " ", text.replace("PersonX", "").replace("PersonY", "").replace("'s", "")).strip()


def _article(noun: str) -> str:
    return ("an " if noun[:1].lower() in "aeiou" else "a ") + noun


def crawl(triples: Iterable[Triple], per_strategy: int, seed: int, strategies: Sequence[Strategy]) -> list[Axiom]:
    """Knowledge tables (Stage 3) as axioms (Stage 4): per strategy, up to ``per_strategy``
    (head, property) pairs drawn with ``seed`` from the triples it can use."""
    tables: dict[str, list[Triple]] = {s.name: [] for s in strategies}
    seen: set[tuple[str, str, str]] = set()
    for head, r, t in triples:
        h, tail = display_form(head), t.strip().lower()
        for s in strategies:
            if r not in s.relations or (s.name, h, tail) in seen or tail in ("", "none"):
                continue
            persons = set(_PERSON.findall(h))
            ok = {
                "LT2-Action": persons == {"PersonX", "PersonY"} and h.startswith("PersonX ") and _WORD.match(tail),
                "LT3-Action": persons == {"PersonX"} and h.startswith("PersonX ") and _WORD.match(tail),
                "LT4-Action": persons == {"PersonX"} and h.startswith("PersonX ") and _WORD.match(tail),
                "LT3-Role": not persons and bool(re.fullmatch(r"[a-z ]+", h)) and _base_verb_phrase(tail),
            }[s.name]
            if ok:
                seen.add((s.name, h, tail))
                tables[s.name].append((h, r, tail))
    out: list[Axiom] = []
    for s in strategies:
        rows = sorted(tables[s.name])
        random.Random(derive_seed(seed, "rica-crawl", s.name)).shuffle(rows)
        for i, (h, r, t) in enumerate(rows[:per_strategy], 1):
            out.append(Axiom(f"{s.name}-{i:05d}", s.name, s.template, h, t, (h, r, t)))
    return out


def gold_word(linguistic: str, asymmetry: str) -> str:
    """The true comparative of a variant whose unperturbed conclusion is "more" (Table 2's logic:
    NEG and ANT invert, PARA keeps; ASYM on either side inverts)."""
    neg, ant, _ = LINGUISTIC[linguistic]
    flips = int(neg) + int(ant) + int(asymmetry != "original")
    return COMPARATIVES[flips % 2]


def _premise(ax: Axiom, x: str, y: str) -> str:
    if ax.strategy == "LT3-Role":
        return f"{x} is {_article(ax.premise)} but {y} is not"
    event = _PERSON.sub(lambda m: {"PersonX": x, "PersonY": y}.get(m.group(0), m.group(0)), ax.premise)
    if ax.template == "LT2":
        return event
    vp = event[len(x) + 1 :]
    if ax.template == "LT3":
        return f"{x} {vp} but {y} does not"
    return f"{x} {vp} more often than {y}"


def _conclusion(prop: str, adjective: bool, comp: str, negated: bool, x: str, y: str) -> str:
    nt = "not " if negated else ""
    if adjective:
        return f"{x} is {nt}{comp} {prop} than {y}"
    return f"{x} is {nt}{comp} likely to {prop} than {y}"


def statement(ax: Axiom, linguistic: str, asymmetry: str, lexicon: AdjectiveLexicon | None) -> str | None:
    """One variant in text with entities A and B, or None when the lexicon has no word for it."""
    neg, ant, para = LINGUISTIC[linguistic]
    prop = ax.prop
    if ant or para:
        if lexicon is None or not ax.adjective:
            return None
        word = lexicon.antonym(ax.prop) if ant else ax.prop
        word = lexicon.synonym(word) if para and word is not None else word
        if word is None or word == ax.prop:
            return None
        prop = word
    px, py = ("B", "A") if asymmetry == "asymmetric_premise" else ("A", "B")
    cx, cy = ("B", "A") if asymmetry == "asymmetric_conclusion" else ("A", "B")
    comp = gold_word(linguistic, asymmetry)
    return f"{_premise(ax, px, py)}, so {_conclusion(prop, ax.adjective, comp, neg, cx, cy)}"


def perturbation_name(linguistic: str, asymmetry: str) -> str:
    """As the 10k set names them: ``negation_asymmetric_premise``, ``original`` for none."""
    parts = [p for p in (linguistic, asymmetry) if p != "original"]
    return "_".join(parts) or "original"


def probes(
    axioms: Sequence[Axiom], seed: int, lexicon: AdjectiveLexicon | None = None, *, entities: str = "novel"
) -> list[BuiltQuestion]:
    """The statement set of every axiom as masked-comparative probes (options more/less), with
    novel entities (one pair per axiom, shared by its variants) or A and B (``entities="AB"``)."""
    if entities not in ("novel", "AB"):
        raise ValueError(f"entities must be 'novel' or 'AB', got {entities!r}")
    out: list[BuiltQuestion] = []
    for ax in axioms:
        pair = novel_pair(random.Random(derive_seed(seed, "rica-gen", ax.id))) if entities == "novel" else ("A", "B")
        mapping = dict(zip(("A", "B"), pair, strict=True))
        for ling in LINGUISTIC:
            for asym in ASYMMETRY:
                text = statement(ax, ling, asym, lexicon)
                if text is None:
                    continue
                sentence = _replace(text, mapping) if entities == "novel" else text
                gold = gold_word(ling, asym)
                masked = mask_conclusion(sentence, gold)
                if masked is None:
                    continue
                name = perturbation_name(ling, asym)
                out.append(
                    BuiltQuestion(
                        id=f"{ax.id}-{name}",
                        kind="rica-axiom",
                        context="",
                        question=masked,
                        options=list(COMPARATIVES),
                        answer_index=COMPARATIVES.index(gold),
                        answers=[gold],
                        group=ax.id,  # the perturbation is metadata (a role holds 32 characters)
                        seed=derive_seed(seed, "rica-gen", ax.id),
                        metadata={
                            "perturbation": name,
                            "linguistic": ling,
                            "asymmetry": asym,
                            "template": ax.template,
                            "strategy": ax.strategy,
                            "logical_form": ax.logical_form(),
                            "sentence": sentence,
                            "statement": text,
                            "entities": mapping,
                            "triple": list(ax.triple),
                        },
                    )
                )
    return out
