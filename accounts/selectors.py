"""Reads for the admins' People page (:mod:`accounts.views_people`): the accounts with their role
and API token, lab accounts by default (crowd participants' password-less accounts, one per
platform id, are behind ``?crowd=``, as in the Django admin's user list), and who a person
without a role should ask for one."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.db.models import Q, QuerySet

from .backends import ROLE_RANK
from .models import ApiToken
from .people import User
from .roles import ADMIN, ROLES

# Which accounts the list shows: ``?crowd=`` as the Django admin's filter (accounts.admin).
CROWD_FILTERS = {"": "Lab accounts", "yes": "Crowd participants", "all": "Everyone"}


@dataclass(frozen=True, slots=True)
class PersonRow:
    user: User
    role: str  # "" = no role; a superuser is an admin whatever their groups say
    token_prefix: str  # "" = no API token
    token_created: datetime | None
    is_participant: bool


def people_accounts(crowd: str = "", search: str = "") -> QuerySet[User]:
    """The accounts the list shows, newest first; the view pages through them."""
    qs = User.objects.order_by("-date_joined", "-pk")
    if crowd != "all":
        qs = qs.filter(crowd_participant__isnull=crowd != "yes")
    if search:
        qs = qs.filter(Q(username__icontains=search) | Q(email__icontains=search))
    return qs


def people_rows(users: list[User]) -> list[PersonRow]:
    """One row per account of a page: its role (highest role group) and its token (prefix, date;
    the key itself is never stored)."""
    ids = [u.pk for u in users]
    ranks = dict(User.objects.filter(pk__in=ids).annotate(rank=ROLE_RANK).values_list("pk", "rank").order_by())
    tokens = {t.user_id: t for t in ApiToken.objects.filter(user_id__in=ids)}
    crowd = set(User.objects.filter(pk__in=ids, crowd_participant__isnull=False).values_list("pk", flat=True))
    rows = []
    for u in users:
        rank = ranks.get(u.pk) or 0
        role = ADMIN if u.is_superuser else (ROLES[rank - 1] if rank else "")
        token = tokens.get(u.pk)
        rows.append(
            PersonRow(
                u,
                role,
                token.prefix if token else "",
                token.created if token else None,
                u.pk in crowd,
            )
        )
    return rows


def admins_to_ask(limit: int = 5) -> list[str]:
    """Who a signed-in person without a role can ask for one: active admins, by name."""
    qs = User.objects.filter(is_active=True).filter(Q(groups__name=ADMIN) | Q(is_superuser=True))
    return list(qs.order_by("username").values_list("username", flat=True).distinct()[:limit])
