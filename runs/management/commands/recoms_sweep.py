"""ReComSBench Fig. 7 over a stored run: the similarity threshold swept, Mann–Whitney U and p of
the coverage (KCR) and redundancy ratio of correct vs incorrect paths at each threshold, as JSON.

    python manage.py recoms_sweep --run 12 --thresholds 0.5,0.6,0.7,0.75,0.8,0.9
"""

from __future__ import annotations

import json
from dataclasses import asdict
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from commonsense.metrics.recoms_sweep import PathRecord, threshold_sweep
from runs.models import Prediction, Run


def run_paths(run: Run) -> list[PathRecord]:
    out = []
    for extra in Prediction.objects.filter(run=run, error="").values_list("extra", flat=True):
        x = extra or {}
        prior = [tuple(t) for t in x.get("k_prior") or []]
        for p in x.get("paths") or []:
            if p.get("correct") is not None:
                out.append(PathRecord([tuple(t) for t in p.get("triples") or []], prior, bool(p["correct"])))
    return out


class Command(BaseCommand):
    help = "Sweep ReComSBench's similarity threshold over a stored recoms run (Fig. 7): U and p per threshold."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--run", type=int, required=True)
        parser.add_argument("--thresholds", default="0.5,0.6,0.7,0.75,0.8,0.85,0.9,0.95")
        parser.add_argument(
            "--embedding-model", default="", help="sentence-transformers folder (default: all-MiniLM-L6-v2)"
        )

    def handle(self, *args: Any, **o: Any) -> None:
        run = Run.objects.filter(pk=o["run"]).first()
        if run is None:
            raise CommandError(f"no run {o['run']}")
        if run.scoring != "recoms":
            raise CommandError(f"run {run.pk} is a {run.scoring} run; the sweep needs a recoms run")
        try:
            ts = [float(x) for x in o["thresholds"].split(",") if x.strip()]
        except ValueError:
            raise CommandError(f"--thresholds wants numbers separated by commas, got {o['thresholds']!r}") from None
        paths = run_paths(run)
        if not any(p.k_prior for p in paths):
            raise CommandError(f"run {run.pk} stored no K_prior: nothing to sweep")
        from commonsense.scoring.minilm import MiniLMEmbedder

        embed = MiniLMEmbedder(o["embedding_model"] or None)
        try:
            points = threshold_sweep(paths, ts, embed)
        except ValueError as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(
            json.dumps({"run": run.pk, "paths": len(paths), "sweep": [asdict(p) for p in points]}, indent=1)
        )
