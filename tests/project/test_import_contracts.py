"""The layers of docs/ARCHITECTURE.md, checked by import-linter (the contracts in pyproject.toml,
run by ``make lint``): the tree keeps them, and a copy of the tree with one planted fault breaks the
contract that guards against it (an upward import, explorer reading another app's services, an app
importing another app's views, an import cycle)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ["commonsense", "cocoweb", "accounts", "knowledge", "runs", "annotation", "explorer"]
LINT = Path(sys.executable).parent / "lint-imports"


def lint(root: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(root)}
    return subprocess.run(
        [str(LINT), "--no-cache", "--config", str(ROOT / "pyproject.toml")],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_the_tree_keeps_every_contract() -> None:
    got = lint(ROOT)
    assert got.returncode == 0, got.stdout + got.stderr
    assert "0 broken" in got.stdout


PLANTS = [
    # (file, line appended, what the report must say)
    ("knowledge/models.py", "from explorer import tasks  # planted", "knowledge is not allowed to import explorer"),
    ("runs/models.py", "import annotation.selectors.agreement  # planted", "runs is not allowed to import annotation"),
    (
        "explorer/selectors/nww.py",
        "from annotation.services import campaigns  # planted",
        "explorer is not allowed to import annotation.services",
    ),
    (
        "annotation/charts.py",
        "from runs.views import runs  # planted",
        "annotation is not allowed to import runs.views",
    ),
    ("explorer/charts/graph.py", "from explorer.panels import base  # planted", "No cycles are allowed in explorer"),
    (
        "commonsense/agreement.py",
        "import knowledge.models  # planted",
        "commonsense is not allowed to import knowledge",
    ),
]


@pytest.fixture(scope="module")
def tree_copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("tree")
    for p in PACKAGES:
        shutil.copytree(ROOT / p, root / p, ignore=shutil.ignore_patterns("__pycache__", "migrations"))
    return root


@pytest.mark.parametrize(("path", "line", "said"), PLANTS, ids=[p[0] for p in PLANTS])
def test_a_planted_fault_breaks_its_contract(tree_copy: Path, path: str, line: str, said: str) -> None:
    target = tree_copy / path
    original = target.read_text(encoding="utf-8")
    target.write_text(original + "\n" + line + "\n", encoding="utf-8")
    try:
        got = lint(tree_copy)
    finally:
        target.write_text(original, encoding="utf-8")
    assert got.returncode != 0, got.stdout
    assert said in " ".join(got.stdout.split()), got.stdout
