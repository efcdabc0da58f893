"""The browser forms of ``build_rica``: a RICA set rewritten with novel entities, or RICA axioms
generated from an imported graph (``--from-graph``), stored at once (pure-Python passes, seconds
for hundreds of axioms, no worker needed)."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render

from accounts.roles import RESEARCHER, role_required
from cocoweb.params import MAX_SEED
from knowledge.selectors import graph_names, rica_set_names
from knowledge.services.imports import ImportRefused
from knowledge.services.rica_build import rica_graph_build, rica_novel_build


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


class RicaGraphForm(forms.Form):
    graph = forms.ChoiceField(label="graph", help_text="an imported graph with xAttr or CapableOf triples")
    name = forms.SlugField(max_length=100, help_text="name of the new set")
    seed = forms.IntegerField(
        min_value=0, max_value=MAX_SEED, initial=0, help_text="seeds the axioms drawn and the novel entities"
    )
    per_strategy = forms.IntegerField(min_value=1, max_value=5000, initial=100, help_text="axioms per crawl strategy")
    entities = forms.ChoiceField(choices=[("novel", "novel entities"), ("AB", "A and B")], initial="novel")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["graph"].choices = [(n, n) for n in graph_names()]  # type: ignore[attr-defined]


def _build_from_graph(request: HttpRequest) -> HttpResponse:
    graph_form = RicaGraphForm(request.POST, prefix="graph")
    if graph_form.is_valid():
        d = graph_form.cleaned_data
        try:
            qset = rica_graph_build(
                graph=d["graph"],
                name=d["name"],
                seed=d["seed"],
                per_strategy=d["per_strategy"],
                entities=d["entities"],
                user=request.user,
            )
        except ImportRefused as exc:
            graph_form.add_error("name", str(exc))
        else:
            messages.success(request, f"{qset.name}: {qset.questions.count()} probes generated from {d['graph']}.")
            return redirect("knowledge:question_set", name=qset.name)
    ctx = {"form": RicaBuildForm(initial={"source": request.GET.get("set", "")}), "graph_form": graph_form}
    return render(request, "knowledge/build_rica.html", ctx, status=400)


@role_required(RESEARCHER)
def build_rica(request: HttpRequest) -> HttpResponse:
    if request.method == "POST" and request.POST.get("mode") == "graph":
        return _build_from_graph(request)
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
    return render(
        request, "knowledge/build_rica.html", {"form": form, "graph_form": RicaGraphForm(prefix="graph")}, status=status
    )
