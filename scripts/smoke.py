"""HTTP smoke test of a running cocoweb (used by `make prod-check`): pages, static files, the
API schema, log-in, and one model run carried out by a Celery worker over the real broker."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time

import httpx

base = sys.argv[1].rstrip("/")


def check(cond: bool, what: str) -> None:
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        sys.exit(1)


def main() -> None:
    for _ in range(100):
        try:
            httpx.get(base + "/accounts/login/", timeout=2)
            break
        except httpx.HTTPError:
            time.sleep(0.2)
    c = httpx.Client(base_url=base, timeout=30, follow_redirects=False)
    r = c.get("/")
    check(r.status_code == 302 and "/accounts/login/" in r.headers["location"], "anonymous home redirects to log-in")
    r = c.get("/accounts/login/")
    check(r.status_code == 200 and "csrfmiddlewaretoken" in r.text, "log-in page")
    m = re.search(r'src="([^"]*htmx[^"]*\.js)"', r.text)
    check(bool(m) and c.get(m.group(1)).status_code == 200, "static files served (htmx)")
    check(c.get("/api/schema/").status_code in (200, 401, 403), "API schema route answers")

    user, pw = "smoke-researcher", "smoke-" + os.urandom(6).hex()
    subprocess.run(
        [
            sys.executable,
            "manage.py",
            "shell",
            "-c",
            "from accounts.services import role_groups_sync, user_create_with_role as u;"
            f"role_groups_sync(); u('{user}', 'researcher', '{pw}')",
        ],
        check=True,
    )
    token = c.cookies.get("csrftoken")
    r = c.post(
        "/accounts/login/",
        data={"username": user, "password": pw, "csrfmiddlewaretoken": token},
        headers={"Referer": base + "/accounts/login/"},
    )
    check(r.status_code == 302, "researcher logs in")
    r = c.get("/")
    check(
        r.status_code == 200 and "atomic2020-demo" in r.text and "statements-demo" in r.text, "home lists the demo data"
    )

    t0 = time.time()
    out = subprocess.run(
        [
            sys.executable,
            "manage.py",
            "run_eval",
            "--set",
            "statements-demo",
            "--backend",
            "replay",
            "--model",
            "Mixtral-8x22B",
            "--scoring",
            "yesno",
            "--wait",
            "--timeout",
            # the seeded sets' option-only audits (issue 25) are on the eval queue first: SmolLM2 on
            # four sets takes 2-3 min on a busy 2-core machine before the worker reaches this run
            "600",
        ],
        capture_output=True,
        text=True,
    )
    ok = out.returncode == 0
    metrics = json.loads(out.stdout) if ok else {}
    check(
        ok and "commonsensicality" in json.dumps(metrics),
        f"run executed by the eval worker via Redis in {time.time() - t0:.1f} s"
        + ("" if ok else f": {out.stderr[-500:]}"),
    )


if __name__ == "__main__":
    main()
