"""API tokens in the admin: who holds one, its first characters and when it was made; an admin
may delete one (the person makes a new one at /accounts/api-token/). No key is stored to show."""

from __future__ import annotations

from typing import Any

from django.contrib import admin

from .models import ApiToken


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    list_display = ("user", "prefix", "created")
    search_fields = ("user__username",)
    readonly_fields = ("user", "prefix", "created")
    exclude = ("digest",)

    def has_add_permission(self, request: Any) -> bool:
        return False

    def has_change_permission(self, request: Any, obj: Any = None) -> bool:
        return False
