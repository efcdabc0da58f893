"""The authentication backend: Django's ``ModelBackend`` whose ``get_user`` (run on every signed-in
request) reads the person's role in the same query as the user row, so that
:func:`accounts.roles.user_role` needs no second query for the groups. The role is still read from
the database on every request: a group change takes effect on the person's next request."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.backends import ModelBackend
from django.db.models import Case, IntegerField, Max, Value, When

from .roles import ROLES

# Rank of the highest role group held (1 = annotator … 3 = admin; 0 = none), as user_role ranks them.
_ROLE_RANK = Max(
    Case(
        *[When(groups__name=r, then=Value(i + 1)) for i, r in enumerate(ROLES)],
        default=Value(0),
        output_field=IntegerField(),
    )
)


class RoleModelBackend(ModelBackend):
    def get_user(self, user_id: Any) -> Any:
        user = get_user_model()._default_manager.annotate(_role_rank=_ROLE_RANK).filter(pk=user_id).first()
        if user is None or not self.user_can_authenticate(user):
            return None
        rank = user._role_rank
        user._cocoweb_role = ROLES[rank - 1] if rank else None  # type: ignore[attr-defined]  # the per-request cache user_role reads
        return user
