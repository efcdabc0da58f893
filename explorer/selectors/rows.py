"""Typed rows that more than one explorer selector module returns. TypedDicts: the rows are read by
key in Python, templates, CSV and the cache alike, so a typed row is still a plain dict at run time."""

from __future__ import annotations

from typing import Any, TypedDict


class GroupAccuracy(TypedDict):
    """One run's predictions in one group: a relation, a query kind, a perturbation, an agreement level."""

    run: int
    group: str
    n: int
    ok: int


class FinalLabelRow(TypedDict):
    """An item's final human label, as the drawer shows it beside a prediction."""

    raters: int
    agreement: float | None
    provenance: str
    label: Any
    votes: dict[str, Any]
    campaign: str
    below_threshold: bool


class VerifiedAccuracyRow(TypedDict):
    """One model on a verified set and on its unverified source set (the latest finished run of each)."""

    verified: str
    source: str
    campaign: str
    model: str
    source_run: int | None
    verified_run: int | None
    source_accuracy: float | None
    verified_accuracy: float | None
