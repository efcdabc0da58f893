"""Issue 31 item 11: the README's topology showed a prefork worker (``--concurrency=1``) where the
project runs solo-pool workers (a prefork child killed while idle can leave the worker taking
nothing more; ``scripts/run.sh`` and ``scripts/prod_check.sh`` start solo workers). Every worker
command the README and the scripts give uses ``--pool=solo``."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
WORKER = re.compile(r'celery"? -A cocoweb worker[^`\n&]*', re.IGNORECASE)  # $CELERY in the scripts


def _commands(text: str) -> list[str]:
    return [m.group(0) for m in WORKER.finditer(text.replace("\n", " "))]


def test_the_rule_sees_a_prefork_worker() -> None:
    planted = "`celery -A cocoweb worker -Q eval --concurrency=1`"
    assert _commands(planted)
    assert not all("--pool=solo" in c for c in _commands(planted))


def test_every_worker_command_uses_the_solo_pool() -> None:
    for rel in ("README.md", "scripts/run.sh", "scripts/prod_check.sh"):
        commands = _commands((ROOT / rel).read_text())
        assert commands, rel
        assert all("--pool=solo" in c for c in commands), (rel, [c for c in commands if "--pool=solo" not in c])
