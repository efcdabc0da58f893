"""lemminflect's tables, cached: the lemmas of a word by part of speech, its inflections, and a verb
form's lemma. The library deep-copies its tables on every call, so every text rule and the display
text go through these (``fluent``, ``idioms``, ``words``, the rules)."""

from __future__ import annotations

from functools import cache


@cache
def lemmas(word: str, upos: str | None = None) -> dict[str, tuple[str, ...]]:
    """lemminflect's ``getAllLemmas``, cached per (word, part of speech): the library deep-copies
    its tables on every call (most of the well-formed check's time on a 1.33 M-triple graph).
    Callers must not change the returned dict."""
    from lemminflect import getAllLemmas

    got: dict[str, tuple[str, ...]] = getAllLemmas(word, upos=upos) if upos else getAllLemmas(word)
    return got


@cache
def inflections(word: str, upos: str) -> dict[str, tuple[str, ...]]:
    """lemminflect's ``getAllInflections``, cached (see :func:`lemmas`)."""
    from lemminflect import getAllInflections

    got: dict[str, tuple[str, ...]] = getAllInflections(word, upos=upos)
    return got


def verb_lemma(word: str) -> str | None:
    """The verb lemma of an inflected or base verb form ("camping" -> "camp"), or None."""
    got = lemmas(word.lower(), "VERB").get("VERB", ())
    return got[0] if got else None
