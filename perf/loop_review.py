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

import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from perf.loop_reader import Role  # noqa: E402
from perf.loop_reader import main as reader_main  # noqa: E402

HOW = (
    "answer N (the one option you would defend) | answer several (more than one is defensible) | "
    "answer none (no option is) | answer unclear (not clear English)"
)


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


REVIEWER = Role(
    kind="review",
    how=HOW,
    parse=parse_answer,
    waiting=(
        "Nothing to review right now: the items left are being reviewed by others, or are still being "
        "annotated and come up for review as they settle. Run `next` again in a minute."
    ),
    finished="Nothing left for you to review. You reviewed {answered} items. Thank you!",
    saved="Saved ({answered} reviewed).",
    verb="reviewed",
    tag=":review",
)


def main(argv: list[str] | None = None) -> int:
    return reader_main(argv, REVIEWER, __doc__)


if __name__ == "__main__":
    raise SystemExit(main())
