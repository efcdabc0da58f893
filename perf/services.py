"""PostgreSQL + Redis for the benchmarks: started from Debian's packages by scripts/services.sh on
free loopback ports (other people's servers may hold the default ones), stopped at the end."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> str:
    """A loopback port nobody listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return str(s.getsockname()[1])


PORTS = {"PG_PORT": free_port(), "REDIS_PORT": free_port()}


def services_start(tmp: Path, *, cache: bool = False) -> dict[str, str]:
    """Start both servers under ``tmp/svc``; the environment that points the app at them
    (``cache``: Redis database 1 as the cache and session store too, as in production)."""
    env = {**os.environ, **PORTS}
    out = subprocess.run(
        [
            "bash",
            "-c",
            f'source scripts/services.sh && services_start "{tmp}/svc" >/dev/null && '
            'echo "$DATABASE_URL $CELERY_BROKER_URL"',
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    if out.returncode != 0:
        sys.exit(f"could not start PostgreSQL/Redis: {out.stderr}{out.stdout}")
    db, broker = out.stdout.split()
    urls = {"DATABASE_URL": db, "CELERY_BROKER_URL": broker}
    if cache:
        urls["CACHE_URL"] = broker.rsplit("/", 1)[0] + "/1"
    return urls


def services_stop(tmp: Path) -> None:
    env = {**os.environ, **PORTS}
    subprocess.run(
        ["bash", "-c", f'source scripts/services.sh && SERVICES_DIR="{tmp}/svc" && services_stop'],
        cwd=ROOT,
        env=env,
        timeout=60,
    )
