"""``python manage.py annotator_accounts N --prefix reader --out FILE``: N annotator accounts with
random passwords and REST API tokens, written as ``username<TAB>password<TAB>token`` lines to FILE
(mode 0600) - the accounts a validation campaign answered through the REST API needs (readers
acting as annotators). An existing account of that name gets a new password and token."""

from __future__ import annotations

import os
import secrets
from pathlib import Path
from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from rest_framework.authtoken.models import Token

from accounts.roles import ANNOTATOR
from accounts.services import role_groups_sync, user_create_with_role


class Command(BaseCommand):
    help = "Create annotator accounts with API tokens for readers who answer through the REST API."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("count", type=int)
        parser.add_argument("--prefix", default="reader")
        parser.add_argument("--out", required=True, help="where the names, passwords and tokens are written")

    def handle(self, *args: Any, **o: Any) -> None:
        if not 1 <= o["count"] <= 1000:
            raise CommandError("count: 1 to 1000")
        role_groups_sync()
        User = get_user_model()
        lines = []
        for i in range(1, o["count"] + 1):
            name = f"{o['prefix']}{i:02d}"
            pw = secrets.token_urlsafe(12)
            user = User.objects.filter(username=name).first()
            if user is None:
                user = user_create_with_role(name, ANNOTATOR, pw)
            else:
                user.set_password(pw)
                user.save(update_fields=["password"])
            Token.objects.filter(user=user).delete()
            lines.append(f"{name}\t{pw}\t{Token.objects.create(user=user).key}\n")
        out = Path(o["out"])
        fd = os.open(out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as f:
            f.writelines(lines)
        self.stdout.write(f"{len(lines)} annotator accounts; names, passwords and tokens in {out}")
