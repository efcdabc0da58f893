"""CoCo's text and options on the demo graph (issue 27 item 7): no ``___`` and no split clitic in any
text, every option in one form (an event with its subject, COM2 Table 5), and no distractor that is
an accepted answer once both are normalised; the guards are shown to catch what they guard."""

from __future__ import annotations

import random
from functools import lru_cache

from commonsense.io.abstract import read_abstract_triples
from commonsense.io.triples import read_atomic_tsv
from commonsense.kg.index import GraphIndex, IndexOptions
from commonsense.kg.normalize import normalize_tail
from commonsense.questions import coco_text
from commonsense.questions.coco import CocoParams, build_coco, head_shown, one_hop
from commonsense.questions.lexicon import SUBJECTS
from commonsense.questions.record import BuiltQuestion
from commonsense.questions.wellformed import build_edges, display_form
from commonsense.questions.words import tags
from tests.conftest import FIXTURES

SUBJECT = {"PersonX", "PersonY", "PersonZ", "PersonX's", "PersonY's", "PersonZ's"} | SUBJECTS


@lru_cache(maxsize=1)
def _demo() -> list[BuiltQuestion]:
    rows = [(r.head, r.relation, r.tail, r.plausibility) for r in read_atomic_tsv(FIXTURES / "atomic2020_demo.tsv")]
    abstract = list(read_abstract_triples(FIXTURES / "abstract_demo.tsv"))
    return build_coco(list(build_edges()(rows)), CocoParams(seed=7, per_relation=20, per_kind=30), abstract=abstract)


def _texts(q: BuiltQuestion) -> list[str]:
    return [q.context, q.question, *q.options, *q.answers, *q.anchors]


def test_no_blank_and_no_split_clitic_in_any_text() -> None:
    qs = _demo()
    assert len(qs) > 200
    assert {q.role for q in qs} >= {"memorization", "conceptualization_1", "atomic_1", "reasoning"}
    for q in qs:
        for t in _texts(q):
            assert "___" not in t, (q.id, t)
            assert " n't" not in t, (q.id, t)
            assert " 's" not in t, (q.id, t)
    assert coco_text.checks([{**vars(q)} for q in qs]) == {
        "items": len(qs),
        "blanks": 0,
        "split_tokens": 0,
        "distractor_is_an_answer": 0,
    }


def test_every_option_is_an_event_with_its_subject_and_none_is_an_answer_in_other_words() -> None:
    for q in _demo():
        for o in q.options:
            first = o.split()[0]
            # a subject first: a person, a pronoun, a determiner or a noun, never a bare verb or adjective
            # (ATOMIC's "Call Person X", "happy", "to go" as they were)
            assert first in SUBJECT or not (tags(first) and tags(first) <= {"VERB", "ADJ", "ADV"}), (q.id, o)
            assert not o.endswith("."), (q.id, o)
            assert not o.startswith("to "), (q.id, o)
        gold = q.options[q.answer_index]
        keys = {coco_text.answer_key(a) for a in q.answers} | {coco_text.answer_key(gold)}
        assert all(coco_text.answer_key(o) not in keys for i, o in enumerate(q.options) if i != q.answer_index)
        assert len({coco_text.answer_key(o) for o in q.options}) == 5, q.options


def test_the_forms_of_one_relation_meet_and_a_planted_paraphrase_is_refused() -> None:
    # "to go home" (a want), "PersonX go home" and "Go home." are one option
    forms = {coco_text.option_form("xWant", t) for t in ("to go home", "PersonX go home", "Go home.")}
    assert forms == {"PersonX goes home"} == {display_form(normalize_tail("xWant", "to go home"))}
    # a graph whose only other tails say the gold in other words: no question rather than two answers
    rows = [("PersonX is tired", "xWant", "to go home")]
    rows += [(f"PersonX walks {w}", "xEffect", "goes home") for w in ("far", "a lot", "all day")]
    rows += [(f"PersonX runs {w}", "xWant", "Go home.") for w in ("fast", "away", "home")]
    index = GraphIndex.build(rows, IndexOptions())
    head, rel = index.node("PersonX is tired"), index.rel_ids["xWant"]
    assert head is not None
    answer = int(index.successors(head, rel)[0])
    got = one_hop(index, head, rel, random.Random(0), answer=answer, qid="q", seed=0, group="g", role="memorization")
    assert got is None  # every candidate was the answer in other words
    # the guard's fault: without it the paraphrases would be options (the raw texts differ)
    assert len({index.names[n] for n in range(index.n_nodes)} - {"PersonX is tired"}) > 4


def test_a_blank_head_is_filled_from_the_graph_or_never_asked() -> None:
    rows = [
        ("PersonX keeps ___ up all night", "xEffect", "is tired"),
        ("PersonX keeps ___ up all night", "isFilledBy", "the baby"),
        ("PersonX paints ___ blue", "xEffect", "is proud"),
    ]
    index = GraphIndex.build(rows, IndexOptions())
    filled, unfilled = index.node("PersonX keeps ___ up all night"), index.node("PersonX paints ___ blue")
    assert filled is not None
    assert unfilled is not None
    assert head_shown(index, filled) == "PersonX keeps the baby up all night"
    assert head_shown(index, unfilled) is None
