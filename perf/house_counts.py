"""Issue 30's counts of the house, for a tree (default: this checkout): per app, the top-level
modules outside the rooms docs/ARCHITECTURE.md documents; the modules over 400 lines (migrations
and perf/ aside); the import cycles between modules (strongly connected components of grimp's
import graph, each cycle counted once). The duplicate pairs come from the ``duplicates`` tool.

    .venv/bin/python perf/house_counts.py [ROOT]
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import grimp

APPS = ("accounts", "annotation", "explorer", "knowledge", "runs")
PACKAGES = ("commonsense", "cocoweb", *APPS)
# the rooms every app keeps ("Rooms of a Django app"); an app's other rooms are those the section names
ROOMS = {
    "models", "selectors", "services", "forms", "views", "api", "urls", "charts", "tasks", "signals",
    "admin", "apps", "management", "templatetags", "migrations", "__init__",
}  # fmt: skip
MAX_LINES = 400


def rooms_named(doc: str) -> set[str]:
    section = doc.split("## Rooms of a Django app", 1)[-1].split("\n## ", 1)[0]
    return {m.rstrip("/").removesuffix(".py") for m in re.findall(r"`([a-z_]+/[a-z_]+(?:\.py|/))`", section)}


def outside_rooms(root: Path) -> dict[str, list[str]]:
    named = rooms_named((root / "docs/ARCHITECTURE.md").read_text(encoding="utf-8"))
    out: dict[str, list[str]] = {}
    for app in APPS:
        mods = [p for p in (root / app).iterdir() if (p.suffix == ".py" or (p / "__init__.py").exists())]
        out[app] = sorted(
            p.name for p in mods if p.stem not in ROOMS and f"{app}/{p.stem}" not in named and p.name != "__pycache__"
        )
    return out


def long_modules(root: Path) -> list[tuple[str, int]]:
    out = []
    for p in sorted(root.rglob("*.py")):
        rel = p.relative_to(root)
        if rel.parts[0] in {".venv", "perf", "var", "node_modules"} or "migrations" in rel.parts:
            continue
        if "__pycache__" in rel.parts or rel.parts[0].startswith("."):
            continue
        n = sum(1 for _ in p.open(encoding="utf-8"))
        if n > MAX_LINES:
            out.append((rel.as_posix(), n))
    return out


def cycles(root: Path) -> list[list[str]]:
    """Strongly connected components (size > 1) of the module import graph."""
    sys.path.insert(0, str(root))
    graph = grimp.build_graph(*PACKAGES, cache_dir=None)
    mods = sorted(graph.modules)
    succ = {m: sorted(graph.find_modules_directly_imported_by(m)) for m in mods}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    comps: list[list[str]] = []
    counter = 0
    for start in mods:  # Tarjan, iteratively
        if start in index:
            continue
        work = [(start, 0)]
        while work:
            v, i = work.pop()
            if i == 0:
                index[v] = low[v] = counter
                counter += 1
                stack.append(v)
                on.add(v)
            nxt = succ.get(v, [])
            if i < len(nxt):
                work.append((v, i + 1))
                w = nxt[i]
                if w not in index:
                    work.append((w, 0))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    comps.append(sorted(comp))
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[v])
    return comps


def main() -> None:
    root = Path(sys.argv[1] if len(sys.argv) > 1 else ".").resolve()
    outside = outside_rooms(root)
    print("modules outside the documented rooms, per app:")
    for app, names in outside.items():
        print(f"  {app}: {len(names)} {' '.join(names)}")
    long = long_modules(root)
    print(f"modules over {MAX_LINES} lines: {len(long)}")
    for path, n in long:
        print(f"  {path} {n}")
    comps = cycles(root)
    print(f"import cycles (strongly connected groups of modules): {len(comps)}")
    for c in comps:
        print("  " + " <-> ".join(c))


if __name__ == "__main__":
    main()
