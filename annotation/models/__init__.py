"""The annotation tables, importable as ``annotation.models.<Name>`` (the app label, the migrations'
state and every ``"annotation.<Model>"`` reference are unchanged): campaigns and their items,
memberships, reservations, answers, adjudications, final labels and verified sets
(:mod:`.campaigns`); crowd studies and their participants (:mod:`.crowd`)."""

from .campaigns import (
    Adjudication,
    AnnotatorQuality,
    Assignment,
    Campaign,
    FinalLabel,
    Item,
    Membership,
    ModelVote,
    Response,
    VerifiedSet,
    item_uid,
)
from .crowd import DEMOGRAPHIC_FIELDS, CrowdStudy, Participant

__all__ = [
    "DEMOGRAPHIC_FIELDS",
    "Adjudication",
    "AnnotatorQuality",
    "Assignment",
    "Campaign",
    "CrowdStudy",
    "FinalLabel",
    "Item",
    "Membership",
    "ModelVote",
    "Participant",
    "Response",
    "VerifiedSet",
    "item_uid",
]
