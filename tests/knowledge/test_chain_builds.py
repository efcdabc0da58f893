"""Issue 27 item 5 through the stored build: the 2p wording is a build option stored with the set, and a
build that the graph starves says on its page and in ``set_quality`` how many queries the graph holds."""

from __future__ import annotations

from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command
from django.urls import reverse

from knowledge.models import QuestionSet
from knowledge.services.imports import graph_import
from tests.conftest import shared_file

pytestmark = pytest.mark.django_db


@pytest.fixture
def ckbp(build_dirs: Path) -> str:
    graph_import(shared_file("ckbp_eval/evaluation_set.csv"), name="ckbp", fmt="cskb-csv")
    return "ckbp"


def test_the_2p_wording_is_a_stored_build_option(ckbp: str) -> None:
    call_command("build_questions", graph=ckbp, kind="2p", count=4, seed=1, name="step", verbosity=0)
    call_command(
        "build_questions", graph=ckbp, kind="2p", count=4, seed=1, name="stacked", chain_phrasing="stacked", verbosity=0
    )
    step, stacked = QuestionSet.objects.get(name="step"), QuestionSet.objects.get(name="stacked")
    assert step.params["chain_phrasing"] == "step"
    assert stacked.params["chain_phrasing"] == "stacked"
    new = list(step.questions.order_by("position").values_list("stem", "options"))
    old = list(stacked.questions.order_by("position").values_list("stem", "options"))
    assert [o for _, o in new] == [o for _, o in old]  # the same items, worded two ways
    assert all(q.startswith("What event or state is") for q, _ in old)
    assert not any(q.startswith("What event or state is") for q, _ in new)


def test_a_starved_build_names_the_graphs_query_space(ckbp: str, researcher) -> None:
    call_command("build_questions", graph=ckbp, kind="2in", count=10, seed=1, name="neg", verbosity=0)
    qset = QuestionSet.objects.get(name="neg")
    space = qset.quality["build"]["funnel"]["space"]
    assert space["rules"]["usable"] == qset.questions.count() < 10
    verdict = f"the build drew all {qset.questions.count()}"
    html = researcher.get(reverse("knowledge:question_set", args=["neg"])).content.decode()
    assert "2in query space: the graph holds" in html
    assert verdict in html
    text = StringIO()
    call_command("set_quality", "neg", stdout=text)
    assert verdict in text.getvalue()
