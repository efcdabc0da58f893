from __future__ import annotations

from typing import Any

from knowledge.services.build_options import COM2, add_build_arguments, builder_kwargs_from_cli
from knowledge.services.builds import question_set_build

from ._base import ImportCommand
from ._plausibility import check_from_options, fluent_from_options


class Command(ImportCommand):
    help = "Build a COM2 logical-query question set (1p 2p 3p 2i 3i ip pi 2in) from an imported graph."

    def add_arguments(self, parser: Any) -> None:
        add_build_arguments(parser, COM2)  # declared once, with the browser form's fields and the job's arguments

    def handle(self, *args: Any, **o: Any) -> None:
        qset = question_set_build(
            **builder_kwargs_from_cli(COM2, o),
            plausibility=check_from_options(o["graph"], o),
            fluent=fluent_from_options(o),
            progress=lambda d, t: self.progress("questions", d, t),
        )
        self.stdout.write(f"{qset.name}: {qset.question_count} {o['kind']} questions (seed {o['seed']})")
