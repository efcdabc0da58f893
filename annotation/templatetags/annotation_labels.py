"""``{% load annotation_labels %}``: ``label|label_text:campaign.kind``, ``votes|votes_text:campaign.kind``."""

from __future__ import annotations

from typing import Any

from django import template

from annotation.views import presentation

register = template.Library()


@register.filter
def label_text(label: Any, kind: str) -> str:
    return presentation.label_text(kind, label)


@register.filter
def votes_text(votes: Any, kind: str) -> str:
    return presentation.votes_text(kind, votes)
