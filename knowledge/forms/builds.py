"""Forms of the browser builds: a COM2 question set and a CoCo set. Their fields are the options
``knowledge/services/build_options.py`` declares for ``build_questions`` / ``build_coco``;
``params()`` returns the builder's keyword arguments (a build job's params)."""

from __future__ import annotations

from typing import Any, cast

from django import forms
from django.conf import settings

from knowledge import selectors
from knowledge.models import Graph
from knowledge.services.abstract_files import SUFFIXES, abstract_file_list
from knowledge.services.build_jobs import build_job_name_clash
from knowledge.services.build_options import COCO, COM2, form_fields, form_params


class _BuildForm(forms.Form):
    """The fields are the build's options as ``knowledge/services/build_options.py`` declares them
    (:func:`_declared`); the form adds what needs the database: a graph's relations, the stored files."""

    build = ""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.graph_name = str((self.data if self.is_bound else self.initial).get("graph") or "")

    def clean_name(self) -> str:
        name: str = self.cleaned_data["name"]
        clash = build_job_name_clash(name)
        if clash:
            raise forms.ValidationError(f"{clash}; choose another name")
        return name


class QuestionBuildForm(_BuildForm):
    """``build_questions``: COM2 logical queries of one kind."""

    build = COM2

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        graph = Graph.objects.filter(name=self.graph_name).first() if self.graph_name else None
        rel = cast(forms.MultipleChoiceField, self.fields["relations"])
        if graph is None:
            rel.choices = []
            rel.help_text = "choose a graph first to list its relations"
        else:
            rel.choices = [
                (r["relation__name"], f"{r['relation__name']} ({r['n']:,} triples)")
                for r in selectors.graph_relation_counts(graph)
            ]
        rel.error_messages["invalid_choice"] = (
            f"unknown relation %(value)s: graph {graph.name} has no triple with it"
            if graph is not None
            else "unknown relation %(value)s: choose a graph first"
        )

    def params(self) -> dict[str, Any]:
        return form_params(COM2, self.cleaned_data)


class CocoBuildForm(_BuildForm):
    """``build_coco``: memorization, comprehension and application families."""

    build = COCO

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["abstract"].choices = [("", "none"), *((f.rel, f.label) for f in abstract_file_list())]  # type: ignore[attr-defined]

    def clean_abstract_upload(self) -> Any:
        f = self.cleaned_data.get("abstract_upload")
        if not f:
            return None
        limit = settings.COCOWEB_MAX_UPLOAD_BYTES
        if f.size > limit:
            raise forms.ValidationError(f"the file is {f.size:,} bytes; the limit is {limit:,} bytes")
        suffix = "." + f.name.rsplit(".", 1)[-1].lower() if "." in f.name else ""
        if suffix not in SUFFIXES:
            raise forms.ValidationError(f"unsupported file type {suffix or '(none)'}; use one of {', '.join(SUFFIXES)}")
        return f

    def clean(self) -> dict[str, Any]:
        d = super().clean() or {}
        if d.get("abstract") and d.get("abstract_upload"):
            self.add_error("abstract_upload", "choose a stored file or upload one, not both")
        return d

    def params(self, abstract: str | None) -> dict[str, Any]:
        return form_params(COCO, self.cleaned_data, abstract=abstract)


def _declared(form: type[_BuildForm]) -> None:
    """Give ``form`` the declared fields of its build (Django's metaclass collects class attributes;
    these are made from the declaration instead, in its order)."""
    fields = form_fields(form.build)
    form.base_fields = fields
    form.declared_fields = fields


_declared(QuestionBuildForm)
_declared(CocoBuildForm)
