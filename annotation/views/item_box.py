"""The annotators' item box (``templates/annotation/_item.html``) built in Python, for the htmx
answers of the work page: every submit's response is this fragment, and Django's template engine
(a node walk, four ``{% url %}``, the context processors) was an eighth of the submit's CPU.

The output is the template's, character for character: ``tests/annotation/test_item_box.py``
renders both over every kind of campaign and state (answers shown again, errors, progress, roles,
text that needs escaping) and compares them. The template stays the source of the full work page
(``annotation/work.html`` includes it) and of the crowd's box (``annotation/crowd/_item.html``
extends it); a change to it must be made here too, or that test fails."""

from __future__ import annotations

import itertools
import re
from functools import lru_cache
from html import escape
from typing import Any

from django.core.signals import setting_changed
from django.urls import get_script_prefix, reverse
from django.utils.safestring import SafeData

from annotation.models import Campaign
from cocoweb.csrf import get_token
from commonsense.validation import NOT_WELL_FORMED


def _e(value: Any) -> str:
    """``{{ value }}`` with autoescaping (and ``{% localize off %}``: numbers as ``str``)."""
    if isinstance(value, SafeData):
        return str(value)
    return escape(str(value))


def _get(mapping: Any, key: str) -> Any:
    """``{{ mapping.key }}`` of a dict: a missing key renders as an empty string."""
    if isinstance(mapping, dict):
        return mapping.get(key, "")
    return ""


_REF = "cocoweb0item0ref"
_PLAIN = re.compile(r"[A-Za-z0-9_.~-]+")  # characters a URL carries as they are (RFC 3986 unreserved)


@lru_cache(maxsize=1024)
def _url_around(view: str, campaign: str, prefix: str) -> tuple[str, str]:
    """``reverse(view, args=[campaign, ref])`` split around ``ref``: once per campaign (and script
    prefix), not twice per answer."""
    url = reverse(view, args=[campaign, _REF])
    head, found, tail = url.partition(_REF)
    assert found, url
    return head, tail


def _urls_changed(*, setting: str, **_: Any) -> None:
    if setting == "ROOT_URLCONF":
        _url_around.cache_clear()


setting_changed.connect(_urls_changed, dispatch_uid="annotation.views.item_box.urls")


def _item_url(view: str, campaign: str, ref: str) -> str:
    if not _PLAIN.fullmatch(ref):  # quoting or refusal: reverse() decides
        return reverse(view, args=[campaign, ref])
    head, tail = _url_around(view, campaign, get_script_prefix())
    return head + ref + tail


def render(request: Any, ctx: dict[str, Any], *, crowd: bool = False) -> str:
    """The item box for the context :func:`annotation.views.annotator._item_context` builds; ``crowd``: the
    crowd's box (``annotation/crowd/_item.html``: the qualification result, no campaign list)."""
    step, campaign, progress, error = ctx["step"], ctx["campaign"], ctx["progress"], ctx["error"]
    views = ctx["item_views"]
    out = ['\n<div class="item-box" data-state="', _e(step.state), '">\n  ']
    if progress.total is not None:
        total, done = _e(progress.total), _e(progress.done)
        out += [
            f'<div class="progress"><progress max="{total}" value="{done}"></progress>\n'
            f'    <span class="progress-label">{_e(progress.label)} {done} / {total}</span></div>'
        ]
    out.append("\n  ")
    if error:
        out += ['<div class="msg msg-error" role="alert">', _e(error), "</div>"]
    out.append("\n  ")
    if crowd:
        out.append(_passed(ctx.get("membership")))
    out.append("\n  ")
    if step.state == "item":
        _item(request, ctx, campaign, views, out)
    elif step.state == "wait":
        poll = _e(reverse(views["poll"], args=[campaign.name]))
        work = _e(reverse(views["work"], args=[campaign.name]))
        out += [
            f'\n    <div class="card done" hx-get="{poll}" hx-trigger="every 5s"\n'
            f'         hx-target="#item" hx-swap="innerHTML"><p>{_e(step.message)}</p><p><a href="{work}">'
            "Look again now</a></p></div>\n  "
        ]
    elif crowd:
        out += ['\n    <div class="card done"><p>', _e(step.message), "</p></div>\n  "]
    else:
        index = _e(reverse("annotation:index"))
        out += [
            f'\n    <div class="card done"><p>{_e(step.message)}</p><p><a href="{index}">Back to the campaigns</a>'
            "</p></div>\n  "
        ]
    out.append("\n</div>\n\n")
    return "".join(out)


def _item(request: Any, ctx: dict[str, Any], campaign: Campaign, views: dict[str, str], out: list[str]) -> None:
    item, ref = ctx["item"], ctx["item_ref"]
    payload = item.payload
    previous = ctx.get("previous", "")
    kind = campaign.kind
    submit = _e(_item_url(views["submit"], campaign.name, ref))
    out += [
        f'\n  <form class="card item-form" data-annotate="{_e(kind)}" data-item="{_e(ref)}" method="post"\n'
        f'        action="{submit}"\n'
        f'        hx-post="{submit}" hx-target="#item" hx-swap="innerHTML"\n'
        '        hx-disabled-elt="find button[data-action=submit], find button[data-action=skip]">\n'
        f'    <input type="hidden" name="csrfmiddlewaretoken" value="{_e(get_token(request))}">\n'
        f'    <input type="hidden" name="idempotency_key" value="{_e(ctx["idempotency_key"])}">\n'
        '    <input type="hidden" name="elapsed_ms" value="">\n    '
    ]
    if item.role == "qualification":
        out.append('<p class="tag">Qualification question</p>')
    out.append("\n    ")
    if kind == "survey":
        out += ['\n      <blockquote class="statement">', _e(_get(payload, "text")), "</blockquote>\n      "]
        for q, letter in zip(ctx.get("survey_questions", ""), itertools.cycle("abc")):
            name = _e(q["name"])
            yes = " checked" if q["value"] == 1 else ""
            no = " checked" if q["value"] == 0 else ""
            out += [
                f'\n      <fieldset class="yn" data-question="{name}"><legend>({letter}) {_e(q["text"])}</legend>\n'
                f'        <label class="choice"><input type="radio" name="{name}" value="yes" required{yes}> Yes</label>\n'
                f'        <label class="choice"><input type="radio" name="{name}" value="no"{no}> No</label>\n'
                "      </fieldset>\n      "
            ]
        out.append("\n    ")
    elif kind == "mcqa":
        out.append("\n      ")
        _context(payload, out)
        out += [
            '\n      <p class="question"><strong>Question:</strong> ',
            _e(_get(payload, "stem")),
            '</p>\n      <fieldset class="options"><legend>Tick every plausible answer</legend>\n      ',
        ]
        for o in ctx.get("options", ""):
            key = _e(o["key"])
            checked = " checked" if o["checked"] else ""
            out += [
                f'\n        <label class="choice"><input type="checkbox" name="plausible" value="{_e(o["index"])}" '
                f'data-key="{key}"{checked}>\n'
                f"          <kbd>{key}</kbd> {_e(o['text'])}</label>\n      "
            ]
        none = " checked" if _get(previous, "none_correct") and not _get(previous, "plausible") else ""
        bad = " checked" if _get(previous, "bad_context") else ""
        out += [
            '\n        <label class="choice"><input type="checkbox" name="none_correct" value="yes" data-key="0"',
            none,
            "> <kbd>0</kbd> No answers are correct.</label>\n"
            '        <label class="choice"><input type="checkbox" name="bad_context" value="yes" data-key="x"',
            bad,
            f"> <kbd>X</kbd> {_e(NOT_WELL_FORMED)}</label>\n      </fieldset>\n    ",
        ]
    elif kind == "review":
        out.append("\n      ")
        _context(payload, out)
        out += [
            '\n      <p class="question"><strong>Question:</strong> ',
            _e(_get(payload, "stem")),
            '</p>\n      <fieldset class="options"><legend>The one answer you would defend</legend>\n      ',
        ]
        for o in ctx.get("options", ""):
            key = _e(o["key"])
            checked = " checked" if o["checked"] else ""
            out += [
                f'\n        <label class="choice"><input type="radio" name="review" value="{_e(o["index"])}" '
                f'data-key="{key}" required{checked}>\n'
                f"          <kbd>{key}</kbd> {_e(o['text'])}</label>\n      "
            ]
        out.append("\n      ")
        for v in ctx.get("review_verdicts", ""):
            checked = " checked" if v["checked"] else ""
            out += [
                f'\n        <label class="choice"><input type="radio" name="review" value="{_e(v["value"])}" '
                f'data-key="{_e(v["key"])}" required{checked}> <kbd>{_e(str(v["key"]).upper())}</kbd> '
                f"{_e(v['text'])}</label>\n      "
            ]
        out.append("\n      </fieldset>\n    ")
    elif kind == "generation":
        out.append("\n      ")
        _context(payload, out)
        out += [
            '\n      <p class="question"><strong>Question:</strong> ',
            _e(_get(payload, "stem")),
            '</p>\n      <blockquote class="statement generation"><strong>Generated answer:</strong> ',
            _e(_get(payload, "generation")),
            "</blockquote>\n"
            '      <fieldset class="options"><legend>Is the generated answer right for the whole question?</legend>\n      ',
        ]
        for j in ctx.get("judgements", ""):
            key = _e(j["key"])
            checked = " checked" if j["checked"] else ""
            out += [
                f'\n        <label class="choice"><input type="radio" name="judgement" value="{_e(j["value"])}" '
                f'data-key="{key}" required{checked}>\n'
                f"          <kbd>{key}</kbd> <strong>{_e(j['name'])}</strong>: {_e(j['help'])}</label>\n      "
            ]
        out.append("\n      </fieldset>\n    ")
    else:
        out.append(
            '\n      <p class="question"><strong>Which of the statements follows commonsense?</strong></p>\n      '
        )
        previous_choice = ctx.get("previous_choice", "")
        for i, s in enumerate(_get(payload, "statements")):
            checked = " checked" if previous_choice == i else ""
            out += [
                f'\n      <label class="choice pair"><input type="radio" name="choice" value="{i}" data-key="{i + 1}" '
                f"required{checked}>\n"
                f"        <kbd>{i + 1}</kbd> Statement {i + 1}: {_e(s)}</label>\n      "
            ]
        out.append("\n    ")
    out.append(
        '\n    <div class="actions">\n'
        '      <button type="submit" data-action="submit">Submit <kbd>Enter</kbd></button>\n      '
    )
    if item.role != "qualification":
        skip = _e(_item_url(views["skip"], campaign.name, ref))
        out.append(
            f'\n      <button type="submit" class="secondary" data-action="skip" formnovalidate formaction="{skip}"\n'
            f'              hx-post="{skip}" hx-target="#item"\n'
            '              hx-disabled-elt="this, previous button[data-action=submit]">Skip <kbd>S</kbd></button>\n      '
        )
    out.append("\n    </div>\n  </form>\n  ")


def _context(payload: Any, out: list[str]) -> None:
    context = _get(payload, "context")
    if context:
        out += ['<p class="context"><strong>Context:</strong> ', _e(context), "</p>"]


def _passed(m: Any) -> str:
    """The crowd box's notice: the qualification just passed, with its score."""
    if m is None or m.qualification_score is None or m.state != "active" or m.regular_answered:
        return ""
    score = round(float(m.qualification_score) / 1.0 * 100)  # {% widthratio score 1 100 %}
    return (
        '\n  <div class="msg msg-success qualification-passed" role="status">You passed the qualification: '
        f"your score is {score} %.</div>\n  "
    )
