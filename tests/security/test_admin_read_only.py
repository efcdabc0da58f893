"""Every admin page of the apps is read-only (cocoweb/admin.py ReadOnlyAdmin): an operator looks
things up, the services and workers write. The one exception is a campaign's title and
instructions. The checker sees a planted writable admin."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib import admin
from django.contrib.auth.models import User
from django.test import RequestFactory

from cocoweb.admin import ReadOnlyAdmin

pytestmark = pytest.mark.django_db
APPS = ("accounts", "knowledge", "runs", "annotation", "explorer")


def writable(site: admin.AdminSite, request: Any) -> list[str]:
    """The app models whose admin lets a superuser add or delete rows (or change any but a campaign)."""
    out = []
    for model, model_admin in site._registry.items():
        if model._meta.app_label not in APPS:
            continue
        label = model._meta.label
        if model_admin.has_add_permission(request) or model_admin.has_delete_permission(request):
            out.append(label)
        elif label != "annotation.Campaign" and model_admin.has_change_permission(request):
            out.append(label)
    return out


@pytest.fixture
def superuser_request() -> Any:
    request = RequestFactory().get("/admin/")
    request.user = User.objects.create_superuser("root", password="pw-long-enough-123")
    return request


def test_every_app_admin_is_read_only(superuser_request: Any) -> None:
    registered = [m._meta.label for m in admin.site._registry if m._meta.app_label in APPS]
    assert len(registered) >= 9  # runs, build jobs and the annotation tables
    assert writable(admin.site, superuser_request) == []
    assert all(
        isinstance(admin.site._registry[m], ReadOnlyAdmin) for m in admin.site._registry if m._meta.app_label in APPS
    )


def test_the_checker_sees_a_writable_admin(superuser_request: Any) -> None:
    from runs.models import Run

    site = admin.AdminSite(name="planted")
    site.register(Run, admin.ModelAdmin)
    assert writable(site, superuser_request) == ["runs.Run"]
