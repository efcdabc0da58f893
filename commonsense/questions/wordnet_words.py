"""Is a word in WordNet 3.0 (Debian's ``wordnet-base``, ``index.*`` and ``*.exc`` under
``/usr/share/wordnet``)? The second English lexicon of the text rule ``not-english``: lemminflect's
tables miss common words a reader knows ("burger", "cops", "carpooling", "ten", "meth",
"hyperglycemic"), and WordNet lists them; a typo ("surrondings", "accross", "acomplish") is in
neither.

An inflected form is found as WordNet's own ``morphy`` finds it (``wndb(5WN)``, ``morphy(7WN)``):
the exception lists (``noun.exc``: "geese goose"), then the detachment rules of each part of speech
("cops" -> "cop", "carpooling" -> "carpool", "happier" -> "happy"). Read here, as
:mod:`.wordnet_verbs` reads the verb frames (nltk's reader refuses Debian's layout). Loaded only
when installed (:func:`load` returns None otherwise).
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from .lexicon import FUNCTION_WORDS
from .wordnet_adj import DEFAULT_DIR

POS = ("noun", "verb", "adj", "adv")
# morphy's detachment rules: (suffix, ending), per part of speech
DETACH = {
    "noun": (
        ("s", ""),
        ("ses", "s"),
        ("xes", "x"),
        ("zes", "z"),
        ("ches", "ch"),
        ("shes", "sh"),
        ("men", "man"),
        ("ies", "y"),
    ),
    "verb": (("s", ""), ("ies", "y"), ("es", "e"), ("es", ""), ("ed", "e"), ("ed", ""), ("ing", "e"), ("ing", "")),
    "adj": (("er", ""), ("est", ""), ("er", "e"), ("est", "e")),
    "adv": (),
}


def _lemmas(index: str) -> set[str]:
    return {line.split(" ", 1)[0] for line in index.splitlines() if line and not line.startswith(" ")}


def _exceptions(exc: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for line in exc.splitlines():
        parts = line.split()
        if len(parts) > 1:
            out.setdefault(parts[0], parts[1])
    return out


@lru_cache(maxsize=2)
def load(directory: str = str(DEFAULT_DIR)) -> dict[str, tuple[set[str], dict[str, str]]] | None:
    """Per part of speech, WordNet's lemmas (lower case, "_" between words) and its exception list
    (inflected form -> lemma); None when WordNet is not installed."""
    root = Path(directory)
    out: dict[str, tuple[set[str], dict[str, str]]] = {}
    for pos in POS:
        index, exc = root / f"index.{pos}", root / f"{pos}.exc"
        if not index.is_file():
            return None
        read = {"encoding": "utf-8", "errors": "replace"}
        out[pos] = (
            _lemmas(index.read_text(**read)),
            _exceptions(exc.read_text(**read)) if exc.is_file() else {},
        )
    return out


@lru_cache(maxsize=262144)
def known(word: str) -> bool:
    """``word`` (any case) is a WordNet lemma or an inflection morphy leads to one. False when
    WordNet is not installed."""
    table = load()
    if table is None:
        return False
    w = word.lower()
    for pos, (lemmas, exc) in table.items():
        if w in lemmas or exc.get(w) in lemmas:
            return True
        for suffix, ending in DETACH[pos]:
            base = w[: -len(suffix)] + ending
            # (not a function word with an ending: "theres", "wheres" are no inflections)
            if w.endswith(suffix) and len(w) > len(suffix) + 1 and base in lemmas and base not in FUNCTION_WORDS:
                return True
    return False


# WordNet's lexicographer file of the body's parts (lexnames(5WN): 08 noun.body)
NOUN_BODY = 8


@lru_cache(maxsize=65536)
def body_part(word: str, directory: str = str(DEFAULT_DIR)) -> bool:
    """The first (most frequent) noun sense of ``word`` is a part of the body in WordNet ("mouth",
    "hand"; not "chair"): its synset is in the lexicographer file ``noun.body``. One reads one's own
    ("opens PersonX's mouth"), never "a mouth". False when WordNet is not installed."""
    root = Path(directory)
    index, data = root / "index.noun", root / "data.noun"
    if not index.is_file() or not data.is_file():
        return False
    first = _first_offsets(str(index)).get(word.lower())
    if first is None:
        return False
    with data.open("rb") as fh:
        fh.seek(first)
        fields = fh.readline().split(b" ", 2)
    return len(fields) > 1 and int(fields[1]) == NOUN_BODY


@lru_cache(maxsize=2)
def _first_offsets(index: str) -> dict[str, int]:
    """Noun lemma -> the byte offset in ``data.noun`` of its first sense (the last field's first
    offset of an ``index.noun`` line: ``wndb(5WN)``)."""
    out: dict[str, int] = {}
    for line in Path(index).read_text(encoding="utf-8", errors="replace").splitlines():
        if not line or line.startswith(" "):
            continue
        parts = line.split()
        # lemma pos synset_cnt p_cnt [ptr_symbol...] sense_cnt tagsense_cnt synset_offset...
        n_ptr = int(parts[3])
        offsets = parts[6 + n_ptr :]
        if offsets:
            out[parts[0]] = int(offsets[0])
    return out


@lru_cache(maxsize=65536)
def verb_phrase(verb: str, noun: str) -> bool:
    """WordNet lists "<verb> <noun>" as one verb ("lose track", "follow suit", "take place"): the noun
    stands bare in it. False when WordNet is not installed."""
    table = load()
    return table is not None and f"{verb.lower()}_{noun.lower()}" in table["verb"][0]


@lru_cache(maxsize=65536)
def proper_noun(word: str, directory: str = str(DEFAULT_DIR)) -> str | None:
    """``word`` spelled as WordNet spells a proper noun ("ohio" -> "Ohio", "atlanta" -> "Atlanta"):
    every noun sense of it is written with a capital in its synset, and it is no verb, adjective or
    adverb of WordNet ("china", "turkey", "march", "english" have other senses: None). None when
    WordNet is not installed or the word is no such noun."""
    root = Path(directory)
    index, data = root / "index.noun", root / "data.noun"
    table = load(directory)
    w = word.lower()
    if table is None or not data.is_file() or any(w in table[pos][0] for pos in ("verb", "adj", "adv")):
        return None
    offsets = _all_offsets(str(index)).get(w)
    if not offsets:
        return None
    spelled = set()
    with data.open("rb") as fh:
        for offset in offsets:
            fh.seek(offset)
            fields = fh.readline().decode("utf-8", "replace").split(" ")
            # offset lex_filenum ss_type w_cnt (hex) word lex_id word lex_id ...
            words = fields[4 : 4 + 2 * int(fields[3], 16) : 2]
            spelled |= {x for x in words if x.lower() == w}
    if not spelled or any(not x[:1].isupper() for x in spelled) or len(spelled) > 1:
        return None
    return spelled.pop()


@lru_cache(maxsize=2)
def _all_offsets(index: str) -> dict[str, list[int]]:
    """Noun lemma (one word) -> the byte offsets in ``data.noun`` of all its senses."""
    out: dict[str, list[int]] = {}
    for line in Path(index).read_text(encoding="utf-8", errors="replace").splitlines():
        if not line or line.startswith(" ") or "_" in line.split(" ", 1)[0]:
            continue
        parts = line.split()
        out[parts[0]] = [int(o) for o in parts[6 + int(parts[3]) :]]
    return out
