from __future__ import annotations

from typing import Any

from knowledge.services.build_options import COCO, add_build_arguments, builder_kwargs_from_cli
from knowledge.services.coco_builds import coco_build

from ._base import ImportCommand
from ._plausibility import check_from_options, conceptualizer_from_options


class Command(ImportCommand):
    help = "Build CoCo's memorization, comprehension and application question sets from an imported graph."

    def add_arguments(self, parser: Any) -> None:
        add_build_arguments(parser, COCO)  # declared once, with the browser form's fields and the job's arguments

    def handle(self, *args: Any, **o: Any) -> None:
        qset = coco_build(
            **builder_kwargs_from_cli(COCO, o),
            plausibility=check_from_options(o["graph"], o),
            conceptualizer=conceptualizer_from_options(o),
            progress=lambda d, t: self.progress("application", d, t),
        )
        self.stdout.write(f"{qset.name}: {qset.question_count} questions (seed {o['seed']})")
        if qset.shortfall_note:
            self.stdout.write(self.style.WARNING(qset.shortfall_note))
