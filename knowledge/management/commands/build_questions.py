from __future__ import annotations

from typing import Any

from commonsense.queries import KINDS
from commonsense.queries.rules import DEFAULT_RULES_MODE, RULES_MODES
from commonsense.questions.negatives import ADVERSARIAL_MODES, RANDOM_MODES
from knowledge.services.builds import question_set_build
from knowledge.services.names import name_arg

from ._base import ImportCommand
from ._plausibility import add_fluent_arguments, add_plausibility_arguments, check_from_options, fluent_from_options


class Command(ImportCommand):
    help = "Build a COM2 logical-query question set (1p 2p 3p 2i 3i ip pi 2in) from an imported graph."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--graph", required=True)
        parser.add_argument("--kind", required=True, choices=KINDS)
        parser.add_argument("--count", type=int, required=True)
        parser.add_argument("--seed", type=int, required=True)
        parser.add_argument("--name", required=True, type=name_arg)
        parser.add_argument(
            "--relations", help="comma-separated relation names to restrict every hop to (default: COM2's twelve)"
        )
        parser.add_argument("--max-degree", type=int, default=10, help="COM2's top-T neighbours (default 10)")
        parser.add_argument("--diverse", action="store_true", help="CoCo vote-k selection (k=150, rho=10)")
        parser.add_argument(
            "--min-plausibility", type=float, default=None, help="keep triples with plausibility >= this"
        )
        parser.add_argument("--keep-placeholders", action="store_true", help="keep PersonX/Y/Z instead of names")
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
            "--near-duplicate",
            type=float,
            default=0.9,
            help="reject distractors with MiniLM cosine >= this to an answer or option (default 0.9; 0: off)",
        )
        parser.add_argument(
            "--rules",
            choices=list(RULES_MODES),
            default=DEFAULT_RULES_MODE,
            help="which hops may be chained and intersected: curated (default: the papers' chains less those "
            "read blind as nonsense), paper (every query pattern the papers print), any (no rule)",
        )
        parser.add_argument(
            "--near-synonym",
            type=float,
            default=0.5,
            help="reject distractors whose predicate has MiniLM cosine >= this to an answer's, or shares its WordNet "
            "adjective cluster ('devious' / 'mischievous'; default 0.5; 0: off)",
        )
        parser.add_argument(
            "--adversarial-negatives",
            choices=list(ADVERSARIAL_MODES),
            default="branch",
            help="where two of the four distractors come from: branch (default, COM2: answers of one branch of the "
            "query but not of the whole query), neighbours (any neighbour of an anchor)",
        )
        parser.add_argument(
            "--same-type-veto",
            action="store_true",
            help="no feeling or attribute as a distractor where one can answer, and (with --adversarial-negatives "
            "neighbours) no adversarial distractor of the gold's kind: the veto of sessions 11-15, which lets option "
            "shape answer most items (issue 25); off by default",
        )
        parser.add_argument(
            "--random-negatives",
            choices=list(RANDOM_MODES),
            default="",
            help="where the two random distractors come from: relation (the asked relation's tails elsewhere), "
            "shared (tails several heads share), whole-graph (COM2: any tail); default: whole-graph with --rules "
            "paper, relation otherwise",
        )
        parser.add_argument(
            "--merge-nodes",
            type=float,
            default=None,
            metavar="COSINE",
            help="merge nodes whose all-MiniLM-L6-v2 cosine is above this (COM2 section 3.1: 0.95; default: off)",
        )
        add_plausibility_arguments(parser)
        add_fluent_arguments(parser)

    def handle(self, *args: Any, **o: Any) -> None:
        rels = [r.strip() for r in o["relations"].split(",") if r.strip()] if o["relations"] else None
        qset = question_set_build(
            graph=o["graph"],
            kind=o["kind"],
            count=o["count"],
            seed=o["seed"],
            name=o["name"],
            relations=rels,
            max_degree=o["max_degree"],
            diverse=o["diverse"],
            min_plausibility=o["min_plausibility"],
            include_implausible=o["include_implausible"],
            include_malformed=o["include_malformed"],
            include_populated=o["include_populated"],
            near_duplicate=o["near_duplicate"] or None,
            person_names=not o["keep_placeholders"],
            rules=o["rules"],
            merge_nodes=o["merge_nodes"],
            random_negatives=o["random_negatives"],
            adversarial_negatives=o["adversarial_negatives"],
            near_synonym=o["near_synonym"] or None,
            same_type_veto=o["same_type_veto"],
            plausibility=check_from_options(o["graph"], o),
            fluent=fluent_from_options(o),
            progress=lambda d, t: self.progress("questions", d, t),
        )
        self.stdout.write(f"{qset.name}: {qset.question_count} {o['kind']} questions (seed {o['seed']})")
