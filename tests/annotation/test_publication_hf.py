"""Publication (issue 26 item 6): ``export_questions SET --format hf --out DIR`` writes a folder that
``datasets.load_dataset(DIR)`` reads offline, from another working folder - the items with their
answer, every individual answer under opaque annotator ids, the votes and confidence per item - with
a README.md dataset card whose YAML parses (``huggingface_hub``) and names the configs, the source
data and its licence, the build parameters, the campaign, the agreement, the shortcut audit and the
counts. The set page's download is the same folder, zipped."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
import zipfile
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import yaml
from django.core.management import call_command
from django.test import Client
from django.urls import reverse

from annotation.models import Campaign, Response
from annotation.selectors.publication import MAJORITY_SHARE, item_figures
from commonsense.validation import NONE_CORRECT
from knowledge.models import Question
from tests.annotation.conftest import login
from tests.annotation.test_verified_set import answered  # noqa: F401 - the fixture: a validated CSKB 2i set

pytestmark = pytest.mark.django_db

LOAD = """
import json, sys
from datasets import load_dataset
out = {}
for config in ("items", "answers", "votes"):
    ds = load_dataset(sys.argv[1], config) if config != "items" else load_dataset(sys.argv[1])
    out[config] = {"splits": sorted(ds), "rows": ds["test"].to_list(), "columns": ds["test"].column_names}
print(json.dumps(out))
"""


def load_offline(folder: Path, tmp_path: Path) -> dict[str, Any]:
    """``datasets.load_dataset`` on the folder in a fresh interpreter, offline, from another folder."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir(exist_ok=True)
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("DJANGO", "DATABASE"))},
        "HF_HUB_OFFLINE": "1",
        "HF_DATASETS_OFFLINE": "1",
        "HOME": str(tmp_path / "home"),
    }
    res = subprocess.run(
        [sys.executable, "-c", LOAD, str(folder)],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
        cwd=elsewhere,
    )
    assert res.returncode == 0, res.stderr[-3000:]
    return dict(json.loads(res.stdout.strip().splitlines()[-1]))


def card_of(text: str) -> tuple[dict[str, Any], str]:
    from huggingface_hub import DatasetCard

    card = DatasetCard(text)  # raises on a malformed metadata block
    head, body = text.split("\n---\n", 1)
    meta = yaml.safe_load(head.removeprefix("---\n"))
    assert card.data.to_dict()["configs"] == meta["configs"]
    return meta, body


def test_hf_folder_of_a_verified_set_loads_offline_with_its_card(answered: Campaign, tmp_path: Path) -> None:  # noqa: F811
    call_command("verified_set", "val", name="val-verified", any_gold=True, verbosity=0)
    out = tmp_path / "published"
    call_command("export_questions", "val-verified", fmt="hf", out=str(out), verbosity=0)
    got = load_offline(out, tmp_path)
    questions = list(Question.objects.filter(question_set__name="val-verified").order_by("position"))
    items = got["items"]["rows"]
    assert got["items"]["splits"] == ["test"]
    assert len(items) == len(questions) == 6
    for row, q in zip(items, questions, strict=True):
        assert row["options"] == q.options
        assert row["answer_index"] == q.answer_index
        assert row["answer"] == q.options[q.answer_index] == q.answers[0]
        assert row["context"] == q.context
        assert row["question"] == q.stem
    assert sum(r["answer"] == NONE_CORRECT for r in items) == 1  # PLAN item 1: three "none" answers

    answers = got["answers"]["rows"]
    assert len(answers) == 18  # 6 kept items x 3 answers
    names = {r["annotator"] for r in answers}
    assert len(names) == 3
    assert all(re.fullmatch(r"annotator-\d{3}", n) for n in names)
    assert not names & {"a1", "a2", "a3"}  # opaque: never the username
    by_item: dict[str, list[dict[str, Any]]] = {}
    for a in answers:
        by_item.setdefault(a["item"], []).append(a)

    votes = {r["item"]: r for r in got["votes"]["rows"]}
    assert set(votes) == {r["id"] for r in items} == set(by_item)
    for row in items:
        v = votes[row["id"]]
        assert v["options"] == row["options"]
        assert v["n_answers"] == 3
        # the votes are a count of the published answers
        for k, opt in enumerate(v["options"]):
            n = sum(a["none_correct"] for a in by_item[row["id"]]) if opt == NONE_CORRECT else None
            n = n if n is not None else sum(opt in a["ticked"] for a in by_item[row["id"]])
            assert v["option_votes"][k] == n
        if row["answer"] == NONE_CORRECT:
            assert v["option_votes"][row["answer_index"]] == 3
            assert v["provenance"] == "unanimous"
        elif sorted(v["source_option_votes"], reverse=True)[:2] == [3, 0]:  # PLAN item 0: GOLD x 3
            assert v["option_votes"][row["answer_index"]] == 3
            assert v["provenance"] == "unanimous"
            assert v["agreement"] == 1.0
            assert min(v["confidence"]) >= 0.95
            assert v["settled"] is True
            assert v["settlement"] == "unanimous"
        else:  # GOLD, GOLD, GOLD_PLUS: the answer 3 votes, the option after it 1 of 3
            assert v["option_votes"][row["answer_index"]] == 3
            assert sorted(v["source_option_votes"], reverse=True)[:2] == [3, 1]
            assert v["agreement"] == pytest.approx(0.8667, abs=1e-3)
            assert v["provenance"] == "majority"
            # the split option's "no" verdict: posterior 0.967 under the cold-start annotator model
            assert min(v["confidence"]) == pytest.approx(0.9674, abs=1e-3)
            assert v["settlement"] == "confident"
        assert v["confidence_method"].startswith("posterior")
        assert v["confidence_method"] != MAJORITY_SHARE
        assert v["confidence_least"] == min(v["confidence"])
    assert Counter(v["provenance"] for v in votes.values()) == {"majority": 4, "unanimous": 2}

    meta, body = card_of((out / "README.md").read_text(encoding="utf-8"))
    assert [c["config_name"] for c in meta["configs"]] == ["items", "answers", "votes"]
    assert meta["configs"][0]["default"] is True
    assert meta["license"] == ["mit", "cc-by-4.0"]
    assert meta["source_datasets"] == ["CSKB-Population evaluation set"]
    for needed in (
        "## Source data and licence",
        "`ckbp_demo.csv`",
        "MIT, Copyright (c) 2021 HKUST-KnowComp",
        "Fang et al.",
        "## Build parameters",
        '"source_set": "ckbp-2i"',
        "## Human validation",
        "| campaign | val |",
        "Fleiss kappa",
        "## Shortcut audit",
        "- answer-type baseline: ",  # hardneg's audit of the verified set, as its set page reads it
        "- gold-position baseline: ",
        "| verified: kept | 6 |",
        "| verified: not well formed | 1 |",
        "| answers published | 18 |",
        "| annotators | 3 |",
    ):
        assert needed in body, needed
    assert "a1" not in re.findall(r"\b\w+\b", body)


def test_set_page_download_is_the_folder_zipped(answered: Campaign, tmp_path: Path, people) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    call_command("verified_set", "val", name="val-verified", any_gold=True, verbosity=0)
    call_command("export_questions", "val-verified", fmt="hf", out=str(tmp_path / "cmd"), verbosity=0)
    (res,) = people("researcher", "res")
    Campaign.objects.filter(pk=answered.pk).update(created_by=res)  # its exports are its creator's (issue 31 item 8)
    client: Client = login("res")
    page = client.get(reverse("knowledge:question_set", args=["val-verified"])).content.decode()
    url = reverse("knowledge:question_set_export", args=["val-verified", "hf"])
    assert f'href="{url}"' in page
    r = client.get(url)
    assert r.status_code == 200
    assert r["Content-Type"] == "application/zip"
    assert 'filename="cocoweb_val_verified-hf.zip"' in r["Content-Disposition"]
    zf = zipfile.ZipFile(io.BytesIO(r.content))
    assert sorted(zf.namelist()) == ["README.md", "data/answers.parquet", "data/items.parquet", "data/votes.parquet"]
    assert zf.read("README.md") == (tmp_path / "cmd" / "README.md").read_bytes()
    zf.extractall(tmp_path / "unzipped")
    got = load_offline(tmp_path / "unzipped", tmp_path)
    assert [len(got[c]["rows"]) for c in ("items", "answers", "votes")] == [6, 18, 6]


def test_hf_of_an_unvalidated_set_has_items_only(answered: Campaign, tmp_path: Path) -> None:  # noqa: F811
    """A set no one validated yet: the items and a card that says so; a set with a campaign under
    way publishes its answers so far."""
    call_command("build_questions", graph="ckbp", kind="2i", count=3, seed=9, name="fresh", verbosity=0)
    call_command("export_questions", "fresh", fmt="hf", out=str(tmp_path / "fresh"), verbosity=0)
    meta, body = card_of((tmp_path / "fresh" / "README.md").read_text(encoding="utf-8"))
    assert [c["config_name"] for c in meta["configs"]] == ["items"]
    assert "No validation campaign" in body
    assert not (tmp_path / "fresh" / "data" / "answers.parquet").exists()
    assert "- gold-position baseline: " in body
    assert body.count("gold-position baseline") == 1  # not twice
    call_command("export_questions", "ckbp-2i", fmt="hf", out=str(tmp_path / "src"), verbosity=0)
    import pyarrow.parquet as pq

    n = pq.read_table(tmp_path / "src" / "data" / "answers.parquet").num_rows
    assert n == Response.objects.filter(campaign=answered, item__role="regular").count() == 24


def test_item_figures_take_the_campaigns_posteriors_where_the_item_has_them() -> None:
    """Three answers ticked option 0, two of them option 1 (label: 0 and 1 plausible). Without a
    settling rule: the majority's share per option. With the posteriors a verified item carries
    (verifya's ``metadata["verified"]``): the posterior of each verdict of the label."""
    plain = item_figures({}, [3, 2, 0], 3, [0, 1])
    assert plain.confidence == pytest.approx([1.0, 2 / 3, 1.0])
    assert plain.least == pytest.approx(2 / 3)
    assert plain.method == MAJORITY_SHARE
    assert plain.settled is None
    assert plain.settlement == ""
    verified = {
        "posteriors": [0.99, 0.97, 0.02, 0.01],  # P(plausible) per option, then bad context
        "confidence": 0.97,
        "settled": True,
        "settlement": "confident",
        "label_rule": "Dawid-Skene posterior >= 0.95 for every verdict",
    }
    fig = item_figures(verified, [3, 2, 0], 3, [0, 1])
    assert fig.confidence == pytest.approx([0.99, 0.97, 0.98])
    assert fig.least == 0.97
    assert fig.settled is True
    assert fig.settlement == "confident"
    assert "Dawid-Skene" in fig.method
