"""The CLI, the form and the job accept the same build options, those
``knowledge/services/build_options.py`` declares (issue 30 item 4): the command's parser takes
every declared option and no other; the browser form has a field for every option the browser may
set and no other (a shell-only option says why in the declaration); a job passes every option the
form gives to the builder, and writes a command line that the command's own parser reads back to
the values the form was given. Each check is tried on a planted side that misses an option (or has
one too many), as session 17's ``--near-synonym`` did (in the command, not in the form or the job)."""

from __future__ import annotations

import argparse
import shlex
import uuid
from typing import Any

import pytest
from django import forms
from django.core.management import load_command_class

from commonsense.queries.rules import RULES_MODES
from commonsense.questions.negatives import ADVERSARIAL_MODES, RANDOM_MODES
from knowledge.forms.builds import CocoBuildForm, QuestionBuildForm
from knowledge.models import BuildJob, Graph
from knowledge.services import build_execution
from knowledge.services.build_jobs import build_job_command, build_job_create
from knowledge.services.build_options import COCO, COM2, OPTIONS, builder_keys, option, options

DJANGO_OPTIONS = {
    "help", "version", "verbosity", "settings", "pythonpath", "traceback", "no_color", "force_color", "skip_checks",
}  # fmt: skip
IMPORT_OPTIONS = {"allow_duplicate"}  # every import command's (knowledge/management/commands/_base.py), not a build's
BUILDS = [(COM2, QuestionBuildForm, "build_questions"), (COCO, CocoBuildForm, "build_coco")]


def _parser(command: str) -> argparse.ArgumentParser:
    return load_command_class("knowledge", command).create_parser("manage.py", command)  # type: ignore[no-any-return]


def _dests(parser: argparse.ArgumentParser) -> set[str]:
    return {a.dest for a in parser._actions} - DJANGO_OPTIONS - IMPORT_OPTIONS


def cli_gaps(build: str, parser: argparse.ArgumentParser) -> set[str]:
    """Options the command takes and the declaration does not, or the reverse."""
    return _dests(parser) ^ {o.name for o in options(build, where="cli")}


def form_gaps(build: str, form: type[forms.BaseForm]) -> set[str]:
    return set(form.base_fields) ^ {o.name for o in options(build, where="form")}


def job_gaps(build: str, passed: tuple[str, ...], form: forms.BaseForm) -> set[str]:
    """Params a job made from ``form`` stores that its worker does not pass on to the builder."""
    params = form.params() if build == COM2 else form.params(None)  # type: ignore[attr-defined]
    return set(params) - {"abstract"} - set(passed)


def _com2_form(**extra: Any) -> QuestionBuildForm:
    data = {"graph": "demo", "kind": "2i", "count": 12, "seed": 11, "name": "job-2i", "max_degree": 7}
    form = QuestionBuildForm({**data, **extra})
    assert form.is_valid(), form.errors
    return form


def _coco_form() -> CocoBuildForm:
    data = {"graph": "demo", "seed": 1, "name": "coco-1", "per_relation": 5, "per_kind": 6, "max_degree": 10}
    form = CocoBuildForm(data)
    assert form.is_valid(), form.errors
    return form


@pytest.mark.parametrize(("build", "form", "command"), BUILDS)
def test_the_command_takes_exactly_the_declared_options(build: str, form: Any, command: str) -> None:
    parser = _parser(command)
    assert cli_gaps(build, parser) == set()
    parser.add_argument("--near-synonym-2", type=float)  # planted: an option added to the command by hand
    assert cli_gaps(build, parser) == {"near_synonym_2"}


@pytest.mark.parametrize(("build", "form", "command"), BUILDS)
def test_the_form_has_exactly_the_declared_browser_options(build: str, form: Any, command: str) -> None:
    assert form_gaps(build, form) == set()
    planted = type("Planted", (form,), {})
    planted.base_fields = {k: v for k, v in form.base_fields.items() if k != "max_degree"}  # one field missing
    assert form_gaps(build, planted) == {"max_degree"}


def test_every_shell_only_option_says_why_and_the_browser_offers_the_rest() -> None:
    for o in OPTIONS:
        assert not (o.shell_only and o.browser_only), o.name
    shell_only = {o.name for o in OPTIONS if o.shell_only}
    assert {"adversarial_negatives", "same_type_veto", "plausibility_backend", "fluent_model"} <= shell_only
    assert {"near_duplicate", "near_synonym", "random_negatives", "merge_nodes", "rules"}.isdisjoint(shell_only)


def test_the_declared_choices_are_the_cores_modes() -> None:
    assert [v for v, _ in option("rules").choices] == list(RULES_MODES)
    assert [v for v, _ in option("random_negatives").choices if v] == list(RANDOM_MODES)
    assert [v for v, _ in option("adversarial_negatives").choices] == list(ADVERSARIAL_MODES)


@pytest.mark.django_db
def test_the_job_passes_every_option_of_the_form_to_the_builder(demo_graph: Graph) -> None:
    com2 = _com2_form(near_synonym="0.6", random_negatives="shared", merge_nodes="0.95")
    coco = _coco_form()
    assert job_gaps(COM2, build_execution.COM2_PARAMS, com2) == set()
    assert job_gaps(COCO, build_execution.COCO_PARAMS, coco) == set()
    session_17 = tuple(k for k in builder_keys(COM2) if k != "near_synonym")  # planted: the job's list missed it
    assert job_gaps(COM2, session_17, com2) == {"near_synonym"}


@pytest.mark.django_db
def test_a_worker_calls_the_builder_with_what_the_form_was_given(
    demo_graph: Graph, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("knowledge.tasks.build_job_run_task.apply_async", lambda args, queue: None)  # no broker
    form = _com2_form(near_synonym="0.6", near_duplicate="", keep_placeholders="on", relations=["xNeed"])
    job = build_job_create(kind=BuildJob.Kind.COM2, graph=demo_graph, name="job-2i", seed=11, params=form.params())
    seen: dict[str, Any] = {}

    class Stop(Exception):
        pass

    def builder(**kw: Any) -> None:
        seen.update(kw)
        raise Stop

    monkeypatch.setattr(build_execution, "question_set_build", builder)
    with pytest.raises(Stop):
        build_execution._build(job, build_execution.Reporter(job.pk, uuid.uuid4()), None)
    assert {k: seen[k] for k in form.params()} == form.params()
    assert seen["near_synonym"] == 0.6
    assert seen["near_duplicate"] is None  # the empty field: no check
    assert seen["person_names"] is False
    assert (seen["graph"], seen["seed"], seen["name"]) == ("demo", 11, "job-2i")


@pytest.mark.django_db
@pytest.mark.parametrize(
    "extra",
    [
        {"near_duplicate": "0.8", "near_synonym": "0.6", "include_implausible": "on", "keep_placeholders": "on"},
        {"near_duplicate": "", "near_synonym": "", "rules": "paper", "random_negatives": "whole-graph"},
        {"relations": ["xNeed", "xWant"], "merge_nodes": "0.95", "diverse": "on", "min_plausibility": "0.3"},
    ],
)
def test_a_job_from_the_form_writes_the_command_line_of_the_same_build(
    demo_graph: Graph, monkeypatch: pytest.MonkeyPatch, extra: dict[str, Any]
) -> None:
    """The job page's "the same build from the shell", parsed by the command's own parser, gives the
    builder the same keyword arguments as the job does."""
    from knowledge.services.build_options import builder_kwargs_from_cli

    monkeypatch.setattr("knowledge.tasks.build_job_run_task.apply_async", lambda args, queue: None)  # no broker
    form = _com2_form(**extra)
    job = build_job_create(kind=BuildJob.Kind.COM2, graph=demo_graph, name="job-2i", seed=11, params=form.params())
    argv = shlex.split(build_job_command(job))
    assert argv[:3] == ["python", "manage.py", "build_questions"]
    cli = builder_kwargs_from_cli(COM2, vars(_parser("build_questions").parse_args(argv[3:])))
    assert {k: cli[k] for k in form.params()} == form.params()
    assert (cli["graph"], cli["seed"], cli["name"]) == ("demo", 11, "job-2i")
    for o in options(COM2, where="cli"):  # what the browser cannot set stays the command's default
        if o.shell_only and o.key:
            assert cli[o.key] == o.default_value(), o.name
