"""Issue 11 item 8: the quality report stored with a built set, ``set_quality``, the set page, and
the faithful defaults of the CLI build (label-1 edges unless asked, COM2's relations)."""

from __future__ import annotations

import json
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.urls import reverse

from commonsense.kg.normalize import is_none
from commonsense.kg.relations import COM2_RELATIONS
from commonsense.questions.fluent import has_lemma_form
from commonsense.questions.funnel import check as funnel_check
from commonsense.questions.quality import PLACEHOLDER
from knowledge.forms.builds import QuestionBuildForm
from knowledge.models import QuestionSet
from knowledge.services.imports import graph_import
from tests.conftest import shared_file

pytestmark = pytest.mark.django_db


@pytest.fixture
def ckbp(build_dirs: Path) -> str:
    graph_import(shared_file("ckbp_eval/evaluation_set.csv"), name="ckbp", fmt="cskb-csv")
    return "ckbp"


def _count(rows: list[dict]) -> dict[str, int]:
    out = {"items": 0, "placeholder_leaks": 0, "lemma_forms": 0, "none_options": 0, "duplicate_options": 0}
    for r in rows:
        texts = [r["context"], r["question"], *r["options"]]
        out["items"] += 1
        out["placeholder_leaks"] += any(PLACEHOLDER.search(t) for t in texts)
        out["lemma_forms"] += any(has_lemma_form(t) for t in texts)
        out["none_options"] += any(is_none(o) for o in r["options"])
        out["duplicate_options"] += len({o.casefold() for o in r["options"]}) < len(r["options"])
    return out


def test_report_equals_a_count_of_the_export(ckbp: str, build_dirs: Path) -> None:
    for name, extra in (("strict", {}), ("loose", {"include_implausible": True})):
        call_command("build_questions", graph=ckbp, kind="2i", count=15, seed=4, name=name, verbosity=0, **extra)
    strict = QuestionSet.objects.get(name="strict")
    assert strict.params["include_implausible"] is False
    assert strict.params["edges"].startswith("plausible")
    assert QuestionSet.objects.get(name="loose").params["include_implausible"] is True
    assert set(strict.params["hop_relations"]) <= set(COM2_RELATIONS)

    out = StringIO()
    call_command("set_quality", "strict", json=True, stdout=out)
    report = json.loads(out.getvalue())
    path = build_dirs / "strict.jsonl"
    call_command("export_questions", "strict", fmt="jsonl", out=str(path), verbosity=0)
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    assert report["text"] == _count(rows)
    assert report["build"]["requested"] == 15
    assert report["build"]["built"] == len(rows)
    assert report["build"]["shortfall"] == 15 - len(rows)
    # every chain of the default build is plausible; the loose build lets label-0 triples in
    assert report["chains"]["chains_with_implausible"] == 0
    assert report["chains"]["chains_all_plausible"] == len(rows)
    loose = StringIO()
    call_command("set_quality", "loose", json=True, stdout=loose)
    assert json.loads(loose.getvalue())["chains"]["chains_with_implausible"] > 0
    # stored with the set, and the text form names the figures
    strict.refresh_from_db()
    assert strict.quality["text"] == report["text"]
    text = StringIO()
    call_command("set_quality", "strict", stdout=text)
    assert "distractors rejected" in text.getvalue()
    assert "placeholder leaks 0" in text.getvalue()


def test_set_quality_unknown_set_is_a_clear_error(db: None) -> None:
    with pytest.raises(CommandError, match="no question set named 'nope'"):
        call_command("set_quality", "nope")


def test_set_page_shows_the_report(ckbp: str, researcher) -> None:
    call_command("build_questions", graph=ckbp, kind="2p", count=5, seed=1, name="page", verbosity=0)
    html = researcher.get(reverse("knowledge:question_set", args=["page"])).content.decode()
    assert "Quality report" in html
    assert "built 5 of 5 requested" in html
    # issue 27 item 5: the build funnel, stage by stage, as stored and as set_quality prints it
    funnel = QuestionSet.objects.get(name="page").quality["build"]["funnel"]
    assert funnel_check(funnel) == []
    assert funnel["sampling"][-1]["kept"] == 5
    assert "Build funnel: 2p" in html
    assert "refused by the composition rules" in html
    for s in (*funnel["graph"], *funnel["sampling"]):
        assert f'<th scope="row">{s["stage"]}</th>' in html
    assert funnel["graph"][0]["considered"] == 22212  # every triple of the CSV
    text = StringIO()
    call_command("set_quality", "page", stdout=text)
    assert "2p graph: 22,212 triples -> relations" in text.getvalue()
    assert "2p sampling: " in text.getvalue()


def test_coco_set_page_shows_a_report_and_each_application_kinds_funnel(ckbp: str, researcher) -> None:
    call_command("build_coco", graph=ckbp, seed=1, name="coco", per_relation=2, per_kind=3, verbosity=0)
    qset = QuestionSet.objects.get(name="coco")
    assert set(qset.quality["build"]["funnels"]) == {"2i", "2p", "ip", "pi"}
    for kind, f in qset.quality["build"]["funnels"].items():
        assert funnel_check(f) == [], kind
        built = sum(1 for q in qset.questions.filter(structure=kind, role="reasoning"))
        assert f["sampling"][-1]["kept"] == built, kind
    assert qset.quality["text"]["placeholder_leaks"] == 0  # CoCo keeps PersonX on purpose
    html = researcher.get(reverse("knowledge:question_set", args=["coco"])).content.decode()
    assert "Quality report" in html
    assert "Build funnel: ip" in html
    assert "atomic questions" in html
    # issue 27 item 7: CoCo's own text checks, all clean on a default build
    assert qset.quality["coco_text"] == {
        "items": qset.question_count,
        "blanks": 0,
        "split_tokens": 0,
        "distractor_is_an_answer": 0,
    }
    assert "CoCo text: 0 items with a ___ blank, 0 with a split clitic" in html


def test_an_imported_rica_set_has_a_quality_report_on_its_page(researcher) -> None:
    path = shared_file("rica/human_curated_test.tsv")
    call_command("import_questions", str(path), name="rica", fmt="rica-probes", verbosity=0)
    qset = QuestionSet.objects.get(name="rica")
    assert qset.quality["text"]["items"] == qset.question_count > 0
    html = researcher.get(reverse("knowledge:question_set", args=["rica"])).content.decode()
    assert "Quality report" in html
    assert f"items {qset.question_count}:" in html


def test_build_form_has_the_flag_and_threshold(ckbp: str) -> None:
    form = QuestionBuildForm(
        data={
            "graph": ckbp,
            "kind": "2i",
            "count": 3,
            "seed": 0,
            "name": "f",
            "max_degree": 10,
            "include_implausible": "on",
            "near_duplicate": "0.85",
        }
    )
    assert form.is_valid(), form.errors
    p = form.params()
    assert p["include_implausible"] is True
    assert p["near_duplicate"] == 0.85
    default = QuestionBuildForm(
        data={"graph": ckbp, "kind": "2i", "count": 3, "seed": 0, "name": "g", "max_degree": 10}
    )
    assert default.is_valid()
    assert default.params()["include_implausible"] is False


def test_stored_cskb_builds_use_the_knowledge_base_triples_unless_asked(ckbp: str) -> None:
    """The origin travels from the CSV's ``class`` column through the stored triple's ``extra`` into
    the index: by default no populated candidate (cs_head / all_head) is an edge of a chain."""
    for name, extra in (("kb", {}), ("populated", {"include_populated": True})):
        call_command("build_questions", graph=ckbp, kind="2i", count=15, seed=4, name=name, verbosity=0, **extra)
    kb, populated = QuestionSet.objects.get(name="kb"), QuestionSet.objects.get(name="populated")
    assert kb.params["include_populated"] is False
    assert "+kb-only" in kb.params["edges"]
    assert populated.params["include_populated"] is True
    assert "kb-only" not in populated.params["edges"]

    def origins(qset: QuestionSet) -> set[str]:
        return {t.extra.get("class") for q in qset.questions.all() for t in q.triples.all()}

    assert kb.question_count > 0
    assert origins(kb) == {"test_set"}
    assert origins(populated) - {"test_set"}  # the fault the default removes
    # the quality report counts such chains: none in the default build
    assert kb.quality["chains"]["chains_with_populated"] == 0
    mixed = sum(
        any(t.extra.get("class") in ("cs_head", "all_head") for t in q.triples.all()) for q in populated.questions.all()
    )
    assert populated.quality["chains"]["chains_with_populated"] == mixed > 0
