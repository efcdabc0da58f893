"""Does a display text read as English? The rules of the table (:mod:`.rule_table`), tried in order:
:mod:`.rules_words` (words, articles, capitals), :mod:`.rules_sentence` (subject, verb, persons,
possessives), :mod:`.rules_phrase` (count nouns, endings, idioms, the Link Grammar parse). The first
rule that fires decides; :func:`firing` lists every rule that fires (the per-rule report of
``manage.py text_rules``). :data:`RULES_VERSION` is derived from the rules' source.
"""

from __future__ import annotations

import inspect
import sys
from functools import lru_cache
from types import ModuleType

from . import rules_phrase, rules_sentence, rules_words
from .rule_table import RULES, Rule, source_version
from .words import tokens

# the modules whose code decides a verdict (the display text too: the rules read it)
SOURCE_MODULES = (
    "commonsense.kg.normalize",
    "commonsense.questions.lexicon",
    "commonsense.questions.words",
    "commonsense.questions.rule_table",
    "commonsense.questions.rules_words",
    "commonsense.questions.rules_sentence",
    "commonsense.questions.rules_phrase",
    "commonsense.questions.text_rules",
    "commonsense.questions.fluent",
    "commonsense.questions.idioms",
    "commonsense.questions.lemma_tables",
    "commonsense.questions.grammar",
    "commonsense.questions.wordnet_verbs",
    "commonsense.questions.wordnet_words",
    "commonsense.questions.wellformed",
    "commonsense.questions.repairs",
)


def _sources() -> list[tuple[str, str]]:
    import importlib

    out = []
    for name in SOURCE_MODULES:
        module: ModuleType = sys.modules.get(name) or importlib.import_module(name)
        out.append((name, inspect.getsource(module)))
    return out


def rules_version() -> str:
    """The digest of the rules' code (:func:`commonsense.questions.rule_table.source_version`)."""
    return source_version(_sources())


# the modules that register rules, in the order their rules are tried (each module's in its own order)
RULE_MODULES = (rules_words, rules_sentence, rules_phrase)
_ORDER = [m.__name__ for m in RULE_MODULES]
TABLE: tuple[Rule, ...] = tuple(sorted(RULES, key=lambda r: (_ORDER.index(r.check.__module__), RULES.index(r))))
BY_NAME: dict[str, Rule] = {r.name: r for r in TABLE}


@lru_cache(maxsize=1 << 20)
def verdict(text: str) -> tuple[str, str] | None:
    """(the rule that rejects ``text``, why), or None when it reads as English."""
    toks = tokens(text)
    for r in TABLE:
        why = r.check(toks, text)
        if why:
            return r.name, why
    return None


def unreadable(text: str) -> str | None:
    """Why ``text`` (display form) does not read as English, or None."""
    got = verdict(text)
    return got[1] if got else None


def firing(text: str) -> list[tuple[str, str]]:
    """Every rule that rejects ``text``, in table order (a gate that fires ends the list)."""
    toks = tokens(text)
    out: list[tuple[str, str]] = []
    for r in TABLE:
        why = r.check(toks, text)
        if why:
            out.append((r.name, why))
            if r.gate:
                break
    return out
