"""Reads of the per-sample log viewer (every prediction of a run, as Inspect View shows a log):
filters from the query string, the facet values to offer, a page of predictions, and the partial
metrics of a run still going.

Everything filters and groups on the prediction's own ``item_*`` copies (see
:mod:`runs.item_facets`) and the ``(run, item_*, correct)`` indexes, so a page of a 40,000-item
run costs a handful of indexed queries whatever the filters.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django.core.paginator import Page, Paginator
from django.db.models import Count, Max, Q, QuerySet

from cocoweb.params import digits
from commonsense.scoring.types import LETTERS
from knowledge.models import Question, Statement
from runs.models import Prediction, Run, RunMetric

PAGE_SIZE = 25
TEXT_MAX = 200
FILTER_KEYS = ("correct", "relation", "kind", "chosen", "q", "error")


@dataclass(frozen=True)
class SampleFilters:
    """The viewer's filters, each already validated (an unknown value is dropped, never a 500)."""

    correct: str = ""  # "1" correct, "0" wrong, "none" unscored (no gold answer / no answer)
    relation: str = ""
    kind: str = ""
    chosen: str = ""  # an option index, or "none" (no option read from the output)
    q: str = ""  # text in the item (stem, context, options), its external id, or the raw output
    error: str = ""  # "1": only items whose scorer reported an error

    @classmethod
    def from_params(cls, params: Mapping[str, str]) -> SampleFilters:
        def get(key: str) -> str:
            return str(params.get(key) or "").strip()

        correct = get("correct") if get("correct") in ("1", "0", "none") else ""
        chosen = get("chosen")
        letter = digits(chosen, max_digits=2)  # bounded ASCII digits: '²' or 10**25 filter nothing
        if not (chosen == "none" or (letter is not None and letter < len(LETTERS))):
            chosen = ""
        return cls(
            correct=correct,
            relation=get("relation")[:64],
            kind=get("kind")[:32],
            chosen=chosen,
            q=get("q")[:TEXT_MAX],
            error="1" if get("error") == "1" else "",
        )

    def as_q(self, run: Run, outputs: bool = True) -> Q:
        """The filters as a condition on the run's predictions; ``outputs=False``: the run stored no
        raw output (a log-likelihood run: :func:`run_summary`), so the text is searched in its items
        only, from their indexes, not in every prediction's empty output."""
        q = Q()
        if self.correct == "1":
            q &= Q(correct=True)
        elif self.correct == "0":
            q &= Q(correct=False)
        elif self.correct == "none":
            q &= Q(correct__isnull=True)
        if self.relation:
            q &= Q(item_relation=self.relation)
        if self.kind:
            q &= Q(item_kind=self.kind)
        if self.chosen == "none":
            q &= Q(chosen__isnull=True)
        elif self.chosen:
            q &= Q(chosen=int(self.chosen))
        if self.error:
            q &= ~Q(error="")
        if self.q:
            items = self._items_matching(run)
            q &= (Q(raw_output__icontains=self.q) | items) if outputs else items
        return q

    def _items_matching(self, run: Run) -> Q:
        """The run's items whose text holds ``q`` (or whose external id is ``q``): a subquery over
        the run's set (on PostgreSQL from the trigram and external-id indexes of runs' migration
        0009), not a join of every row of the item table against every prediction."""
        if run.is_statement_run:
            items = Statement.objects.filter(statement_set_id=run.statement_set_id).filter(
                Q(text__icontains=self.q) | Q(external_id=self.q)
            )
            return Q(statement_id__in=items.values("id"))
        found = Question.objects.filter(question_set_id=run.question_set_id).filter(
            Q(stem__icontains=self.q)
            | Q(external_id=self.q)
            | Q(context__icontains=self.q)
            | Q(options__icontains=self.q)
        )
        return Q(question_id__in=found.values("id"))

    def query(self, **override: str) -> str:
        """The filters as a query string (for pager and facet links), with ``override`` applied."""
        from urllib.parse import urlencode

        values = {k: getattr(self, k) for k in FILTER_KEYS}
        values.update(override)
        return urlencode({k: v for k, v in values.items() if v})

    @property
    def active(self) -> bool:
        return any(getattr(self, k) for k in FILTER_KEYS)


def _stamp(run: Run) -> str:
    """The state a finished run's predictions were read in ('' while they may still change): its
    state and finish time, as the explorer's stored aggregates are keyed. A resumed or re-run run
    has another state or finish time, so a summary of its former predictions is never served."""
    if not run.is_finished or run.finished_at is None:
        return ""
    return f"{run.state}|{run.finished_at.isoformat()}"


def run_summary(run: Run) -> dict[str, Any]:
    """Counts of a run's predictions in one grouped statement: totals (items, scored, correct, no
    answer, errors), and per relation and query kind (items, scored, correct), with the widest
    option count. A finished run's summary is kept on the run (``Run.sample_summary``, under
    :func:`_stamp`) and served from there: its 58,200 predictions are read once, not on every
    view (four aggregates over the run cost 270 ms on PostgreSQL at 1 M predictions)."""
    stamp = _stamp(run)
    stored = run.sample_summary
    if stamp and isinstance(stored, dict) and stored.get("stamp") == stamp and stored.get("v") == SUMMARY_VERSION:
        return stored
    groups = [
        {k: r[k] for k in ("item_relation", "item_kind", "n", "scored", "ok", "no_answer", "errors", "outputs", "w")}
        for r in Prediction.objects.filter(run=run)
        .order_by()
        .values("item_relation", "item_kind")
        .annotate(
            n=Count("id"),
            scored=Count("id", filter=Q(correct__isnull=False)),
            ok=Count("id", filter=Q(correct=True)),
            no_answer=Count("id", filter=Q(chosen__isnull=True)),
            errors=Count("id", filter=~Q(error="")),
            outputs=Count("id", filter=~Q(raw_output="")),
            w=Max("item_options"),
        )
    ]
    summary: dict[str, Any] = {"v": SUMMARY_VERSION, "stamp": stamp, "groups": groups}
    if stamp:  # written only while the run is still in the state it was read in
        Run.objects.filter(pk=run.pk, state=run.state, finished_at=run.finished_at).update(sample_summary=summary)
        run.sample_summary = summary
    return summary


def run_summary_warm(run_id: int, **_: Any) -> None:
    """Keep a finished run's :func:`run_summary` as the run ends (``runs.signals.run_finished``)."""
    run = Run.objects.filter(pk=run_id).first()
    if run is not None:
        run_summary(run)


SUMMARY_VERSION = 1  # bump when run_summary's groups change shape: stored summaries are then read again


def _sum(groups: list[dict[str, Any]], key: str) -> int:
    return sum(int(g[key]) for g in groups)


def _by(groups: list[dict[str, Any]], column: str) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    for g in groups:
        if g[column]:
            out.setdefault(g[column], []).append(g)
    return dict(sorted(out.items()))


def sample_facets(run: Run, summary: dict[str, Any] | None = None) -> dict[str, Any]:
    """The relations, query kinds and option letters this run's items have, with their counts
    (from :func:`run_summary`)."""
    if run.is_statement_run:
        return {"relations": [], "kinds": [], "options": list(enumerate(["no", "yes"]))}
    groups = (summary or run_summary(run))["groups"]
    width = max((g["w"] or 0 for g in groups), default=0)
    return {
        "relations": [(k, _sum(v, "n")) for k, v in _by(groups, "item_relation").items()],
        "kinds": [(k, _sum(v, "n")) for k, v in _by(groups, "item_kind").items()],
        "options": [(i, LETTERS[i]) for i in range(min(width, len(LETTERS)))],
    }


def sample_page_queryset(run: Run, filters: SampleFilters) -> QuerySet[Prediction]:
    rel = "statement" if run.is_statement_run else "question"
    return Prediction.objects.filter(run=run).filter(filters.as_q(run)).select_related(rel).order_by("position")


def sample_page(run: Run, filters: SampleFilters, number: str | None, summary: dict[str, Any]) -> Page[Any]:
    """A page of the run's predictions (in set order) that ``filters`` select, ``page.object_list``
    the predictions with their items. Positions first, then the page's rows: without filters the
    count is the summary's and the page's positions come from the ``(run, position)`` index (its
    OFFSET walks index entries, not joined rows); with filters, every matching position is read in
    one statement - the count and the page at once, where COUNT and then OFFSET would each scan
    the run (a text search through its items twice). Then the page's rows by position."""
    outputs = _sum(summary["groups"], "outputs") > 0
    matching = Prediction.objects.filter(run=run).filter(filters.as_q(run, outputs)).order_by("position")
    positions = matching.values_list("position", flat=True)
    paginator: Paginator[Any]
    if filters.active:
        paginator = Paginator(list(positions), PAGE_SIZE)
    else:
        paginator = Paginator(positions, PAGE_SIZE)
        paginator.count = _sum(summary["groups"], "n")  # known: no COUNT
    page = paginator.get_page(number)
    shown: list[int] = list(page.object_list)
    rel = "statement" if run.is_statement_run else "question"
    rows = Prediction.objects.filter(run=run, position__in=shown).select_related(rel).order_by("position")
    page.object_list = list(rows) if shown else []  # the filters chose the positions: not applied again
    return page


def wilson(ok: int, n: int) -> tuple[float | None, float | None]:
    """95% Wilson score interval of ``ok`` out of ``n`` (statsmodels), None without items."""
    if n <= 0:
        return None, None
    from statsmodels.stats.proportion import proportion_confint

    low, high = proportion_confint(ok, n, alpha=0.05, method="wilson")
    return float(low), float(high)


def wilson_many(pairs: Sequence[tuple[int, int]]) -> list[tuple[float, float] | None]:
    """:func:`wilson` of each (ok, n) in one vectorised statsmodels call (a 12-run compare draws ~170
    intervals: one call each cost ~0.5 ms of scipy set-up apiece); None where n is 0."""
    import numpy as np
    from statsmodels.stats.proportion import proportion_confint

    scored = [(ok, n) for ok, n in pairs if n > 0]
    if not scored:
        return [None] * len(pairs)
    oks, ns = np.array(scored, dtype=float).T
    low, high = proportion_confint(oks, ns, alpha=0.05, method="wilson")
    found = iter(zip(low.tolist(), high.tolist(), strict=True))
    return [next(found) if n > 0 else None for _, n in pairs]


def partial_metrics(run: Run, summary: dict[str, Any] | None = None) -> dict[str, Any]:
    """What the predictions stored so far say: items, scored items (with a gold answer), correct,
    accuracy with a Wilson interval, no-answer and error counts, and accuracy per query kind
    (from :func:`run_summary`). Once the run has ended with its metrics stored, the accuracy and
    its interval are the stored ones (:func:`headline_metric`), ``interval`` names the method, and
    the per-kind figures are left to the Metrics table."""
    groups = (summary or run_summary(run))["groups"]
    totals = {k: _sum(groups, k) for k in ("n", "scored", "ok", "no_answer", "errors")}
    low, high = wilson(totals["ok"], totals["scored"])
    by_kind: list[dict[str, Any]] = []
    out: dict[str, Any] = {
        **totals,
        "accuracy": totals["ok"] / totals["scored"] if totals["scored"] else None,
        "ci_low": low,
        "ci_high": high,
        "interval": "Wilson 95%",
        "by_kind": by_kind,
    }
    stored = headline_metric(run) if run.is_finished else None
    if stored is not None:  # one interval per figure on a page: the one the Metrics table shows
        out.update(accuracy=stored.value, ci_low=stored.ci_low, ci_high=stored.ci_high)
        out["interval"] = "95% bootstrap, as in Metrics"
        return out
    if not run.is_statement_run:
        for kind, gs in _by(groups, "item_kind").items():
            n, ok = _sum(gs, "scored"), _sum(gs, "ok")
            if n:
                lo, hi = wilson(ok, n)
                by_kind.append({"kind": kind, "n": n, "ok": ok, "acc": ok / n, "lo": lo, "hi": hi})
    return out


def headline_metric(run: Run) -> RunMetric | None:
    """The stored overall figure the live card shows once a run has ended (accuracy; a statement
    run's consensus, its agreement with the human majority) when it has a bootstrap interval: a
    finished run's page then prints one interval for it, the Metrics table's (docs/ARCHITECTURE.md,
    "Intervals")."""
    name = "consensus" if run.is_statement_run else "accuracy"
    return (
        RunMetric.objects.filter(run=run, scope="overall", name=name)
        .exclude(value__isnull=True)
        .exclude(ci_low__isnull=True)
        .exclude(ci_high__isnull=True)
        .first()
    )


def _extra_json(extra: Any) -> str:
    """The scorer's extra record as indented JSON for the page ('' when empty)."""
    import json

    shown = {k: v for k, v in (extra or {}).items() if k != "is_greedy"} if isinstance(extra, dict) else extra
    return json.dumps(shown, indent=1, ensure_ascii=False, default=str) if shown else ""


def sample_rows(run: Run, preds: list[Prediction]) -> list[dict[str, Any]]:
    """One display row per prediction: item text, options with gold / chosen marks and the
    per-option scores, raw output, the prompt as rebuilt from the run's scoring settings."""
    from runs.sample_prompts import rebuilt_prompt

    rows = []
    for p in preds:
        if run.is_statement_run:
            s = p.statement
            assert s is not None
            text, context, options, answer, ext = s.text, "", ["no", "yes"], s.human_majority, s.external_id
        else:
            item = p.question
            assert item is not None
            text, context, options = item.stem, item.context, [str(o) for o in item.options]
            answer, ext = item.answer_index, item.external_id
        scores = p.scores if isinstance(p.scores, list) else []
        norm = p.norm_scores if isinstance(p.norm_scores, list) else []
        opts = [
            {
                "index": i,
                "letter": LETTERS[i] if i < len(LETTERS) else str(i),
                "text": o,
                "gold": i == answer,
                "chosen": i == p.chosen,
                "score": scores[i] if i < len(scores) else None,
                "norm": norm[i] if i < len(norm) else None,
            }
            for i, o in enumerate(options)
        ]
        rows.append(
            {
                "p": p,
                "text": text,
                "context": context,
                "external_id": ext,
                "options": opts,
                "prompt": rebuilt_prompt(run, p),
                "extra": _extra_json(p.extra),
            }
        )
    return rows
