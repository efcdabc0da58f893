"""Real Celery worker subprocesses for the runs tests, pointed at the test database and a broker
of the test's own (an embedded SQLite broker file, or the Redis of pass 2)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from django.db import connection

ROOT = Path(__file__).resolve().parents[2]
CELERY = Path(sys.executable).with_name("celery")


def database_url() -> str:
    s = connection.settings_dict
    if connection.vendor == "sqlite":
        return f"sqlite:///{s['NAME']}"
    if connection.vendor == "postgresql":
        host = s.get("HOST") or "127.0.0.1"
        port = f":{s['PORT']}" if s.get("PORT") else ""
        cred = s["USER"] + (f":{s['PASSWORD']}" if s.get("PASSWORD") else "")
        return f"postgres://{cred}@{host}{port}/{s['NAME']}"
    raise RuntimeError(f"no worker support for {connection.vendor}")


def child_env(broker_url: str, **extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        {
            "DJANGO_SETTINGS_MODULE": "cocoweb.test_settings",
            "DATABASE_URL": database_url(),
            "CELERY_BROKER_URL": broker_url,
            "COCOWEB_RUN_STALE_SECONDS": "3",
            "COCOWEB_RUN_HEARTBEAT_SECONDS": "0.5",
            "PYTHONUNBUFFERED": "1",
        }
    )
    env.update(extra)
    return env


class Worker:
    """``celery worker`` on queues eval + housekeeping (solo pool, one slot, as scripts/run.sh),
    in its own process group so that :meth:`kill` can SIGKILL the main process and its children."""

    def __init__(self, env: dict[str, str], log: Path, name: str) -> None:
        self.log = log
        self.proc = subprocess.Popen(
            [
                str(CELERY),
                "-A",
                "cocoweb",
                "worker",
                "-Q",
                "eval,housekeeping",
                "--pool=solo",
                "--concurrency=1",
                "--loglevel=INFO",
                "-n",
                f"{name}@%h",
                "--without-gossip",
                "--without-mingle",
                "--without-heartbeat",
            ],
            cwd=ROOT,
            env=env,
            stdout=log.open("w"),
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )

    def wait_ready(self, timeout: float = 90) -> None:
        t0 = time.monotonic()
        while time.monotonic() - t0 < timeout:
            if self.proc.poll() is not None:
                raise RuntimeError(f"worker exited {self.proc.returncode}:\n{self.log.read_text()[-3000:]}")
            if " ready." in self.log.read_text():
                return
            time.sleep(0.2)
        raise TimeoutError(f"worker not ready after {timeout} s:\n{self.log.read_text()[-3000:]}")

    def kill(self) -> None:
        """SIGKILL the whole worker (main process and pool children): nothing gets to clean up."""
        os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=30)

    def stop(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(timeout=10)
