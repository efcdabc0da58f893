"""Every setting is declared once, in ``cocoweb/settings.py``: no Django app module reads
``os.environ`` or keeps its own default (``getattr(settings, NAME, default)``), and every
``settings.NAME`` an app reads is declared there (or is one of Django's own). The guard is a
function of a source tree, so a test of the test plants each fault and sees it caught."""

from __future__ import annotations

import ast
import shutil
from pathlib import Path

from django.conf import global_settings

ROOT = Path(__file__).resolve().parents[2]
APPS = ("accounts", "annotation", "cocoweb", "explorer", "knowledge", "runs")
# Where the environment may be read: the settings modules, and the one module that looks up
# secrets under the variable names the configuration gives (an endpoint's API key).
ALLOWED_ENV = {"cocoweb/settings.py", "cocoweb/test_settings.py", "cocoweb/secrets.py"}
ENTRY_POINTS = {"cocoweb/celery.py", "cocoweb/wsgi.py", "cocoweb/asgi.py", "manage.py"}


def declared_settings(root: Path) -> set[str]:
    tree = ast.parse((root / "cocoweb" / "settings.py").read_text(encoding="utf-8"))
    names = {
        t.id for node in ast.walk(tree) if isinstance(node, ast.Assign) for t in node.targets if isinstance(t, ast.Name)
    }
    names |= {n.target.id for n in ast.walk(tree) if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name)}
    return {n for n in names if n.isupper()} | {n for n in dir(global_settings) if n.isupper()}


def faults(root: Path) -> list[str]:
    declared = declared_settings(root)
    out: list[str] = []
    for app in APPS:
        for path in sorted((root / app).rglob("*.py")):
            rel = path.relative_to(root).as_posix()
            if rel in ALLOWED_ENV or "/migrations/" in rel:
                continue
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                where = f"{rel}:{getattr(node, 'lineno', 0)}"
                if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
                    if node.value.id == "os" and node.attr in ("environ", "getenv") and rel not in ENTRY_POINTS:
                        out.append(f"{where}: reads os.{node.attr} (declare the setting in cocoweb/settings.py)")
                    if node.value.id == "settings" and node.attr.isupper() and node.attr not in declared:
                        out.append(f"{where}: settings.{node.attr} is not declared in cocoweb/settings.py")
                if (
                    isinstance(node, ast.Call)
                    and isinstance(node.func, ast.Name)
                    and node.func.id == "getattr"
                    and len(node.args) == 3
                    and isinstance(node.args[0], ast.Name)
                    and node.args[0].id == "settings"
                ):
                    out.append(f"{where}: getattr(settings, …, default) keeps its own default")
    return sorted(out)


def test_every_setting_is_declared_once_in_settings_py() -> None:
    assert faults(ROOT) == []


def test_guard_catches_each_planted_fault(tmp_path: Path) -> None:
    for app in APPS:
        shutil.copytree(ROOT / app, tmp_path / app, ignore=shutil.ignore_patterns("__pycache__", "migrations"))
    (tmp_path / "runs" / "planted.py").write_text(
        "import os\n"
        "from django.conf import settings\n"
        "A = os.environ.get('COCOWEB_X', '1')\n"
        "B = getattr(settings, 'COCOWEB_Y', 2)\n"
        "C = settings.COCOWEB_UNDECLARED\n"
    )
    found = faults(tmp_path)
    assert found == [
        "runs/planted.py:3: reads os.environ (declare the setting in cocoweb/settings.py)",
        "runs/planted.py:4: getattr(settings, …, default) keeps its own default",
        "runs/planted.py:5: settings.COCOWEB_UNDECLARED is not declared in cocoweb/settings.py",
    ]
