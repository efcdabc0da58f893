"""docs/ARCHITECTURE.md matches the tree: every path it names in backticks exists, and every
Django app (a top-level folder with an ``apps.py``), and every package and module of the apps, the
wiring (``cocoweb/``) and the core (``commonsense/``) is named: the document is an index. The
checker is a function of the document's text, so a test of the test plants a stale path, an
unnamed app and an unnamed module."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "ARCHITECTURE.md"
# `templates/<app>/`, `tests/<app>/factories.py`: a placeholder stands for every app.
PATH = re.compile(r"`([A-Za-z_.][\w./<>-]*/[\w./<>-]*)`")
EXCUSED = re.compile(r"^- ((?:`[^`]+`(?:, |\s)*)+)", re.MULTILINE)  # the modules a bullet excuses


def indexed(root: Path) -> list[str]:
    """Every package (``dir/``) and module (``dir/file.py``) the index must name: the apps', the
    wiring's and the core's, migrations and ``__init__.py`` files aside."""
    out = []
    for top in ["commonsense", "cocoweb", *apps(root)]:
        for p in sorted((root / top).rglob("*.py")):
            rel = p.relative_to(root)
            if "migrations" in rel.parts or "__pycache__" in rel.parts:
                continue
            if p.name == "__init__.py":
                if p.parent != root / top and p.parent.name != "management":
                    out.append(f"{rel.parent.as_posix()}/")
            else:
                out.append(rel.as_posix())
    return out


MAX_LINES = 400


def long_modules(root: Path) -> list[str]:
    """Every tracked-looking .py over MAX_LINES lines outside migrations, perf/ and the venv."""
    out = []
    for p in sorted(root.rglob("*.py")):
        rel = p.relative_to(root)
        if rel.parts[0] in {".venv", "perf", "var", "node_modules"} or "migrations" in rel.parts:
            continue
        if "__pycache__" in rel.parts or rel.parts[0].startswith("."):
            continue
        with p.open(encoding="utf-8") as f:
            if sum(1 for _ in f) > MAX_LINES:
                out.append(rel.as_posix())
    return out


def apps(root: Path) -> list[str]:
    return sorted(p.parent.name for p in root.glob("*/apps.py"))


def problems(text: str, root: Path) -> list[str]:
    out = []
    named = set()
    for raw in PATH.findall(text):
        named.add(raw.rstrip("/"))
        if "<app>" in raw:
            candidates = [raw.replace("<app>", a) for a in apps(root)]
            if not any((root / c).exists() for c in candidates):
                out.append(f"{raw}: exists for no app")
        elif not (root / raw).exists():
            out.append(f"{raw}: no such path")
    for app in apps(root):
        if app not in named:
            out.append(f"{app}/: a Django app the document does not name")
    for init in sorted((root / "commonsense").glob("*/__init__.py")):
        if f"commonsense/{init.parent.name}" not in named:
            out.append(f"commonsense/{init.parent.name}/: a core package the document does not name")
    long_section = (
        text.split("## Modules over 400 lines", 1)[-1].split("\n## ", 1)[0]
        if "## Modules over 400 lines" in text
        else ""
    )
    long = long_modules(root)
    for path in long:
        if f"`{path}`" not in long_section:
            out.append(f"{path}: over {MAX_LINES} lines and not named under 'Modules over 400 lines'")
    excused = [p for head in EXCUSED.findall(long_section) for p in PATH.findall(head)]  # each bullet's head
    for path in excused:  # an excuse outlives its reason: the module was split
        if (root / path).is_file() and path not in long:
            out.append(f"{path}: named under 'Modules over 400 lines' but not over {MAX_LINES} lines")
    for path in indexed(root):
        if path.rstrip("/") not in named:
            out.append(f"{path}: a module the document's index does not name")
    return out


def test_architecture_doc_matches_the_tree() -> None:
    assert problems(DOC.read_text(encoding="utf-8"), ROOT) == []


def test_checker_sees_a_stale_path_and_an_unnamed_app() -> None:
    text = DOC.read_text(encoding="utf-8").replace("`explorer/`", "`explorers/`", 1)
    found = problems(text, ROOT)
    assert "explorers/: no such path" in found
    text = text.replace("`accounts/`", "accounts")
    assert "accounts/: a Django app the document does not name" in problems(text, ROOT)


def test_checker_sees_an_unnamed_module() -> None:
    text = DOC.read_text(encoding="utf-8")
    line = next(x for x in text.splitlines() if x.startswith("- `runs/selectors/samples.py`"))
    found = problems(text.replace(line + "\n", ""), ROOT)
    assert found == ["runs/selectors/samples.py: a module the document's index does not name"]
    found = problems(text.replace("`annotation/queue/`", "the queue"), ROOT)  # named twice: in prose too
    assert found == ["annotation/queue/: a module the document's index does not name"]


def test_checker_sees_a_long_module_the_doc_does_not_excuse() -> None:
    text = DOC.read_text(encoding="utf-8")
    found = problems(text.replace("`annotation/queue/operations.py` the annotators'", "the queue's"), ROOT)
    assert found == ["annotation/queue/operations.py: over 400 lines and not named under 'Modules over 400 lines'"]


def test_checker_sees_an_excuse_for_a_module_that_is_no_longer_long() -> None:
    text = DOC.read_text(encoding="utf-8")
    section = "## Modules over 400 lines\n"
    planted = text.replace(section, section + "\n- `knowledge/services/builds.py` once long, split since.\n", 1)
    found = problems(planted, ROOT)
    assert found == ["knowledge/services/builds.py: named under 'Modules over 400 lines' but not over 400 lines"]
