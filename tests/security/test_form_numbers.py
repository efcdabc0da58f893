"""Issue 31 item 6: a seed or limit of 10**25 on the run form answered 500 (past the 64-bit
column). Every number of every form is bounded (a static check over the project's forms, so a new
unbounded field fails here), and hypothesis posts odd numbers to each form's page: a form error,
never a 500, and nothing stored."""

from __future__ import annotations

import importlib
import pkgutil
from typing import Any

import pytest
from django import forms
from django.core.validators import MaxValueValidator, MinValueValidator
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from annotation.models import Campaign
from knowledge.models import BuildJob, QuestionSet
from runs.models import Run
from tests.security.conftest import World

pytestmark = pytest.mark.django_db
APPS = ("accounts", "annotation", "cocoweb", "explorer", "knowledge", "runs")


def _project_forms() -> list[type[forms.BaseForm]]:
    for app in APPS:
        pkg = importlib.import_module(app)
        for mod in pkgutil.walk_packages(pkg.__path__, f"{app}."):
            if "form" in mod.name or "view" in mod.name:
                importlib.import_module(mod.name)
    seen: list[type[forms.BaseForm]] = []
    todo: list[type[Any]] = [forms.Form, forms.ModelForm]
    while todo:
        cls = todo.pop()
        for sub in cls.__subclasses__():
            todo.append(sub)
            if sub.__module__.split(".")[0] in APPS and sub not in seen:
                seen.append(sub)
    return seen


def _bounded(form: type[forms.BaseForm], name: str, field: forms.IntegerField) -> bool:
    has = {type(v) for v in field.validators}
    if MinValueValidator in has and MaxValueValidator in has:
        return True
    model = getattr(getattr(form, "_meta", None), "model", None)  # a ModelForm: the model's range checks
    if model is not None and name in {f.name for f in model._meta.fields}:
        mf = {type(v) for v in model._meta.get_field(name).validators}
        return MinValueValidator in mf | has and MaxValueValidator in mf
    return False


def test_every_number_of_every_form_is_bounded() -> None:
    found = _project_forms()
    assert {"RunForm", "CampaignForm", "QuestionBuildForm", "RicaBuildForm"} <= {f.__name__ for f in found}
    unbounded = [
        f"{form.__module__}.{form.__name__}.{name}"
        for form in found
        for name, field in form.base_fields.items()
        if isinstance(field, forms.IntegerField) and not _bounded(form, name, field)  # Float/Decimal too
    ]
    assert not unbounded, f"numbers without a min_value and max_value: {unbounded}"


NUMBERS = st.one_of(
    st.integers(min_value=-(10**30), max_value=10**30).map(str),
    st.from_regex(r"[0-9]{19,40}", fullmatch=True),
    st.sampled_from(["1e400", "-1e400", "nan", "inf", "²", "١٢", "0x10", "1_000", " 5 ", "9" * 5000]),
)


def _posts(w: World) -> list[tuple[str, dict[str, str], list[str]]]:
    """(URL, a valid form, its number fields)."""
    graph = w.graph.name
    return [
        (
            "/runs/new/",
            {"dataset": f"qs:{w.qset.name}", "backend": "random", "scoring": "loglik", "seed": "0"},
            ["seed", "limit", "chunk_size"],
        ),
        (
            "/annotation/new/",
            {"name": "num-camp", "title": "t", "kind": "mcqa", "source": f"qs:{w.qset.name}", "seed": "0"}
            | {"qualification_pass_mark": "0.8", "agreement_threshold": "0.6", "attention_every": "0"}
            | {"attention_max_failures": "1", "reservation_ttl_seconds": "600"},
            ["redundancy", "max_items_per_annotator", "per_kind", "attention_every", "attention_max_failures"]
            + ["reservation_ttl_seconds", "seed", "qualification_pass_mark", "agreement_threshold"],
        ),
        (
            "/knowledge/build/questions/",
            {"graph": graph, "seed": "0", "name": "num-set", "max_degree": "10", "kind": "1p", "count": "5"},
            ["seed", "max_degree", "count", "min_plausibility", "near_duplicate"],
        ),
        (f"/annotation/c/{w.survey.name}/study/", {"qualification_attempts": "1"}, ["qualification_attempts"]),
    ]


def _stored() -> tuple[int, int, int, int]:
    return Run.objects.count(), Campaign.objects.count(), BuildJob.objects.count(), QuestionSet.objects.count()


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_odd_numbers_in_every_form_are_form_errors(world: World, data: st.DataObject) -> None:
    c = world.client("researcher", raise_request_exception=False)
    before = _stored()
    bad = []
    for url, valid, numbers in _posts(world):
        field = data.draw(st.sampled_from(numbers), label=url)
        value = data.draw(NUMBERS, label=field)
        r = c.post(url, {**valid, field: value})
        if r.status_code >= 500:
            bad.append(f"POST {url} {field}={value[:40]!r}: {r.status_code}")
    assert not bad, "\n".join(bad)
    # A value the form took (in range) may store a row; a refused one stores none. Either way the
    # counts only grow by what a valid post makes: at most one run, campaign and build each.
    after = _stored()
    assert all(a - b <= 1 for a, b in zip(after, before, strict=True))


@pytest.mark.parametrize("field", ["seed", "limit"])
def test_run_form_refuses_10_to_the_25(world: World, field: str) -> None:
    c = world.client("researcher")
    runs = Run.objects.count()
    valid = {"dataset": f"qs:{world.qset.name}", "backend": "random", "scoring": "loglik", "seed": "0"}
    r = c.post("/runs/new/", {**valid, field: str(10**25)})
    assert r.status_code == 400
    assert "less than or equal to" in r.content.decode()
    assert Run.objects.count() == runs
