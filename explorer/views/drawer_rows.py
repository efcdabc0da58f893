"""The drawer's rows (``templates/explorer/_drawer_item.html``) built in Python: the items behind a
bar, 100 a page on the drawer's page (500 on one page before), where Django's template engine (a
node walk and some twenty variable lookups per row, a ``{% url %}`` per row and per other run) took
more than half of the page's time.

The output is the template's, character for character, without the file's final newline:
``tests/explorer/test_drawer_rows.py`` renders both for questions and statements (triples with and
without a source, votes of every shape, other runs, no answer, text that needs escaping) and
compares them. A change to the template must be made here too, or that test fails."""

from __future__ import annotations

import html
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from django.template.defaultfilters import floatformat, join
from django.urls import get_script_prefix, reverse
from django.utils.formats import localize
from django.utils.html import conditional_escape
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import get_language

from explorer.selectors.drawer import DrawerRow

_MISSING = object()
_REF = 987654321  # a placeholder id, split out of a reversed URL


def _v(value: Any) -> str:
    """``{{ value }}``: localized, autoescaped (a missing lookup renders as "")."""
    if type(value) is str:  # Django's escape() of a plain str, without its lazy-text and SafeString wrappers
        return html.escape(value)
    if value is _MISSING:
        return ""
    if type(value) is int:
        return _int(value, get_language())
    return str(conditional_escape(value if isinstance(value, str) else str(localize(value))))


@lru_cache(maxsize=4096)
def _int(value: int, language: str | None) -> str:
    """``{{ value }}`` of an int (ids, positions, counts): localized once per value - Django's
    localize() took 40 % of a 500-row drawer's time at 15 runs (one call per id of every other run).
    Keyed by the active language, whose formats localize() follows."""
    return str(conditional_escape(str(localize(value))))


def _key(obj: Any, key: str) -> Any:
    """The template's lookup of ``obj.key`` in stored JSON: a dict key, else missing."""
    if isinstance(obj, dict) and key in obj:
        return obj[key]
    return _MISSING


def _or(value: Any) -> Any:
    """A lookup's value in a template ``{% if %}`` (a missing one is None)."""
    return None if value is _MISSING else value


def _floatformat(value: Any, digits: int) -> str:
    """``{{ value|floatformat:digits|default:"–" }}``."""
    return str(floatformat("" if value is _MISSING else value, digits)) or "–"


@lru_cache(maxsize=256)
def _url_around(view: str, prefix: str) -> tuple[str, str]:
    """``reverse(view, args=[id])`` split around the id: once per view and script prefix."""
    head, found, tail = reverse(view, args=[_REF]).partition(str(_REF))
    assert found, view
    return head, tail


def _url(view: str, pk: Any) -> str:
    head, tail = _url_around(view, get_script_prefix())
    return f"{head}{pk}{tail}"


def _triples(item: Any) -> str:
    out = []
    for t in getattr(item, "source_triples", ()):
        line = f"<br>({_v(t.head.text)}, {_v(t.relation.name)}, {_v(t.tail.text)})"
        if t.source:
            line += f" from {_v(t.source.filename)}:{_v(t.source_line)}"
        out.append(line)
    return "".join(out)


def _question(row: DrawerRow) -> str:
    q, p = row.item, row.p
    options = "".join(
        f'<li class="{"gold" if i == q.answer_index else ""}{" chosen" if i == p.chosen else ""}">{_v(o)}</li>'
        for i, o in enumerate(q.options or ())
    )
    verdict = '<span class="ok">correct</span>' if p.correct else '<span class="bad">wrong</span>'
    facets = (f" · {_v(q.structure)}" if q.structure else "") + (f" · {_v(q.role)}" if q.role else "")
    return (
        f'\n  <p><a href="{_url("explorer:question", q.pk)}">{_v(q.stem)}</a></p>'
        f'\n  <ol type="A" class="options">{options}</ol>'
        f'\n  <p class="note">{verdict} · {_v(q.question_set.name)} #{_v(q.position)}{facets}'
        f"\n  {_triples(q)}</p>\n"
    )


def _statement(row: DrawerRow) -> str:
    s, p = row.item, row.p
    majority = {None: "–", 0: "no", 1: "yes"}.get(s.human_majority, _v(s.human_majority))
    p_yes = _floatformat(_key(_key(p.extra, "q1"), "p_yes"), 3)
    verdict = '<span class="ok">agrees</span>' if p.correct else '<span class="bad">disagrees</span>'
    return (
        f"\n  <p>{_v(s.text)}</p>"
        f'\n  <p class="note">{_v(s.statement_set.name)} #{_v(s.position)} · human majority {majority} · '
        f"P(yes) {p_yes} · {verdict}</p>\n"
    )


def _votes(row: DrawerRow) -> str:
    v = row.votes
    if not v:
        return '<p class="note">human votes: none yet</p>'
    votes = _key(v, "votes")
    ticks, agree_yes = _or(_key(votes, "option_ticks")), _or(_key(votes, "agree_yes"))
    detail = ""
    if ticks:
        detail = f", plausible ticks {join(ticks, '/', autoescape=True)}"
    elif agree_yes is not None:
        detail = f", {_v(agree_yes)} of {_v(_key(votes, 'n'))} agree"
    return (
        f'<p class="note">human: {_v(_key(v, "raters"))} raters, agreement '
        f"{_floatformat(_key(v, 'agreement'), 2)}, {_v(_key(v, 'provenance'))}{detail}</p>"
    )


def _others(row: DrawerRow) -> str:
    if not row.others:
        return ""
    prefix = get_script_prefix()
    links = ", ".join(_other(o.run_id, bool(o.correct), prefix) for o in row.others)
    return f'<p class="note">other runs: {links}</p>'


@lru_cache(maxsize=4096)
def _other(run_id: int, correct: bool, prefix: str) -> str:
    """Another run's answer: a link to its page and a tick or a cross (made once per run and verdict)."""
    head, tail = _url_around("explorer:run_errors", prefix)
    mark = '<span class="ok">✓</span>' if correct else '<span class="bad">✗</span>'
    return f'<a href="{head}{run_id}{tail}">#{_v(run_id)}</a> {mark}'


def row_html(row: DrawerRow, is_statement: bool) -> str:
    """One row, as ``explorer/_drawer_item.html`` renders it."""
    body = _statement(row) if is_statement else _question(row)
    return f'<div class="item" data-item="{_v(row.item.pk)}">\n{body}\n  {_votes(row)}\n  {_others(row)}\n</div>'


def rows_html(rows: Sequence[DrawerRow], is_statement: bool) -> SafeString:
    """The drawer's rows, or the template's "No items." (every value is escaped above)."""
    return mark_safe("".join(row_html(r, is_statement) for r in rows) or "<p>No items.</p>")
