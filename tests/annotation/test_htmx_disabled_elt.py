"""The item form's htmx requests disable its buttons while they run (#29 item 7): every element that
sends (the form for Submit, the Skip button for Skip) resolves its own or inherited
`hx-disabled-elt` the way htmx 2 does, and the selectors must match both buttons - htmx logs
'The selector ... returned no matches!' as a console error otherwise. Checked on the full page
(annotation/_item.html) and on the htmx partial (annotation/views/item_box.py)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from html.parser import HTMLParser

import pytest
from django.urls import reverse

from tests.annotation.conftest import login

pytestmark = pytest.mark.django_db
VOID = {"input", "br", "hr", "img", "meta", "link", "source", "wbr", "area", "base", "col", "embed", "track"}


@dataclass(eq=False)
class Node:
    tag: str
    attrs: dict[str, str]
    parent: Node | None = field(repr=False)
    order: int
    children: list[Node] = field(default_factory=list, repr=False)

    def ancestors_or_self(self) -> list[Node]:
        out, node = [], self
        while node is not None:
            out.append(node)
            node = node.parent
        return out

    def descendants(self) -> list[Node]:
        out = []
        for c in self.children:
            out += [c, *c.descendants()]
        return out


class _Tree(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.root = Node("#root", {}, None, 0)
        self.all = [self.root]
        self.cur = self.root

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        node = Node(tag, {k: v or "" for k, v in attrs}, self.cur, len(self.all))
        self.cur.children.append(node)
        self.all.append(node)
        if tag not in VOID:
            self.cur = node

    def handle_endtag(self, tag: str) -> None:
        for node in self.cur.ancestors_or_self():
            if node.tag == tag:
                self.cur = node.parent or self.root
                return


SIMPLE = re.compile(r"^(?P<tag>[a-z]*)(?P<attrs>(\[[-\w]+(=[-\w]+)?\])*)$")


def _matches(node: Node, selector: str) -> bool:
    m = SIMPLE.match(selector.strip())
    assert m, f"selector {selector!r} is beyond this test's matcher"
    if m["tag"] and node.tag != m["tag"]:
        return False
    for name, _, value in re.findall(r"\[([-\w]+)(=([-\w]+))?\]", m["attrs"]):
        if name not in node.attrs or (value and node.attrs[name] != value):
            return False
    return True


def _disabled(elt: Node, tree: _Tree) -> list[Node]:
    """htmx 2.0's findAttributeTargets + querySelectorAllExt for the forms used here."""
    holder = next((n for n in elt.ancestors_or_self() if "hx-disabled-elt" in n.attrs), None)
    assert holder is not None, f"<{elt.tag}> sends without any hx-disabled-elt"
    found: list[Node] = []
    for part in (p.strip() for p in holder.attrs["hx-disabled-elt"].split(",")):
        hit: Node | None
        if part == "this":
            hit = elt
        elif part.startswith("find "):
            hit = next((n for n in elt.descendants() if _matches(n, part[5:])), None)
        elif part.startswith("closest "):
            hit = next((n for n in elt.ancestors_or_self() if _matches(n, part[8:])), None)
        elif part.startswith("previous "):
            hit = next((n for n in reversed(tree.all[: elt.order]) if _matches(n, part[9:])), None)
        elif part.startswith("next "):
            hit = next((n for n in tree.all[elt.order + 1 :] if _matches(n, part[5:])), None)
        else:
            raise AssertionError(f"unhandled hx-disabled-elt part {part!r}")
        if hit is not None:
            found.append(hit)
    return found


def _check(html: str) -> int:
    tree = _Tree()
    tree.feed(html)
    forms = [n for n in tree.all if n.tag == "form" and "item-form" in n.attrs.get("class", "")]
    assert len(forms) == 1
    buttons = [n for n in forms[0].descendants() if n.tag == "button"]
    assert {b.attrs.get("data-action") for b in buttons} == {"submit", "skip"}
    senders = [n for n in [forms[0], *forms[0].descendants()] if "hx-post" in n.attrs]
    assert len(senders) == 2  # the form (Submit, Enter) and Skip
    for sender in senders:
        disabled = _disabled(sender, tree)
        assert disabled, f"hx-disabled-elt on behalf of <{sender.tag}> matches nothing"
        assert set(disabled) == set(buttons), f"<{sender.tag} {sender.attrs.get('data-action')}> disables {disabled}"
    return len(senders)


def test_submit_and_skip_each_disable_both_buttons(mcqa_campaign, people) -> None:  # type: ignore[no-untyped-def]
    people("annotator", "ann")
    c = login("ann")
    page = c.get(reverse("annotation:work", args=[mcqa_campaign.name])).content.decode()
    assert _check(page) == 2
    part = c.get(reverse("annotation:item", args=[mcqa_campaign.name]), HTTP_HX_REQUEST="true").content.decode()
    assert _check(part) == 2


def test_set_name_patterns_compile_under_unicode_sets_mode(mcqa_campaign, people, researcher) -> None:  # type: ignore[no-untyped-def]
    """Chrome compiles `pattern` with the `v` flag, where a bare '-' in a class is a syntax error
    (the check is then dropped with a console error). Under `v`, '-' must be escaped; the
    reserved double punctuators and ( ) [ ] { } / | must not appear unescaped in a class."""
    page = researcher.get(reverse("annotation:dashboard", args=[mcqa_campaign.name])).content.decode()
    patterns = re.findall(r'pattern="([^"]*)"', page)
    assert patterns
    for p in patterns:
        for cls in re.findall(r"\[((?:\\.|[^\]\\])*)\]", p):
            body = re.sub(r"\\.", "", cls)
            unescaped_dash_outside_range = re.sub(r"\w-\w", "", body)
            assert "-" not in unescaped_dash_outside_range, f"pattern {p!r}: '-' unescaped in [{cls}] (invalid with /v)"
