"""Load the demo data from fixtures/ and create one demo account per role. Idempotent: a second
run changes nothing (files are recognised by their content hash)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand

from accounts.services import demo_accounts_ensure
from knowledge.models import QuestionSet
from knowledge.services.builds import question_set_build
from knowledge.services.coco_builds import coco_build
from knowledge.services.imports import graph_import, questions_import, statements_import

FIXTURES = settings.BASE_DIR / "fixtures"
DEMO_GRAPHS = (("atomic2020-demo", "atomic2020_demo.tsv", "atomic-tsv"), ("ckbp-demo", "ckbp_demo.csv", "cskb-csv"))
DEMO_STATEMENTS = (("statements-demo", "statements_demo.csv"),)
DEMO_QUESTIONS = (("csqa-demo", "csqa_demo.jsonl", "csqa"),)
# Built sets: COM2 2i questions on the CSKB-Population demo graph, CoCo's three families on the
# ATOMIC-2020 demo graph (conceptualisations from fixtures/abstract_demo.tsv). Seeded: the same
# sets every time; skipped when a set of that name exists.
DEMO_COM2: tuple[dict[str, Any], ...] = (
    {"name": "com2-2i-demo", "graph": "ckbp-demo", "kind": "2i", "count": 60, "seed": 7},
    {"name": "com2-2p-demo", "graph": "ckbp-demo", "kind": "2p", "count": 60, "seed": 7},
)
DEMO_COCO: tuple[dict[str, Any], ...] = (
    {
        "name": "coco-demo",
        "graph": "atomic2020-demo",
        "seed": 7,
        "abstract": FIXTURES / "abstract_demo.tsv",
        "per_relation": 20,
        "per_kind": 50,
    },
)


class Command(BaseCommand):
    help = "Load the demo data shipped in fixtures/ and create demo accounts (printed)."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--no-accounts", action="store_true", help="only load data")

    def handle(self, *args: Any, **options: Any) -> None:
        for name, fname, fmt in DEMO_GRAPHS:
            self.stdout.write(graph_import(FIXTURES / fname, name=name, fmt=fmt).summary())
        for name, fname in DEMO_STATEMENTS:
            self.stdout.write(statements_import(FIXTURES / fname, name=name).summary("statements"))
        for name, fname, fmt in DEMO_QUESTIONS:
            self.stdout.write(questions_import(FIXTURES / fname, name=name, fmt=fmt).summary("questions"))
        for spec in DEMO_COM2:
            if not QuestionSet.objects.filter(name=spec["name"]).exists():
                qset = question_set_build(**spec)
                self.stdout.write(
                    f"{qset.name}: {qset.question_count} {spec['kind']} questions built (seed {qset.seed})"
                )
        for spec in DEMO_COCO:
            if not QuestionSet.objects.filter(name=spec["name"]).exists():
                qset = coco_build(**spec)
                self.stdout.write(f"{qset.name}: {qset.question_count} CoCo questions built (seed {qset.seed})")
        if options["no_accounts"]:
            return
        path = Path(settings.VAR_DIR) / "demo-credentials.txt"  # under COCOWEB_VAR_DIR when that is set
        self.stdout.write(f"\nDemo accounts (local only; stored in {path}):")
        for role, user, pw in demo_accounts_ensure(path):
            self.stdout.write(f"  {role:<11} user {user:<17} password {pw}")
