"""CoCo's text and options (issue 27 item 7): the graph's raw ATOMIC text as a question shows it.

CoCo's memorization and comprehension questions showed raw tails as options, and ATOMIC writes
them in several forms: "Call Person X", "to call PersonX", "PersonY dies.", "happy"; it splits
clitics ("does n't") and its heads keep ``___`` blanks. Here every option is shown in **one form**
(:func:`option_form`): the event the tail stands for under its relation, with its subject (COM2
Table 5 / CoCo Table 7, the form of CoCo's own application options: "PersonX curl hair"), in the
present tense COM2's questions use, clitics joined. So no distractor can be an accepted answer in
other words: options are compared by what they say (:func:`answer_key`), and "to go" (a want) and
"go" (an effect) meet as "PersonX goes".
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from commonsense.kg.normalize import clean, normalize_tail

_CLITIC = re.compile(r"\s+(n't|'s|'re|'ll|'ve|'m|'d)\b")
BLANK = "___"


def join_clitics(text: str) -> str:
    """ "does n't" -> "doesn't", "PersonX 's" -> "PersonX's" (and nothing else)."""
    return _CLITIC.sub(r"\1", text)


def tidy(text: str) -> str:
    """Whitespace, "Person X" spelt "PersonX", no trailing full stop, clitics joined ("does n't" ->
    "doesn't", "PersonX 's" -> "PersonX's")."""
    return _CLITIC.sub(r"\1", clean(text))


def option_form(relation: str, tail: str) -> str:
    """``tail`` as an option of a question about ``relation``: the event it stands for, with its
    subject (COM2 Table 5 / CoCo Table 7), in the present tense questions use
    (:func:`commonsense.questions.wellformed.display_form`): "Call Person X" under xWant is
    "PersonX calls PersonX", "PersonY dies."
    under oEffect "PersonY dies", "happy" under xReact "PersonX is happy". One form for every
    relation, the form of CoCo's own application options."""
    from .fluent import display_form

    text = tidy(tail)
    if text[:1].isupper() and text[1:2].islower() and not text.startswith(("Person", "People", "I ")):
        text = text[:1].lower() + text[1:]  # "Caring", "Call PersonX": a capital only on a name
    return join_clitics(display_form(normalize_tail(relation, text)))


def answer_key(text: str) -> str:
    """What an option says, to compare options: casefolded, spaces collapsed (options are events
    in one form, :func:`option_form`, so "to go" under xWant and "go" under xEffect meet as
    "PersonX goes")."""
    return " ".join(tidy(text).casefold().split())


def split_tokens(text: str) -> bool:
    """A clitic written as a word of its own (" n't", " 's"): ATOMIC's tokenisation showing."""
    return bool(_CLITIC.search(text))


def checks(items: Iterable[dict[str, object]]) -> dict[str, int]:
    """CoCo's text faults counted over items (context, question, options, answer_index, answers):
    ``___`` blanks, split clitics, and a distractor that is an accepted answer in other words."""
    out = {"items": 0, "blanks": 0, "split_tokens": 0, "distractor_is_an_answer": 0}
    for it in items:
        opts = [str(o) for o in it.get("options") or []]  # type: ignore[attr-defined]
        texts = [str(it.get("context") or ""), str(it.get("question") or ""), *opts]
        out["items"] += 1
        out["blanks"] += any(BLANK in t for t in texts)
        out["split_tokens"] += any(split_tokens(t) for t in texts)
        gold = it.get("answer_index")
        keys = {answer_key(str(a)) for a in it.get("answers") or []}  # type: ignore[attr-defined]
        if isinstance(gold, int) and 0 <= gold < len(opts):
            keys.add(answer_key(opts[gold]))
        out["distractor_is_an_answer"] += any(answer_key(o) in keys for i, o in enumerate(opts) if i != gold)
    return out
