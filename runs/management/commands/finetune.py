from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from commonsense.training.curriculum import TrainItem, export_levels
from knowledge.models import QuestionSet
from runs.finetune import LORA_KEYS, finetune_create, finetune_execute, set_items
from runs.models import FineTune, Run


class Command(BaseCommand):
    help = (
        "LoRA fine-tuning of a local causal LM on a question set in a curriculum's order (ReComSBench "
        "§3.3): random (RandSample), score-cl or reason-cl (needs --difficulty-run, a finished recoms run "
        "on the set). Queued for a worker, or --inline. The merged model is then evaluated by run_eval "
        "--backend hf --model <output folder>."
    )

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--set", required=True, dest="qset")
        parser.add_argument("--model", required=True, help="base causal LM (a models-folder name or path)")
        parser.add_argument("--strategy", required=True, choices=[s.value for s in FineTune.Strategy])
        parser.add_argument("--name", required=True)
        parser.add_argument("--seed", type=int, default=0)
        parser.add_argument("--difficulty-run", type=int, help="Reason-CL: the recoms run whose d(Q) orders the set")
        parser.add_argument("--limit", type=int, help="train on the first N questions")
        parser.add_argument("--param", action="append", default=[], help=f"KEY=VALUE, KEY in {', '.join(LORA_KEYS)}")
        parser.add_argument("--inline", action="store_true", help="train in this process (no worker)")
        parser.add_argument(
            "--export-levels",
            metavar="DIR",
            help="write Eq. 6's levels (d(Q) of --difficulty-run) as training splits DIR/level-<d>.jsonl and stop",
        )

    def handle(self, *args: Any, **o: Any) -> None:
        qset = QuestionSet.objects.filter(name=o["qset"]).first()
        if qset is None:
            raise CommandError(f"no question set named {o['qset']!r}")
        params: dict[str, Any] = {}
        for kv in o["param"]:
            key, sep, value = kv.partition("=")
            if not sep:
                raise CommandError(f"--param {kv!r}: expected KEY=VALUE")
            params[key] = json.loads(value)
        if o["limit"]:
            params["limit"] = o["limit"]
        run = Run.objects.filter(pk=o["difficulty_run"]).first() if o["difficulty_run"] else None
        if o["export_levels"]:
            self._export(qset, run, Path(o["export_levels"]), o["limit"])
            return
        try:
            job = finetune_create(
                name=o["name"],
                question_set=qset,
                base_model=o["model"],
                strategy=o["strategy"],
                seed=o["seed"],
                difficulty_run=run,
                params=params,
            )
        except ValidationError as exc:
            raise CommandError("; ".join(exc.messages)) from None
        if o["inline"]:
            finetune_execute(job.pk, heartbeat=False)
        else:
            from runs.tasks import finetune_enqueue

            finetune_enqueue(job)
        job.refresh_from_db()
        out = {"id": job.pk, "name": job.name, "state": job.state, "steps": job.steps_done, "model": job.output_dir}
        if job.error:
            out["error"] = job.error.splitlines()[0]
        self.stdout.write(json.dumps(out))
        if job.state == FineTune.State.FAILED:
            raise CommandError(f"fine-tune {job.name} failed: {out.get('error')}")

    def _export(self, qset: QuestionSet, run: Run | None, folder: Path, limit: int | None) -> None:
        if run is None or run.scoring != "recoms" or run.question_set_id != qset.pk:
            raise CommandError("--export-levels needs --difficulty-run: a recoms run on the set (its d(Q))")
        folder.mkdir(parents=True, exist_ok=True)

        def write(d: int, items: list[TrainItem]) -> None:
            with (folder / f"level-{d}.jsonl").open("w", encoding="utf-8") as f:
                for it in items:
                    row = {"id": it.id, "prompt": it.prompt, "answer": it.answer, "difficulty": d}
                    f.write(json.dumps(row, ensure_ascii=False) + "\n")

        sizes = export_levels(set_items(qset, run.pk, limit), write)
        self.stdout.write(json.dumps({"folder": str(folder), "levels": {str(k): v for k, v in sizes.items()}}))
