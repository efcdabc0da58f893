"""Logical query structures, seeded sampling and answer-set traversal (COM2 / CoCo)."""

from .sampling import Query, QuerySampler, structure
from .structures import KINDS, STRUCTURES

__all__ = ["KINDS", "STRUCTURES", "Query", "QuerySampler", "structure"]
