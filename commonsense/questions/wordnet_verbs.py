"""Which English verbs can end a sentence without an object, from WordNet 3.0's verb frames
(Debian's ``wordnet-base``, ``data.verb`` and ``index.verb`` under ``/usr/share/wordnet``), for the
text rule ``needs-object-at-end`` ("Henry is going to research", "Lucy gathers members to appoint").

Each verb synset of ``data.verb`` lists its generic sentence frames after the pointers:
``f_cnt (+ f_num w_num)…``, ``w_num`` 0 for every word of the synset; frame 1 is "Something ----s"
and frame 2 "Somebody ----s", the intransitive uses. A verb whose most frequent senses (``index.verb``
orders them) have neither frame takes an object there ("research", "appoint", "take"); "cook",
"read", "relax" do not need one. Read here, as :mod:`.wordnet_adj` reads the adjectives (nltk's
reader refuses Debian's layout). Loaded only when installed (:func:`load` returns None otherwise).
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from .wordnet_adj import DEFAULT_DIR

INTRANSITIVE_FRAMES = frozenset({1, 2})
SENSES = 2  # the senses read per verb, most frequent first


def parse(data: str, index: str) -> dict[str, bool]:
    """Verb -> True when one of its first :data:`SENSES` senses has an intransitive frame."""
    frames: dict[str, dict[str, set[int]]] = {}  # offset -> word -> frames
    for line in data.splitlines():
        if not line or line.startswith(" "):
            continue
        parts = line.split(" | ", 1)[0].split()
        offset, n = parts[0], int(parts[3], 16)
        words = [parts[4 + 2 * i].lower() for i in range(n)]
        i = 4 + 2 * n
        i += 1 + 4 * int(parts[i])  # the pointers
        per: dict[str, set[int]] = {w: set() for w in words}
        if i < len(parts) and parts[i].isdigit():
            for k in range(int(parts[i])):
                f_num, w_num = int(parts[i + 2 + 3 * k]), int(parts[i + 3 + 3 * k], 16)
                for j, w in enumerate(words, 1):
                    if w_num in (0, j):
                        per[w].add(f_num)
        frames[offset] = per
    out: dict[str, bool] = {}
    for line in index.splitlines():
        if not line or line.startswith(" "):
            continue
        fields = line.split()
        verb, n = fields[0], int(fields[2])
        senses = [o for o in fields[-n:] if o in frames][:SENSES] if n else []
        out[verb] = any(frames[o].get(verb, set()) & INTRANSITIVE_FRAMES for o in senses)
    return out


@lru_cache(maxsize=2)
def load(directory: str = str(DEFAULT_DIR)) -> dict[str, bool] | None:
    """WordNet's verbs from ``directory`` (verb -> may stand without an object); None when absent."""
    data, index = Path(directory) / "data.verb", Path(directory) / "index.verb"
    if not data.is_file() or not index.is_file():
        return None
    return parse(
        data.read_text(encoding="utf-8", errors="replace"), index.read_text(encoding="utf-8", errors="replace")
    )


def needs_object(verb: str) -> bool:
    """WordNet lists ``verb`` (a lemma) and none of its first senses stands without an object.
    False when WordNet is not installed or does not know the verb."""
    table = load()
    return table is not None and table.get(verb.lower()) is False


def stands_alone(verb: str) -> bool:
    """WordNet lists ``verb`` (a lemma) and one of its first senses stands without an object
    ("watch", "remain", "wonder"). False when WordNet is not installed or does not know the verb."""
    table = load()
    return table is not None and table.get(verb.lower()) is True
