"""RICA items: the annotator picks one of two statements (``choice`` 0 or 1); what is stored is
whether that pick was the original statement (``valid``), so a stored answer never reveals which
one the original is. The one place that maps between the two."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from annotation.models import Item


def rica_answer(item: Item, choice: int) -> dict[str, int]:
    """The stored answer for a pick: ``{"valid": 1}`` when it is the original statement."""
    return {"valid": int(choice == item.payload.get("original", 0))}


def rica_choice(item: Item, stored: Mapping[str, Any]) -> int:
    """The pick (0 or 1) a stored answer came from."""
    original = int(item.payload.get("original", 0))
    return original if stored.get("valid") == 1 else 1 - original
