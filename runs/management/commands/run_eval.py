"""Launch a model evaluation from the shell.

    python manage.py run_eval --set statements-demo --backend replay --model Mixtral-8x22B --scoring yesno --wait
    python manage.py run_eval --set csqa-dev --backend hf --model smollm2-135m-instruct --scoring recoms --samples 5 --wait
    python manage.py run_eval --set csqa-dev --backend openai --endpoint lab-vllm --model Qwen2.5-7B --scoring generate

Models, files and endpoints are those this installation is configured to run (the Models page,
``runs/catalog.py``): a model by name, a file inside a run-files folder, an endpoint by name.
    python manage.py run_eval --set csqa-dev --backend replay --scoring recoms --paths paths.jsonl --inline

Without ``--wait`` the run is queued for a Celery worker (queue ``eval``) and the command returns.
``--wait`` queues it the same way and then follows the run row until it ends, printing progress on
stderr and the metrics as JSON on stdout; it needs a running worker (``make run`` or
``celery -A cocoweb worker -Q default,eval,housekeeping``) and says so if none picks the run up.
``--inline`` runs the evaluation in this process instead, explicitly (no worker, no broker).
"""

from __future__ import annotations

import json
import time
from typing import Any

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from runs.evaluation import run_execute
from runs.models import Run
from runs.scorers import BACKENDS, SCORINGS
from runs.selectors.runs import run_metrics_overall
from runs.services import run_create


def _param(text: str) -> tuple[str, Any]:
    key, sep, value = text.partition("=")
    if not sep:
        raise CommandError(f"--param wants KEY=VALUE, got {text!r}")
    try:
        return key, json.loads(value)
    except json.JSONDecodeError:
        return key, value


def _nww_population(run: Run) -> dict[str, Any]:
    """NWW population analyses of a statement run; the human side from the set's latest survey
    campaign when the annotation app is installed (it sits above runs: asked by a signal)."""
    from runs.selectors.nww_population import human_ratings, population_report

    humans = human_ratings(run.statement_set)
    others = Run.objects.filter(statement_set_id=run.statement_set_id, state=Run.State.DONE).exclude(pk=run.pk)
    return population_report(run, humans, list(others.order_by("pk")[:40]))


class Command(BaseCommand):
    help = "Evaluate a model on a question or statement set (queued for a worker, or --inline)."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--set", required=True, dest="set_name", help="question or statement set name")
        parser.add_argument("--backend", required=True, choices=BACKENDS)
        parser.add_argument(
            "--model",
            default="",
            help="a model from the Models page, the server's model name (openai), a replayed model or file",
        )
        parser.add_argument("--endpoint", default="", help="a configured OpenAI-compatible endpoint (openai backend)")
        parser.add_argument("--scoring", required=True, choices=SCORINGS)
        parser.add_argument("--seed", type=int, default=0)
        parser.add_argument("--limit", type=int, default=None, help="score only the first N items")
        parser.add_argument(
            "--param",
            action="append",
            default=[],
            type=_param,
            metavar="KEY=VALUE",
            help="run parameter (chunk_size, pace_s, scorer={...}); repeatable",
        )
        parser.add_argument(
            "--samples",
            type=int,
            default=None,
            metavar="K",
            help="recoms: reasoning paths per question (default 5: greedy + K-1 at temperature 0.7)",
        )
        parser.add_argument(
            "--paths",
            default="",
            metavar="FILE",
            help="recoms: a JSONL of reasoning paths made elsewhere ({id, paths:[{text, answer}], "
            "triples?}); with --backend replay no model is needed",
        )
        parser.add_argument("--wait", action="store_true", help="wait for the worker and print the metrics as JSON")
        parser.add_argument("--inline", action="store_true", help="run in this process instead of a worker")
        parser.add_argument("--timeout", type=float, default=0, help="with --wait: give up after N seconds")

    def handle(self, *args: Any, **o: Any) -> None:
        params = dict(o["param"])
        if o["samples"] is not None or o["paths"]:
            if o["scoring"] != "recoms":
                raise CommandError("--samples and --paths are options of --scoring recoms")
            if o["samples"] is not None:
                if o["samples"] < 1:
                    raise CommandError("--samples must be at least 1")
                params["scoring_options"] = {**(params.get("scoring_options") or {}), "k": o["samples"]}
            if o["paths"]:
                params["source"] = o["paths"]
        try:
            run = run_create(
                set_name=o["set_name"],
                backend=o["backend"],
                scoring=o["scoring"],
                model=o["model"],
                endpoint=o["endpoint"],
                seed=o["seed"],
                limit=o["limit"],
                params=params,
                enqueue=not o["inline"],
            )
        except ValidationError as exc:
            raise CommandError("; ".join(exc.messages)) from None
        err = self.stderr
        if o["inline"]:
            err.write(f"run {run.pk}: running inline in this process (--inline)")
            run_execute(run.pk)
        elif not o["wait"]:
            self.stdout.write(f"run {run.pk} queued on 'eval'; a worker will take it (follow it at /runs/{run.pk}/)")
            return
        else:
            err.write(f"run {run.pk} queued on 'eval'; waiting for a worker")
            self._follow(run, o["timeout"])
        run.refresh_from_db()
        if run.state != Run.State.DONE:
            raise CommandError(f"run {run.pk} ended {run.state}: {run.error.splitlines()[0] if run.error else ''}")
        out: dict[str, Any] = dict(run_metrics_overall(run))
        if run.is_statement_run:
            out["nww_population"] = _nww_population(run)
        self.stdout.write(json.dumps(out, indent=1, sort_keys=True))

    def _follow(self, run: Run, timeout: float) -> None:
        t0, last, hinted = time.monotonic(), "", False
        while True:
            run.refresh_from_db()
            line = f"run {run.pk}: {run.state} {run.items_done}/{run.items_total}"
            if line != last:
                self.stderr.write(line)
                last = line
            if run.is_finished:
                return
            waited = time.monotonic() - t0
            if run.state == Run.State.QUEUED and waited > 30 and not hinted:
                self.stderr.write(
                    "no worker has taken the run yet: start one with "
                    "`celery -A cocoweb worker -Q default,eval,housekeeping` (or use --inline)"
                )
                hinted = True
            if timeout and waited > timeout:
                raise CommandError(f"run {run.pk} still {run.state} after {timeout:.0f} s (it stays queued)")
            time.sleep(0.5)
