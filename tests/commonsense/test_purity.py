"""commonsense/ is the pure core: importing every module of it must not import Django."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = """
import importlib, pkgutil, sys
import commonsense
names = [m.name for m in pkgutil.walk_packages(commonsense.__path__, "commonsense.") if not m.name.endswith("__main__")]
for name in names:
    importlib.import_module(name)
bad = sorted(m for m in sys.modules if m == "django" or m.startswith("django."))
print(len(names), "modules;", "django modules:", bad)
assert not bad, bad
heavy = sorted(m for m in ("torch", "transformers", "sentence_transformers") if m in sys.modules)
assert not heavy, f"heavy libraries imported at module level: {heavy}"
"""


def test_commonsense_imports_without_django() -> None:
    out = subprocess.run([sys.executable, "-c", SCRIPT], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr + out.stdout
    assert "django modules: []" in out.stdout
