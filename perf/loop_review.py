"""Review items through the REST API as a blind reviewer (issue 26's loop, the review stage; perf/RESULTS.md
"verification loop"). One command per item; it shows only what a reader sees - the context, the
question and the five options numbered 1-5 - and nothing else about the item.

    export LOOP_URL=http://127.0.0.1:8765 LOOP_TOKEN=<your token>
    python perf/loop_review.py next             # show the item to review (the same one until you answer)
    python perf/loop_review.py answer 3         # option 3 is the one answer you would defend
    python perf/loop_review.py answer several   # more than one option is defensible
    python perf/loop_review.py answer none      # no option is defensible
    python perf/loop_review.py answer unclear   # the item is not clear English
    python perf/loop_review.py status           # how many you have reviewed

How to review: read the context, the question and the five options as a careful reader would. If
exactly one option is an answer you would defend, give its number. If more than one option is
defensible - two options fit equally well, or say the same thing - answer "several". If no option
is defensible - none fits every event of the context and every part of the question - answer
"none". If the item is not clear English (broken grammar, odd word forms, placeholders, a question
you cannot make sense of), answer "unclear". Judge each item as it stands: your answer decides
whether it is published.

Items come from the open review campaigns your account sees (``--campaigns a,b,c`` or
``LOOP_CAMPAIGNS`` to choose), one at a time. The item you were shown is remembered in a small
state file (``--state`` / ``LOOP_STATE``; by default one per token and server in the system's
temporary folder). ``--token``/``--url`` override ``LOOP_TOKEN``/``LOOP_URL``.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import sys
import urllib.error
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from perf.loop_reader import Api, ApiError, load, save, state_path  # noqa: E402

HOW = (
    "answer N (the one option you would defend) | answer several (more than one is defensible) | "
    "answer none (no option is) | answer unclear (not clear English)"
)


def campaigns(api: Api, listed: str | None) -> list[str]:
    if listed:
        return [c.strip() for c in listed.split(",") if c.strip()]
    return [c["name"] for c in api.call("GET", "campaigns/") if c["kind"] == "review" and c["status"] == "open"]


def show(item: dict[str, Any], number: int) -> None:
    p = item["payload"]
    print(f"Item {number}")
    print(f"Context: {p.get('context', '')}")
    print(f"Question: {p.get('stem', '')}")
    for i, o in enumerate(p.get("options", []), 1):
        print(f"  {i}. {o}")
    print(f"Reply with: {HOW}")


def next_item(api: Api, state: dict[str, Any], listed: str | None) -> bool:
    order = campaigns(api, listed)
    cur = state.get("current")
    if cur and cur["campaign"] in order:
        order.remove(cur["campaign"])
        order.insert(0, cur["campaign"])
    waiting, refused = [], ""
    for name in order:
        try:
            step = api.call("POST", f"campaigns/{name}/next/")
        except ApiError as exc:
            if exc.status == 404:
                continue
            raise
        if step["state"] == "item":
            item = step["item"]
            if not cur or cur["id"] != item["id"]:
                state["shown"] = state.get("shown", 0) + 1
                state["current"] = {
                    "campaign": name,
                    "id": item["id"],
                    "n_options": len(item["payload"]["options"]),
                    "number": state["shown"],
                }
            show(item, state["current"]["number"])
            return True
        if step["state"] == "wait":
            waiting.append(name)
        elif "did not" in str(step.get("message", "")):
            refused = step["message"]
    state["current"] = None
    if waiting:
        print(
            "Nothing to review right now: the items left are being reviewed by others, or are still being "
            "annotated and come up for review as they settle. Run `next` again in a minute."
        )
    elif refused:
        print(refused)
    else:
        print(f"Nothing left for you to review. You reviewed {state.get('answered', 0)} items. Thank you!")
    return False


def parse_answer(words: list[str], n_options: int) -> dict[str, Any]:
    low = [w.lower().strip(",") for w in words]
    if len(low) != 1:
        raise SystemExit(f"give one answer: {HOW}")
    (w,) = low
    if w in ("several", "none", "unclear"):
        return {"verdict": w}
    if w.isdigit() and 1 <= int(w) <= n_options:
        return {"verdict": "one", "pick": int(w) - 1}
    raise SystemExit(f"{w!r} is not an option number 1-{n_options}, several, none or unclear; {HOW}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--url", default=os.environ.get("LOOP_URL", "http://127.0.0.1:8000"))
    ap.add_argument("--token", default=os.environ.get("LOOP_TOKEN"))
    ap.add_argument("--campaigns", default=os.environ.get("LOOP_CAMPAIGNS"), help="comma-separated, in order")
    ap.add_argument("--state", default=os.environ.get("LOOP_STATE"))
    ap.add_argument("command", choices=("next", "answer", "status"))
    ap.add_argument("words", nargs="*", help="answer: an option number, several, none or unclear")
    a = ap.parse_args(argv)
    if not a.token:
        raise SystemExit("give your API token: --token TOKEN or LOOP_TOKEN=TOKEN")
    api = Api(a.url, a.token)
    path = state_path(a.state, a.url, a.token + ":review")
    state = load(path)
    try:
        if a.command == "status":
            print(f"reviewed {state.get('answered', 0)} items")
            if state.get("current"):
                print(f"item {state['current']['number']} is waiting for your answer (`next` shows it again)")
            return 0
        if a.command == "next":
            next_item(api, state, a.campaigns)
            return 0
        cur = state.get("current")
        if not cur:
            raise SystemExit("no item is waiting for an answer: run `next` first")
        answer = parse_answer(a.words, cur["n_options"])
        key = hashlib.sha256(f"{a.token}:review:{cur['id']}".encode()).hexdigest()[:32]
        try:
            api.call(
                "POST",
                f"campaigns/{cur['campaign']}/items/{cur['id']}/response/",
                {"answer": answer},
                {"Idempotency-Key": key},
            )
            state["answered"] = state.get("answered", 0) + 1
            print(f"Saved ({state['answered']} reviewed).\n")
        except ApiError as exc:
            if exc.status != 409:
                raise
            print(f"Not saved: {exc} (your time on that item ran out). Here is the next one.\n")
        state["current"] = None
        next_item(api, state, a.campaigns)
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
