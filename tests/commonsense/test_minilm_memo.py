"""The MiniLM encoder embeds a text once per process (commonsense/kg/normalize.py): a second build
of the same graph in one process (a build worker's next build, the test suite's many builds of the
demo graphs) asks the model for nothing it has embedded, and the rows come back in the caller's
order, repeats included."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from commonsense.kg import normalize


class Model:
    """Stands in for the SentenceTransformer: a text's vector is its length and first letter."""

    def __init__(self) -> None:
        self.asked: list[list[str]] = []

    def encode(self, texts: list[str], **_: Any) -> np.ndarray:
        self.asked.append(list(texts))
        return np.array([[len(t), ord(t[0])] for t in texts], dtype=np.float64).reshape(len(texts), 2)


@pytest.fixture
def model(monkeypatch: pytest.MonkeyPatch) -> Model:
    m = Model()
    monkeypatch.setattr(normalize, "_ENCODER_CACHE", {"minilm": m})
    monkeypatch.setattr(normalize, "_VECTORS", {})
    return m


def test_a_text_is_embedded_once_and_rows_keep_the_callers_order(model: Model) -> None:
    encode = normalize.minilm_encoder()
    first = encode(["happy", "tired", "happy"])
    assert model.asked == [["happy", "tired"]]
    assert first.dtype == np.float32
    assert first.tolist() == [[5, ord("h")], [5, ord("t")], [5, ord("h")]]
    again = normalize.minilm_encoder()(["tired", "sad", "happy"])  # another encoder, the same process
    assert model.asked == [["happy", "tired"], ["sad"]]
    assert again.tolist() == [[5, ord("t")], [3, ord("s")], [5, ord("h")]]
    assert encode([]).shape[0] == 0


def test_the_memo_keeps_the_newest_texts(model: Model, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(normalize, "MINILM_MEMO", 2)
    encode = normalize.minilm_encoder()
    encode(["a", "bb", "ccc"])
    assert list(normalize._VECTORS) == ["bb", "ccc"]
    assert encode(["a", "ccc"]).tolist() == [[1, ord("a")], [3, ord("c")]]
    assert model.asked == [["a", "bb", "ccc"], ["a"]]
