"""cocoweb's Redis cache backend keeps one client per connection pool and otherwise behaves as
Django's: values round-trip, and the client is the same object on every call."""

from __future__ import annotations

import os

import pytest

from cocoweb.cache import RedisCache

pytestmark = pytest.mark.skipif(
    not os.environ.get("CELERY_BROKER_URL", "").startswith("redis://"), reason="needs a Redis server (pass 2)"
)


def test_one_client_per_pool_and_values_round_trip() -> None:
    url = os.environ["CELERY_BROKER_URL"].rsplit("/", 1)[0] + "/2"
    c = RedisCache(url, {"KEY_PREFIX": "cocoweb-test"})
    c.clear()
    c.set("k", {"a": [1, 2]}, 30)
    assert c.get("k") == {"a": [1, 2]}
    assert c._cache.get_client() is c._cache.get_client()
    assert c._cache.get_client(write=True) is c._cache.get_client(write=True)
    c.delete("k")
    assert c.get("k") is None
