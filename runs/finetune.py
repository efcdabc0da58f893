"""Curriculum fine-tuning jobs (ReComSBench §3.3, Table 3): create, execute under the lease, and
the Table 3-shaped comparison of the runs that evaluate their models.

A job's training items are its question set's questions with an answer, as "Question: … Options: …
Answer:" → the right option's text; their order is the strategy's (commonsense.training.curriculum):
Reason-CL takes d(Q) from a finished ReComSBench run on the same set (its predictions'
``item_difficulty``), Score-CL the answer's NLL under the base model. The loop claims the row
(cocoweb/leases.py), beats while it trains, writes each step's progress under the lease, and a
worker that takes a stale job over continues from the last checkpoint in the job's folder."""

from __future__ import annotations

import logging
import traceback
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db.models import Q
from django.utils import timezone

from cocoweb.leases import Heartbeat, LeaseLost, lease_claim, lease_write
from commonsense.training import curriculum as C

from .catalog import models_dirs
from .models import FineTune, Prediction, Run

log = logging.getLogger(__name__)
LORA_KEYS = ("r", "alpha", "dropout", "lr", "batch_size", "max_length", "checkpoint_every")


def finetune_create(
    *,
    name: str,
    question_set: Any,
    base_model: str,
    strategy: str,
    seed: int = 0,
    difficulty_run: Run | None = None,
    params: dict[str, Any] | None = None,
    user: Any = None,
) -> FineTune:
    """Store a queued job (``runs.tasks.finetune_enqueue`` sends it to a worker)."""
    from commonsense.scoring.registry import Refused, resolve_model

    if strategy not in C.STRATEGIES:
        raise ValidationError(f"strategy must be one of {', '.join(C.STRATEGIES)}")
    if FineTune.objects.filter(name=name).exists():
        raise ValidationError(f"a fine-tune named {name!r} already exists")
    try:
        resolve_model(base_model, models_dirs(), "hf")
    except Refused as exc:
        raise ValidationError(str(exc)) from None
    if strategy == "reason-cl":
        if difficulty_run is None or difficulty_run.scoring != "recoms" or difficulty_run.state != Run.State.DONE:
            raise ValidationError("Reason-CL needs --difficulty-run: a finished recoms run (its d(Q))")
        if difficulty_run.question_set_id != question_set.pk:
            raise ValidationError("the difficulty run must be on the training set")
    unknown = set(params or {}) - {*LORA_KEYS, "limit"}
    if unknown:
        raise ValidationError(f"unknown fine-tune parameter(s): {', '.join(sorted(unknown))}")
    job = FineTune.objects.create(
        name=name,
        question_set=question_set,
        base_model=base_model,
        strategy=strategy,
        seed=seed,
        difficulty_run=difficulty_run,
        params=params or {},
        created_by=user,
    )
    return job


def training_items(job: FineTune) -> list[C.TrainItem]:
    return set_items(job.question_set, job.difficulty_run_id, (job.params or {}).get("limit"))


def set_items(question_set: Any, difficulty_run_id: int | None, limit: int | None = None) -> list[C.TrainItem]:
    """The set's questions with an answer as training items, with d(Q) from the recoms run (if any)."""
    d: dict[int, int | None] = {}
    if difficulty_run_id is not None:
        d = dict(Prediction.objects.filter(run_id=difficulty_run_id).values_list("question_id", "item_difficulty"))
    qs = question_set.questions.filter(answer_index__isnull=False).order_by("position")
    rows = list(qs[: int(limit)] if limit else qs)
    return [
        C.TrainItem(
            id=q.external_id or str(q.pk),
            prompt=C.training_prompt(q.context, q.stem, [str(o) for o in q.options]),
            answer=str(q.options[q.answer_index]),
            difficulty=d.get(q.pk),
        )
        for q in rows
    ]


def _ordered(job: FineTune, base: str) -> tuple[list[C.TrainItem], dict[str, Any]]:
    items = training_items(job)
    if job.strategy == "score-cl":
        from commonsense.training.lora import answer_nll

        nll = answer_nll(base, [(it.prompt, it.answer) for it in items])
        items = [
            C.TrainItem(it.id, it.prompt, it.answer, it.difficulty, loss) for it, loss in zip(items, nll, strict=True)
        ]
    seq, info = C.order(items, job.strategy, job.seed)
    return seq, {**info, "sequence": len(seq)}


def finetune_execute(pk: int, *, worker: str = "", heartbeat: bool = True) -> str:
    """Claim and train job ``pk``; a finished job or one a live worker holds is left alone."""
    from commonsense.scoring.convert import ensure_model_dir
    from commonsense.scoring.registry import resolve_model
    from commonsense.training.lora import LoraSettings, train

    now = timezone.now()
    token = lease_claim(
        FineTune, pk, Q(state=FineTune.State.QUEUED), worker, state=FineTune.State.TRAINING, started_at=now
    )
    job = FineTune.objects.get(pk=pk)
    if token is None:
        return str(job.state)
    beat = Heartbeat(FineTune, pk, token) if heartbeat else None
    if beat is not None:
        beat.start()
    try:
        # a packaged GGUF (SmolLM2) is converted once into the models cache, as the hf backend does
        found = resolve_model(job.base_model, models_dirs(), "hf").path
        base = str(ensure_model_dir(found, Path(settings.COCOWEB_CACHE_DIR) / "models"))
        seq, info = _ordered(job, base)
        if not seq:
            raise ValueError(f"{job.question_set.name}: no question with an answer (and a d(Q), for Reason-CL)")
        p = job.params or {}
        lora = LoraSettings(seed=int(job.seed), **{k: p[k] for k in LORA_KEYS if k in p})
        out = Path(settings.COCOWEB_FINETUNE_DIR) / job.name
        losses: list[float] = list(job.losses or [])
        lease_write(FineTune, pk, token, curriculum=info)

        def progress(step: int, total: int, loss: float) -> None:
            if beat is not None and beat.lost:
                raise LeaseLost(f"fine-tune {pk}: lease lost")
            del losses[step - 1 :]
            losses.append(loss)
            lease_write(FineTune, pk, token, steps_done=step, steps_total=total, losses=losses)

        res = train(base, [(it.prompt, it.answer) for it in seq], out, lora, on_step=progress)
        lease_write(
            FineTune,
            pk,
            token,
            state=FineTune.State.DONE,
            finished_at=timezone.now(),
            output_dir=str(res.model_dir),
            resumed_from=res.resumed_from,
            steps_done=res.steps,
            steps_total=res.steps,
        )
        return str(FineTune.State.DONE)
    except LeaseLost:
        log.warning("fine-tune %s: another attempt holds it; stopping", pk)
        return "lost"
    except Exception as exc:
        log.exception("fine-tune %s failed", pk)
        FineTune.objects.filter(pk=pk, lease=token).update(
            state=FineTune.State.FAILED, error=f"{exc}\n{traceback.format_exc(limit=3)}", finished_at=timezone.now()
        )
        return str(FineTune.State.FAILED)
    finally:
        if beat is not None:
            beat.stop()
