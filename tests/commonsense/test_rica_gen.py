"""RICA axiom generation (issue 28 item 1): Table 4's worked axioms, Table 2's operators, and Table
7's statement set cell for cell (the gold comparative of every linguistic × asymmetry variant).
The lexicon is WordNet's file format, written here by hand for three adjectives."""

from __future__ import annotations

import pytest

from commonsense.questions.rica_gen import (
    ASYMMETRY,
    LINGUISTIC,
    crawl,
    gold_word,
    perturbation_name,
    probes,
    statement,
    supported,
)
from commonsense.questions.wordnet_adj import parse

# WordNet 3.0 data.adj lines (format wndb(5WN)), written by hand: wide <-> narrow (direct antonyms),
# broad a satellite of wide, constricted a satellite of narrow.
DATA_ADJ = """  1 a licence header line is skipped
00001000 00 a 01 wide 0 002 ! 00002000 a 0101 & 00003000 s 0000 | having great extent
00002000 00 a 01 narrow 0 002 ! 00001000 a 0101 & 00004000 s 0000 | not wide
00003000 00 s 02 broad 0 spacious 0 001 & 00001000 a 0000 | wide in extent
00004000 00 s 01 constricted 0 001 & 00002000 a 0000 | drawn together
"""
LEX = parse(DATA_ADJ)

# Table 7 of the paper: (linguistic, asymmetry) -> the comparative of the printed probe, for the
# axiom "A is wider than B, so A finds it harder to slip through cracks than B" (gold: negative).
TABLE_7 = {
    ("original", "original"): "harder",
    ("original", "asymmetric_premise"): "easier",
    ("original", "asymmetric_conclusion"): "easier",
    ("negation", "original"): "easier",
    ("negation", "asymmetric_premise"): "harder",
    ("negation", "asymmetric_conclusion"): "harder",
    ("antonym", "original"): "easier",
    ("antonym", "asymmetric_premise"): "harder",
    ("antonym", "asymmetric_conclusion"): "harder",
    ("paraphrase", "original"): "worse",
    ("paraphrase", "asymmetric_premise"): "better",
    ("paraphrase", "asymmetric_conclusion"): "better",
    ("paraphrase_inversion", "original"): "more",
    ("paraphrase_inversion", "asymmetric_premise"): "less",
    ("paraphrase_inversion", "asymmetric_conclusion"): "less",
    ("negation_antonym", "original"): "harder",
    ("negation_antonym", "asymmetric_premise"): "easier",
    ("negation_antonym", "asymmetric_conclusion"): "easier",
    ("negation_paraphrase", "original"): "better",
    ("negation_paraphrase", "asymmetric_premise"): "worse",
    ("negation_paraphrase", "asymmetric_conclusion"): "worse",
    ("negation_paraphrase_inversion", "original"): "less",
    ("negation_paraphrase_inversion", "asymmetric_premise"): "more",
    ("negation_paraphrase_inversion", "asymmetric_conclusion"): "more",
}
POSITIVE = {"more", "easier", "better"}


def test_gold_comparative_follows_table_7_in_all_24_cells() -> None:
    assert len(TABLE_7) == len(LINGUISTIC) * len(ASYMMETRY) == 24
    for (ling, asym), word in TABLE_7.items():
        # Table 7's axiom is true with the negative word unperturbed: ours with "more" flips with it
        same_as_original = gold_word(ling, asym) == "more"
        assert same_as_original == (word not in POSITIVE), (ling, asym)


def test_wordnet_adjectives_antonym_and_synonym() -> None:
    assert LEX.antonym("wide") == "narrow"
    assert LEX.antonym("narrow") == "wide"
    assert LEX.antonym("broad") == "narrow"  # a satellite's antonym is its head's (indirect)
    assert LEX.synonym("broad") == "spacious"
    assert LEX.synonym("wide") is None
    assert LEX.synonym("narrow") is None
    assert LEX.antonym("blue") is None


TRIPLES = [
    ("PersonX forces upon PersonY", "xAttr", "pushy"),  # Table 4, LT2 Action
    ("PersonX assesses patient", "xAttr", "analytical"),  # Table 4, LT3 Action
    ("PersonX concentrates", "xAttr", "effective"),  # Table 4, LT4 Action
    ("priest", "CapableOf", "pray"),  # Table 4's LT2 Role, as LT3 here (no relational role)
    ("PersonX concentrates", "xAttr", "none"),  # never a property
    ("attorney", "CapableOf", "buying goods"),  # not a base verb: not after "likely to"
    ("PersonX builds PersonY a house", "xAttr", "kind hearted"),  # two words: not one adjective
]


def _one(strategy: str, premise: str) -> object:
    made = crawl(TRIPLES, 10, 0, supported({"xAttr", "CapableOf"}))
    (ax,) = [a for a in made if a.strategy == strategy and a.premise == premise]
    return ax


def test_table_4_worked_axioms() -> None:
    assert [s.name for s in supported({"xAttr"})] == ["LT2-Action", "LT3-Action", "LT4-Action"]
    assert supported({"HasProperty"}) == []
    lt2 = _one("LT2-Action", "PersonX forces upon PersonY")
    lt3 = _one("LT3-Action", "PersonX assesses patient")
    lt4 = _one("LT4-Action", "PersonX concentrates")
    role = _one("LT3-Role", "priest")
    # Table 4: "Forces upon(A, B), so More(pushy(A), pushy(B))"
    assert lt2.logical_form() == "forces upon(A, B), so More(pushy(A), pushy(B))"  # type: ignore[attr-defined]
    # "Assesses patient(A) and not Assesses patient(B), so More(analytical(A), analytical(B))"
    assert lt3.logical_form() == (  # type: ignore[attr-defined]
        "assesses patient(A) and not assesses patient(B), so More(analytical(A), analytical(B))"
    )
    # "More(Concentrate(A), Concentrate(B)), so More(Effective(A), Effective(B))"
    assert lt4.logical_form() == "More(concentrates(A), concentrates(B)), so More(effective(A), effective(B))"  # type: ignore[attr-defined]
    assert statement(lt2, "original", "original", None) == "A forces upon B, so A is more pushy than B"  # type: ignore[arg-type]
    assert statement(lt3, "original", "original", None) == (  # type: ignore[arg-type]
        "A assesses patient but B does not, so A is more analytical than B"
    )
    assert statement(lt4, "negation", "asymmetric_premise", None) == (  # type: ignore[arg-type]
        "B concentrates more often than A, so A is not more effective than B"
    )
    assert statement(role, "original", "asymmetric_conclusion", None) == (  # type: ignore[arg-type]
        "A is a priest but B is not, so B is less likely to pray than A"
    )
    # LT3 and LT4 share their knowledge table (Table 4: "similarly to LT3-Event"): 1 + 2 + 2 + 1
    assert len(crawl(TRIPLES, 10, 0, supported({"xAttr", "CapableOf"}))) == 6


def test_statement_set_with_the_lexical_operators() -> None:
    from commonsense.questions.rica_gen import Axiom

    ax = Axiom("LT2-Action-00001", "LT2-Action", "LT2", "PersonX stands beside PersonY", "wide", ("", "", ""))
    assert statement(ax, "antonym", "original", LEX) == "A stands beside B, so A is less narrow than B"
    # PARAPHRASE INVERSION = PARA(ANT(wide)) = PARA(narrow): narrow has no synonym here -> no variant
    assert statement(ax, "paraphrase_inversion", "original", LEX) is None
    assert statement(ax, "paraphrase", "original", LEX) is None  # wide has no other word either
    assert statement(ax, "negation_antonym", "asymmetric_conclusion", LEX) == (
        "A stands beside B, so B is not less narrow than A"
    )
    assert statement(ax, "antonym", "original", None) is None  # no lexicon: NEG and ASYM only
    broad = Axiom("x", "LT2-Action", "LT2", "PersonX stands beside PersonY", "broad", ("", "", ""))
    assert statement(broad, "paraphrase", "original", LEX) == "A stands beside B, so A is more spacious than B"
    made = probes([ax, broad], seed=3, lexicon=LEX, entities="AB")
    # wide: 6 (NEG x ASYM) + 6 (antonym, negation_antonym); broad: 6 + 6 + 6 (paraphrase, negation_paraphrase)
    assert len([p for p in made if p.group == ax.id]) == 12
    assert len([p for p in made if p.group == "x"]) == 18
    for p in made:
        assert p.options == ["more", "less"]
        assert p.answers == [p.options[p.answer_index]]
        assert p.question.count("[MASK]") == 1
        assert ", so " in p.question
        assert p.metadata["perturbation"] == perturbation_name(p.metadata["linguistic"], p.metadata["asymmetry"])
        assert p.answers[0] == gold_word(p.metadata["linguistic"], p.metadata["asymmetry"])


def test_novel_entities_one_pair_per_axiom_seeded() -> None:
    axioms = crawl(TRIPLES, 10, 0, supported({"xAttr"}))
    a = probes(axioms, seed=7)
    assert a == probes(axioms, seed=7)
    assert a != probes(axioms, seed=8)
    for ax in axioms:
        pairs = {tuple(p.metadata["entities"].values()) for p in a if p.group == ax.id}
        (pair,) = pairs
        assert all(3 <= len(e) <= 12 and e.isalpha() for e in pair)
        assert all(" A " not in p.question and " B " not in p.question for p in a if p.group == ax.id)
    with pytest.raises(ValueError, match="entities"):
        probes(axioms, seed=7, entities="names")
