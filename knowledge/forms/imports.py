from __future__ import annotations

from django import forms
from django.conf import settings

from commonsense.io.questions import FORMATS as QUESTION_FORMATS
from commonsense.io.triples import FORMATS as TRIPLE_FORMATS

KIND_CHOICES = (
    [(f"graph:{f}", f"Knowledge graph ({f})") for f in TRIPLE_FORMATS]
    + [("statements:nww-csv", "Statement set (commonsense statements CSV)")]
    + [(f"questions:{f}", f"Question set ({f})") for f in QUESTION_FORMATS]
)
ALLOWED_SUFFIXES = {".tsv", ".csv", ".jsonl", ".txt"}


class DataImportForm(forms.Form):
    kind = forms.ChoiceField(choices=KIND_CHOICES, label="What the file holds")
    name = forms.SlugField(max_length=100, help_text="graph or set name (letters, digits, - and _)")
    file = forms.FileField()
    allow_duplicate = forms.BooleanField(
        required=False,
        widget=forms.HiddenInput,  # offered (a check box) once the file turns out to be stored already
        label="Yes, import a second copy under this name",
    )

    def offer_duplicate(self) -> None:
        self.fields["allow_duplicate"].widget = forms.CheckboxInput()

    def clean_file(self) -> object:
        f = self.cleaned_data["file"]
        limit = settings.COCOWEB_MAX_UPLOAD_BYTES
        if f.size > limit:
            raise forms.ValidationError(f"the file is {f.size:,} bytes; the limit is {limit:,} bytes")
        suffix = "." + f.name.rsplit(".", 1)[-1].lower() if "." in f.name else ""
        if suffix not in ALLOWED_SUFFIXES:
            raise forms.ValidationError(
                f"unsupported file type {suffix or '(none)'}; use one of {', '.join(sorted(ALLOWED_SUFFIXES))}"
            )
        return f
