"""The admin: runs and their shards with their lease (who holds one, since when), for an operator's look.
Read-only: states and leases change through the workers and the services, never by hand."""

from django.contrib import admin

from cocoweb.admin import ReadOnlyAdmin

from .models import Run, RunShard


@admin.register(Run)
class RunAdmin(ReadOnlyAdmin):
    list_display = ("id", "backend", "model", "scoring", "state", "worker", "attempts", "heartbeat_at", "created_at")
    list_filter = ("state", "backend", "scoring")
    search_fields = ("model", "worker")
    readonly_fields = ("lease", "worker", "attempts", "heartbeat_at", "phases", "created_at")
    raw_id_fields = ("question_set", "statement_set", "rerun_of", "created_by")


@admin.register(RunShard)
class RunShardAdmin(ReadOnlyAdmin):
    list_display = ("id", "run", "index", "first", "last", "items", "items_done", "state", "worker", "heartbeat_at")
    list_filter = ("state",)
    search_fields = ("worker",)
    raw_id_fields = ("run",)
