"""ReComSBench curricula (Eqs. 6–7) and LoRA fine-tuning through peft on the tiny GPT-2: levels,
the dynamic weighting by hand, Score-CL's loss bins, and a killed-and-resumed training that ends
with the same adapter as an uninterrupted one."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from commonsense.training.curriculum import TrainItem, levels, loss_levels, order, schedule


def _items() -> list[TrainItem]:
    d = [0, 2, 1, 1, 2, 2, 2, None, 1, 2]
    return [TrainItem(f"q{i}", f"Q{i}?", f"a{i}", difficulty=x, loss=float(10 - i)) for i, x in enumerate(d)]


def test_levels_are_eq6() -> None:
    lv, missing = levels(_items())
    assert [(d, [it.id for it in g]) for d, g in lv] == [
        (0, ["q0"]),
        (1, ["q2", "q3", "q8"]),
        (2, ["q1", "q4", "q5", "q6", "q9"]),
    ]
    assert missing == 1


def test_schedule_stages_and_dynamic_weighting() -> None:
    groups = [["a"], ["b1", "b2", "b3"], ["c1", "c2", "c3", "c4", "c5", "c6"]]
    seq = schedule(groups, seed=3)
    assert len(seq) == 1 + 3 + 6  # stage l draws |D_l|
    assert seq[0] == "a"  # stage 1: D_1 only
    stage2, stage3 = seq[1:4], seq[4:]
    # stage 2 (3 draws over D_1, D_2): one each, the remainder to the newest -> a once, b twice
    assert Counter(x[0] for x in stage2) == {"a": 1, "b": 2}
    # stage 3 (6 draws over three levels): two each, whatever their sizes (imbalance addressed)
    assert Counter(x[0] for x in stage3) == {"a": 2, "b": 2, "c": 2}
    assert schedule(groups, seed=3) == seq
    assert schedule(groups, seed=4) != seq


def test_orders_of_the_three_strategies() -> None:
    items = _items()
    rc, info = order(items, "reason-cl", seed=0)
    assert len(rc) == 9
    assert info["without_difficulty"] == 1
    assert rc[0].id == "q0"  # the easiest level first
    sc, info = order(items, "score-cl", seed=0)
    bins = loss_levels(items, 3)
    assert [len(b) for b in bins] == [3, 4, 3]
    assert bins[0][0].id == "q9"
    assert len(sc) == 10
    assert info["levels"] == [3, 4, 3]
    rnd, _ = order(items, "random", seed=0)
    assert sorted(it.id for it in rnd) == sorted(it.id for it in items)
    assert rnd != items
    with pytest.raises(ValueError, match="strategy"):
        order(items, "anti-cl", seed=0)


def test_lora_training_resumes_to_the_same_adapter(tmp_path: Path, tiny_gpt2: Path) -> None:
    torch = pytest.importorskip("torch")
    from commonsense.training.lora import LoraSettings, answer_nll, train

    base = tiny_gpt2
    pairs = [(f"Question: where is item {i}?\nAnswer:", "bookstore" if i % 2 else "farm") for i in range(12)]
    settings = LoraSettings(r=4, alpha=8, batch_size=2, checkpoint_every=2, lr=1e-2)
    full = train(base, pairs, tmp_path / "full", settings)
    assert full.steps == 6
    assert full.resumed_from == 0
    assert len(full.losses) == 6
    assert (full.model_dir / "config.json").exists()
    assert (full.adapter_dir / "adapter_config.json").exists()

    class Killed(Exception):
        pass

    def kill_at_5(step: int, total: int, loss: float) -> None:
        if step == 5:
            raise Killed  # after step 5's update, before its checkpoint (the last one is step 4)

    with pytest.raises(Killed):
        train(base, pairs, tmp_path / "resumed", settings, on_step=kill_at_5)
    again = train(base, pairs, tmp_path / "resumed", settings)
    assert again.resumed_from == 4
    assert len(again.losses) == 2
    assert again.losses == pytest.approx(full.losses[4:], rel=1e-5)
    from safetensors.torch import load_file

    a = load_file(str(full.adapter_dir / "adapter_model.safetensors"))
    b = load_file(str(again.adapter_dir / "adapter_model.safetensors"))
    assert a.keys() == b.keys()
    assert all(torch.allclose(a[k], b[k], atol=1e-6) for k in a)
    # the training changed the model: the answers' NLL fell
    before = answer_nll(base, pairs)
    after = answer_nll(full.model_dir, pairs)
    assert sum(after) < sum(before)
