"""The admins' People page (issue 29 item 14): accounts with their role as a choice, invitations
with a one-time set-password link shown to the admin (there is no mail server), deactivation and
reactivation, API tokens by prefix with a revoke button. Crowd participants' accounts are behind
``?crowd=``. Django's admin stays for operators (groups, permissions, superusers).

The set-password page is Django's password-reset confirmation with its token (one use; it also
ends when the person signs in, and after ``PASSWORD_RESET_TIMEOUT``); no e-mail reset form is
routed."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.views import PasswordResetConfirmView
from django.core.paginator import Paginator
from django.db import IntegrityError
from django.http import HttpRequest, HttpResponse
from django.http.response import HttpResponseBase
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


Said = tuple[bool, str] | None  # what the admin is told: (done, text), or nothing


def person_action(act: Callable[[HttpRequest, User], Said]) -> Callable[..., HttpResponseBase]:
    """A People-page button on one account: a POST by an admin on ``/people/<pk>/...``; ``act``
    does it and says what to tell the admin (a success when done, an error otherwise); then back to
    the list as the admin left it. Every per-person handler below has this one shape."""

    @require_POST
    @role_required(ADMIN)
    @wraps(act)
    def view(request: HttpRequest, pk: int) -> HttpResponse:
        said = act(request, get_object_or_404(User, pk=pk))
        if said is not None:
            done, text = said
            (messages.success if done else messages.error)(request, text)
        return _back(request)

    view.person_action = True  # type: ignore[attr-defined]  # tests/accounts/test_people_actions.py
    return view


@person_action
def role(request: HttpRequest, user: User) -> Said:
    form = RoleForm(request.POST)
    if not form.is_valid():
        return False, "role: " + " ".join(str(e) for e in form.errors.get("role", []))
    new = role_or_none(form.cleaned_data["role"])
    if user.pk == request.user.pk and new != ADMIN:
        return False, "You cannot take your own admin role: ask another admin."
    if user.is_superuser:
        return False, f"{user.get_username()} is a superuser: an admin whatever the role; see the Django admin."
    user_role_set(user, new)
    return True, f"{user.get_username()}: {new or 'no role'}."


@person_action
def active(request: HttpRequest, user: User) -> Said:
    want = request.POST.get("active") == "1"
    if user.pk == request.user.pk and not want:
        return False, "You cannot deactivate your own account."
    user_active_set(user, want)
    return True, f"{user.get_username()} {'reactivated' if want else 'deactivated'}."


@person_action
def token_revoke(request: HttpRequest, user: User) -> Said:
    if api_token_revoke(user):
        return True, f"{user.get_username()}'s API token revoked: it no longer works."
    return False, f"{user.get_username()} has no API token."


@person_action
def password_link(request: HttpRequest, user: User) -> Said:
    """A new set-password link for someone who forgot theirs (their password stays until they use it)."""
    if not user.is_active:
        return False, f"{user.get_username()} is deactivated: reactivate the account first."
    _link_keep(request, user)  # the page shows it once
    return None


class SetPasswordView(PasswordResetConfirmView):
    """Django's token check and set-password form; afterwards the log-in page says what to do."""

    template_name = "registration/set_password.html"
    success_url = reverse_lazy("login")

    def form_valid(self, form: Any) -> HttpResponse:
        response = super().form_valid(form)
        messages.success(self.request, "Your password is set: sign in with it.")
        return response


set_password = SetPasswordView.as_view()
