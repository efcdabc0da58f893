"""Forms of the admins' People page: an invitation (a user name, an e-mail address if any, a role)
and a role given as a choice, not as Django's groups widget."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.auth import get_user_model
from django.contrib.auth.validators import UnicodeUsernameValidator

from .roles import ADMIN, ANNOTATOR, RESEARCHER

ROLE_CHOICES = [
    ("", "No role (signs in, sees nothing)"),
    (ANNOTATOR, "Annotator: annotation campaigns"),
    (RESEARCHER, "Researcher: also data, runs, explorer, campaigns"),
    (ADMIN, "Admin: also people and every campaign's exports"),
]


def role_or_none(value: str) -> str | None:
    return value or None


class RoleForm(forms.Form):
    role = forms.ChoiceField(choices=ROLE_CHOICES, required=False)


class InviteForm(forms.Form):
    username = forms.CharField(
        max_length=150,
        validators=[UnicodeUsernameValidator()],
        help_text="letters, digits and @ . + - _ (what they sign in with)",
    )
    email = forms.EmailField(required=False, help_text="optional, for your records (no mail is sent)")
    role = forms.ChoiceField(choices=ROLE_CHOICES, initial=ANNOTATOR, required=False)

    def clean_username(self) -> Any:
        name = self.cleaned_data["username"]
        if get_user_model().objects.filter(username__iexact=name).exists():
            raise forms.ValidationError(f"an account named {name!r} exists already")
        return name
