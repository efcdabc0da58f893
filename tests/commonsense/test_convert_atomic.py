"""The GGUF conversion cache (commonsense/scoring/convert.py) is safe for two processes converting
the same file at once (two eval workers; the test suite's two passes, which run together): the
cached folder is at every moment absent or complete, and the first finished conversion wins. The
GGUF de-quantiser is replaced by a tiny GPT-2 (tests/commonsense/tiny_lm.py) so that the saving,
renaming and clean-up are the real code's and the test takes a second."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from commonsense.scoring import convert
from commonsense.scoring.convert import MARKER, convert_gguf, is_converted

pytestmark = pytest.mark.slow  # torch + transformers


@pytest.fixture
def gguf(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, tiny_gpt2: Path) -> tuple[Path, list[bool]]:
    """A stand-in .gguf file and a de-quantiser that loads a tiny GPT-2; the list records, at each
    save of the model, whether it was written elsewhere than the cache folder (which readers may
    be loading)."""
    from transformers import AutoModelForCausalLM, AutoTokenizer, GPT2LMHeadModel, PreTrainedTokenizerFast

    tiny = tiny_gpt2
    src = tmp_path / "models" / "tiny.Q4.gguf"
    src.parent.mkdir()
    src.write_bytes(b"GGUF stand-in")
    out = tmp_path / "cache" / src.stem
    elsewhere: list[bool] = []

    def model(*_a: Any, **_k: Any) -> Any:
        m = GPT2LMHeadModel.from_pretrained(str(tiny))
        real_save = m.save_pretrained

        def save(folder: str, **kw: Any) -> Any:
            elsewhere.append(Path(folder).resolve() != out.resolve())
            return real_save(folder, **kw)

        m.save_pretrained = save  # type: ignore[method-assign]
        return m

    monkeypatch.setattr(AutoModelForCausalLM, "from_pretrained", model)
    monkeypatch.setattr(
        AutoTokenizer, "from_pretrained", lambda *_a, **_k: PreTrainedTokenizerFast.from_pretrained(str(tiny))
    )
    return src, elsewhere


def test_a_half_written_folder_is_never_visible_and_is_replaced(gguf: tuple[Path, list[bool]], tmp_path: Path) -> None:
    src, elsewhere = gguf
    out = tmp_path / "cache" / src.stem
    out.mkdir(parents=True)
    (out / "config.json").write_text("{}")  # an interrupted conversion: no marker
    assert convert_gguf(src, out) == out
    assert is_converted(out)
    assert json.loads((out / MARKER).read_text())["source"] == str(src.resolve())
    assert elsewhere == [True]  # written beside the cache folder, renamed in when complete
    assert sorted(p.name for p in out.parent.iterdir()) == [out.name]  # no temporary folder left
    assert convert_gguf(src, out) == out
    assert elsewhere == [True]


def test_when_another_process_finishes_first_its_folder_wins(
    gguf: tuple[Path, list[bool]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    src, _ = gguf
    out = tmp_path / "cache" / src.stem
    real_replace = os.replace

    def other_process_first(a: str | Path, b: str | Path) -> None:
        # the other process renames its finished folder in just before ours
        other = out.parent / "other"
        real_replace(a, other)
        (other / "from-the-other-process").write_text("")
        real_replace(other, out)
        Path(a).mkdir()
        (Path(a) / MARKER).write_text("ours")
        real_replace(a, b)  # what the real call now meets: a non-empty folder in place -> OSError

    monkeypatch.setattr(convert.os, "replace", other_process_first)
    assert convert_gguf(src, out) == out
    assert (out / "from-the-other-process").exists()
    assert is_converted(out)
    assert sorted(p.name for p in out.parent.iterdir()) == [out.name]  # our copy dropped
