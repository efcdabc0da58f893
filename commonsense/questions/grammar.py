"""Does a sentence parse? Carnegie Mellon's Link Grammar parser, as Debian packages it
(``link-grammar``, ``python3-link-grammar``, ``link-grammar-dictionaries-en``; LGPL 2.1).

The lexical checks of :mod:`.wellformed` see words, not structure: "Carlos walks to room", "Gregory
ends up go", "Ellie develops a plan meet the request", "Liam makes Jennifer argument" pass them, and
read blind such sentences made 102 of 221 items unsound (``perf/RESULTS.md``, item soundness). A
sentence that Link Grammar can only parse by leaving a word unlinked (a *null link*) is no English
sentence; on the CSKB-Population slice this rejects about 10 % of the display texts the lexical
checks keep, and none of 25 hand-picked good ones. It is a parser with an English dictionary, not a
model: its verdict is the same on every machine that has the package, in ~0.3 ms a sentence.

The Python binding is Debian's (``/usr/lib/python3/dist-packages``, built for CPython 3.11 like the
project's interpreter); PyPI has no maintained wheel. Where the package is missing, :func:`available`
says so and the builds record that the parse check did not run (``BuildReport.grammar``): nothing
pretends it ran.
"""

from __future__ import annotations

import atexit
import re
import sys
from functools import lru_cache
from typing import Any

DEBIAN_DIST = "/usr/lib/python3/dist-packages"
# placeholders read as names, so the parser sees the sentence a reader will see
NAMES = {"PersonX": "Lee", "PersonY": "Dana", "PersonZ": "Chris", "PeopleX": "people", "PeopleY": "people"}
_PLACEHOLDER = re.compile(r"\b(?:Person|People)[XYZ]\b")


@lru_cache(maxsize=1)
def _parser() -> tuple[Any, Any, Any] | None:
    try:
        import linkgrammar  # noqa: F401
    except ImportError:
        if DEBIAN_DIST not in sys.path:
            sys.path.append(DEBIAN_DIST)
        try:
            import linkgrammar  # noqa: F401
        except ImportError:
            return None
    from linkgrammar import Dictionary, ParseOptions, Sentence

    # linkage_limit: parse() returns the linkages that pass post-processing among those it samples;
    # with a limit of 1 a sentence whose one sampled linkage fails is wrongly "unparsable"
    options = ParseOptions(min_null_count=0, max_null_count=0, max_parse_time=1, linkage_limit=1000, verbosity=0)
    atexit.register(_parser.cache_clear)  # free the dictionary while the binding is still loaded
    return Dictionary("en"), options, Sentence


def available() -> bool:
    """True when the Link Grammar parser and its English dictionary can be loaded."""
    return _parser() is not None


def version() -> str | None:
    """The parser's version ("link-grammar-5.12.0"), or None when it is missing."""
    if _parser() is None:
        return None
    from linkgrammar import clinkgrammar

    return str(clinkgrammar.linkgrammar_get_version())


def parses(text: str) -> bool:
    """True when ``text`` (a display sentence, placeholders allowed) has a complete parse: every
    word linked. Raises RuntimeError when the parser is missing (ask :func:`available` first)."""
    return cost(text) is not None


@lru_cache(maxsize=1 << 20)
def cost(text: str) -> float | None:
    """The disjunct cost of the best complete parse of ``text`` (None: no complete parse). The
    dictionary gives a cost to the constructions it allows but disfavours (a noun with its
    determiner left out, a possessive after a verb, a bare transitive verb ending a clause); the
    parser returns its linkages cheapest first. Raises RuntimeError when the parser is missing."""
    got = _parser()
    if got is None:
        raise RuntimeError("the Link Grammar parser is not installed (apt-get install python3-link-grammar)")
    dictionary, options, sentence = got
    shown = _PLACEHOLDER.sub(lambda m: NAMES[m.group(0)], text.strip()).rstrip(".!?") + "."
    for linkage in sentence(_articles(shown), dictionary, options).parse():
        return float(linkage.disjunct_cost())
    return None


@lru_cache(maxsize=65536)
def bare_noun(word: str) -> bool:
    """The dictionary lets ``word`` stand as a whole noun phrase with no determiner: a mass noun
    ("orientation", "underwear", "soap"), a plural or a gerund; not a count noun ("chair", "idea").
    Link Grammar's English dictionary marks mass uses (its ``.n-u`` words); this asks the parser
    whether "Lee likes <word>." parses."""
    return parses(f"Lee likes {word}")


_ARTICLE = re.compile(r"\b([Aa]n?) (\w)")


def _articles(text: str) -> str:
    """Each indefinite article as the parser's dictionary expects it: "an" before a vowel letter,
    "a" elsewhere. The dictionary goes by the letter, so it refused "a uniform" and "an hour"; which
    article a word takes is the article rule's (by its sound, inflect), not the parse's."""
    return _ARTICLE.sub(lambda m: ("an " if m.group(2).lower() in "aeiou" else "a ") + m.group(2), text)
