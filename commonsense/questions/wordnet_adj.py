"""Antonyms and synonyms of English adjectives from WordNet 3.0 (Debian's ``wordnet-base``, its
``data.adj`` under ``/usr/share/wordnet``), for RICA's lexical perturbation operators (Table 2):
ANTONYM and PARAPHRASE of a conclusion's property word.

Read here, not through nltk's WordNet reader: nltk 3.10 refuses a corpus outside its own data
folders and needs a ``lexnames`` file that Debian's package does not ship. The file format is
WordNet's ``wndb(5WN)``: one synset per line, ``offset lex_filenum ss_type w_cnt (word lex_id)…
p_cnt (pointer_symbol offset pos source/target)… | gloss``; ``!`` is an antonym (lexical: source
and target word numbers), ``&`` links a satellite adjective to its head. A satellite's antonym is
its head's (WordNet's *indirect* antonym: ``pushy`` → head ``aggressive`` → ``unaggressive``).

Loaded only when installed (:func:`load` returns None otherwise), as Link Grammar is."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

DEFAULT_DIR = Path("/usr/share/wordnet")
_MARKER = re.compile(r"\([a-z]+\)$")  # syntactic markers on adjectives: (a), (p), (ip)


@dataclass(slots=True)
class _Synset:
    kind: str  # "a" head, "s" satellite
    words: list[str]
    antonyms: list[tuple[int, str, int]] = field(default_factory=list)  # (source word no., offset, target no.)
    heads: list[str] = field(default_factory=list)  # offsets of the head synsets (satellites)


@dataclass(slots=True)
class AdjectiveLexicon:
    synsets: dict[str, _Synset]
    by_word: dict[str, list[str]]  # word -> offsets of its synsets, in file order

    def _word(self, offset: str, number: int) -> str | None:
        s = self.synsets.get(offset)
        return s.words[number - 1] if s is not None and 0 < number <= len(s.words) else None

    def _direct(self, offset: str, word: str | None) -> list[str]:
        s = self.synsets[offset]
        out = []
        for src, target, tno in s.antonyms:
            if word is None or src == 0 or (0 < src <= len(s.words) and s.words[src - 1] == word):
                w = self._word(target, tno) if tno else None
                if w is not None:
                    out.append(w)
        return out

    def antonym(self, word: str) -> str | None:
        """The first single-word antonym of ``word`` (direct, else its satellite head's), or None."""
        for off in self.by_word.get(word.lower(), []):
            s = self.synsets[off]
            found = self._direct(off, word.lower())
            if not found and s.kind == "s":
                for head in s.heads:
                    found += self._direct(head, None)
            for w in found:
                if "_" not in w and w != word.lower():
                    return w
        return None

    def synonym(self, word: str) -> str | None:
        """Another single-word adjective of ``word``'s first synset (else a satellite's head word)."""
        for off in self.by_word.get(word.lower(), [])[:1]:
            s = self.synsets[off]
            cands = [w for w in s.words if w != word.lower() and "_" not in w]
            cands += [w for h in s.heads for w in self.synsets[h].words if "_" not in w and w != word.lower()]
            if cands:
                return cands[0]
        return None


def parse(text: str, index: str = "") -> AdjectiveLexicon:
    """An :class:`AdjectiveLexicon` from the text of ``data.adj`` (license header lines skipped);
    ``index`` (``index.adj``) orders each word's synsets by sense frequency, as WordNet lists them."""
    synsets: dict[str, _Synset] = {}
    by_word: dict[str, list[str]] = {}
    for line in text.splitlines():
        if not line or line.startswith(" "):
            continue
        data = line.split(" | ", 1)[0].split()
        offset, kind, n = data[0], data[2], int(data[3], 16)
        words = [_MARKER.sub("", data[4 + 2 * i]).lower() for i in range(n)]
        i = 4 + 2 * n
        s = _Synset(kind, words)
        for _ in range(int(data[i])):
            sym, target, _pos, st = data[i + 1 : i + 5]
            if sym == "!":
                s.antonyms.append((int(st[:2], 16), target, int(st[2:], 16)))
            elif sym == "&" and kind == "s":
                s.heads.append(target)
            i += 4
        synsets[offset] = s
        for w in words:
            by_word.setdefault(w, []).append(offset)
    for line in index.splitlines():
        if not line or line.startswith(" "):
            continue
        parts = line.split()
        n = int(parts[2])
        if parts[0] in by_word and n:
            by_word[parts[0]] = [o for o in parts[-n:] if o in synsets]
    return AdjectiveLexicon(synsets, by_word)


@lru_cache(maxsize=2)
def load(directory: str = str(DEFAULT_DIR)) -> AdjectiveLexicon | None:
    """WordNet's adjectives from ``directory``; None when ``data.adj`` is not there."""
    path, index = Path(directory) / "data.adj", Path(directory) / "index.adj"
    if not path.is_file():
        return None
    order = index.read_text(encoding="utf-8", errors="replace") if index.is_file() else ""
    return parse(path.read_text(encoding="utf-8", errors="replace"), order)
