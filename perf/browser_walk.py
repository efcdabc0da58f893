"""Issue 29's "Measured": a browser walk of the demo as its four kinds of user, at desktop and
phone size, recording for every page the document's status and every request's, the console
errors and uncaught exceptions, the first load time (and its time to first byte) and the bytes transferred.

Headless Debian Chromium through Playwright (the launch arguments and viewports of
``tests/browser.py``). One new browser context per role and viewport, so each starts with a cold
cache (static files are cached across that role's later pages, as a real visitor's are). Roles:

- annotator: the annotation index, then a few items by keyboard on each demo campaign;
- crowd participant: a Prolific-style study link (``--study``, a campaign opened with
  ``campaign_create --study-link``; the demo seeds none, see perf/RESULTS.md for the command),
  consent, the qualification, items by keyboard, the completion code;
- researcher: home, graphs, a question set, the build form, runs, a run page, its samples, the
  explorer's pages (graph, node, questions, a question, a run's errors, compare), campaign dashboards;
- admin: People, a campaign's verified-set page and its exports.

For each page: the load time is the Performance API's navigation entry, ``loadEventEnd -
startTime``; the bytes are ``transferSize`` of the navigation and resource entries once the network
is idle (0 for a cache hit). A server error is any response >= 500, of the document or of any
request. A console error or uncaught exception is the app's own when its source is the base URL's
origin (a ``pageerror`` always is: only the app's scripts run); the others (the browser's, an
extension's, another origin's) are listed apart.

    .venv/bin/python perf/browser_walk.py [--base http://127.0.0.1:8791] [--var-dir /tmp/walkvar]
        [--study walk-study] [--out walk.json]

Credentials: ``demo-<role>:<password>`` lines of ``demo-credentials.txt`` under ``--var-dir``
(what ``seed_demo`` writes), or ``--credentials FILE``.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import re
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urljoin, urlparse

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
# The tests' launch arguments and viewports. Their Watch keeps a console message's text only; the
# walk needs its source URL too (to tell the app's own errors apart), so it records its own below.
from tests.browser import CHROMIUM_ARGS, DESKTOP, PHONE  # noqa: E402

SLOW_MS = 1000.0
TIMING_JS = """() => {
  const n = performance.getEntriesByType('navigation')[0];
  const res = performance.getEntriesByType('resource');
  return {load: n ? n.loadEventEnd - n.startTime : null, ttfb: n ? n.responseStart - n.startTime : null,
          bytes: (n ? n.transferSize : 0) + res.reduce((s, r) => s + (r.transferSize || 0), 0),
          requests: 1 + res.length};
}"""


@dataclass
class Row:
    role: str
    viewport: str
    label: str
    url: str
    status: int | None = None
    load_ms: float | None = None
    ttfb_ms: float | None = None  # navigation start to the document's first byte: mostly the server's time
    bytes: int = 0
    requests: int = 0
    server_errors: list[str] = field(default_factory=list)
    app_errors: list[str] = field(default_factory=list)
    other_errors: list[str] = field(default_factory=list)
    note: str = ""


class Walker:
    """One role at one viewport: a fresh context, every page visited recorded as a Row."""

    def __init__(self, browser: Any, base: str, role: str, viewport: str, rows: list[Row]) -> None:
        self.base, self.role, self.viewport, self.rows = base.rstrip("/"), role, viewport, rows
        self.origin = "{0.scheme}://{0.netloc}".format(urlparse(self.base))
        self.context = browser.new_context(**(DESKTOP if viewport == "desktop" else PHONE))
        self.page = self.context.new_page()
        self.page.set_default_timeout(20_000)
        self.row: Row | None = None
        self.page.on("console", self._console)
        self.page.on("pageerror", lambda e: self._errors().app_errors.append(f"pageerror: {e}"))
        self.page.on("response", self._response)

    def _errors(self) -> Row:
        if self.row is None:  # before the first page: a row of its own
            self.row = Row(self.role, self.viewport, "(start)", "")
            self.rows.append(self.row)
        return self.row

    def _console(self, msg: Any) -> None:
        if msg.type != "error":
            return
        source = (msg.location or {}).get("url", "")
        text = f"{msg.text} [{source}]" if source else msg.text
        own = source.startswith(self.origin) or not source  # no source: counted as ours, to be safe
        (self._errors().app_errors if own else self._errors().other_errors).append(text)

    def _response(self, resp: Any) -> None:
        if resp.status >= 500:
            self._errors().server_errors.append(f"{resp.status} {resp.request.method} {resp.url}")

    def visit(self, label: str, path: str) -> Row:
        url = urljoin(self.base + "/", path.lstrip("/"))
        self.row = Row(self.role, self.viewport, label, url)
        self.rows.append(self.row)
        try:
            resp = self.page.goto(url, wait_until="load")
            self.row.status = resp.status if resp else None
            self.page.wait_for_function("() => performance.getEntriesByType('navigation')[0]?.loadEventEnd > 0")
            self.settle()
        except Exception as e:  # a page that never loads is a finding, not the end of the walk
            self.row.note = f"{type(e).__name__}: {str(e).splitlines()[0]}"
        return self.row

    def settle(self) -> None:
        """Wait for the network to go quiet (a polling page never does: 5 s at most), then read the
        navigation's timing and bytes into the current row."""
        try:
            self.page.wait_for_load_state("networkidle", timeout=5_000)
        except Exception:
            pass
        t = self.page.evaluate(TIMING_JS)
        assert self.row is not None
        self.row.load_ms = round(t["load"], 1) if t["load"] is not None else None
        self.row.ttfb_ms = round(t["ttfb"], 1) if t["ttfb"] is not None else None
        self.row.bytes, self.row.requests = int(t["bytes"]), int(t["requests"])

    def act(self, label: str, fn: Callable[[], None]) -> None:
        """In-page steps (keys, clicks): their errors and server errors go to a row of their own;
        a navigation they cause is timed like a visit."""
        self.row = Row(self.role, self.viewport, label, self.page.url)
        self.rows.append(self.row)
        try:
            fn()
            self.row.url = self.page.url
        except Exception as e:
            self.row.note = f"{type(e).__name__}: {str(e).splitlines()[0]}"

    def links(self, pattern: str, limit: int = 1) -> list[str]:
        """The first hrefs of the current page matching a regex (in page order, distinct)."""
        hrefs = self.page.eval_on_selector_all("a[href]", "as => as.map(a => a.getAttribute('href'))")
        out: list[str] = []
        for h in hrefs:
            if re.search(pattern, h) and h not in out:
                out.append(h)
        return out[:limit]

    def login(self, username: str, password: str) -> None:
        self.visit("login", "/accounts/login/")
        self.page.fill("input[name=username]", username)
        self.page.fill("input[name=password]", password)
        with self.page.expect_navigation():
            self.page.click("button[type=submit]")
        self.page.wait_for_load_state("load")

    def close(self) -> None:
        self.context.close()


def current_item(page: Any, previous: str | None, timeout: float = 15_000) -> str:
    """The id of the item on screen once it differs from ``previous``."""
    page.wait_for_function(
        "p => { const f = document.querySelector('form.item-form'); return f && f.dataset.item !== p; }",
        arg=previous or "",
        timeout=timeout,
    )
    return str(page.get_attribute("form.item-form", "data-item"))


MAJORITY: dict[str, bool] = {}  # statement text -> the people's majority on (a), from --majority
GOLD: dict[str, set[str]] = {}  # COM2 qualification question -> its plausible options, from --mcqa-gold


def majority_load(path: Path) -> None:
    """The demo statements' human majority (column ``human_q1`` of the NWW file the demo imports):
    how the walk's participant answers (a) "do you agree?", as a reader of common sense would, so
    that it passes a qualification that screens (one that "agree everywhere" passes is refused)."""
    with path.open(newline="", encoding="utf-8") as f:
        for rec in csv.DictReader(f):
            if rec.get("human_q1") in ("0", "1"):
                MAJORITY[" ".join(rec["statement"].split())] = rec["human_q1"] == "1"


def gold_load(path: Path) -> None:
    """The demo's COM2 qualification gold file: question -> its plausible options' texts, so the
    walk's annotator ticks what the qualification's author marked and passes it."""
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            rec = json.loads(line)
            GOLD[" ".join(rec["question"].split())] = {" ".join(rec["options"][i].split()) for i in rec["gold"]}


def answer_by_keys(page: Any) -> None:
    """Answer what is on screen by keyboard: a survey's (a) as the people's majority (Y when the
    statement is not in the file), its other questions Y; a multiple choice the gold file's options
    by their number keys (a question not in it: key 1); any other kind (judgement, pair) key 1;
    then Enter."""
    kind = page.get_attribute("form.item-form", "data-annotate")
    if kind == "survey":
        text = " ".join(page.inner_text("form.item-form blockquote.statement").split())
        keys = ["y" if MAJORITY.get(text, True) else "n"]
        keys += ["y"] * ((page.locator("form.item-form fieldset.yn").count() or 2) - 1)
    elif kind == "mcqa":
        stem = " ".join(page.inner_text("form.item-form p.question").split()).removeprefix("Question: ")
        gold = GOLD.get(stem, set())
        keys = []
        for label in page.locator("form.item-form label.choice:has(input[name=plausible])").all():
            key = label.locator("input").get_attribute("data-key")
            text = " ".join(label.inner_text().split()).removeprefix(f"{key} ").strip()
            if text in gold:
                keys.append(str(key))
        keys = keys or ["1"]
    else:
        keys = ["1"]
    for k in keys:
        page.keyboard.press(k)
    page.keyboard.press("Enter")


def annotate(w: Walker, n: int) -> str:
    """``n`` items by keyboard on the current page; returns what happened."""
    shown: str | None = None
    done = 0
    for _ in range(n):
        try:
            shown = current_item(w.page, shown)
        except Exception:
            break
        answer_by_keys(w.page)
        done += 1
    try:  # the last answer's swap, before the next page
        w.page.wait_for_load_state("networkidle", timeout=5_000)
    except Exception:
        pass
    return f"{done} answered"


def walk_annotator(w: Walker, items: int) -> None:
    w.visit("annotation index", "/annotation/")
    campaigns = w.links(r"^/annotation/c/[^/]+/$", limit=4)
    for href in campaigns:
        w.visit(f"campaign {href.split('/')[3]}", href)
        slug = href.split("/")[3]

        def keys() -> None:
            assert w.row is not None
            w.row.note = annotate(w, items)

        w.act(f"annotate {slug} by keys", keys)


def walk_participant(w: Walker, study: str, pid: str, items: int) -> None:
    w.visit("study link", f"/join/{study}/?PROLIFIC_PID={pid}&STUDY_ID=WALK&SESSION_ID=S-{pid}")
    if not w.page.locator('[data-action="consent"]').count():
        w.rows[-1].note = (w.rows[-1].note + " no consent button").strip()
        return

    def consent() -> None:
        with w.page.expect_navigation():
            w.page.click('[data-action="consent"]')
        w.settle()

    w.act("consent -> items", consent)
    answered = 0
    for _ in range(items + 12):  # qualification items, a retry, the budget
        if "/done/" in w.page.url:
            break
        if w.page.locator('[data-action="retry"]').count():
            w.act("qualification retry", lambda: retry(w))
            continue
        try:
            current_item(w.page, None, timeout=10_000)
        except Exception:
            if "/done/" not in w.page.url:
                w.act("no item on screen", lambda: None)
            break
        before = w.page.get_attribute("form.item-form", "data-item")
        answer_by_keys(w.page)
        answered += 1
        try:
            w.page.wait_for_function(
                "p => location.pathname.endsWith('/done/') || document.querySelector('[data-action=retry]') "
                "|| (document.querySelector('form.item-form')?.dataset.item ?? p) !== p",
                arg=before,
                timeout=15_000,
            )
        except Exception:
            break
    if "/done/" in w.page.url:
        w.row = Row(w.role, w.viewport, "done (completion code)", w.page.url, status=200)
        w.rows.append(w.row)
        w.settle()
        code = w.page.locator("#completion-code")
        w.row.note = f"{answered} answered; code {'shown' if code.count() else 'MISSING'}"
    else:
        w.rows[-1].note = (w.rows[-1].note + f" {answered} answered, no done page").strip()


def retry(w: Walker) -> None:
    with w.page.expect_navigation():
        w.page.click('[data-action="retry"]')
    w.settle()


def walk_researcher(w: Walker, runs: int) -> None:
    w.visit("home", "/")
    sets = w.links(r"^/knowledge/(question|statement)-sets/[^/]+/$", limit=2)
    graphs = w.links(r"^/knowledge/graphs/[^/]+/$", limit=1)
    for href in sets:
        w.visit(f"set {href.split('/')[3]}", href)
    for href in graphs:
        w.visit("knowledge graph", href)
    w.visit("build form (COM2)", "/knowledge/build/questions/")
    w.visit("build form (CoCo)", "/knowledge/build/coco/")
    w.visit("build jobs", "/knowledge/build/jobs/")
    w.visit("explorer index", "/explorer/")
    explorer_runs = w.links(r"^/explorer/runs/\d+/$", limit=runs)
    for g in w.links(r"^/explorer/graphs/[^/]+/$", limit=1):
        w.visit("explorer graph", g)
        for n in w.links(r"/nodes/\d+/$", limit=1):
            w.visit("explorer node (2-hop graph)", n)
    w.visit("runs list", "/runs/")
    for href in w.links(r"^/runs/\d+/$", limit=runs):
        run = href.split("/")[2]
        w.visit(f"run page {run}", href)
        for s in w.links(r"/samples/$", limit=1):
            w.visit(f"samples {run}", s)
    for href in explorer_runs:
        w.visit(f"explorer run {href.split('/')[3]}", href)
    w.visit("explorer questions", "/explorer/questions/")
    for q in w.links(r"^/explorer/questions/\d+/", limit=1):
        w.visit("explorer question", q)
    w.visit("explorer compare", "/explorer/compare/")
    w.visit("models", "/runs/models/")
    w.visit("campaigns", "/annotation/")
    for href in w.links(r"^/annotation/c/[^/]+/dashboard/$", limit=4):
        w.visit(f"dashboard {href.split('/')[3]}", href)


def walk_admin(w: Walker, study: str) -> None:
    w.visit("people", "/people/")
    w.visit("people (crowd accounts)", "/people/?crowd=yes")
    w.visit("campaigns", "/annotation/")
    dashboards = w.links(r"^/annotation/c/[^/]+/dashboard/$", limit=4)
    for href in dashboards:
        slug = href.split("/")[3]
        w.visit(f"dashboard {slug}", href)
        for v in w.links(r"verified-set/$", limit=1):
            w.visit(f"verified set {slug}", v)
        exports = w.links(r"/export\.\w+", limit=3)
        for x in exports:  # downloads: fetched with the session's cookies, not opened as pages
            url = urljoin(w.base + "/", x.lstrip("/"))
            row = Row(w.role, w.viewport, f"export {slug} {x.rsplit('.', 1)[-1]}", url)
            w.rows.append(row)
            t = time.perf_counter()
            r = w.context.request.get(url)
            row.status, row.bytes, row.requests = r.status, len(r.body()), 1
            row.load_ms = round((time.perf_counter() - t) * 1000, 1)
            if r.status >= 500:
                row.server_errors.append(f"{r.status} GET {url}")
    w.visit("participants (crowd study; its settings form)", f"/annotation/c/{study}/participants/")


def load_average() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip().split("load average:")[-1].strip()


def credentials(path: Path) -> dict[str, str]:
    out = {}
    for line in path.read_text().splitlines():
        name, _, secret = line.partition(":")
        if name and secret:
            out[name] = secret
    return out


def summary(rows: list[Row], load_start: str, load_end: str) -> dict[str, Any]:
    timed = [r.load_ms for r in rows if r.load_ms is not None and not r.label.startswith("export")]
    return {
        "pages": len(timed),
        "downloads": sum(1 for r in rows if r.label.startswith("export")),
        "rows": len(rows),
        "server_errors": sum(len(r.server_errors) for r in rows),
        "app_console_errors": sum(len(r.app_errors) for r in rows),
        "other_console_errors": sum(len(r.other_errors) for r in rows),
        "pages_over_1s": sum(1 for t in timed if t > SLOW_MS),
        "max_load_ms": max(timed) if timed else None,
        "median_load_ms": statistics.median(timed) if timed else None,
        "max_ttfb_ms": max((r.ttfb_ms for r in rows if r.ttfb_ms is not None), default=None),
        "max_bytes": max((r.bytes for r in rows), default=0),
        "failed_steps": sum(1 for r in rows if r.note and ("Error" in r.note or "MISSING" in r.note)),
        "load_average_start": load_start,
        "load_average_end": load_end,
    }


def print_table(rows: list[Row]) -> None:
    print(
        f"{'role':<12} {'vp':<7} {'page':<34} {'st':>4} {'load ms':>8} {'ttfb':>5} {'kB':>7} {'req':>4} {'5xx':>3} {'err':>3}  note"
    )
    for r in rows:
        load = f"{r.load_ms:.0f}" if r.load_ms is not None else "-"
        ttfb = f"{r.ttfb_ms:.0f}" if r.ttfb_ms is not None else "-"
        flag = " SLOW" if r.load_ms is not None and r.load_ms > SLOW_MS else ""
        print(
            f"{r.role:<12} {r.viewport:<7} {r.label[:34]:<34} {r.status or '-':>4} {load:>8} {ttfb:>5} {r.bytes / 1024:>7.0f} "
            f"{r.requests:>4} {len(r.server_errors):>3} {len(r.app_errors):>3}  {r.note}{flag}"
        )
        for e in r.server_errors + [f"console: {e}" for e in r.app_errors] + [f"(other) {e}" for e in r.other_errors]:
            print(f"{'':>14}  {e[:200]}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--base", default="http://127.0.0.1:8791")
    ap.add_argument("--var-dir", default=os.environ.get("COCOWEB_VAR_DIR", str(ROOT / "var")))
    ap.add_argument("--credentials", help="demo-credentials.txt (default: under --var-dir)")
    ap.add_argument("--study", default="walk-study", help="the crowd study's campaign name")
    ap.add_argument("--items", type=int, default=4, help="items an annotator answers per campaign")
    ap.add_argument("--runs", type=int, default=8, help="runs whose pages (run, samples, explorer) are walked")
    ap.add_argument("--roles", default="annotator,participant,researcher,admin")
    ap.add_argument("--viewports", default="desktop,phone")
    ap.add_argument("--majority", default=str(ROOT / "fixtures" / "statements_demo.csv"), help="see majority_load")
    ap.add_argument(
        "--mcqa-gold", default=str(ROOT / "fixtures" / "qualification" / "com2_demo_gold.jsonl"), help="see gold_load"
    )
    ap.add_argument("--out", default="browser_walk.json")
    a = ap.parse_args()
    majority_load(Path(a.majority))
    gold_load(Path(a.mcqa_gold))
    creds = credentials(Path(a.credentials or Path(a.var_dir) / "demo-credentials.txt"))
    from playwright.sync_api import sync_playwright

    rows: list[Row] = []
    load_start = load_average()
    started = time.time()
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", headless=True, args=CHROMIUM_ARGS)
        for viewport in a.viewports.split(","):
            for role in a.roles.split(","):
                w = Walker(browser, a.base, role, viewport, rows)
                try:
                    if role == "participant":
                        walk_participant(w, a.study, f"walk{viewport}{int(started)}", a.items)
                        continue
                    w.login(f"demo-{role}", creds[f"demo-{role}"])
                    if role == "annotator":
                        walk_annotator(w, a.items)
                    elif role == "researcher":
                        walk_researcher(w, a.runs)
                    else:
                        walk_admin(w, a.study)
                finally:
                    w.close()
        browser.close()
    load_end = load_average()
    print_table(rows)
    s = summary(rows, load_start, load_end)
    s["seconds"] = round(time.time() - started, 1)
    print("\n" + "  ".join(f"{k}: {v}" for k, v in s.items()))
    Path(a.out).write_text(json.dumps({"summary": s, "rows": [asdict(r) for r in rows]}, indent=1))
    print(f"wrote {a.out}")


if __name__ == "__main__":
    main()
