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


# PG_PORT / REDIS_PORT from the environment when given (each engineer of a shared machine has ports
# of their own), else free ones.
PORTS = {name: os.environ.get(name) or free_port() for name in ("PG_PORT", "REDIS_PORT")}


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


def production_env(tmp: Path) -> dict[str, str]:
    """The Django settings a benchmark's app runs with: production mode (no debug), plain HTTP on
    127.0.0.1, its own var and static folders under ``tmp``."""
    return {
        "DJANGO_SETTINGS_MODULE": "cocoweb.settings",
        "DJANGO_SECRET_KEY": "perf-only-not-secret-" + "x" * 40,
        "DJANGO_DEBUG": "false",
        "DJANGO_SECURE_SSL_REDIRECT": "false",
        "DJANGO_SECURE_COOKIES": "false",
        "DJANGO_HSTS_SECONDS": "0",
        "DJANGO_ALLOWED_HOSTS": "127.0.0.1,localhost,testserver",
        "DJANGO_LOG_LEVEL": "WARNING",
        "COCOWEB_VAR_DIR": str(tmp / "var"),
        "DJANGO_STATIC_ROOT": str(tmp / "static"),
    }


def services_stop(tmp: Path) -> None:
    env = {**os.environ, **PORTS}
    subprocess.run(
        ["bash", "-c", f'source scripts/services.sh && SERVICES_DIR="{tmp}/svc" && services_stop'],
        cwd=ROOT,
        env=env,
        timeout=60,
    )
