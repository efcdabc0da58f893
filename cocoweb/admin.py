"""The one read-only admin every app's admin pages build on: operators look things up, and every
write goes through the services and the workers, which keep counters, leases and labels consistent
(an edit here would bypass them)."""

from __future__ import annotations

from typing import Any

from django.contrib import admin


class ReadOnlyAdmin(admin.ModelAdmin):
    list_per_page = 50
    show_full_result_count = False  # no COUNT(*) over a large table on every page

    def has_add_permission(self, request: Any, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: Any, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: Any, obj: Any = None) -> bool:
        return False
