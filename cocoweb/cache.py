"""Django's Redis cache with one client object per connection pool instead of a new one per call.

``django.core.cache.backends.redis.RedisCacheClient.get_client`` builds a ``redis.Redis`` for every
cache operation; its constructor (argument parsing, a copy of the response callbacks) costs more
CPU than the GET itself, and a signed-in request makes two (the session, the user row). A
``redis.Redis`` is safe to share between threads (it takes a connection from its pool per
command), so the client is built once per pool. Same behaviour, same pools."""

from __future__ import annotations

from typing import Any

from django.core.cache.backends.redis import RedisCache as DjangoRedisCache
from django.core.cache.backends.redis import RedisCacheClient


class _ClientPerPool(RedisCacheClient):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._clients: dict[int, Any] = {}

    def get_client(self, key: Any = None, *, write: bool = False) -> Any:
        pool = self._get_connection_pool(write)  # type: ignore[attr-defined]  # Django's, not in the stubs
        client = self._clients.get(id(pool))
        if client is None:
            client = self._clients[id(pool)] = self._client(connection_pool=pool)  # type: ignore[attr-defined]
        return client


class RedisCache(DjangoRedisCache):
    def __init__(self, server: Any, params: dict[str, Any]) -> None:
        super().__init__(server, params)
        self._class = _ClientPerPool
