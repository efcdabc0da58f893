"""API tokens in the admin, read-only like every app's admin (cocoweb/admin.py): who holds one, its
first characters and when it was made. No key is stored to show. A token ends when its holder
makes a new one, sets a new password, or is deactivated (auth's user admin)."""

from __future__ import annotations

from django.contrib import admin

from cocoweb.admin import ReadOnlyAdmin

from .models import ApiToken


@admin.register(ApiToken)
class ApiTokenAdmin(ReadOnlyAdmin):
    list_display = ("user", "prefix", "created")
    search_fields = ("user__username",)
    exclude = ("digest",)
