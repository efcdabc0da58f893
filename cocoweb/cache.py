"""Django's Redis cache with one client object per connection pool instead of a new one per call.

``django.core.cache.backends.redis.RedisCacheClient.get_client`` builds a ``redis.Redis`` for every
cache operation; its constructor (argument parsing, a copy of the response callbacks) costs more
CPU than the GET itself, and a signed-in request makes two (the session, the user row). A
``redis.Redis`` is safe to share between threads (it takes a connection from its pool per
command), so the client is built once per pool. Same behaviour, same pools.

It also keeps sets of keys for invalidation (:func:`set_indexed`, :func:`take_index`): the sessions
that carry a copy of one person's user row (:mod:`accounts.sessions`)."""

from __future__ import annotations

import threading
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

    # -- a set of members beside the cached values, for invalidation (cocoweb.cache.set_indexed) --

    def set_indexed(self, key: str, value: Any, timeout: int, index: str, member: str) -> None:
        """``set(key, value, timeout)`` and ``member`` added to the set ``index`` (which then lives
        at least ``timeout`` seconds), in one round trip; the member is added first."""
        client = self._cache.get_client(None, write=True)
        idx = self.make_and_validate_key(index)
        pipe = client.pipeline(transaction=True)
        pipe.sadd(idx, member)
        pipe.expire(idx, timeout)
        value = self._cache._serializer.dumps(value)  # type: ignore[attr-defined]  # Django's, not in the stubs
        pipe.set(self.make_and_validate_key(key), value, ex=timeout)
        pipe.execute()

    def take_index(self, index: str) -> set[str]:
        """The members of the set ``index``, which is deleted in the same step."""
        client = self._cache.get_client(None, write=True)
        idx = self.make_and_validate_key(index)
        pipe = client.pipeline(transaction=True)
        pipe.smembers(idx)
        pipe.delete(idx)
        members, _deleted = pipe.execute()
        return {m.decode() if isinstance(m, bytes) else str(m) for m in members}


_INDEX_LOCK = threading.Lock()


def set_indexed(cache: Any, key: str, value: Any, timeout: int, index: str, member: str) -> None:
    """Cache ``value`` under ``key`` and remember ``member`` in the set ``index``, so that
    :func:`take_index` later finds every key that must be dropped together. Redis (production): a
    Redis set, atomic across processes. Any other cache: a Python set read and written under a
    lock, exact within one process only (local memory: tests, development)."""
    if isinstance(cache, RedisCache):
        cache.set_indexed(key, value, timeout, index, member)
        return
    with _INDEX_LOCK:
        members = cache.get(index) or set()
        members.add(member)
        cache.set(index, members, timeout)
        cache.set(key, value, timeout)


def take_index(cache: Any, index: str) -> set[str]:
    """The members :func:`set_indexed` remembered in ``index``; the set is emptied."""
    if isinstance(cache, RedisCache):
        return cache.take_index(index)
    with _INDEX_LOCK:
        members = cache.get(index) or set()
        cache.delete(index)
        return set(members)
