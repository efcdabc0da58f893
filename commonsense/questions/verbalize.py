"""Rule-based verbalisation of queries (COM2 §3.3, Tables 7/8; CoCo Tables 6/8/9).

Questions are built recursively, outer relation first: a projection reads
"<prompt(r)> <phrase of its head>", an intersection "both A and also B" (with a comma before
"and also" when a branch is itself nested, as in the papers' ip/pi examples). The context names
the anchors, joined with "and", or in time order ("After A, B") when one anchor's relation points
forward in time and another's backward (COM2 Figure 1).
"""

from __future__ import annotations

from collections.abc import Callable

from commonsense.kg import relations

from ..queries.sampling import QAnchor, QNode, QProj, Query

Text = Callable[[int], str]
RelName = Callable[[int], str]


def prompt(rel: str) -> str:
    r = relations.get(rel)
    return r.prompt or f"what {r.statement}"


def question_prefix(rel: str) -> str:
    r = relations.get(rel)
    return r.question or f"What {r.statement}"


def one_hop_question(rel: str, head: str) -> str:
    """CoCo Table 6: "[prompt] h?" e.g. "What is the effect on PersonY after PersonX …?"."""
    return f"{question_prefix(rel)} {head}?"


# An event's text as the object of "what hindered …" ("PersonX from getting back"), or None to
# keep the template's words (:func:`commonsense.questions.fluent.hindered_phrase` for fluent text).
Hindered = Callable[[str], str | None]


def phrase(q: QNode, text: Text, rel: RelName, nested: bool = False, hindered: Hindered | None = None) -> str:
    if isinstance(q, QAnchor):
        return text(q.node)
    if isinstance(q, QProj):
        name = rel(q.rel)
        if hindered is not None and name == "HinderedBy" and isinstance(q.child, QAnchor):
            got = hindered(text(q.child.node))
            if got:
                return f"{prompt(name)} {got}"
        return f"{prompt(name)} {phrase(q.child, text, rel, nested=True, hindered=hindered)}"
    parts = [phrase(b, text, rel, hindered=hindered) for b in q.branches]
    complex_ = nested or any(not (isinstance(b, QProj) and isinstance(b.child, QAnchor)) for b in q.branches)
    if len(parts) == 2:
        sep = ", and also " if complex_ else " and also "
        return f"both {parts[0]}{sep}{parts[1]}"
    return "both " + ", ".join(parts[:-1]) + ", and also " + parts[-1]


def question(query: Query, text: Text, rel: RelName, hindered: Hindered | None = None) -> str:
    """The question; ``hindered`` rewrites the object of "what hindered" (fluent builds only: the
    papers' golden verbalisations keep COM2's words)."""
    root = query.root
    if isinstance(root, QProj) and isinstance(root.child, QAnchor):  # 1p: the Table 6 form
        return one_hop_question(rel(root.rel), text(root.child.node))
    return f"What event or state is {phrase(root, text, rel, hindered=hindered)}?"


def _anchor_paths(q: QNode, above: tuple[int, ...], out: list[tuple[int, tuple[int, ...], int]], branch: int) -> None:
    if isinstance(q, QAnchor):
        out.append((q.node, above, branch))
    elif isinstance(q, QProj):
        _anchor_paths(q.child, (q.rel, *above), out, branch)
    else:
        for i, b in enumerate(q.branches):
            _anchor_paths(b, above, out, i if branch < 0 else branch)


def _join(items: list[str]) -> str:
    if len(items) <= 2:
        return " and ".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def _cap(s: str) -> str:
    return s[:1].upper() + s[1:]


def context(
    query: Query, text: Text, rel: RelName, negated_branch: int | None = None, negate: Hindered | None = None
) -> str:
    """The anchors as a short narrative; the time direction of an anchor is the sign of the sum
    of its path's time orders (+1: the answer follows the anchor). ``negate`` words a negated
    anchor ("PersonX does not get up"; fluent builds, :func:`commonsense.questions.chain_phrasing.negated`),
    or None to keep "it did not happen that …"."""
    paths: list[tuple[int, tuple[int, ...], int]] = []
    _anchor_paths(query.root, (), paths, -1)
    neg = [p for p in paths if negated_branch is not None and p[2] == negated_branch]
    pos = [p for p in paths if p not in neg]

    def direction(p: tuple[int, tuple[int, ...], int]) -> int:
        s = sum(relations.get(rel(r)).time_order for r in p[1])
        return (s > 0) - (s < 0)

    before = [text(p[0]) for p in pos if direction(p) > 0]
    rest = [text(p[0]) for p in pos if direction(p) <= 0]
    after = [text(p[0]) for p in pos if direction(p) < 0]
    if before and after:
        out = f"After {_join(before)}, {_join(rest)}"
    else:
        out = _join([text(p[0]) for p in pos])
    if neg:
        said = [negate(text(p[0])) if negate is not None else None for p in neg]
        if all(said):
            out += ", but " + _join([s for s in said if s])
        else:
            out += ", but it did not happen that " + _join([text(p[0]) for p in neg])
    return _cap(out) + "."
