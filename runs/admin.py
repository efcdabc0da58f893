"""The admin: runs with their lease (who holds a run, since when), for an operator's look.
Read-only: states and leases change through the workers and the services, never by hand."""

from django.contrib import admin
from django.http import HttpRequest

from .models import Run


@admin.register(Run)
class RunAdmin(admin.ModelAdmin):
    list_display = ("id", "backend", "model", "scoring", "state", "worker", "attempts", "heartbeat_at", "created_at")
    list_filter = ("state", "backend", "scoring")
    search_fields = ("model", "worker")
    readonly_fields = ("lease", "worker", "attempts", "heartbeat_at", "phases", "created_at")
    raw_id_fields = ("question_set", "statement_set", "rerun_of", "created_by")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False
