"""Load the demo data from fixtures/ and create one demo account per role. Idempotent: a second
run changes nothing (files are recognised by their content hash)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand

from accounts.services import demo_accounts_ensure
from knowledge.services import graph_import, questions_import, statements_import

FIXTURES = settings.BASE_DIR / "fixtures"
DEMO_GRAPHS = (("atomic2020-demo", "atomic2020_demo.tsv", "atomic-tsv"), ("ckbp-demo", "ckbp_demo.csv", "cskb-csv"))
DEMO_STATEMENTS = (("statements-demo", "statements_demo.csv"),)
DEMO_QUESTIONS = (("csqa-demo", "csqa_demo.jsonl", "csqa"),)


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
        if options["no_accounts"]:
            return
        self.stdout.write("\nDemo accounts (local only; stored in var/demo-credentials.txt):")
        for role, user, pw in demo_accounts_ensure():
            self.stdout.write(f"  {role:<11} user {user:<17} password {pw}")
