"""The crowd participant's demographics form: only the fields the researcher chose, each optional."""

from __future__ import annotations

from typing import Any

from django import forms

from .participants_models import DEMOGRAPHIC_FIELDS

NO_ANSWER = ("", "Prefer not to say")
_CHOICES = {
    "age_band": ["18–24", "25–34", "35–44", "45–54", "55–64", "65 or over"],
    "gender": ["Woman", "Man", "Non-binary", "Another gender"],
    "education": [
        "Less than secondary school",
        "Secondary school",
        "Some college or vocational training",
        "Bachelor's degree",
        "Master's degree",
        "Doctorate",
    ],
}
_LABELS = {
    "age_band": "Age",
    "gender": "Gender",
    "country": "Country you live in",
    "language": "First language",
    "education": "Highest education completed",
}


def _field(name: str) -> forms.Field:
    if name in _CHOICES:
        return forms.ChoiceField(
            label=_LABELS[name], required=False, choices=[NO_ANSWER, *[(c, c) for c in _CHOICES[name]]]
        )
    return forms.CharField(label=_LABELS[name], required=False, max_length=100)


class DemographicsForm(forms.Form):
    def __init__(self, fields: list[str], *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for name in fields:
            if name in DEMOGRAPHIC_FIELDS:
                self.fields[name] = _field(name)
