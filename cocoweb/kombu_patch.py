"""A patch of kombu's Redis transport, applied when the Celery app loads (``cocoweb/celery.py``).

It replaces private methods of ``kombu.transport.redis.QoS`` whose behaviour was read in, and
tested against, the kombu versions in ``TESTED_KOMBU`` only. Any other kombu refuses to start
(:class:`UntestedKombu`) instead of running a patch that may no longer fit: re-run
``tests/production/test_redis_restart.py`` on the new version, then add it here (or drop the patch
if kombu fixed the crash).
"""

from __future__ import annotations

import logging
from typing import Any

import kombu

# major.minor of the kombu releases this patch was tested with.
TESTED_KOMBU = ("5.7",)


class UntestedKombu(RuntimeError):
    pass


def kombu_version_check(version: str | None = None) -> None:
    """Raise :class:`UntestedKombu` unless ``version`` (default: the installed kombu) is tested."""
    version = version or kombu.__version__
    if ".".join(version.split(".")[:2]) not in TESTED_KOMBU:
        raise UntestedKombu(
            f"kombu {version} is not one the Redis-restart patch in cocoweb/kombu_patch.py was tested with "
            f"({', '.join(TESTED_KOMBU)}.x): run tests/production/test_redis_restart.py on it, then add it to "
            "TESTED_KOMBU (or pin kombu back)"
        )


def survive_redis_restarts() -> None:
    """Work around kombu 5.7, whose Redis transport kills a worker that loses its broker connection
    while it holds unacknowledged messages and polls for more (a free pool slot, e.g.
    ``--concurrency=2`` with one task running): closing the channel tries to put those messages
    back through a transport it has already closed, and acknowledging a task that finishes later
    goes through that closed channel too (``AttributeError: 'NoneType' object has no attribute
    'hostname'`` / ``'client'``, then "Unrecoverable error"). Redis cannot be reached through that
    channel any more, so both are skipped with a warning: a Redis that kept its data redelivers
    such messages after the visibility timeout (a run's lease makes that harmless), one that
    restarted empty lost them and the housekeeping re-send covers runs. Tested by
    tests/production/test_redis_restart.py."""
    kombu_version_check()
    try:
        from kombu.transport import redis as kombu_redis
        from kombu.transport import virtual
    except ImportError:  # the redis client is not installed: no Redis broker
        return
    qos = kombu_redis.QoS
    if getattr(qos, "cocoweb_patched", False):
        return
    log = logging.getLogger(__name__)
    restore, ack, reject = qos.restore_unacked, qos.ack, qos.reject

    def closed(self: Any) -> bool:
        transport = self.channel.connection
        return transport is None or getattr(transport, "client", None) is None

    def restore_unacked(self: Any, client: Any = None) -> None:
        if client is None and closed(self):
            log.warning("broker connection closed: %d unacknowledged message(s) left to Redis", len(self._delivered))
            self._delivered.clear()
            return None
        return restore(self, client)

    def guarded_ack(self: Any, delivery_tag: Any) -> None:
        if closed(self):
            log.warning("broker connection closed: message %s cannot be acknowledged on it", delivery_tag)
            return virtual.QoS.ack(self, delivery_tag)  # forget it here; Redis keeps or lost it
        return ack(self, delivery_tag)

    def guarded_reject(self: Any, delivery_tag: Any, requeue: bool = False) -> None:
        if closed(self):
            log.warning("broker connection closed: message %s cannot be rejected on it", delivery_tag)
            return virtual.QoS.ack(self, delivery_tag)
        return reject(self, delivery_tag, requeue=requeue)

    qos.restore_unacked, qos.ack, qos.reject = restore_unacked, guarded_ack, guarded_reject  # type: ignore[method-assign]
    qos.cocoweb_patched = True  # type: ignore[attr-defined]
