"""Answer extraction from generated text and the token-variant matching of NWW's yes/no probabilities."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from .types import LETTERS


def extract_letter(text: str, n_options: int = 5, options: Sequence[str] = ()) -> int | None:
    """CoCo: "we match the first option that appears in the final output answer".

    Returns the index of the first option letter that reads as an answer, else the first option
    text found verbatim, else ``None`` ("No Answer"). The article "A" ("A good idea …") does not
    count: a letter counts when it stands alone or is followed by ``:``, ``.``, ``)`` or the end,
    or is written ``(A)`` / ``Answer: A`` / ``answer is A``.
    """
    letters = LETTERS[:n_options]
    cls = f"[{letters}]"
    patterns = [
        rf"(?i:answer|option|choice)\s*(?i:is|would be|:)?\s*[:\-]?\s*\(?({cls})\b(?![a-z'])",
        rf"\(({cls})\)",
        rf"(?:^|[\s*\"'\[])({cls})(?:\s*[:.)\]]|\s*$)",
    ]
    best: tuple[int, int] | None = None
    for pat in patterns:
        for m in re.finditer(pat, text):
            letter = m.group(1).upper()
            if letter not in letters:
                continue
            # a lone capital "A" followed by a lowercase word is the article
            tail = text[m.end(1) :]
            if letter == "A" and re.match(r"\s+[a-z]", tail) and pat is patterns[2]:
                continue
            pos = m.start(1)
            if best is None or pos < best[0]:
                best = (pos, LETTERS.index(letter))
            break
    if best is not None:
        return best[1]
    low = text.lower()
    hits = [(low.find(o.lower()), i) for i, o in enumerate(options) if o.strip() and o.lower() in low]
    if hits:
        return min(hits)[1]
    return None


_FINAL = re.compile(
    r"(?i:(?:correct|final) answer is|answer is)\s*(?i:option|choice)?\s*[:\-]?\s*[(\[*'\"]*([A-J])\b(?![a-z'])"
)
_FINAL_PHRASE = re.compile(r"(?i:(?:correct|final) answer is|answer is)")


def extract_final_option(text: str, options: Sequence[str]) -> int | None:
    """ReComSBench answers end with "The correct answer is OPTION": the option named after the last
    such phrase (a letter, else the earliest option text quoted after it, longest first on a tie);
    without the phrase, :func:`extract_letter` on the last non-empty line; else ``None``."""
    n = len(options)
    letters = LETTERS[:n]
    finals = [m for m in _FINAL.finditer(text) if m.group(1) in letters]
    phrases = list(_FINAL_PHRASE.finditer(text))
    if phrases:
        last = phrases[-1]
        if finals and finals[-1].start() == last.start():
            return LETTERS.index(finals[-1].group(1))
        tail = text[last.end() :].lower()
        hits = [(tail.find(o.lower()), -len(o), i) for i, o in enumerate(options) if o.strip() and o.lower() in tail]
        if hits:
            return min(hits)[2]
    lines = [ln for ln in text.splitlines() if ln.strip()]
    return extract_letter(lines[-1], n, options) if lines else None


_STRIP = " \t\n\r\"'`*“”‘’.,:;!?()[]{}<>▁Ġ_-"


def normalise_token(token: str) -> str:
    """``"Yes`` / `` yes`` / ``▁YES`` / ``Yes,`` all become ``yes``."""
    return token.strip(_STRIP).lower()


def sum_word_probs(token_probs: Mapping[str, float], words: Sequence[str]) -> dict[str, float]:
    """Sum the probability of every token whose normalised text equals each word; ``other`` = 1 - sum."""
    out = {w: 0.0 for w in words}
    targets = {w.lower(): w for w in words}
    for tok, p in token_probs.items():
        w = targets.get(normalise_token(tok))
        if w is not None:
            out[w] += p
    out["other"] = max(0.0, 1.0 - sum(out[w] for w in words))
    return out


def renormalise(p_yes: float, p_no: float) -> float | None:
    """NWW: p_yes / (p_yes + p_no); ``None`` when neither word has any probability."""
    s = p_yes + p_no
    return p_yes / s if s > 0 else None


def first_yes_no(text: str) -> str | None:
    """The first "yes" or "no" word in a text answer (replayed chat answers, sampled API answers)."""
    m = re.search(r"\b(yes|no)\b", text, flags=re.I)
    return m.group(1).lower() if m else None
