from __future__ import annotations

from typing import Any

from commonsense.queries.rules import DEFAULT_RULES_MODE, RULES_MODES
from knowledge.services.builds import coco_build
from knowledge.services.names import name_arg

from ._base import ImportCommand
from ._plausibility import (
    add_conceptualize_arguments,
    add_plausibility_arguments,
    check_from_options,
    conceptualizer_from_options,
)


class Command(ImportCommand):
    help = "Build CoCo's memorization, comprehension and application question sets from an imported graph."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--graph", required=True)
        parser.add_argument("--seed", type=int, required=True)
        parser.add_argument("--name", required=True, type=name_arg)
        parser.add_argument("--abstract", help="conceptualisations file: head<TAB>concept<TAB>abstract head")
        parser.add_argument("--per-relation", type=int, default=2000)
        parser.add_argument("--per-kind", type=int, default=3000)
        parser.add_argument("--max-degree", type=int, default=10)
        parser.add_argument("--min-plausibility", type=float, default=None)
        parser.add_argument("--diverse", action="store_true")
        parser.add_argument(
            "--include-implausible",
            action="store_true",
            help="also use triples labelled implausible (CSKB label 0) as edges (default: plausible only)",
        )
        parser.add_argument(
            "--include-malformed",
            action="store_true",
            help="also use triples whose text does not read as English or whose tail does not answer the "
            "relation's question (default: well-formed only)",
        )
        parser.add_argument(
            "--include-populated",
            action="store_true",
            help="also use CSKB-Population's candidate triples mined from ASER (class cs_head / all_head) as "
            "edges (default: the knowledge base's own triples only)",
        )
        parser.add_argument(
            "--rules",
            choices=list(RULES_MODES),
            default=DEFAULT_RULES_MODE,
            help="which hops may be chained and intersected: curated (default: the papers' chains less those "
            "read blind as nonsense), paper (every query pattern the papers print), any (no rule)",
        )
        add_plausibility_arguments(parser)
        add_conceptualize_arguments(parser)

    def handle(self, *args: Any, **o: Any) -> None:
        qset = coco_build(
            graph=o["graph"],
            seed=o["seed"],
            name=o["name"],
            abstract=o["abstract"],
            per_relation=o["per_relation"],
            per_kind=o["per_kind"],
            max_degree=o["max_degree"],
            min_plausibility=o["min_plausibility"],
            include_implausible=o["include_implausible"],
            include_malformed=o["include_malformed"],
            include_populated=o["include_populated"],
            diverse=o["diverse"],
            rules=o["rules"],
            plausibility=check_from_options(o["graph"], o),
            conceptualizer=conceptualizer_from_options(o),
            progress=lambda d, t: self.progress("application", d, t),
        )
        self.stdout.write(f"{qset.name}: {qset.question_count} questions (seed {o['seed']})")
        if qset.shortfall_note:
            self.stdout.write(self.style.WARNING(qset.shortfall_note))
