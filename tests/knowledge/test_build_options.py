"""The CLI, the form and the job accept the same build options: every field of a browser build's
form is an option of its command; every option only the command has is listed here with why; and
a job made from a filled form writes a command line that the command's own parser reads back to
the values the form was given (so a job page's "the same build from the shell" is that build)."""

from __future__ import annotations

import shlex
from typing import Any

import pytest
from django.core.management import load_command_class

from knowledge.forms.builds import CocoBuildForm, QuestionBuildForm
from knowledge.models import BuildJob, Graph
from knowledge.services.build_jobs import build_job_command, build_job_create

DJANGO_OPTIONS = {
    "help",
    "version",
    "verbosity",
    "settings",
    "pythonpath",
    "traceback",
    "no_color",
    "force_color",
    "skip_checks",
}
# Options the shell has and the browser does not, with why. A new option goes in the form or here.
CLI_ONLY = {
    # a model a worker would load: the operator runs such builds from the shell
    "plausibility_backend", "plausibility_model", "plausibility_url", "plausibility_threshold",
    "no_plausibility_edges", "no_plausibility_distractors",
    "fluent_backend", "fluent_model", "fluent_url",
    "conceptualize_backend", "conceptualize_heads", "conceptualize_model", "conceptualize_url",
    # the negatives of the bare procedure, for comparisons (#25): the browser builds the default
    "adversarial_negatives", "same_type_veto",
    # storing a second copy of a file already stored: a shell-only escape
    "allow_duplicate",
}  # fmt: skip
FORM_ONLY = {"abstract_upload"}  # the browser uploads the conceptualisation file; the shell names its path (--abstract)


def _cli(command: str) -> Any:
    return load_command_class("knowledge", command).create_parser("manage.py", command)


@pytest.mark.parametrize(("form", "command"), [(QuestionBuildForm, "build_questions"), (CocoBuildForm, "build_coco")])
def test_every_form_field_is_an_option_of_the_command(form: Any, command: str) -> None:
    cli = {a.dest for a in _cli(command)._actions} - DJANGO_OPTIONS
    fields = set(form.base_fields)
    assert fields - cli - FORM_ONLY == set()
    assert cli - fields - CLI_ONLY == set()  # an option the browser lacks must say why above


@pytest.mark.django_db
def test_a_job_from_the_form_writes_the_command_line_of_the_same_build(
    demo_graph: Graph, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("knowledge.tasks.build_job_run_task.apply_async", lambda args, queue: None)  # no broker
    data = {
        "graph": "demo",
        "kind": "2i",
        "count": 12,
        "seed": 11,
        "name": "job-2i",
        "max_degree": 7,
        "relations": ["xNeed", "xWant"],
        "near_duplicate": "0.8",
        "near_synonym": "0.6",
        "include_implausible": "on",
        "keep_placeholders": "on",
        "rules": "paper",
    }
    form = QuestionBuildForm(data)
    assert form.is_valid(), form.errors
    job = build_job_create(kind=BuildJob.Kind.COM2, graph=demo_graph, name="job-2i", seed=11, params=form.params())
    argv = shlex.split(build_job_command(job))
    assert argv[:3] == ["python", "manage.py", "build_questions"]
    parsed = vars(_cli("build_questions").parse_args(argv[3:]))
    for field, value in form.cleaned_data.items():
        got = parsed[field]
        if field == "graph":
            value = value.name
        if field == "relations":
            got = got.split(",")
        assert got == value, field
