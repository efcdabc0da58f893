"""PersonX / PersonY / PersonZ -> person names (COM2 §3.3), drawn from a shipped list, seeded."""

from __future__ import annotations

import random
import re
from functools import lru_cache
from importlib import resources

PLACEHOLDERS = ("PersonX", "PersonY", "PersonZ")
_PERSON = re.compile(r"\bPerson ?([XYZ])\b", re.IGNORECASE)


@lru_cache(maxsize=1)
def first_names() -> tuple[str, ...]:
    text = resources.files("commonsense.questions").joinpath("data/first_names.txt").read_text(encoding="utf-8")
    return tuple(n.strip() for n in text.splitlines() if n.strip() and not n.startswith("#"))


def draw(rng: random.Random, k: int = 3) -> dict[str, str]:
    """Three distinct names for PersonX, PersonY, PersonZ."""
    picked = rng.sample(first_names(), k)
    return dict(zip(PLACEHOLDERS, picked, strict=False))


_PEOPLE = re.compile(r"\bPeople ?[XYZ]\b")


def apply(text: str, mapping: dict[str, str]) -> str:
    """PersonX/Y/Z -> the drawn names; CSKB's plural PeopleX/Y -> "people"."""
    if not mapping:
        return text
    text = _PEOPLE.sub("people", text)
    return _PERSON.sub(lambda m: mapping.get("Person" + m.group(1).upper(), m.group(0)), text)
