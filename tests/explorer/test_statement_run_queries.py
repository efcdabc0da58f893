"""A statement run's page within issue 16's bound of 12 SQL statements with nothing cached (it
took 17 in perf/explorer_pages.py: the runs on the set read twice, the run metrics three times,
the survey campaign three times), with and without a survey campaign with answers, and the same
panels either way. Data through the production paths: the demo statements imported, runs scored
by the replay backend, survey ratings imported into a survey campaign."""

from __future__ import annotations

import pytest
from django.core.cache import cache
from django.urls import reverse

from annotation.services.campaigns import campaign_create
from annotation.services.ratings_import import ratings_import
from knowledge.models import Statement, StatementSet
from knowledge.services.imports import statements_import
from runs.evaluation import run_execute
from runs.models import Run
from runs.services import run_create
from tests.conftest import FIXTURES

pytestmark = pytest.mark.django_db
MAX_STATEMENTS = 12  # issue 16 item 5
PANELS = (
    "nww-ca",
    "silicon",
    "features",
    "human-percentile",
    "human-distribution",
    "fidelity",
    "feature-diff",
    "variant-ii",
    "ab-divergence",
)
N_SURVEYED = 30


def _replay_run(sset: StatementSet, model: str) -> Run:
    run = run_create(statement_set=sset, backend="replay", model=model, scoring="yesno", enqueue=False)
    assert run_execute(run.pk, heartbeat=False) == "done"
    return run


def _survey(sset: StatementSet, n_raters: int = 5) -> None:
    """A survey campaign with imported (a)/(b) ratings of the first statements, rater × statement."""
    camp = campaign_create(name="surv", title="survey", kind="survey", statement_set=sset, redundancy=n_raters)
    stmts = list(Statement.objects.filter(statement_set=sset).order_by("position")[:N_SURVEYED])
    header = ["rater"] + [f"{s.external_id or s.position}:{q}" for s in stmts for q in ("a", "b")]
    lines = [",".join(header)]
    for r in range(n_raters):
        cells = [str((r * 7 + j * (3 + q)) % 3 % 2) for j in range(len(stmts)) for q in (0, 1)]
        lines.append(",".join([f"rater{r}", *cells]))
    ratings_import(camp, "\n".join(lines) + "\n", create_raters=True)


@pytest.mark.parametrize("with_survey", [False, True], ids=["no-survey", "survey"])
def test_statement_run_page_within_twelve_statements(researcher, django_assert_max_num_queries, with_survey):
    statements_import(FIXTURES / "statements_demo.csv", name="statements-demo")
    sset = StatementSet.objects.get(name="statements-demo")
    run = _replay_run(sset, "Mixtral-8x22B")
    _replay_run(sset, "GPT-4o")  # another run on the set: the scatter, the percentile and fidelity tables
    if with_survey:
        _survey(sset)
    url = reverse("explorer:run_errors", args=[run.pk])
    researcher.get(url)  # the first request of a session (as in the other page tests)
    cache.clear()  # nothing cached: the page's full cost
    with django_assert_max_num_queries(MAX_STATEMENTS):
        r = researcher.get(url)
    assert r.status_code == 200
    html = r.content.decode()
    for key in PANELS:
        assert f'id="fig-{key}"' in html, key
    assert ("No survey answers on this statement set yet" in html) is not with_survey


def test_statement_drawer_shows_the_p_yes_the_scorer_stored(researcher):
    # the drawer read ``extra.p_yes_q1``, a key no scorer writes (they store ``extra["q1"]["p_yes"]``),
    # so every real run showed "P(yes) –"; a hand-written factory had hidden it
    statements_import(FIXTURES / "statements_demo.csv", name="statements-demo")
    sset = StatementSet.objects.get(name="statements-demo")
    run = _replay_run(sset, "Mixtral-8x22B")
    p = run.predictions.exclude(extra={}).order_by("position").first()
    assert p is not None
    assert "p_yes" in p.extra["q1"]
    r = researcher.get(reverse("explorer:run_items", args=[run.pk]))
    assert r.status_code == 200
    html = r.content.decode()
    assert f"P(yes) {p.extra['q1']['p_yes']:.3f}" in html
    assert "P(yes) –" not in html


@pytest.mark.parametrize("with_survey", [False, True], ids=["no-survey", "survey"])
def test_figure_json_is_plotly_to_json(with_survey):
    """Panel.script_tag writes explorer.views.panels.figure_json, plotly's to_json without its deep
    copy: the same text for every panel of a statement run's page, and the figure left as it was."""
    import plotly.io as pio

    from explorer.panels.base import figure_json
    from explorer.panels.statements import statement_run_panels

    statements_import(FIXTURES / "statements_demo.csv", name="statements-demo")
    sset = StatementSet.objects.get(name="statements-demo")
    run = _replay_run(sset, "Mixtral-8x22B")
    _replay_run(sset, "GPT-4o")
    if with_survey:
        _survey(sset)
    panels = statement_run_panels(Run.objects.select_related("statement_set").get(pk=run.pk))
    assert {p.key for p in panels} == set(PANELS)
    for p in panels:
        before = p.figure.to_dict()
        assert figure_json(p.figure) == pio.to_json(p.figure, validate=False), p.key
        assert p.figure.to_dict() == before
