from __future__ import annotations

from typing import Any

from django.contrib.auth.views import LoginView, PasswordChangeView
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from .roles import user_role
from .throttle import (
    WINDOW_SECONDS,
    login_blocked,
    login_failed,
    login_succeeded,
    password_change_blocked,
    password_change_failed,
    password_change_succeeded,
)


class ThrottledLoginView(LoginView):
    """Django's login view with a limit on failed attempts per user name and per address."""

    def get(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        # Django's admin sends signed-in people who are not staff to its log-in page: a blank form
        # there reads like a broken session. Say what is going on instead.
        if request.path.startswith("/admin/") and request.user.is_authenticated and not request.user.is_staff:
            ctx = {"who": request.user.get_username(), "role": user_role(request.user)}
            return render(request, "admin_no_access.html", ctx, status=403)
        return super().get(request, *args, **kwargs)

    def post(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        username = request.POST.get("username", "")
        if login_blocked(request, username):
            form = self.get_form()
            form.errors.clear()
            form.add_error(None, f"Too many failed log-in attempts. Try again in {WINDOW_SECONDS // 60} minutes.")
            return self.render_to_response(self.get_context_data(form=form), status=429)
        # Success is the form's verdict on these credentials, never ``request.user`` afterwards: a
        # browser already signed in (as anyone, a study link's participant too) would count every
        # failure as a success, never reach 429 and reset the victim's counter (issue 31 item 1).
        form = self.get_form()
        if form.is_valid():
            login_succeeded(request, username)
            return self.form_valid(form)
        login_failed(request, username)
        return self.form_invalid(form)


login_view = ThrottledLoginView.as_view()


class ThrottledPasswordChangeView(PasswordChangeView):
    """Django's password change with a limit on wrong *old* passwords per account (a signed-in
    session left open must not become an oracle for the current password)."""

    def post(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        pk = request.user.pk
        if password_change_blocked(pk):
            form = self.get_form()
            form.errors.clear()
            form.add_error("old_password", f"Too many wrong passwords. Try again in {WINDOW_SECONDS // 60} minutes.")
            return self.render_to_response(self.get_context_data(form=form), status=429)
        form = self.get_form()
        if form.is_valid():
            password_change_succeeded(pk)
            return self.form_valid(form)
        if "old_password" in form.errors:
            password_change_failed(pk)
        return self.form_invalid(form)


password_change_view = ThrottledPasswordChangeView.as_view()
