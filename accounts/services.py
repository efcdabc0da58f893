"""Role groups and demo accounts."""

from __future__ import annotations

import secrets
from pathlib import Path
from typing import TYPE_CHECKING

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group, Permission
from django.db import transaction

from .roles import ADMIN, ANNOTATOR, RESEARCHER

if TYPE_CHECKING:
    from .models import ApiToken
    from .people import User

# Apps whose model permissions a researcher holds (all actions); admins also manage people.
RESEARCHER_APPS = ("knowledge", "runs", "annotation")
# Admins also see and delete API tokens (accounts.ApiToken, stored hashed).
ADMIN_EXTRA = (("auth", "user"), ("auth", "group"), ("accounts", "apitoken"))


def role_groups_sync() -> None:
    """Create the three role groups and give each its permissions (idempotent)."""
    annot, _ = Group.objects.get_or_create(name=ANNOTATOR)
    research, _ = Group.objects.get_or_create(name=RESEARCHER)
    admin, _ = Group.objects.get_or_create(name=ADMIN)
    annot.permissions.set(Permission.objects.filter(content_type__app_label="annotation", codename__startswith="view_"))
    research_perms = list(Permission.objects.filter(content_type__app_label__in=RESEARCHER_APPS))
    research.permissions.set(research_perms)
    extra: list[Permission] = []
    for app_label, model in ADMIN_EXTRA:
        extra += list(Permission.objects.filter(content_type__app_label=app_label, content_type__model=model))
    admin.permissions.set(research_perms + extra)


def user_create_with_role(username: str, role: str, password: str, *, email: str = "") -> User:
    User = get_user_model()
    with transaction.atomic():
        user = User.objects.create_user(username=username, password=password, email=email)
        user.groups.add(Group.objects.get(name=role))
        if role == ADMIN:
            user.is_staff = True  # may open Django's admin to manage people
            user.save(update_fields=["is_staff"])
    return user


def demo_accounts_ensure(credentials_file: Path | None = None) -> list[tuple[str, str, str]]:
    """Create one demo account per role if missing, with a random password kept (locally) in
    ``var/demo-credentials.txt`` so every ``make run`` can print it. Returns (role, user, password)."""
    role_groups_sync()
    path = credentials_file or Path(settings.VAR_DIR) / "demo-credentials.txt"
    known: dict[str, str] = {}
    if path.exists():
        for line in path.read_text().splitlines():
            name, _, secret = line.partition(":")
            if name and secret:
                known[name] = secret
    User = get_user_model()
    out = []
    for role in (ANNOTATOR, RESEARCHER, ADMIN):
        username = f"demo-{role}"
        pw = known.get(username)
        user = User.objects.filter(username=username).first()
        if user is None or pw is None or not user.check_password(pw):
            pw = secrets.token_urlsafe(9)
            if user is None:
                user_create_with_role(username, role, pw)
            else:
                user.set_password(pw)
                user.save(update_fields=["password"])
        known[username] = pw
        out.append((role, username, pw))
    path.write_text("".join(f"{u}:{p}\n" for u, p in known.items()))
    path.chmod(0o600)
    return out


def api_tokens_revoke_on_password_change(sender: type, instance: object, created: bool = False, **_: object) -> None:
    """``post_save`` of the user model: a password set through ``set_password`` (password change
    form, admin, ``changepassword``) deletes the person's API tokens, so a token taken along with
    the old password stops working too. ``_password`` holds the new raw password until
    ``AbstractBaseUser.save`` has finished, i.e. during ``post_save``; other saves leave it None."""
    if created or getattr(instance, "_password", None) is None:
        return
    from .models import ApiToken

    ApiToken.objects.filter(user_id=instance.pk).delete()  # type: ignore[attr-defined]


def api_token_renew(user: User) -> str:
    """A new REST API token for ``user`` in place of any old one; its key (shown to them once)."""
    from .api_tokens import api_token_issue

    return api_token_issue(user)


def api_token_of(user: User) -> ApiToken | None:
    """The person's current REST API token (its prefix and date; the key is not stored), or None."""
    from .models import ApiToken

    return ApiToken.objects.filter(user=user).first()


# The admins' People page (accounts/views_people.py): roles as a choice, invitations with a one-time
# set-password link (no mail server: the admin hands the link over), deactivation, token revocation.


def user_role_set(user: User, role: str | None) -> None:
    """Give ``user`` exactly this role (None: no role). The admin role also opens Django's admin
    (``is_staff``), as :func:`user_create_with_role` does; a superuser is left to the Django admin.
    Through the ORM's group methods, so cached copies of the user are dropped (accounts.backends)."""
    if role is not None and role not in (ANNOTATOR, RESEARCHER, ADMIN):
        raise ValueError(f"unknown role {role!r}")
    if user.is_superuser:
        raise PermissionError("a superuser's role is changed in the Django admin")
    with transaction.atomic():
        user.groups.remove(*Group.objects.filter(name__in=(ANNOTATOR, RESEARCHER, ADMIN)))
        if role is not None:
            user.groups.add(Group.objects.get(name=role))
        if user.is_staff != (role == ADMIN):
            user.is_staff = role == ADMIN
            user.save(update_fields=["is_staff"])


def user_invite(username: str, role: str | None, *, email: str = "") -> User:
    """A new account with this role and no password yet: its owner sets one through
    :func:`set_password_path`."""
    User = get_user_model()
    with transaction.atomic():
        user = User.objects.create_user(username=username, email=email, password=None)  # unusable password
        if role is not None:
            user_role_set(user, role)
    return user


def set_password_path(user: User) -> str:
    """The path of a one-time set-password page for ``user`` (Django's password-reset token: it
    stops working once the password is set or the person signs in, and after
    ``PASSWORD_RESET_TIMEOUT``)."""
    from django.contrib.auth.tokens import default_token_generator
    from django.urls import reverse
    from django.utils.encoding import force_bytes
    from django.utils.http import urlsafe_base64_encode

    uid = urlsafe_base64_encode(force_bytes(user.pk))
    return reverse("set_password", kwargs={"uidb64": uid, "token": default_token_generator.make_token(user)})


def user_active_set(user: User, active: bool) -> None:
    """Deactivate (or reactivate) an account: a deactivated person's sessions and API token stop
    working at their next request (Django's checks, accounts.api_tokens); nothing of theirs is deleted."""
    if user.is_active != active:
        user.is_active = active
        user.save(update_fields=["is_active"])


def api_token_revoke(user: User) -> bool:
    """Delete the person's API token; whether there was one."""
    from .models import ApiToken

    deleted, _ = ApiToken.objects.filter(user=user).delete()
    return bool(deleted)
