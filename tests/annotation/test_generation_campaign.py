"""COM2's human evaluation of generations (§6.3, Table 4: Plausible / 1-hop / False) end to end: a
generate-answer run of a tiny GPT-2 on a COM2 set built from the CSKB demo graph, a generation
campaign made from it with the campaign form, three annotators judging every generation through
the item pages, and the Table-4 shares (dashboard, explorer panel and its CSV, export) equal to a
hand count of the majorities; a tie is undecided until a reviewer decides it."""

from __future__ import annotations

import csv
import io
import json
from collections import Counter
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse

from annotation.models import Campaign, FinalLabel, Item, Response
from annotation.queue import operations as queue
from annotation.selectors.verdicts import generation_judgements
from explorer.panels.runs import question_run_panels
from knowledge.models import QuestionSet
from knowledge.services.builds import question_set_build
from knowledge.services.imports import graph_import
from runs.evaluation import run_execute
from runs.models import Prediction, Run
from runs.services import run_create
from tests.annotation.conftest import login
from tests.conftest import FIXTURES

pytestmark = pytest.mark.django_db
tiny_bert = pytest.importorskip("tests.commonsense.tiny_bert")
J = ("plausible", "one_hop", "false")
# votes of the three annotators on item i (by position): i % 4 picks the row
PLAN = [
    ("plausible", "plausible", "plausible"),  # unanimous: Plausible
    ("one_hop", "false", "one_hop"),  # 2 of 3: 1-hop
    ("false", "plausible", "false"),  # 2 of 3: False
    ("plausible", "one_hop", "false"),  # a three-way tie: undecided
]


@pytest.fixture(scope="module")
def models_dir(tmp_path_factory: pytest.TempPathFactory, tiny_gpt2: Path) -> tuple[Path, Path]:
    return (
        tiny_gpt2,
        tiny_bert.build_tiny_bert(tmp_path_factory.mktemp("tiny-bert")),
    )


@pytest.fixture
def gen_run(db: None, models_dir: tuple[Path, Path]) -> Run:
    gpt2, bert = models_dir
    graph_import(FIXTURES / "ckbp_demo.csv", name="ckbp", fmt="cskb-csv")
    qset = question_set_build(graph="ckbp", kind="2i", count=12, seed=7, name="com2-gen")
    run = run_create(
        question_set=qset,
        backend="hf",
        model=str(gpt2),
        scoring="generate-answer",
        params={"scoring_options": {"chat": False, "max_new_tokens": 8}, "bertscore_model": str(bert)},
        enqueue=False,
    )
    assert run_execute(run.pk, heartbeat=False) == Run.State.DONE, Run.objects.get(pk=run.pk).error
    return Run.objects.select_related("question_set").get(pk=run.pk)


def _form(**extra: object) -> dict[str, object]:
    return {
        "title": "Judge the generations",
        "kind": "generation",
        "redundancy": 3,
        "qualification_pass_mark": 0.85,
        "attention_every": 0,
        "attention_max_failures": 1,
        "agreement_threshold": 0.6,
        "reservation_ttl_seconds": 600,
        "seed": 0,
        "open_now": "on",
        **extra,
    }


def test_generations_judged_by_three_annotators_give_table_4(gen_run: Run, people, researcher) -> None:  # type: ignore[no-untyped-def]
    preds = [
        p
        for p in Prediction.objects.filter(run=gen_run).select_related("question").order_by("position")
        if (p.extra or {}).get("generation", "").strip()
    ]
    assert len(preds) >= 4, "the tiny model should generate text for most items"
    # the run page offers the campaign; the form is pre-filled from the link
    page = researcher.get(reverse("runs:detail", args=[gen_run.pk])).content.decode()
    link = f"{reverse('annotation:campaign_new')}?kind=generation&amp;source=run:{gen_run.pk}"
    assert link in page
    form = researcher.get(link.replace("&amp;", "&")).content.decode()
    assert f'value="run:{gen_run.pk}" selected' in form
    # a question set is no source for judging generations, a run no source for the other kinds
    bad = researcher.post(reverse("annotation:campaign_new"), _form(name="x", source=f"qs:{gen_run.question_set.name}"))
    assert bad.status_code == 400
    assert "generate-answer run" in bad.content.decode()
    bad = researcher.post(reverse("annotation:campaign_new"), _form(name="x", kind="mcqa", source=f"run:{gen_run.pk}"))
    assert bad.status_code == 400
    assert not Campaign.objects.exists()
    r = researcher.post(reverse("annotation:campaign_new"), _form(name="judge", source=f"run:{gen_run.pk}"))
    assert r.status_code == 302, r.content.decode()[:2000]
    campaign = Campaign.objects.get(name="judge")
    assert campaign.run_id == gen_run.pk
    assert campaign.question_set_id == gen_run.question_set_id
    items = list(Item.objects.filter(campaign=campaign).order_by("position"))
    assert [i.payload["prediction"] for i in items] == [p.pk for p in preds]
    assert [i.payload["generation"] for i in items] == [p.extra["generation"].strip() for p in preds]
    assert all("answers" not in i.payload for i in items)  # the references are not shown

    users = people("annotator", "a1", "a2", "a3")
    plan = {item.pk: PLAN[k % 4] for k, item in enumerate(items)}
    for who, u in enumerate(users):
        c = login(u.username)
        for _ in items:
            page = c.get(reverse("annotation:work", args=["judge"])).content.decode()
            item = queue.next_step(campaign, u).assignment.item
            assert item.payload["generation"] in page.replace("&#x27;", "'").replace("&quot;", '"').replace(
                "&amp;", "&"
            )
            assert 'name="judgement" value="one_hop" data-key="2"' in page
            assert "<kbd>3</kbd>" in page
            if who == 0 and item == items[0]:  # no judgement, or one that is not among the three: refused
                for bad in ({}, {"judgement": "maybe"}):
                    r = c.post(reverse("annotation:submit", args=["judge", item.uid]), bad, HTTP_HX_REQUEST="true")
                    assert r.status_code == 422
                    assert "1 Plausible, 2 1-hop or 3 False" in r.content.decode()
            r = c.post(
                reverse("annotation:submit", args=["judge", item.uid]),
                {"judgement": plan[item.pk][who], "idempotency_key": f"{who}-{item.pk}"},
                HTTP_HX_REQUEST="true",
            )
            assert r.status_code == 200, r.content.decode()[:500]
    assert Response.objects.filter(campaign=campaign).count() == 3 * len(items)

    # the hand count: majority of each item's three votes, per query kind and overall
    def majority(votes: tuple[str, str, str]) -> str | None:
        (top, n), *rest = Counter(votes).most_common()
        return None if rest and rest[0][1] == n else top

    by_kind: dict[str, list[str | None]] = {}
    for item in items:
        by_kind.setdefault(item.payload["structure"], []).append(majority(plan[item.pk]))
    by_kind["overall"] = [x for k, v in by_kind.items() for x in v]
    want = {k: (Counter(v), sum(x is not None for x in v), sum(x is None for x in v)) for k, v in by_kind.items()}
    got = {row.group: row for row in generation_judgements(campaign)}
    assert set(got) == set(want)
    for k, (counts, n, undecided) in want.items():
        assert got[k].n == n
        assert got[k].undecided == undecided
        for j in J:
            assert got[k].counts[j] == counts[j]
            assert got[k].shares[j] == pytest.approx(counts[j] / n)
    assert got["overall"].n == len(items) - len(items[3::4])

    # the explorer's panel on the run page, its CSV, and the dashboard table
    (panel,) = [p for p in question_run_panels(gen_run) if p.key == "judgements"]
    rows = {r[2]: r for r in panel.rows}
    overall = want["overall"]
    assert rows["overall"][3:] == (
        overall[0]["plausible"],
        pytest.approx(overall[0]["plausible"] / overall[1]),
        overall[0]["one_hop"],
        pytest.approx(overall[0]["one_hop"] / overall[1]),
        overall[0]["false"],
        pytest.approx(overall[0]["false"] / overall[1]),
        overall[1],
        overall[2],
    )
    from explorer import charts

    assert not charts.is_empty(panel.figure)
    html = researcher.get(reverse("explorer:run_errors", args=[gen_run.pk])).content.decode()
    assert 'id="fig-judgements"' in html
    assert 'id="fig-generation"' in html
    body = researcher.get(reverse("explorer:run_errors", args=[gen_run.pk]) + "?csv=judgements").content.decode()
    table = list(csv.DictReader(io.StringIO(body)))
    assert {r["query kind"] for r in table} == set(want)
    assert int(next(r for r in table if r["query kind"] == "overall")["Plausible n"]) == overall[0]["plausible"]
    dash = researcher.get(reverse("annotation:dashboard", args=["judge"])).content.decode()
    assert 'id="judgements"' in dash
    assert "1-hop" in dash

    # the export: one record per judged generation with its final judgement
    out = researcher.get(reverse("annotation:export", args=["judge", "jsonl"]))
    recs = [json.loads(x) for x in b"".join(out.streaming_content if out.streaming else [out.content]).splitlines()]
    assert [r["prediction"] for r in recs] == [p.pk for p in preds]
    assert [r["judgement"] for r in recs] == [majority(plan[i.pk]) for i in items]
    assert all(
        r["run"] == gen_run.pk and r["generation"] == i.payload["generation"] for r, i in zip(recs, items, strict=True)
    )
    assert [len(r["answers"]) for r in recs] == [3] * len(items)

    from annotation.services.ratings_import import RatingsImportRefused, ratings_import

    with pytest.raises(RatingsImportRefused):  # ratings files are 0/1 cells: no silent misreading
        ratings_import(campaign, "rater," + items[0].key + "\nx,1\n")

    # a reviewer decides the tie: it counts from then on
    tie = items[3]
    assert FinalLabel.objects.get(item=tie).below_threshold
    r = researcher.post(
        reverse("annotation:adjudicate", args=["judge", tie.pk]), {"judgement": "one_hop", "reason": "fits one branch"}
    )
    assert r.status_code == 302
    after = {row.group: row for row in generation_judgements(campaign)}["overall"]
    assert after.undecided == overall[2] - 1
    assert after.counts["one_hop"] == overall[0]["one_hop"] + 1


def test_campaign_create_command_samples_per_query_kind(gen_run: Run, capsys: pytest.CaptureFixture[str]) -> None:
    judged = [p for p in Prediction.objects.filter(run=gen_run) if (p.extra or {}).get("generation", "").strip()]
    call_command("campaign_create", "--run", str(gen_run.pk), "--type", "generation", "--name", "j2", "--per-kind", "3")
    assert "campaign j2: 3 items, open" in capsys.readouterr().out
    picked = {i.payload["prediction"] for i in Item.objects.filter(campaign__name="j2")}
    assert picked <= {p.pk for p in judged}
    assert len(picked) == min(3, len(judged))
    call_command("campaign_create", "--run", str(gen_run.pk), "--type", "generation", "--name", "j3", "--per-kind", "3")
    assert {i.payload["prediction"] for i in Item.objects.filter(campaign__name="j3")} == picked  # seeded
    with pytest.raises(CommandError, match="--run goes with --type generation"):
        call_command("campaign_create", "--set", "com2-gen", "--type", "generation", "--name", "j4")
    mcqa_run = run_create(
        question_set=QuestionSet.objects.get(name="com2-gen"), backend="random", scoring="loglik", enqueue=False
    )
    run_execute(mcqa_run.pk, heartbeat=False)
    with pytest.raises(CommandError, match="only a generate-answer run has generations"):
        call_command("campaign_create", "--run", str(mcqa_run.pk), "--type", "generation", "--name", "j5")
    with pytest.raises(CommandError, match="no run|generate-answer run"):
        call_command("campaign_create", "--run", "99999", "--type", "generation", "--name", "j6")
