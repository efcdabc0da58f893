"""The admin: build jobs with their lease (who holds a build, since when), for an operator's look.
Read-only: states and leases change through the workers and the services, never by hand."""

from django.contrib import admin

from cocoweb.admin import ReadOnlyAdmin

from .models import BuildJob


@admin.register(BuildJob)
class BuildJobAdmin(ReadOnlyAdmin):
    list_display = ("id", "kind", "name", "state", "stage", "worker", "attempts", "heartbeat_at", "created_at")
    list_filter = ("state", "kind")
    search_fields = ("name", "worker")
    readonly_fields = ("lease", "worker", "attempts", "heartbeat_at", "created_at")
    raw_id_fields = ("graph", "question_set", "created_by")
