"""The production topology for the fault tests, as ``scripts/prod_check.sh`` runs it: Celery workers
on separate queues (``eval``; ``default,housekeeping``), gunicorn, and in-place restarts of the
PostgreSQL and Redis servers that ``scripts/services.sh`` started for pass 2 of ``scripts/test.sh``
(``COCOWEB_PG_BIN``, ``COCOWEB_PG_DATA``, ``COCOWEB_REDIS_PORT``, ``COCOWEB_SERVICES_DIR``)."""

from __future__ import annotations

import os
import shlex
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
import requests

from tests.runs.workers import CELERY, ROOT

GUNICORN = Path(sys.executable).with_name("gunicorn")
SERVICE_VARS = ("COCOWEB_PG_BIN", "COCOWEB_PG_DATA", "COCOWEB_REDIS_PORT", "COCOWEB_SERVICES_DIR")


def require_services() -> dict[str, str]:
    """The servers of ``scripts/services.sh``, or a skip saying how to get them."""
    missing = [v for v in SERVICE_VARS if not os.environ.get(v)]
    if missing:
        pytest.skip(
            f"fault tests restart the servers of scripts/services.sh; {', '.join(missing)} not set "
            "(run pass 2 of scripts/test.sh, or `source scripts/services.sh; services_start DIR`)"
        )
    return {v: os.environ[v] for v in SERVICE_VARS}


def wait_for(pred: Callable[[], object], timeout: float, what: str | Callable[[], str], step: float = 0.1) -> None:
    t0 = time.monotonic()
    while not pred():
        if time.monotonic() - t0 > timeout:
            raise TimeoutError(what() if callable(what) else what)
        time.sleep(step)


class Proc:
    """A child process in its own process group (so a SIGKILL takes its pool children too)."""

    def __init__(self, argv: list[str], env: dict[str, str], log: Path) -> None:
        self.log = log
        self.proc = subprocess.Popen(
            argv, cwd=ROOT, env=env, stdout=log.open("w"), stderr=subprocess.STDOUT, start_new_session=True
        )

    @property
    def alive(self) -> bool:
        return self.proc.poll() is None

    def tail(self, n: int = 3000) -> str:
        return f"--- {self.log.name} ---\n" + self.log.read_text(errors="replace")[-n:]

    def kill(self) -> None:
        os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=30)

    def stop(self) -> None:
        if self.alive:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.kill()


class Worker(Proc):
    """``celery worker`` with the flags of ``scripts/prod_check.sh`` (solo pool, one slot)."""

    def __init__(self, env: dict[str, str], log: Path, name: str, queues: str, concurrency: int = 1) -> None:
        super().__init__(
            [
                str(CELERY),
                "-A",
                "cocoweb",
                "worker",
                "-Q",
                queues,
                "-n",
                f"{name}@%h",
                "--pool=solo" if concurrency == 1 else "--pool=prefork",
                f"--concurrency={concurrency}",
                "-l",
                "INFO",
            ],
            env,
            log,
        )

    def ready(self) -> bool:
        if not self.alive:
            raise RuntimeError(f"worker exited with {self.proc.returncode}\n{self.tail()}")
        return " ready." in self.log.read_text(errors="replace")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Gunicorn(Proc):
    def __init__(self, env: dict[str, str], log: Path, workers: int = 2) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        super().__init__(
            [
                str(GUNICORN),
                "cocoweb.wsgi",
                "-b",
                f"127.0.0.1:{self.port}",
                "-w",
                str(workers),
                "--timeout",
                "60",
                "--graceful-timeout",
                "5",
            ],
            env,
            log,
        )

    def wait_ready(self, timeout: float = 120) -> None:
        def up() -> bool:
            if not self.alive:
                raise RuntimeError(f"gunicorn exited with {self.proc.returncode}\n{self.tail()}")
            try:
                return requests.get(f"{self.url}/accounts/login/", timeout=60).status_code == 200
            except (requests.ConnectionError, requests.Timeout):
                return False

        wait_for(up, timeout, lambda: f"gunicorn not serving after {timeout} s\n{self.tail()}", step=0.3)


# ---- PostgreSQL and Redis, restarted in place ---------------------------------------------------


def _as_pg(argv: list[str]) -> list[str]:
    """PostgreSQL refuses to run as root: run its tools as the ``postgres`` user (as services.sh does)."""
    return ["runuser", "-u", "postgres", "--", *argv] if os.geteuid() == 0 else argv


def _pg_ctl(*args: str) -> str:
    svc = require_services()
    argv = _as_pg([str(Path(svc["COCOWEB_PG_BIN"]) / "pg_ctl"), "-D", svc["COCOWEB_PG_DATA"], *args])
    out = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    if out.returncode != 0:
        raise RuntimeError(f"pg_ctl {' '.join(args)} failed ({out.returncode}): {out.stdout}{out.stderr}")
    return out.stdout


class Postgres:
    """Stop and start the pass-2 cluster with the options it was started with (``postmaster.opts``,
    what ``pg_ctl restart`` reuses), logging to the same file as services.sh."""

    def __init__(self) -> None:
        svc = require_services()
        self.data = Path(svc["COCOWEB_PG_DATA"])
        argv = shlex.split((self.data / "postmaster.opts").read_text())[1:]
        if "-D" in argv:
            i = argv.index("-D")
            del argv[i : i + 2]
        self.options = shlex.join(argv)
        self.log = Path(svc["COCOWEB_SERVICES_DIR"]) / "pg.log"

    def stop(self, mode: str) -> None:
        _pg_ctl("stop", "-m", mode, "-w", "-t", "60")

    def start(self) -> None:
        _pg_ctl("start", "-w", "-t", "90", "-l", str(self.log), "-o", self.options)

    def running(self) -> bool:
        svc = require_services()
        argv = _as_pg([str(Path(svc["COCOWEB_PG_BIN"]) / "pg_ctl"), "-D", str(self.data), "status"])
        return subprocess.run(argv, capture_output=True, timeout=60).returncode == 0

    def ensure_running(self) -> None:
        """After a failed test: the rest of the suite needs the server."""
        if not self.running():
            self.start()


class Redis:
    def __init__(self) -> None:
        svc = require_services()
        self.port = int(svc["COCOWEB_REDIS_PORT"])
        self.dir = svc["COCOWEB_SERVICES_DIR"]

    def client(self):  # type: ignore[no-untyped-def]
        import redis

        return redis.Redis(host="127.0.0.1", port=self.port, socket_timeout=5)

    def restart(self) -> None:
        """``SHUTDOWN NOSAVE``, then ``redis_start`` of services.sh on the same port: an empty server."""
        import redis

        try:
            self.client().shutdown(nosave=True)
        except redis.ConnectionError:
            pass  # the server closes the connection as it exits

        def down() -> bool:
            with socket.socket() as s:
                return s.connect_ex(("127.0.0.1", self.port)) != 0

        wait_for(down, 30, f"redis on :{self.port} did not stop")
        env = {**os.environ, "REDIS_PORT": str(self.port)}
        out = subprocess.run(
            ["bash", "-c", 'source scripts/services.sh && redis_start "$1"', "_", self.dir],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
        if out.returncode != 0:
            raise RuntimeError(f"redis_start failed: {out.stdout}{out.stderr}")
