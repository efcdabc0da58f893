"""Answer MCQA validation campaigns through the REST API as an annotator (issue 26's end-to-end loop,
step 2 of 3; perf/RESULTS.md "verification loop"). Made for a blind reader with a terminal: one
command per item, and it shows only what an annotator sees - the context, the question and the five
options numbered 1-5; never the gold, where the item came from, or anybody's votes.

    export LOOP_URL=http://127.0.0.1:8765 LOOP_TOKEN=<your token>
    python perf/loop_reader.py next          # show the item to answer (the same one until you answer it)
    python perf/loop_reader.py answer 2 4    # options 2 and 4 are plausible answers; prints the next item
    python perf/loop_reader.py answer none   # no option is a correct answer
    python perf/loop_reader.py answer bad    # the item is not well formed (see below)
    python perf/loop_reader.py status        # how many you have answered

How to answer (COM2's validation, Figure 5): read the context and the question, then give every
option that is a plausible answer to the question in that context. An option is plausible only when it
fits every event of the context and every part of the question: where the question asks what holds
after, before or given each of several events, an option that fits one of them but not the others is
not plausible. Several options may be plausible: when another option fits as well as your first
choice - a near-synonym such as "sad" and "upset", or an answer that fits the question just as well -
give both (an item is published only with exactly one plausible answer); "none" when no option is; "bad" when the item is **not well formed**: the context, question or options make no
sense or are not clear English (broken grammar, odd word forms, placeholders), two options say the
same thing, or the question has no clear answer. An item marked "bad" is left out of the published
set, so do not answer such an item as if it were fine.

The item comes from the first campaign of the list that has work for you: ``--campaigns a,b,c`` (or
``LOOP_CAMPAIGNS``), by default every open MCQA validation campaign your account sees, in the
server's order. The item you were shown is remembered in a small state file (``--state``, or
``LOOP_STATE``; by default one per token and server under the system's temporary folder), with the
tally ``status`` prints. ``--token``/``--url`` override ``LOOP_TOKEN``/``LOOP_URL``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import tempfile
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HOW = (
    "answer N [N ...] (every plausible option) | answer none (no option is) | answer bad (not well formed: "
    "not clear English, two options alike, no clear answer, or a context that makes no sense)"
)


class ApiError(Exception):
    def __init__(self, status: int, body: Any) -> None:
        detail = body.get("detail") if isinstance(body, dict) else None
        super().__init__(f"HTTP {status}: {detail or body}")
        self.status = status


class Api:
    def __init__(self, url: str, token: str) -> None:
        self.base = url.rstrip("/") + "/api/annotation/"
        self.token = token

    def call(self, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None) -> Any:
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.base + path, data=data, method=method)
        req.add_header("Authorization", f"Token {self.token}")
        req.add_header("Accept", "application/json")
        if data is not None:
            req.add_header("Content-Type", "application/json")
        for k, v in (headers or {}).items():
            req.add_header(k, v)
        try:
            with urllib.request.urlopen(req, timeout=60) as r:
                return json.loads(r.read() or b"null")
        except urllib.error.HTTPError as exc:
            raw = exc.read()
            try:
                payload = json.loads(raw)
            except ValueError:
                payload = raw.decode(errors="replace")[:300]
            raise ApiError(exc.code, payload) from None


def state_path(explicit: str | None, url: str, token: str) -> Path:
    if explicit:
        return Path(explicit)
    tag = hashlib.sha256(f"{url}\n{token}".encode()).hexdigest()[:12]
    return Path(tempfile.gettempdir()) / f"loop-reader-{tag}.json"


def load(path: Path) -> dict[str, Any]:
    if path.is_file():
        return json.loads(path.read_text())
    return {"current": None, "answered": 0, "by_campaign": {}, "shown": 0}


def save(path: Path, state: dict[str, Any]) -> None:
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(state))
    os.replace(tmp, path)


@dataclass(frozen=True)
class Role:
    """Whom the client serves: the campaigns' kind, how to reply, how an answer is read, what it says."""

    kind: str = "mcqa"
    how: str = HOW
    parse: Callable[[list[str], int], dict[str, Any]] = field(default=lambda w, n: parse_answer(w, n))
    waiting: str = (
        "Nothing to answer right now: the items left in {n} campaign(s) are being answered by others. "
        "Run `next` again in a minute."
    )
    finished: str = "Nothing left for you to answer. You answered {answered} items. Thank you!"
    saved: str = "Saved ({answered} answered)."
    verb: str = "answered"
    tag: str = ""  # the state file's: a reviewer's differs from an annotator's of the same token


ANNOTATOR = Role()


def campaigns(api: Api, listed: str | None, kind: str = "mcqa") -> list[str]:
    if listed:
        return [c.strip() for c in listed.split(",") if c.strip()]
    return [c["name"] for c in api.call("GET", "campaigns/") if c["kind"] == kind and c["status"] == "open"]


def show(item: dict[str, Any], number: int, how: str = HOW) -> None:
    p = item["payload"]
    print(f"Item {number}")
    print(f"Context: {p.get('context', '')}")
    print(f"Question: {p.get('stem', '')}")
    for i, o in enumerate(p.get("options", []), 1):
        print(f"  {i}. {o}")
    print(f"Reply with: {how}")


def next_item(api: Api, state: dict[str, Any], listed: str | None, role: Role = ANNOTATOR) -> bool:
    """Show the next item (the remembered one first, while it is still reserved for you); False
    when no campaign has work for you now."""
    order = campaigns(api, listed, role.kind)
    cur = state.get("current")
    if cur and cur["campaign"] in order:  # the same item until it is answered
        order.remove(cur["campaign"])
        order.insert(0, cur["campaign"])
    waiting, refused = [], ""
    for name in order:
        try:
            step = api.call("POST", f"campaigns/{name}/next/")
        except ApiError as exc:
            if exc.status == 404:  # not open to this account (any more)
                continue
            raise
        if step["state"] == "item":
            item = step["item"]
            if not cur or cur["id"] != item["id"]:
                state["shown"] = state.get("shown", 0) + 1
                state["current"] = {"campaign": name, "id": item["id"], "n_options": len(item["payload"]["options"])}
                state["current"]["number"] = state["shown"]
            show(item, state["current"]["number"], role.how)
            return True
        if step["state"] == "wait":
            waiting.append(name)
        elif step.get("message") and step["state"] == "done" and not refused and "did not" in step["message"]:
            refused = step["message"]  # a review stage refuses an annotator of its campaign
    state["current"] = None
    if waiting:
        print(role.waiting.format(n=len(waiting)))
    elif refused:
        print(refused)
    else:
        print(role.finished.format(answered=state.get("answered", 0)))
    return False


def parse_answer(words: list[str], n_options: int) -> dict[str, Any]:
    if not words:
        raise SystemExit(f"say which options: {HOW}")
    low = [w.lower().strip(",") for w in words]
    if low == ["none"]:
        return {"plausible": [], "none_correct": True}
    if low == ["bad"]:
        return {"plausible": [], "well_formed": False}
    picked = []
    for w in low:
        if not w.isdigit() or not 1 <= int(w) <= n_options:
            raise SystemExit(f"{w!r} is not an option number 1-{n_options}; {HOW}")
        picked.append(int(w) - 1)
    return {"plausible": sorted(set(picked))}


def main(argv: list[str] | None = None, role: Role = ANNOTATOR, doc: str | None = __doc__) -> int:
    ap = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--url", default=os.environ.get("LOOP_URL", "http://127.0.0.1:8000"))
    ap.add_argument("--token", default=os.environ.get("LOOP_TOKEN"))
    ap.add_argument("--campaigns", default=os.environ.get("LOOP_CAMPAIGNS"), help="comma-separated, in order")
    ap.add_argument("--state", default=os.environ.get("LOOP_STATE"))
    ap.add_argument("command", choices=("next", "answer", "status"))
    ap.add_argument("words", nargs="*", help=f"answer: {role.how}")
    a = ap.parse_args(argv)
    if not a.token:
        raise SystemExit("give your API token: --token TOKEN or LOOP_TOKEN=TOKEN")
    api = Api(a.url, a.token)
    path = state_path(a.state, a.url, a.token + role.tag)
    state = load(path)
    try:
        if a.command == "status":
            by = state.get("by_campaign", {})
            print(f"{role.verb} {state.get('answered', 0)} items" + (f" ({len(by)} campaigns)" if by else ""))
            if state.get("current"):
                print(f"item {state['current']['number']} is waiting for your answer (`next` shows it again)")
            return 0
        if a.command == "next":
            next_item(api, state, a.campaigns, role)
            return 0
        cur = state.get("current")
        if not cur:
            raise SystemExit("no item is waiting for an answer: run `next` first")
        answer = role.parse(a.words, cur["n_options"])
        key = hashlib.sha256(f"{a.token}{role.tag}:{cur['id']}".encode()).hexdigest()[:32]  # a retry stores one answer
        try:
            api.call(
                "POST",
                f"campaigns/{cur['campaign']}/items/{cur['id']}/response/",
                {"answer": answer},
                {"Idempotency-Key": key},
            )
            state["answered"] = state.get("answered", 0) + 1
            by = state.setdefault("by_campaign", {})
            by[cur["campaign"]] = by.get(cur["campaign"], 0) + 1
            print(role.saved.format(answered=state["answered"]) + "\n")
        except ApiError as exc:
            if exc.status != 409:
                raise
            print(f"Not saved: {exc} (your time on that item ran out). Here is the next one.\n")
        state["current"] = None
        next_item(api, state, a.campaigns, role)
        return 0
    except ApiError as exc:
        print(f"The server refused: {exc}", file=sys.stderr)
        return 1
    except urllib.error.URLError as exc:
        print(f"Cannot reach {a.url}: {exc.reason}", file=sys.stderr)
        return 1
    finally:
        save(path, state)


if __name__ == "__main__":
    raise SystemExit(main())
