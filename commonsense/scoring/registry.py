"""Which models and files a run may use: the packaged models, and names resolved strictly inside
operator-configured folders.

A researcher names a model (``smollm2-135m-instruct``, ``all-MiniLM-L6-v2``, ``my-model`` for a
folder or ``.gguf`` file under a models folder) or a file (a replay / ReComSBench paths file under a
run-files folder); never a free path. :func:`resolve_model` and :func:`resolve_file` return the
real path only when it lies inside one of the given folders (after following symlinks), is a regular
file (or a model folder with a regular ``config.json``), and otherwise raise :class:`Refused` with
one message that says nothing about whether the path exists (no oracle for ``/etc/passwd``).
"""

from __future__ import annotations

import stat
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from .locate import ModelNotFoundError, minilm_dir, smollm2_gguf

SMOLLM2 = "smollm2-135m-instruct"
MINILM = "all-MiniLM-L6-v2"
# Names that mean a packaged model (case-insensitive), whatever the folders hold.
PACKAGED_ALIASES = {
    SMOLLM2: SMOLLM2,
    "smollm2": SMOLLM2,
    "smollm2-135m": SMOLLM2,
    MINILM.lower(): MINILM,
    "minilm": MINILM,
    "sentence-transformers/all-minilm-l6-v2": MINILM,
}
# What each backend can load: language models (hf) and sentence encoders (embedding).
KIND_OF_PACKAGED = {SMOLLM2: "lm", MINILM: "embedding"}
BACKEND_KIND = {"hf": "lm", "embedding": "embedding"}


class Refused(ValueError):
    """A model or file name this installation does not run. The message never says why (missing,
    outside the folders, not a regular file): the same words for every refusal."""


@dataclass(frozen=True)
class LocalModel:
    name: str  # what a run names it
    path: Path
    kind: str  # "lm" | "embedding" | "any" (a folder's kind is not inspected)
    origin: str  # "packaged" or the models folder it lies in
    fmt: str  # "gguf" | "folder"


def _regular(p: Path) -> bool:
    try:
        return stat.S_ISREG(p.stat().st_mode)
    except OSError:
        return False


def _inside(p: Path, roots: Iterable[Path]) -> Path | None:
    """``p`` resolved (symlinks followed), when it lies inside one of ``roots``."""
    try:
        real = p.resolve(strict=True)
    except (OSError, RuntimeError):
        return None
    for root in roots:
        try:
            r = Path(root).resolve(strict=True)
        except (OSError, RuntimeError):
            continue
        if real == r or real.is_relative_to(r):
            return real
    return None


def _model_at(real: Path) -> str | None:
    """ "gguf" / "folder" when ``real`` is a loadable model, else None."""
    if real.suffix.lower() == ".gguf" and _regular(real):
        return "gguf"
    if real.is_dir() and _regular(real / "config.json"):
        return "folder"
    return None


def packaged_models() -> list[LocalModel]:
    out = []
    for name, find in ((SMOLLM2, smollm2_gguf), (MINILM, minilm_dir)):
        try:
            path = find()
        except ModelNotFoundError:
            continue
        out.append(LocalModel(name, path, KIND_OF_PACKAGED[name], "packaged", "gguf" if path.is_file() else "folder"))
    return out


def folder_models(dirs: Sequence[Path]) -> list[LocalModel]:
    """Models one level inside each folder: ``.gguf`` files and folders holding ``config.json``."""
    out = []
    for d in dirs:
        root = Path(d)
        if not root.is_dir():
            continue
        for child in sorted(root.iterdir()):
            real = _inside(child, [root])
            fmt = _model_at(real) if real is not None else None
            if fmt is not None:
                out.append(LocalModel(child.name, real, "any", str(root), fmt))  # type: ignore[arg-type]
    return out


def _refused(name: str, what: str) -> Refused:
    shown = name if len(name) <= 80 else name[:77] + "…"
    if what == "a file":
        return Refused(f"{shown!r} is not a file in a run-files folder; the Models page lists the folders")
    return Refused(f"{shown!r} is not a model this installation can run; the Models page lists them")


def resolve_model(name: str, dirs: Sequence[Path], backend: str) -> LocalModel:
    """The model ``name`` means for ``backend`` (hf or embedding): a packaged model by name, or a
    ``.gguf`` file / model folder inside one of ``dirs`` (by its name there, or by a path that
    resolves inside). Never a download: a Hub id (``org/name``) is refused like anything else."""
    want = BACKEND_KIND.get(backend)
    text = (name or "").strip()
    if want == "embedding" and not text:
        text = MINILM
    packaged = {m.name: m for m in packaged_models()}
    alias = PACKAGED_ALIASES.get(text.lower())
    by_path = {m.path.resolve(): m for m in packaged.values()}
    hit = packaged.get(alias) if alias else None
    if hit is None and text and Path(text).is_absolute():
        real = _inside(Path(text), [m.path for m in packaged.values()])
        hit = by_path.get(real) if real is not None else None
    if hit is not None:
        if want and hit.kind != want:
            use = "the embedding backend" if hit.kind == "embedding" else "the hf backend"
            raise Refused(
                f"{hit.name} is a {'sentence-embedding' if hit.kind == 'embedding' else 'language'} model: use {use}"
            )
        return hit
    if not text or "\x00" in text or len(text) > 500:
        raise _refused(text, "a model")
    for root in dirs:
        candidate = Path(text) if Path(text).is_absolute() else Path(root) / text
        real = _inside(candidate, [root])
        fmt = _model_at(real) if real is not None else None
        if fmt is not None:
            return LocalModel(text, real, "any", str(root), fmt)  # type: ignore[arg-type]
    raise _refused(text, "a model")


def resolve_file(name: str, dirs: Sequence[Path]) -> Path:
    """A data file (replay source, ReComSBench paths file) by its name inside one of ``dirs`` or a
    path that resolves inside one: regular files only (no devices, FIFOs or folders)."""
    text = (name or "").strip()
    if text and "\x00" not in text and len(text) <= 500:
        for root in dirs:
            candidate = Path(text) if Path(text).is_absolute() else Path(root) / text
            real = _inside(candidate, [root])
            if real is not None and _regular(real):
                return real
    raise _refused(text, "a file")
