"""API tokens in the admin, read-only like every app's admin (cocoweb/admin.py): who holds one, its
first characters and when it was made. No key is stored to show. A token ends when its holder
makes a new one, sets a new password, or is deactivated (auth's user admin, here with crowd
participants' accounts behind a filter)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from django.contrib import admin
from django.contrib.auth import get_user_model
from django.contrib.auth.admin import UserAdmin as DjangoUserAdmin
from django.db.models import QuerySet

from cocoweb.admin import ReadOnlyAdmin

from .models import ApiToken

if TYPE_CHECKING:
    from django.contrib.admin.filters import _ListFilterChoices

User = get_user_model()


@admin.register(ApiToken)
class ApiTokenAdmin(ReadOnlyAdmin):
    list_display = ("user", "prefix", "created")
    search_fields = ("user__username",)
    exclude = ("digest",)


class CrowdParticipantFilter(admin.SimpleListFilter):
    """The user list shows lab accounts by default: crowd participants' password-less accounts
    (one per platform id, thousands of them in a study) are behind this filter (issue 29 item 4).
    The relation is named, not imported: accounts does not depend on annotation."""

    title = "crowd participants"
    parameter_name = "crowd"
    CHOICES = ((None, "Lab accounts"), ("yes", "Crowd participants"), ("all", "Everyone"))

    def lookups(self, request: Any, model_admin: Any) -> list[tuple[str, str]]:
        return [(v, label) for v, label in self.CHOICES if v is not None]

    def choices(self, changelist: Any) -> Iterator[_ListFilterChoices]:
        for value, label in self.CHOICES:
            yield {
                "selected": self.value() == value,
                "query_string": changelist.get_query_string({self.parameter_name: value})
                if value
                else changelist.get_query_string(remove=[self.parameter_name]),
                "display": label,
            }

    def queryset(self, request: Any, queryset: QuerySet[Any]) -> QuerySet[Any]:
        if self.value() == "all":
            return queryset
        return queryset.filter(crowd_participant__isnull=self.value() != "yes")


class UserAdmin(DjangoUserAdmin):
    list_filter = (CrowdParticipantFilter, *DjangoUserAdmin.list_filter)


admin.site.unregister(User)
admin.site.register(User, UserAdmin)
