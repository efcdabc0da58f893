"""Reads of the per-sample log viewer (every prediction of a run, as Inspect View shows a log):
filters from the query string, the facet values to offer, a page of predictions, and the partial
metrics of a run still going.

Everything filters and groups on the prediction's own ``item_*`` copies (see
:mod:`runs.item_facets`) and the ``(run, item_*, correct)`` indexes, so a page of a 40,000-item
run costs a handful of indexed queries whatever the filters.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from django.db.models import Count, Max, Q, QuerySet

from cocoweb.params import digits
from commonsense.scoring.types import LETTERS
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

    def as_q(self, run: Run) -> Q:
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
            text = Q(raw_output__icontains=self.q)
            if run.is_statement_run:
                text |= Q(statement__text__icontains=self.q) | Q(statement__external_id=self.q)
            else:
                text |= Q(question__stem__icontains=self.q) | Q(question__external_id=self.q)
                text |= Q(question__context__icontains=self.q) | Q(question__options__icontains=self.q)
            q &= text
        return q

    def query(self, **override: str) -> str:
        """The filters as a query string (for pager and facet links), with ``override`` applied."""
        from urllib.parse import urlencode

        values = {k: getattr(self, k) for k in FILTER_KEYS}
        values.update(override)
        return urlencode({k: v for k, v in values.items() if v})

    @property
    def active(self) -> bool:
        return any(getattr(self, k) for k in FILTER_KEYS)


def sample_facets(run: Run) -> dict[str, Any]:
    """The relations, query kinds and option letters this run's items have. Three small queries,
    each answered from one of the covering ``(run, item_*, …)`` indexes without reading a row."""
    base = Prediction.objects.filter(run=run).order_by()

    def counts(column: str) -> list[tuple[str, int]]:
        rows = base.exclude(**{column: ""}).values(column).annotate(n=Count("id")).order_by(column)
        return [(r[column], r["n"]) for r in rows]

    if run.is_statement_run:
        return {"relations": [], "kinds": [], "options": list(enumerate(["no", "yes"]))}
    width = base.aggregate(w=Max("item_options"))["w"] or 0
    return {
        "relations": counts("item_relation"),
        "kinds": counts("item_kind"),
        "options": [(i, LETTERS[i]) for i in range(min(width, len(LETTERS)))],
    }


def sample_page_queryset(run: Run, filters: SampleFilters) -> QuerySet[Prediction]:
    rel = "statement" if run.is_statement_run else "question"
    return Prediction.objects.filter(run=run).filter(filters.as_q(run)).select_related(rel).order_by("position")


def wilson(ok: int, n: int) -> tuple[float | None, float | None]:
    """95% Wilson score interval of ``ok`` out of ``n`` (statsmodels), None without items."""
    if n <= 0:
        return None, None
    from statsmodels.stats.proportion import proportion_confint

    low, high = proportion_confint(ok, n, alpha=0.05, method="wilson")
    return float(low), float(high)


def partial_metrics(run: Run) -> dict[str, Any]:
    """What the predictions stored so far say: items, scored items (with a gold answer), correct,
    accuracy with a Wilson interval, no-answer and error counts, and accuracy per query kind.
    Two grouped queries on the ``(run, item_kind, correct)`` index. Once the run has ended with its
    metrics stored, the accuracy and its interval are the stored ones (:func:`headline_metric`),
    ``interval`` names the method, and the per-kind figures are left to the Metrics table."""
    totals = Prediction.objects.filter(run=run).aggregate(
        n=Count("id"),
        scored=Count("id", filter=Q(correct__isnull=False)),
        ok=Count("id", filter=Q(correct=True)),
        no_answer=Count("id", filter=Q(chosen__isnull=True)),
        errors=Count("id", filter=~Q(error="")),
    )
    low, high = wilson(totals["ok"], totals["scored"])
    by_kind = []
    if not run.is_statement_run:
        for r in (
            Prediction.objects.filter(run=run, correct__isnull=False)
            .exclude(item_kind="")
            .values("item_kind")
            .annotate(n=Count("id"), ok=Count("id", filter=Q(correct=True)))
            .order_by("item_kind")
        ):
            lo, hi = wilson(r["ok"], r["n"])
            by_kind.append(
                {"kind": r["item_kind"], "n": r["n"], "ok": r["ok"], "acc": r["ok"] / r["n"], "lo": lo, "hi": hi}
            )
    out = {
        **totals,
        "accuracy": totals["ok"] / totals["scored"] if totals["scored"] else None,
        "ci_low": low,
        "ci_high": high,
        "interval": "Wilson 95%",
        "by_kind": by_kind,
    }
    stored = headline_metric(run) if run.is_finished else None
    if stored is not None:  # one interval per figure on a page: the one the Metrics table shows
        out.update(accuracy=stored.value, ci_low=stored.ci_low, ci_high=stored.ci_high, by_kind=[])
        out["interval"] = "95% bootstrap, as in Metrics"
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
