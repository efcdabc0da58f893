"""The crowd participant's demographics form: only the fields the researcher chose, each optional."""

from __future__ import annotations

from typing import Any

from django import forms

from annotation.models import DEMOGRAPHIC_FIELDS, CrowdStudy

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


class CrowdStudyForm(forms.ModelForm):
    """The study-link settings a researcher sets on the participants page."""

    demographics = forms.MultipleChoiceField(
        choices=[(f, _LABELS[f]) for f in DEMOGRAPHIC_FIELDS],
        required=False,
        widget=forms.CheckboxSelectMultiple,
        help_text="asked on an optional form; only these are stored",
    )
    examples_text = forms.CharField(
        required=False,
        label="Worked examples",
        widget=forms.Textarea(attrs={"rows": 4}),
        help_text="one per line: statement | answer | why",
    )

    class Meta:
        model = CrowdStudy
        fields = [
            "consent_text",
            "qualification_attempts",
            "completion_url",
            "return_url",
            "screenout_code",
            "screenout_url",
        ]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["demographics"].initial = list(self.instance.demographics or [])
        self.fields["examples_text"].initial = "\n".join(
            " | ".join(str(e.get(k, "")) for k in ("text", "answer", "why")) for e in self.instance.examples or []
        )

    def study_settings(self) -> dict[str, Any]:
        d = self.cleaned_data
        examples = []
        for line in (d.get("examples_text") or "").splitlines():
            parts = [p.strip() for p in line.split("|")]
            if parts and parts[0]:
                parts += [""] * (3 - len(parts))
                examples.append({"text": parts[0], "answer": parts[1], "why": " | ".join(parts[2:]).strip(" |")})
        return {
            "consent_text": d["consent_text"],
            "qualification_attempts": d["qualification_attempts"],
            "completion_url": d["completion_url"],
            "return_url": d["return_url"],
            "screenout_code": d["screenout_code"],
            "screenout_url": d["screenout_url"],
            "demographics": list(d["demographics"]),
            "examples": examples,
        }
