"""Conceptualisation files (``head<TAB>concept<TAB>abstract head``) for CoCo builds from the browser.

They live under ``COCOWEB_ABSTRACT_DIR`` (default ``MEDIA_ROOT/abstract``), which web processes and
workers must share. An upload is validated, then stored as ``<sha256[:16]>/<its file name>``: the
file keeps its own name, so the built set records the same ``abstract`` parameter as a
``build_coco --abstract`` of that file. Files copied there by hand are offered too.
"""

from __future__ import annotations

import hashlib
import re
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.conf import settings

from commonsense.io.abstract import read_abstract_triples

SUFFIXES = (".tsv", ".txt")


def abstract_dir() -> Path:
    return Path(settings.COCOWEB_ABSTRACT_DIR)


def abstract_file_path(rel: str) -> Path:
    """The file for a stored relative name; refuses names that leave the directory."""
    root = abstract_dir().resolve()
    p = (root / rel).resolve()
    if not p.is_relative_to(root) or p == root:
        raise ValueError(f"abstract file {rel!r} is outside {root}")
    if not p.is_file():
        raise FileNotFoundError(f"abstract file {rel!r} is not in {root} (was it removed?)")
    return p


@dataclass(frozen=True)
class AbstractFile:
    rel: str
    size: int

    @property
    def label(self) -> str:
        return f"{self.rel} ({self.size:,} bytes)"


def abstract_file_list() -> list[AbstractFile]:
    root = abstract_dir()
    if not root.is_dir():
        return []
    return [
        AbstractFile(p.relative_to(root).as_posix(), p.stat().st_size)
        for p in sorted(root.rglob("*"))
        if p.is_file() and p.suffix.lower() in SUFFIXES
    ]


def _safe_name(name: str) -> str:
    stem = re.sub(r"[^A-Za-z0-9._-]+", "_", Path(name).name).strip("._") or "abstract.tsv"
    return stem if stem.lower().endswith(SUFFIXES) else f"{stem}.tsv"


def abstract_file_save(upload: Any) -> tuple[str, int]:
    """Validate an uploaded file (every line parsed; raises DataFormatError naming the uploaded
    file's line and field) and store it; returns (relative name, abstract triples)."""
    name = _safe_name(upload.name)
    h = hashlib.sha256()
    with tempfile.TemporaryDirectory() as tmpdir:
        tmp = Path(tmpdir) / name  # the error messages name the file as uploaded
        with tmp.open("wb") as fh:
            for chunk in upload.chunks():
                h.update(chunk)
                fh.write(chunk)
        n = sum(1 for _ in read_abstract_triples(tmp))
        rel = f"{h.hexdigest()[:16]}/{name}"
        dest = abstract_dir() / rel
        if not dest.exists():
            dest.parent.mkdir(parents=True, exist_ok=True)
            part = dest.with_suffix(dest.suffix + ".part")
            shutil.copyfile(tmp, part)
            part.replace(dest)
    return rel, n
