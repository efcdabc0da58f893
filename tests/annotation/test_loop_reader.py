"""perf/loop_reader.py, the blind reader's client of the REST API (issue 26's end-to-end loop), against
a live server: it prints exactly what an annotator sees (context, question, options 1-5) and nothing
else, stores the answer it is told for the item it showed, and moves on with one command per item."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path
from typing import Any

import pytest
from rest_framework.authtoken.models import Token

from annotation.models import Item, Response
from annotation.services.campaigns import campaign_create, campaign_status_set
from perf.loop_reader import main

pytestmark = pytest.mark.django_db(transaction=True)


def _reader(base: str, token: str, state: Path, campaigns: str) -> Any:
    def run(*argv: str) -> tuple[int, str]:
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            try:
                rc = main(["--url", base, "--token", token, "--state", str(state), "--campaigns", campaigns, *argv])
            except SystemExit as exc:  # a refused command says why and exits
                rc = 2 if exc.code else 0
                out.write(str(exc.code))
        return rc, out.getvalue()

    return run


def _shown(item: Item, number: int) -> list[str]:
    p = item.payload
    return [
        f"Item {number}",
        f"Context: {p.get('context', '')}",
        f"Question: {p['stem']}",
        *(f"  {i}. {o}" for i, o in enumerate(p["options"], 1)),
    ]


def test_reader_shows_only_the_item_and_stores_each_answer(live_server, csqa_set, people, tmp_path) -> None:
    first = campaign_create(name="loop-a", title="a", kind="mcqa", question_set=csqa_set, redundancy=1, max_answers=1)
    second = campaign_create(name="loop-b", title="b", kind="mcqa", question_set=csqa_set, redundancy=1, max_answers=1)
    Item.objects.filter(campaign=first, position__gte=2).delete()
    Item.objects.filter(campaign=second, position__gte=2).delete()
    for c in (first, second):
        campaign_status_set(c, "open")
    (user,) = people("annotator", "blind1")
    run = _reader(live_server.url, Token.objects.create(user=user).key, tmp_path / "state.json", "loop-a,loop-b")

    rc, out = run("next")
    assert rc == 0
    lines = out.strip().splitlines()
    shown = Item.objects.get(uid=_uid(tmp_path))
    assert shown.campaign_id == first.pk  # the first campaign of the list with work
    assert lines[:-1] == _shown(shown, 1)  # context, question, options 1-5 and nothing else
    assert lines[-1].startswith("Reply with: answer N")
    assert run("next")[1] == out  # the same item until it is answered

    rc, msg = run("answer", "7")  # no option 7: refused, nothing stored
    assert rc == 2
    assert "not an option number 1-5" in msg
    assert not Response.objects.exists()

    rc, out = run("answer", "2", "4")
    assert rc == 0
    assert Response.objects.get(item=shown, user=user).answer["plausible"] == [1, 3]
    assert "Saved (1 answered)" in out
    second_item = Item.objects.get(uid=_uid(tmp_path))
    assert out.strip().splitlines()[2:-1] == _shown(second_item, 2)  # the next item, in the same command

    run("answer", "none")
    third = Item.objects.get(uid=_uid(tmp_path))
    assert third.campaign_id == second.pk  # the first campaign ran out for this reader: the next one serves
    assert Response.objects.get(item=second_item, user=user).answer["none_correct"] is True
    rc, out = run("answer", "bad")
    assert Response.objects.get(item=third, user=user).answer["bad_context"] is True
    run("answer", "1")
    rc, out = run("answer", "1")
    assert rc == 2  # nothing is waiting: the campaigns have nothing more for this reader
    assert "run `next` first" in out
    assert run("status")[1].startswith("answered 4 items (2 campaigns)")
    assert Response.objects.filter(user=user).count() == 4
    assert "Nothing left for you to answer" in run("next")[1]


def _uid(tmp_path: Path) -> str:
    import json

    return json.loads((tmp_path / "state.json").read_text())["current"]["id"]
