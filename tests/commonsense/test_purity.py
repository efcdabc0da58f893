"""commonsense/ is the pure core: importing every module of it must not import Django.

The guard walks the files, not the packages: a folder without ``__init__.py`` (or a module that no
package lists) is still imported and checked. A test of the test plants a Django import in a copy of
the tree and sees the guard fail.
"""

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = """
import importlib, sys
from pathlib import Path
files = sorted(p for p in Path("commonsense").rglob("*.py") if p.name != "__main__.py")
names = [".".join(p.with_suffix("").parts[:-1] if p.name == "__init__.py" else p.with_suffix("").parts) for p in files]
for name in names:
    importlib.import_module(name)
    bad = sorted(m for m in sys.modules if m == "django" or m.startswith("django."))
    assert not bad, f"{name} imports Django: {bad[:3]}"
print(len(names), "modules;", "django modules: []")
heavy = sorted(m for m in ("torch", "transformers", "sentence_transformers") if m in sys.modules)
assert not heavy, f"heavy libraries imported at module level: {heavy}"
"""


def run_guard(root: Path) -> subprocess.CompletedProcess[str]:
    """Import every ``*.py`` file under ``root/commonsense`` in a fresh interpreter."""
    return subprocess.run([sys.executable, "-c", SCRIPT], cwd=root, capture_output=True, text=True, timeout=120)


def test_commonsense_imports_without_django() -> None:
    out = run_guard(ROOT)
    assert out.returncode == 0, out.stderr + out.stdout
    assert "django modules: []" in out.stdout
    n_files = sum(1 for p in (ROOT / "commonsense").rglob("*.py") if p.name != "__main__.py")
    assert out.stdout.startswith(f"{n_files} modules;"), out.stdout


def test_guard_fails_on_a_planted_django_import(tmp_path: Path) -> None:
    # A module in a folder without __init__.py: a package walk would never import it.
    shutil.copytree(ROOT / "commonsense", tmp_path / "commonsense", ignore=shutil.ignore_patterns("__pycache__"))
    hidden = tmp_path / "commonsense" / "planted_dir"
    hidden.mkdir()
    (hidden / "planted.py").write_text("import django.db  # planted by the test\n")
    out = run_guard(tmp_path)
    assert out.returncode != 0, out.stdout
    assert "commonsense.planted_dir.planted imports Django" in out.stderr
