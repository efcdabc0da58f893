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
import weakref
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from commonsense.kg.index import GraphIndex
from commonsense.kg.normalize import clean, normalize_tail

from . import distractors
from .display import Display
from .record import BuiltQuestion

if TYPE_CHECKING:
    from .com2 import OptionCandidate

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
    from .repairs import display_form

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


_SHOWN: weakref.WeakKeyDictionary[GraphIndex, tuple[Display, dict[int, str]]] = weakref.WeakKeyDictionary()


def _shown(index: GraphIndex) -> tuple[Display, dict[int, str]]:
    got = _SHOWN.get(index)
    if got is None:
        got = _SHOWN[index] = (Display(index, fluent_text=False), {})
    return got


def head_shown(index: GraphIndex, node: int) -> str | None:
    """A head as CoCo shows it: an ATOMIC blank filled from the graph (``isFilledBy``), None when
    the graph cannot fill it (such a head is asked about nowhere)."""
    text = index.names[node]
    if BLANK not in text:
        return text
    return _shown(index)[0].fills.get(node)


def option_texts(index: GraphIndex) -> Callable[[int], str]:
    """A node as an option: :func:`option_form` of the relation it is a tail of (the first of its
    in-edges, best first; a node that is no tail keeps its text, tidied)."""
    memo = _shown(index)[1]

    def shown(node: int) -> str:
        got = memo.get(node)
        if got is None:
            rels, _ = index.in_edges(node)
            text = index.names[node]
            got = memo[node] = option_form(index.rel_names[int(rels[0])], text) if rels.shape[0] else tidy(text)
        return got

    return shown


def other_words(index: GraphIndex, keys: set[str]) -> distractors.Reject:
    """No distractor that says what an answer says (or another option says), nor one with a blank."""
    shown = option_texts(index)

    def reject(node: int, chosen: list[int]) -> str | None:
        key = answer_key(shown(node))
        if key in keys or BLANK in index.names[node]:
            return "an answer in other words"
        if any(answer_key(shown(c)) == key for c in chosen):
            return "another option in other words"
        return None

    return reject


def not_an_answer(c: OptionCandidate) -> str | None:
    """An application distractor that says what an accepted answer says, or holds a blank."""
    if BLANK in c.text or answer_key(c.text) in {answer_key(a) for a in c.answers}:
        return "an answer in other words"
    return None


def tidy_question(q: BuiltQuestion) -> None:
    """Clitics joined in every text a reader sees ("does n't" -> "doesn't")."""
    q.context, q.question = join_clitics(q.context), join_clitics(q.question)
    q.options = [join_clitics(o) for o in q.options]
    q.answers = [join_clitics(a) for a in q.answers]
    q.anchors = [join_clitics(a) for a in q.anchors]
