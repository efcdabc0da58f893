"""The admins' People page (issue 29 item 14): accounts with their role as a choice, invitations
with a one-time set-password link shown to the admin (there is no mail server), deactivation and
reactivation, API tokens by prefix with a revoke button. Crowd participants' accounts are behind
``?crowd=``. Django's admin stays for operators (groups, permissions, superusers).

The set-password page is Django's password-reset confirmation with its token (one use; it also
ends when the person signs in, and after ``PASSWORD_RESET_TIMEOUT``); no e-mail reset form is
routed."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.views import PasswordResetConfirmView
from django.core.paginator import Paginator
from django.db import IntegrityError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse, reverse_lazy
from django.utils.http import urlencode
from django.views.decorators.http import require_POST

from .forms import InviteForm, RoleForm, role_or_none
from .people import User
from .roles import ADMIN, role_required
from .selectors import CROWD_FILTERS, people_accounts, people_rows
from .services import api_token_revoke, set_password_path, user_active_set, user_invite, user_role_set

PER_PAGE = 100


def _back(request: HttpRequest) -> HttpResponse:
    """To the list as the admin left it (filter, search, page), from the form's hidden ``back``."""
    back = str(request.POST.get("back", ""))
    return redirect(reverse("people") + (back if back.startswith("?") else ""))


@role_required(ADMIN)
def people(request: HttpRequest) -> HttpResponse:
    return _page(request)


def _page(request: HttpRequest, invite_form: InviteForm | None = None) -> HttpResponse:
    crowd = str(request.GET.get("crowd", ""))
    crowd = crowd if crowd in CROWD_FILTERS else ""
    search = str(request.GET.get("q", "")).strip()[:150]
    page = Paginator(people_accounts(crowd, search), PER_PAGE).get_page(request.GET.get("page"))
    keep = {k: v for k, v in (("crowd", crowd), ("q", search)) if v}
    ctx: dict[str, Any] = {
        "rows": people_rows(list(page.object_list)),
        "page": page,
        "crowd": crowd,
        "crowd_filters": [
            (v, label, "?" + urlencode({**keep, "crowd": v} if v else {})) for v, label in CROWD_FILTERS.items()
        ],
        "search": search,
        "keep": urlencode(keep),
        "back": "?" + urlencode({**keep, "page": str(page.number)}),
        "role_choices": RoleForm.base_fields["role"].choices,  # type: ignore[attr-defined]
        "invite_form": invite_form or InviteForm(),
        "new_link": request.session.pop(LINK_KEY, None),  # shown once
        "link_days": max(1, settings.PASSWORD_RESET_TIMEOUT // 86400),
    }
    return render(request, "accounts/people.html", ctx, status=400 if invite_form is not None else 200)


LINK_KEY = "people_set_password_link"  # the session keeps a new link until the People page shows it once


def _link_keep(request: HttpRequest, user: User) -> None:
    request.session[LINK_KEY] = {
        "who": user.get_username(),
        "link": request.build_absolute_uri(set_password_path(user)),
    }


@require_POST
@role_required(ADMIN)
def invite(request: HttpRequest) -> HttpResponse:
    form = InviteForm(request.POST)
    if not form.is_valid():
        return _page(request, invite_form=form)
    d = form.cleaned_data
    try:
        user = user_invite(d["username"], role_or_none(d["role"]), email=d["email"])
    except IntegrityError:  # a concurrent invitation of the same name
        form.add_error("username", f"an account named {d['username']!r} exists already")
        return _page(request, invite_form=form)
    messages.success(request, f"Account {user.get_username()} made ({d['role'] or 'no role'}).")
    _link_keep(request, user)
    return redirect("people")


def _person(pk: int) -> User:
    return get_object_or_404(User, pk=pk)


@require_POST
@role_required(ADMIN)
def role(request: HttpRequest, pk: int) -> HttpResponse:
    user = _person(pk)
    form = RoleForm(request.POST)
    if not form.is_valid():
        messages.error(request, "role: " + " ".join(str(e) for e in form.errors.get("role", [])))
        return _back(request)
    new = role_or_none(form.cleaned_data["role"])
    if user.pk == request.user.pk and new != ADMIN:
        messages.error(request, "You cannot take your own admin role: ask another admin.")
    elif user.is_superuser:
        messages.error(
            request, f"{user.get_username()} is a superuser: an admin whatever the role; see the Django admin."
        )
    else:
        user_role_set(user, new)
        messages.success(request, f"{user.get_username()}: {new or 'no role'}.")
    return _back(request)


@require_POST
@role_required(ADMIN)
def active(request: HttpRequest, pk: int) -> HttpResponse:
    user = _person(pk)
    want = request.POST.get("active") == "1"
    if user.pk == request.user.pk and not want:
        messages.error(request, "You cannot deactivate your own account.")
    else:
        user_active_set(user, want)
        messages.success(request, f"{user.get_username()} {'reactivated' if want else 'deactivated'}.")
    return _back(request)


@require_POST
@role_required(ADMIN)
def token_revoke(request: HttpRequest, pk: int) -> HttpResponse:
    user = _person(pk)
    if api_token_revoke(user):
        messages.success(request, f"{user.get_username()}'s API token revoked: it no longer works.")
    else:
        messages.error(request, f"{user.get_username()} has no API token.")
    return _back(request)


@require_POST
@role_required(ADMIN)
def password_link(request: HttpRequest, pk: int) -> HttpResponse:
    """A new set-password link for someone who forgot theirs (their password stays until they use it)."""
    user = _person(pk)
    if not user.is_active:
        messages.error(request, f"{user.get_username()} is deactivated: reactivate the account first.")
    else:
        _link_keep(request, user)
    return _back(request)


class SetPasswordView(PasswordResetConfirmView):
    """Django's token check and set-password form; afterwards the log-in page says what to do."""

    template_name = "registration/set_password.html"
    success_url = reverse_lazy("login")

    def form_valid(self, form: Any) -> HttpResponse:
        response = super().form_valid(form)
        messages.success(self.request, "Your password is set: sign in with it.")
        return response


set_password = SetPasswordView.as_view()
