"""Node text as data (issue 27 item 1): each node of a query graph, as questions show it and as
the text rules judge it, computed once and kept (``knowledge.NodeText``), so that builds, the
explorer and ``manage.py text_rules`` read one verdict per node instead of computing it again.

A *node* here is a text as the query graph knows it: a head cleaned (:func:`commonsense.kg.normalize.clean`),
a tail given its subject (COM2 Table 5, :func:`commonsense.kg.normalize.normalize_tail`). Its
*display* is :func:`commonsense.questions.fluent.display_form` (present tense, "people"), its
*verdict* the first rule of :mod:`.text_rules` that rejects the display ("" when it reads as English).
Whether a tail answers its relation (:func:`commonsense.questions.wellformed.misfit`) depends on
the relation, not on the node, and stays with the edge filter.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from commonsense.kg.normalize import clean, normalize_tail


@dataclass(frozen=True)
class TextVerdict:
    display: str
    rule: str  # the rule that rejects the display text, "" when it reads as English
    reason: str  # that rule's words ("" when readable)

    @property
    def readable(self) -> bool:
        return not self.rule

    @property
    def why(self) -> str | None:
        """:func:`commonsense.questions.text_rules.unreadable` of the display."""
        return self.reason or None


def judge(text: str) -> TextVerdict:
    """The display and the verdict of a node text, as the rules compute them now."""
    from .fluent import display_form
    from .text_rules import verdict

    shown = display_form(text)
    got = verdict(shown)
    return TextVerdict(shown, got[0], got[1]) if got else TextVerdict(shown, "", "")


def event_texts(records: Iterable[tuple[str, str, str]]) -> Iterator[tuple[str, str]]:
    """Every node text of ``(head, relation, tail)`` records, as ``(node text, the graph's own text
    it came from)``: the head cleaned, the tail with its subject. Texts repeat; callers dedupe."""
    for h, r, t in records:
        yield clean(h), h
        yield normalize_tail(r, t), t


def differences(old: dict[str, TextVerdict], new: dict[str, TextVerdict]) -> set[str]:
    """The node texts whose display or verdict differs between two computations."""
    return {k for k, v in new.items() if old.get(k) != v}
