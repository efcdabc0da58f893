"""The annotation models in the Django admin (admins only), for looking things up: campaigns,
items, memberships, reservations, answers, adjudications and final labels.

Everything is read-only except a campaign's title and instructions: answers, counters and
labels are written by ``annotation.services.campaigns`` / ``annotation.queue.operations``, which keep the
denormalised counts (``Item.answer_count``, ``slots_taken``) and the final labels consistent; an
edit here would bypass them. Campaigns are created from the "New campaign" page (which copies
the items) and closed from their dashboard."""

from __future__ import annotations

from typing import Any, cast

from django.contrib import admin

from cocoweb.admin import ReadOnlyAdmin

from .models import Adjudication, Assignment, Campaign, FinalLabel, Item, Membership, Response


@admin.register(Campaign)
class CampaignAdmin(ReadOnlyAdmin):
    list_display = ["name", "title", "kind", "status", "redundancy", "created_by", "created_at"]
    list_filter = ["kind", "status"]
    search_fields = ["name", "title"]
    list_select_related = ["created_by"]
    fields = [
        "name",
        "title",
        "instructions",
        "kind",
        "status",
        "statement_set",
        "question_set",
        "redundancy",
        "max_items_per_annotator",
        "ask_common_sense",
        "attention_every",
        "attention_max_failures",
        "qualification_pass_mark",
        "agreement_threshold",
        "reservation_ttl_seconds",
        "seed",
        "created_by",
        "created_at",
    ]

    def get_readonly_fields(self, request: Any, obj: Any = None) -> list[str]:
        return [f for f in cast(list[str], self.fields) if f not in ("title", "instructions")]  # flat fields

    def has_change_permission(self, request: Any, obj: Any = None) -> bool:
        return admin.ModelAdmin.has_change_permission(self, request, obj)  # title and instructions only


@admin.register(Item)
class ItemAdmin(ReadOnlyAdmin):
    list_display = ["id", "campaign", "role", "position", "key", "answer_count", "slots_taken"]
    list_filter = ["role", "campaign"]
    search_fields = ["key"]
    list_select_related = ["campaign"]
    raw_id_fields = ["statement", "question"]


@admin.register(Membership)
class MembershipAdmin(ReadOnlyAdmin):
    list_display = ["campaign", "user", "state", "qualification_score", "regular_answered", "attention_failed"]
    list_filter = ["state", "campaign"]
    search_fields = ["user__username"]
    list_select_related = ["campaign", "user"]


@admin.register(Assignment)
class AssignmentAdmin(ReadOnlyAdmin):
    list_display = ["id", "campaign", "item", "user", "state", "reserved_at", "expires_at"]
    list_filter = ["state", "campaign"]
    search_fields = ["user__username"]
    list_select_related = ["campaign", "item", "user"]


@admin.register(Response)
class ResponseAdmin(ReadOnlyAdmin):
    list_display = ["id", "campaign", "item", "user", "answer", "source", "time_ms", "created_at"]
    list_filter = ["source", "campaign"]
    search_fields = ["user__username", "item__key"]
    list_select_related = ["campaign", "item", "user"]


@admin.register(Adjudication)
class AdjudicationAdmin(ReadOnlyAdmin):
    list_display = ["id", "item", "label", "decided_by", "decided_at"]
    search_fields = ["item__key", "reason"]
    list_select_related = ["item", "decided_by"]


@admin.register(FinalLabel)
class FinalLabelAdmin(ReadOnlyAdmin):
    list_display = ["item", "label", "provenance", "agreement", "n_answers", "below_threshold"]
    list_filter = ["provenance", "below_threshold", "item__campaign"]
    search_fields = ["item__key"]
    list_select_related = ["item"]
