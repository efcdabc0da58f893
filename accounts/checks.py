"""Deploy checks (``manage.py check --deploy``) for what cocoweb's own security relies on."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.checks import CheckMessage, Tags, Warning, register

LOCAL_CACHES = ("django.core.cache.backends.locmem.LocMemCache", "django.core.cache.backends.dummy.DummyCache")


@register(Tags.security, deploy=True)
def throttle_cache_shared(app_configs: Any = None, **kwargs: Any) -> list[CheckMessage]:
    backend = settings.CACHES.get("default", {}).get("BACKEND", "")
    if backend in LOCAL_CACHES:
        return [
            Warning(
                f"the default cache is {backend.rsplit('.', 1)[-1]}: each web process keeps its own log-in failure "
                "counts, so the log-in throttle allows that many more attempts per process",
                hint="set CACHE_URL to a shared cache, e.g. redis://redis-host:6379/1",
                id="accounts.W001",
            )
        ]
    return []
