"""The English rules as a table: one :class:`Rule` per check of :mod:`.text_rules`, with its name,
what it catches, and the texts it must accept and must reject (``tests/commonsense/test_text_rules.py``
is generated from them). A rule is a function of a display text's tokens that returns why the text
does not read as English, or None; :func:`rule` registers one, in the order the rules are tried.

The rules' version (:func:`source_version`) is a digest of their source, read as Python's syntax
tree without comments or docstrings: a change to what a rule does changes it, a change to its
wording does not. It keys every cache of the rules' verdicts (the graph index, stored node text).
"""

from __future__ import annotations

import ast
import hashlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass

# (tokens, the text) -> why the text is no English, or None
Check = Callable[[list[str], str], str | None]


@dataclass(frozen=True)
class Rule:
    name: str
    catches: str  # what it catches, in a sentence
    check: Check
    accept: tuple[str, ...]  # display texts the rule must let through (and that read as English)
    reject: tuple[str, ...]  # display texts this rule must be the one to reject
    gate: bool = False  # when it fires, no later rule is tried (the others assume what it checks)
    library: str = ""  # the library that decides it, if any (Link Grammar, lemminflect, inflect)


RULES: list[Rule] = []


def rule(
    name: str,
    catches: str,
    *,
    accept: Iterable[str],
    reject: Iterable[str],
    gate: bool = False,
    library: str = "",
) -> Callable[[Check], Check]:
    """Register the decorated check as the next rule of the table."""

    def register(check: Check) -> Check:
        if any(r.name == name for r in RULES):
            raise ValueError(f"two rules are named {name!r}")
        RULES.append(Rule(name, catches, check, tuple(accept), tuple(reject), gate, library))
        return check

    return register


class _Bare(ast.NodeTransformer):
    """Drops docstrings (comments never reach the tree)."""

    def _strip(self, node: ast.AST) -> ast.AST:
        body = getattr(node, "body", None)
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
            if isinstance(body[0].value.value, str):
                node.body = body[1:] or [ast.Pass()]  # type: ignore[attr-defined]
        self.generic_visit(node)
        return node

    visit_Module = visit_FunctionDef = visit_ClassDef = visit_AsyncFunctionDef = _strip


def source_version(sources: Iterable[tuple[str, str]]) -> str:
    """A digest of ``(name, Python source)`` pairs that changes when the code does and not when a
    comment or a docstring does."""
    digest = hashlib.sha256()
    for name, source in sources:
        tree = _Bare().visit(ast.parse(source))
        digest.update(name.encode())
        digest.update(ast.dump(tree, annotate_fields=False, include_attributes=False).encode())
    return digest.hexdigest()[:12]
