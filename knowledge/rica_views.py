"""The browser form of ``build_rica``: a RICA set rewritten with novel entities, stored at once
(a pure-Python pass over the probes, no worker needed)."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render

from accounts.roles import RESEARCHER, role_required
from cocoweb.params import MAX_SEED

from .rica_build import rica_novel_build
from .selectors import rica_set_names
from .services import ImportRefused


class RicaBuildForm(forms.Form):
    source = forms.ChoiceField(label="RICA set", help_text="an imported RICA axiom or probe set")
    name = forms.SlugField(max_length=100, help_text="name of the new set")
    seed = forms.IntegerField(
        min_value=0, max_value=MAX_SEED, initial=0, help_text="seeds the novel entities (stored on the set)"
    )
    variants = forms.IntegerField(min_value=1, max_value=10, initial=1, help_text="fresh entity pairs per probe")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        names = rica_set_names()
        self.fields["source"].choices = [(n, n) for n in names]  # type: ignore[attr-defined]


@role_required(RESEARCHER)
def build_rica(request: HttpRequest) -> HttpResponse:
    form = RicaBuildForm(request.POST or None, initial={"source": request.GET.get("set", "")})
    if request.method == "POST" and form.is_valid():
        d = form.cleaned_data
        try:
            qset = rica_novel_build(
                source=d["source"], name=d["name"], seed=d["seed"], variants=d["variants"], user=request.user
            )
        except ImportRefused as exc:
            form.add_error("name", str(exc))
        else:
            messages.success(request, f"{qset.name}: {qset.questions.count()} probes with novel entities.")
            return redirect("knowledge:question_set", name=qset.name)
    status = 400 if request.method == "POST" else 200
    return render(request, "knowledge/build_rica.html", {"form": form}, status=status)
