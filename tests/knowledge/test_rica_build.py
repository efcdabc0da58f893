"""build_rica: a RICA set rewritten with novel entities through novel_probes (never an English
word of the shipped list), axiom groups and perturbations kept; reads ../shared/data/rica (the RICA
files carry no licence: they are never copied into the repository)."""

from __future__ import annotations

import random
from collections import defaultdict
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from commonsense.questions.rica import english_words, novel_entity
from knowledge.models import Question, QuestionSet
from knowledge.services.imports import questions_import
from tests.conftest import shared_file

pytestmark = pytest.mark.django_db


@pytest.fixture
def axioms(tmp_path: Path) -> QuestionSet:
    lines = shared_file("rica/RICA_10k_axiom2set.jsonl").read_text().splitlines()[:12]
    small = tmp_path / "axioms.jsonl"
    small.write_text("\n".join(lines) + "\n")
    questions_import(small, name="rica-ax", fmt="rica-axioms")
    return QuestionSet.objects.get(name="rica-ax")


def test_novel_entities_are_never_english_words() -> None:
    words = english_words()
    assert {"cat", "house", "glass"} <= words
    assert len(words) > 200_000
    # plant the fault: the first draw of seed 0 is on the list, so the function must draw again
    first = novel_entity(random.Random(0), frozenset())
    second = novel_entity(random.Random(0), frozenset({first}))
    assert second != first
    assert 3 <= len(second) <= 12
    assert second.isalpha()
    rng = random.Random(0)
    assert novel_entity(rng) not in words


def test_build_rica_command(axioms: QuestionSet, capsys: pytest.CaptureFixture[str]) -> None:
    call_command("build_rica", "--set", "rica-ax", "--name", "rica-novel", "--seed", "3", "--variants", "2")
    assert "rica-novel:" in capsys.readouterr().out
    new = QuestionSet.objects.get(name="rica-novel")
    assert new.kind == axioms.kind
    assert new.seed == 3
    assert new.params["source_set"] == "rica-ax"
    src = list(axioms.questions.all())
    probes = list(new.questions.order_by("position"))
    assert len(probes) == 2 * len(src)
    words = english_words()
    pairs: dict[tuple[str, str], set[tuple[str, str]]] = defaultdict(set)
    for q in probes:
        ents = q.metadata["entities"]
        for e in ents.values():
            assert e not in words
            assert e in q.stem
        assert "[MASK]" in q.stem
        assert " A " not in f" {q.stem} "
        assert q.structure == "rica-axiom"
        pairs[(q.group, q.external_id[-2:])].add(tuple(ents.values()))
    assert all(len(v) == 1 for v in pairs.values())  # one pair per axiom and variant, all perturbations
    assert {(q.group, q.metadata["perturbation"]) for q in src} == {(q.group, q.role) for q in probes}
    again = [q.stem for q in probes]
    call_command("build_rica", "--set", "rica-ax", "--name", "rica-novel-2", "--seed", "3", "--variants", "2")
    assert [q.stem for q in Question.objects.filter(question_set__name="rica-novel-2").order_by("position")] == again


def test_build_rica_refusals(axioms: QuestionSet) -> None:
    with pytest.raises(CommandError, match="no question set named 'nope'"):
        call_command("build_rica", "--set", "nope", "--name", "x", "--seed", "1")
    with pytest.raises(CommandError, match="already exists"):
        call_command("build_rica", "--set", "rica-ax", "--name", "rica-ax", "--seed", "1")
    QuestionSet.objects.create(name="mcqa", kind=QuestionSet.Kind.MCQA)
    with pytest.raises(CommandError, match="rewrites RICA"):
        call_command("build_rica", "--set", "mcqa", "--name", "x", "--seed", "1")


def test_build_rica_form(axioms: QuestionSet) -> None:
    from django.test import Client
    from django.urls import reverse

    from accounts.services import role_groups_sync, user_create_with_role

    role_groups_sync()
    user_create_with_role("res", "researcher", "pw-long-enough-123")
    c = Client()
    c.login(username="res", password="pw-long-enough-123")
    url = reverse("knowledge:build_rica")
    page = c.get(url).content.decode()
    assert 'value="rica-ax"' in page
    r = c.post(url, {"source": "rica-ax", "name": "rica-web", "seed": "5", "variants": "1"})
    assert r.status_code == 302
    assert r["Location"] == reverse("knowledge:question_set", args=["rica-web"])
    new = QuestionSet.objects.get(name="rica-web")
    assert new.seed == 5
    assert new.questions.count() == axioms.questions.count()
    again = c.post(url, {"source": "rica-ax", "name": "rica-web", "seed": "5", "variants": "1"})
    assert again.status_code == 400
    assert "already exists" in again.content.decode()
    detail = c.get(reverse("knowledge:question_set", args=["rica-ax"])).content.decode()
    assert reverse("knowledge:build_rica") + "?set=rica-ax" in detail
