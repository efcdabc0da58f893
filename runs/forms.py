"""The launch form. Validation of the combination lives in :func:`runs.services.run_create`."""

from __future__ import annotations

from typing import Any

from django import forms

from cocoweb.params import MAX_INT32, MAX_SEED
from knowledge.models import QuestionSet, StatementSet

from . import catalog
from .scorers import BACKENDS, SCORINGS


def set_choices() -> list[tuple[str, list[tuple[str, str]]]]:
    qs = [(f"qs:{q.name}", f"{q.name} ({q.question_count} questions)") for q in QuestionSet.objects.all()]
    ss = [(f"ss:{s.name}", f"{s.name} ({s.statement_count} statements)") for s in StatementSet.objects.all()]
    return [("Question sets", qs), ("Statement sets", ss)]


class RunForm(forms.Form):
    name = forms.CharField(
        required=False, max_length=200, help_text="shown in every list of runs; empty: the model's own name"
    )
    dataset = forms.ChoiceField(label="Set")
    backend = forms.ChoiceField(choices=[(b, b) for b in BACKENDS])
    model = forms.CharField(
        required=False,
        max_length=500,
        help_text="a model from the Models page (hf, embedding), the server's model name (openai), "
        "the model whose stored answers to replay, or a prediction file in a run-files folder",
        widget=forms.TextInput(attrs={"list": "model-choices", "autocomplete": "off"}),
    )
    endpoint = forms.ChoiceField(
        required=False, label="Endpoint", help_text="openai backend only: a server the operator configured"
    )
    scoring = forms.ChoiceField(choices=[(s, s) for s in SCORINGS])
    seed = forms.IntegerField(min_value=0, max_value=MAX_SEED, initial=0)  # as the build forms
    limit = forms.IntegerField(
        required=False, min_value=1, max_value=MAX_INT32, help_text="score only the first N items"
    )
    chunk_size = forms.IntegerField(
        required=False, min_value=1, max_value=4096, help_text="items per batch (one transaction each)"
    )
    samples = forms.IntegerField(
        required=False,
        min_value=1,
        max_value=64,
        label="Reasoning paths",
        help_text="recoms only: paths sampled per question (default 5: greedy + 4 at T=0.7)",
    )
    paths = forms.CharField(
        required=False,
        max_length=500,
        label="Paths file",
        help_text="recoms only: a JSONL of reasoning paths made elsewhere (replay, or hf/openai "
        "to extract triples and answer)",
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["dataset"].choices = set_choices()  # type: ignore[attr-defined]
        self.fields["endpoint"].choices = [("", "—"), *((n, n) for n in catalog.endpoints())]  # type: ignore[attr-defined]

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if data.get("scoring") != "recoms":
            for name in ("samples", "paths"):
                if data.get(name):
                    self.add_error(name, "only for the recoms scoring")
        return data

    def params(self) -> dict[str, Any]:
        d = self.cleaned_data
        out: dict[str, Any] = {"chunk_size": d["chunk_size"]} if d.get("chunk_size") else {}
        if d.get("samples"):
            out["scoring_options"] = {"k": d["samples"]}
        if (d.get("paths") or "").strip():
            out["source"] = d["paths"].strip()
        return out
