"""Writes for the runs app: create (and enqueue after commit), cancel, re-run, requeue."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from accounts.people import User
from commonsense.scoring.naming import model_display_name
from knowledge.models import QuestionSet, StatementSet
from runs.reports.difficulty import difficulty_run_check

from . import catalog
from .models import Run
from .scorers import BACKENDS, SCORINGS
from .shards import run_shards_stop


def set_resolve(name: str) -> tuple[QuestionSet | None, StatementSet | None]:
    """A set by name: question sets first, then statement sets (``qs:NAME`` / ``ss:NAME`` force one)."""
    kind, _, bare = name.partition(":") if name[:3] in ("qs:", "ss:") else ("", "", name)
    if kind != "ss":
        q = QuestionSet.objects.filter(name=bare).first()
        if q is not None:
            return q, None
    if kind != "qs":
        s = StatementSet.objects.filter(name=bare).first()
        if s is not None:
            return None, s
    raise ValidationError(f"no question set or statement set named {bare!r}")


def run_enqueue(run: Run) -> None:
    """Send the run to the ``eval`` queue once the surrounding transaction commits."""
    from .tasks import EVAL_QUEUE, run_execute_task

    transaction.on_commit(lambda: run_execute_task.apply_async((run.pk,), queue=EVAL_QUEUE))


def run_create(
    *,
    set_name: str = "",
    question_set: QuestionSet | None = None,
    statement_set: StatementSet | None = None,
    backend: str,
    scoring: str,
    model: str = "",
    endpoint: str = "",
    url: str = "",
    seed: int = 0,
    limit: int | None = None,
    params: dict[str, Any] | None = None,
    user: User | None = None,
    enqueue: bool = True,
    rerun_of: Run | None = None,
    name: str = "",
) -> Run:
    """Validate and store a run; enqueue it after commit unless ``enqueue`` is False (the caller
    then runs it explicitly, e.g. ``run_eval --inline``)."""
    if set_name:
        question_set, statement_set = set_resolve(set_name)
    if (question_set is None) == (statement_set is None):
        raise ValidationError("choose exactly one question set or statement set")
    if backend not in BACKENDS:
        raise ValidationError(f"unknown backend {backend!r}; one of {', '.join(BACKENDS)}")
    if scoring not in SCORINGS:
        raise ValidationError(f"unknown scoring {scoring!r}; one of {', '.join(SCORINGS)}")
    if statement_set is not None and scoring != "yesno":
        raise ValidationError("statement sets are scored with 'yesno' (NWW questions (a) and (b))")
    if statement_set is None and scoring == "yesno":
        raise ValidationError("'yesno' scores statement sets; choose a statement set")
    if scoring == "recoms" and backend not in ("hf", "openai", "replay"):
        raise ValidationError("'recoms' needs a generative model (hf, openai) or a paths file (replay)")
    if scoring == "generate-answer" and backend not in ("hf", "openai", "replay"):
        raise ValidationError("'generate-answer' needs a generative model (hf, openai) or a generations file (replay)")
    if scoring in ("rica-mlm", "mlm-pll") and backend != "hf":
        raise ValidationError(f"{scoring!r} scores with a masked LM from a local folder: --backend hf --model FOLDER")
    if scoring == "recoms" and backend == "replay" and not ((params or {}).get("source") or model):
        raise ValidationError("'recoms' with replay needs a paths file (--paths FILE, or the file as --model)")
    if backend == "replay" and statement_set is not None and model not in (statement_set.models_answered or []):
        known = ", ".join(statement_set.models_answered or []) or "none"
        raise ValidationError(f"statement set {statement_set.name!r} has no answers of {model!r}; known: {known}")
    if backend == "hf" and not model:
        raise ValidationError("backend 'hf' needs a model (the Models page lists them)")
    if url:
        raise ValidationError("runs take a configured endpoint by name, not a URL (the Models page lists them)")
    params = dict(params or {})
    if endpoint:
        params["endpoint"] = endpoint
    catalog.run_spec_check(
        backend=backend,
        model=model,
        endpoint=str(params.get("endpoint") or ""),
        source=params.get("source"),
        statement_replay=statement_set is not None,
        scoring=scoring,
    )
    if (params or {}).get("difficulty_run") is not None:
        difficulty_run_check(params["difficulty_run"], question_set)
    if limit is not None and limit < 1:
        raise ValidationError("limit must be at least 1")
    user = user if getattr(user, "is_authenticated", False) else None
    with transaction.atomic():
        run = Run.objects.create(
            name=(name or "").strip()[:200] or model_display_name(backend, model),
            question_set=question_set,
            statement_set=statement_set,
            backend=backend,
            model=model,
            scoring=scoring,
            seed=seed,
            limit=limit,
            params=params,
            created_by=user,
            rerun_of=rerun_of,
            phases=[[Run.State.QUEUED, timezone.now().isoformat()]],
        )
        if enqueue:
            run_enqueue(run)
    return run


def run_cancel(run: Run) -> bool:
    """Ask the run to stop. A queued run is cancelled at once, and a sharded one with every shard
    (each worker stops at its next write); an unsharded active one at its next chunk."""
    if run.is_finished:
        return False
    with transaction.atomic():
        run_shards_stop(run.pk, Run.State.CANCELLED)  # first: it locks the shards' rows before the run's
        Run.objects.filter(pk=run.pk).update(cancel_requested=True)
        n = Run.objects.filter(pk=run.pk, state=Run.State.QUEUED).update(
            state=Run.State.CANCELLED, finished_at=timezone.now()
        )
        if n:
            run.refresh_from_db()
            Run.objects.filter(pk=run.pk).update(
                phases=[*run.phases, [Run.State.CANCELLED, timezone.now().isoformat()]]
            )
    run.refresh_from_db()
    return True


def run_rerun(run: Run, *, user: User | None = None) -> Run:
    """A new run with the same settings (a fresh set of predictions)."""
    return run_create(
        question_set=run.question_set,
        statement_set=run.statement_set,
        backend=run.backend,
        scoring=run.scoring,
        model=run.model,
        url=run.url,  # a run made before endpoints were named is refused with a clear message
        seed=run.seed,
        limit=run.limit,
        params=run.params,
        user=user,
        rerun_of=run,
        name=run.name,
    )
