"""Thin adapter between a :class:`~runs.models.Run` row and ``commonsense.scoring``.

Builds the :class:`~commonsense.scoring.types.Item` objects of a run (from questions or
statements) and the scorer for its backend. Everything model-specific lives in
``commonsense.scoring``; the one scorer defined here replays answers that are already in the
database (the statements CSV's ``<Model>_q1`` / ``<Model>_q2`` columns, imported into
``Statement.model_answers``), because only this layer can read them.

Convention for ``yesno`` results (statement runs), as ``commonsense.scoring.yesno`` has it: options
are ``("no", "yes")``, so ``chosen`` is the binarised answer to question (a) (1 = yes);
``extra["q1"]`` / ``extra["q2"]`` hold each question's record with ``p_yes`` (renormalised P(yes);
0.0 / 1.0 for replayed binary answers) and ``chosen``.
"""

from __future__ import annotations

import importlib
import json
import random
from collections.abc import Iterable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError

from commonsense.scoring.factory import BACKENDS, SCORINGS
from commonsense.scoring.types import Item, ItemResult, Scorer
from knowledge.models import Question, Statement

from . import catalog
from .models import Run

YES_NO = ("no", "yes")


class ScorerUnavailable(RuntimeError):
    """The requested backend / scoring pair cannot be built (missing model, wrong set kind …)."""


def question_item(q: Question) -> Item:
    fields = {k: str(v) for k, v in (q.metadata or {}).items() if isinstance(v, str | int | float)}
    if q.structure:
        fields["structure"] = q.structure
    if q.external_id:
        fields["external_id"] = q.external_id
    return Item(
        id=str(q.pk),
        question=q.stem,
        options=tuple(str(o) for o in q.options),
        context=q.context,
        fields=fields,
        gold=q.answer_index,
    )


def statement_item(s: Statement) -> Item:
    return Item(id=str(s.pk), question=s.text, options=YES_NO)


class StatementAnswerReplay:
    """Replays one model's stored binary answers to NWW questions (a) and (b)."""

    method = "yesno"

    def __init__(self, model: str, answers: dict[str, dict[str, int]]) -> None:
        self.model = model
        self.answers = answers  # item id -> {"q1": 0/1, "q2": 0/1}

    def score_batch(self, items: Sequence[Item]) -> list[ItemResult]:
        out = []
        for it in items:
            a = self.answers.get(it.id, {})
            q1 = a.get("q1")
            if q1 is None:
                out.append(ItemResult(item_id=it.id, chosen=None, error=f"{self.model} has no stored answer to (a)"))
                continue
            extra = {q: {"p_yes": float(v), "chosen": int(v)} for q, v in a.items() if v is not None}
            out.append(
                ItemResult(
                    item_id=it.id,
                    chosen=int(q1),
                    scores=[1.0 - q1, float(q1)],
                    raw_output=json.dumps(a, sort_keys=True),
                    extra=extra,
                )
            )
        return out

    def describe(self) -> dict[str, Any]:
        return {"backend": "replay", "source": "Statement.model_answers", "model": self.model, "method": "yesno"}


class SeededRandom:
    """Chance baseline, used only while ``commonsense.scoring`` lacks its factory (then its
    ``RandomScorer`` is used): a uniformly random option per item, from (seed, item id)."""

    def __init__(self, method: str, seed: int) -> None:
        self.method = method
        self.seed = seed

    def score_batch(self, items: Sequence[Item]) -> list[ItemResult]:
        out = []
        for it in items:
            rng = random.Random(f"{self.seed}:{it.id}")
            n = len(it.options)
            scores = [rng.random() for _ in range(n)]
            chosen = max(range(n), key=scores.__getitem__) if n else None
            extra: dict[str, Any] = {}
            if it.options == YES_NO:
                extra = {"q1": {"chosen": chosen}, "q2": {"chosen": rng.randrange(2)}}
            out.append(ItemResult(item_id=it.id, chosen=chosen, scores=scores, extra=extra))
        return out

    def describe(self) -> dict[str, Any]:
        return {"backend": "random", "seed": self.seed, "method": self.method}


def _core_factory() -> Any | None:
    """The scorer factory of ``commonsense.scoring`` once it exists (``build_scorer``)."""
    for mod, name in (("commonsense.scoring", "build_scorer"), ("commonsense.scoring.factory", "build_scorer")):
        try:
            fn = getattr(importlib.import_module(mod), name, None)
        except ImportError:
            continue
        if fn is not None:
            return fn
    return None


def replay_answers(run: Run) -> dict[str, dict[str, int]]:
    assert run.statement_set is not None
    answers: dict[str, dict[str, int]] = {}
    for pk, stored in Statement.objects.filter(statement_set=run.statement_set).values_list("pk", "model_answers"):
        if run.model in (stored or {}):
            answers[str(pk)] = stored[run.model]
    return answers


def with_exemplars(run: Run, options: dict[str, Any] | None) -> dict[str, Any] | None:
    """Few-shot runs (``scoring_options`` ``shots`` > 0): the exemplar pool from ``exemplar_set``
    (default: the run's own set; an item is never its own exemplar), each with its golden chain as
    the CoT reasoning, and the run's seed to draw them."""
    if not options or not options.get("shots"):
        return options
    name = options.get("exemplar_set") or run.set_name
    pool = []
    for q in Question.objects.filter(question_set__name=name, answer_index__isnull=False).order_by("position"):
        item = question_item(q)
        chain = (q.metadata or {}).get("chain") or []
        reasoning = " ".join(" ".join(str(x) for x in step) + "." for step in chain if isinstance(step, list))
        pool.append(replace(item, fields={**item.fields, "reasoning": reasoning}))
    if not pool:
        raise ScorerUnavailable(f"few-shot: no question set {name!r} with answered questions to draw exemplars from")
    return {**options, "exemplars": pool, "seed": run.seed, "exemplar_set": name}


def scorer_for_run(run: Run) -> Scorer:
    """The scorer for ``run``. Raises :class:`ScorerUnavailable` with a readable reason."""
    if run.backend not in BACKENDS:
        raise ScorerUnavailable(f"unknown backend {run.backend!r} (one of {', '.join(BACKENDS)})")
    if run.scoring not in SCORINGS:
        raise ScorerUnavailable(f"unknown scoring {run.scoring!r} (one of {', '.join(SCORINGS)})")
    if run.is_statement_run and run.scoring != "yesno":
        raise ScorerUnavailable("a statement set is scored with --scoring yesno")
    if run.backend == "replay" and run.is_statement_run:
        assert run.statement_set is not None
        known = run.statement_set.models_answered or []
        if run.model not in known:
            raise ScorerUnavailable(
                f"statement set {run.statement_set.name!r} has no stored answers of model {run.model!r}; "
                f"known: {', '.join(known) or 'none'}"
            )
        return StatementAnswerReplay(run.model, replay_answers(run))
    factory = _core_factory()
    if factory is not None:
        try:
            resolved = catalog.run_scorer_args(run)
        except ValidationError as exc:
            raise ScorerUnavailable("; ".join(exc.messages)) from None
        return factory(
            run.backend,
            run.scoring,
            seed=run.seed,
            cache_dir=str(Path(settings.COCOWEB_CACHE_DIR) / "models"),
            scoring_options=with_exemplars(run, run.params.get("scoring_options")),
            **resolved,  # model, url, source and backend_options, resolved by the operator's catalog
        )
    if run.backend == "random":
        return SeededRandom(run.scoring, run.seed)
    raise ScorerUnavailable(f"backend {run.backend!r} is not available: commonsense.scoring has no build_scorer yet")


def _item_rows(run: Run) -> Any:
    if run.question_set_id:
        return Question.objects.filter(question_set_id=run.question_set_id).order_by("position")
    return Statement.objects.filter(statement_set_id=run.statement_set_id).order_by("position")


def items_for_run(
    run: Run, first: int | None = None, last: int | None = None
) -> Iterable[tuple[int, Question | Statement]]:
    """(position, row) of every item of the run, in set order, cut at ``run.limit``; with ``first``
    and ``last``, only those at positions ``first``..``last`` (a shard's, :mod:`runs.shards`)."""
    qs = _item_rows(run)
    if first is not None and last is not None:
        qs = qs.filter(position__gte=first, position__lte=last)
    elif run.limit:
        qs = qs[: run.limit]
    return ((row.position, row) for row in qs)


def item_positions(run: Run) -> list[int]:
    """The positions of the run's items, in set order, cut at ``run.limit``."""
    qs = _item_rows(run).values_list("position", flat=True)
    return list(qs[: run.limit] if run.limit else qs)


def item_count(run: Run) -> int:
    if run.question_set_id:
        n = Question.objects.filter(question_set_id=run.question_set_id).count()
    else:
        n = Statement.objects.filter(statement_set_id=run.statement_set_id).count()
    return min(n, run.limit) if run.limit else n
