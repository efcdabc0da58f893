"""Node text as data (issue 27 item 1): each node of a query graph, as questions show it and as
the text rules judge it, computed once and kept (``knowledge.NodeText``), so that builds, the
explorer and ``manage.py text_rules`` read one verdict per node instead of computing it again.

A *node* here is a text as the query graph knows it: a head cleaned (:func:`commonsense.kg.normalize.clean`),
a tail given its subject (COM2 Table 5, :func:`commonsense.kg.normalize.normalize_tail`). Its
*display* is :func:`commonsense.questions.repairs.display_form` (present tense, "people", display repairs), its
*verdict* the first rule of :mod:`.text_rules` that rejects the display ("" when it reads as English).
Whether a tail answers its relation (:func:`commonsense.questions.wellformed.misfit`) depends on
the relation, not on the node, and stays with the edge filter.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Iterable, Iterator, Sequence
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
    from .repairs import display_form
    from .text_rules import verdict

    shown = display_form(text)
    got = verdict(shown)
    return TextVerdict(shown, got[0], got[1]) if got else TextVerdict(shown, "", "")


def _judge_chunk(texts: list[str]) -> list[TextVerdict]:
    return [judge(t) for t in texts]


def judge_many(texts: Sequence[str], processes: int = 1, chunk: int = 1000) -> Iterator[tuple[str, TextVerdict]]:
    """:func:`judge` of every text, in order; with ``processes`` > 1 in that many forked workers
    (each text is judged by the same code in another process: the verdicts are the same). Most of a
    verdict's time is the Link Grammar parse and the rules' Python, one text at a time, so the work
    splits by text; a fork shares the loaded lexicons and the parser's dictionary with the workers."""
    if (
        processes <= 1
        or len(texts) < 2 * chunk
        or "fork" not in multiprocessing.get_all_start_methods()
        or multiprocessing.current_process().daemon  # a daemon (a Celery prefork child) may not fork workers
    ):
        for t in texts:
            yield t, judge(t)
        return
    parts = [list(texts[i : i + chunk]) for i in range(0, len(texts), chunk)]
    with multiprocessing.get_context("fork").Pool(processes) as pool:
        for part, got in zip(parts, pool.imap(_judge_chunk, parts), strict=True):
            yield from zip(part, got, strict=True)


def event_texts(records: Iterable[tuple[str, str, str]]) -> Iterator[tuple[str, str]]:
    """Every node text of ``(head, relation, tail)`` records, as ``(node text, the graph's own text
    it came from)``: the head cleaned, the tail with its subject. Texts repeat; callers dedupe."""
    for h, r, t in records:
        yield clean(h), h
        yield normalize_tail(r, t), t


def differences(old: dict[str, TextVerdict], new: dict[str, TextVerdict]) -> set[str]:
    """The node texts whose display or verdict differs between two computations."""
    return {k for k, v in new.items() if old.get(k) != v}
