"""Demo runs: replay two models' stored answers on the demo statement set and a seeded random
baseline on the demo CommonsenseQA set, executed here in this process (explicitly: it is a
seeding step, so ``make run`` shows finished runs with metrics before any worker starts).
Idempotent: a model already having a finished demo run is skipped."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from knowledge.models import QuestionSet, StatementSet
from runs.execution import run_execute
from runs.models import Run
from runs.services import run_create

DEMO_REPLAYS = ("Mixtral-8x22B", "Flan-T5-Small")


class Command(BaseCommand):
    help = "Create finished demo runs (replayed statement answers, random baseline) on the demo sets."

    def handle(self, *args: Any, **o: Any) -> None:
        specs: list[dict[str, Any]] = []
        sset = StatementSet.objects.filter(name="statements-demo").first()
        if sset is not None:
            specs += [{"statement_set": sset, "backend": "replay", "model": m, "scoring": "yesno"} for m in DEMO_REPLAYS
                      if m in (sset.models_answered or [])]
        qset = QuestionSet.objects.filter(name="csqa-demo").first()
        if qset is not None:
            specs.append({"question_set": qset, "backend": "random", "model": "", "scoring": "loglik", "seed": 13})
        for spec in specs:
            lookup = {k: v for k, v in spec.items() if k != "seed"}
            if Run.objects.filter(state=Run.State.DONE, **lookup).exists():
                continue
            run = run_create(enqueue=False, **spec)
            state = run_execute(run.pk)
            self.stdout.write(f"demo run {run.pk}: {run.backend} {run.model or ''} {run.scoring} on {run.set_name}: {state}")
