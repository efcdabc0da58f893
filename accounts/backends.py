"""The authentication backend: Django's ``ModelBackend`` whose ``get_user`` (run on every signed-in
request) reads the person's role in the same query as the user row, so that
:func:`accounts.roles.user_role` needs no second query for the groups.

With a cache that every process shares (Redis in production), the user row and its role are kept
there for ``COCOWEB_USER_CACHE_SECONDS``: a signed-in request then reads them with one cache GET
instead of a query that joins the groups. Every write that can change what the row says — the user
saved or deleted (password, ``is_active``, ``last_login``), a group membership added, removed or
cleared from either side, a group renamed or deleted — drops the cached copy in the same process
that made it (signals below), so the change takes effect on the person's next request, as it does
without the cache. The timeout bounds what a write that bypasses the model (``QuerySet.update``)
could leave behind. With a per-process cache (local memory) the cache is off: another process would
keep an ended account alive."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.backends import ModelBackend
from django.core.cache import cache, caches
from django.db.models import Case, IntegerField, Max, Value, When

from cocoweb.cache import take_index

from . import sessions
from .roles import ROLES

# Rank of the highest role group held (1 = annotator … 3 = admin; 0 = none), as user_role ranks them.
ROLE_RANK = Max(
    Case(
        *[When(groups__name=r, then=Value(i + 1)) for i, r in enumerate(ROLES)],
        default=Value(0),
        output_field=IntegerField(),
    )
)


def _key(user_id: Any) -> str:
    return f"cocoweb:auth-user:{user_id}"


def user_cache_forget(user_ids: Iterable[Any]) -> None:
    """Drop the cached rows of these users, and the copies their sessions carry
    (:mod:`accounts.sessions`); no-op when the cache is off."""
    if settings.COCOWEB_USER_CACHE_SECONDS > 0:
        ids = list(user_ids)
        cache.delete_many([_key(pk) for pk in ids])
        session_cache = caches[settings.SESSION_CACHE_ALIAS]
        for pk in ids:
            carried = take_index(session_cache, sessions.index_key(pk))
            if carried:
                session_cache.delete_many([sessions.user_key(sk) for sk in carried])


class RoleModelBackend(ModelBackend):
    def get_user(self, user_id: Any) -> Any:
        ttl = settings.COCOWEB_USER_CACHE_SECONDS
        # The request's session (accounts.middleware), when it carries a copy of this user: no
        # further cache read. Otherwise the user is looked up and the session keeps a copy.
        session = sessions.CURRENT.get()
        carried = getattr(session, "carried_user", None)
        if carried is not None and carried.pk == user_id:
            return carried if self.user_can_authenticate(carried) else None
        user = cache.get(_key(user_id)) if ttl > 0 else None
        if user is None:
            user = get_user_model()._default_manager.annotate(_role_rank=ROLE_RANK).filter(pk=user_id).first()
            if user is None:
                return None
            rank = user._role_rank
            user._cocoweb_role = ROLES[rank - 1] if rank else None  # type: ignore[attr-defined]  # user_role reads it
            if ttl > 0:
                cache.set(_key(user_id), user, ttl)
        if hasattr(session, "carry_user"):
            session.carry_user(user)
        if not self.user_can_authenticate(user):
            return None
        return user


def connect_invalidation() -> None:
    """Signals that drop a cached user whenever their row or role groups change (accounts.apps)."""
    from django.contrib.auth.models import Group
    from django.db.models.signals import m2m_changed, post_delete, post_save, pre_delete

    User = get_user_model()

    def user_changed(sender: Any, instance: Any, **kwargs: Any) -> None:
        user_cache_forget([instance.pk])

    def membership_changed(sender: Any, instance: Any, action: str, reverse: bool, pk_set: Any, **kwargs: Any) -> None:
        if action not in ("post_add", "post_remove", "pre_clear"):
            return
        if not reverse:  # user.groups.add(...): one user
            user_cache_forget([instance.pk])
        elif pk_set:  # group.user_set.add(u1, u2)
            user_cache_forget(pk_set)
        elif action == "pre_clear":  # group.user_set.clear(): everybody in it, read before they go
            user_cache_forget(instance.user_set.values_list("pk", flat=True))

    def group_changed(sender: Any, instance: Any, **kwargs: Any) -> None:
        if instance.pk is not None:  # renamed or about to be deleted: its members' roles change
            user_cache_forget(instance.user_set.values_list("pk", flat=True))

    uid = "cocoweb_user_cache"
    post_save.connect(user_changed, sender=User, dispatch_uid=f"{uid}_save", weak=False)
    post_delete.connect(user_changed, sender=User, dispatch_uid=f"{uid}_delete", weak=False)
    m2m_changed.connect(membership_changed, sender=User.groups.through, dispatch_uid=f"{uid}_m2m", weak=False)
    post_save.connect(group_changed, sender=Group, dispatch_uid=f"{uid}_group_save", weak=False)
    pre_delete.connect(group_changed, sender=Group, dispatch_uid=f"{uid}_group_delete", weak=False)
