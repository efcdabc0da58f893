"""A tiny RoBERTa (masked LM) built from a config, with a byte-level BPE tokenizer trained here on a
few sentences: a local model folder for masked-LM scoring through the same loading path as any
downloaded RoBERTa (``<mask>`` token, "Ġ" word pieces, ``<s> … </s>``), never a download."""

from __future__ import annotations

import json
from pathlib import Path

SPECIAL = ["<s>", "<pad>", "</s>", "<unk>", "<mask>"]
SENTENCES = [
    "axih is smaller than exdvxr, so axih is easier to put into a box than exdvxr",
    "axih is larger than exdvxr, so axih is harder to put into a box than exdvxr",
    "a ball is round and a box is square",
    "more or less, better or worse, higher or lower, faster or slower",
    "the cat is heavier than the mouse, so the cat is more difficult to lift",
]


def build_tiny_roberta(folder: Path, *, vocab_size: int = 600, seed: int = 0) -> Path:
    import torch
    from tokenizers import ByteLevelBPETokenizer
    from transformers import RobertaConfig, RobertaForMaskedLM, RobertaTokenizerFast

    if (folder / "config.json").exists():
        return folder
    folder.mkdir(parents=True, exist_ok=True)
    bpe = ByteLevelBPETokenizer()
    bpe.train_from_iterator(SENTENCES * 10, vocab_size=vocab_size, min_frequency=2, special_tokens=SPECIAL)
    vocab_file, merges_file = bpe.save_model(str(folder))
    vocab = json.loads(Path(vocab_file).read_text())
    merges = [tuple(m.split(" ")) for m in Path(merges_file).read_text().splitlines() if m and not m.startswith("#")]
    fast = RobertaTokenizerFast(vocab=vocab, merges=merges, model_max_length=128)
    torch.manual_seed(seed)
    cfg = RobertaConfig(
        vocab_size=len(fast),
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=130,
        pad_token_id=fast.pad_token_id,
        bos_token_id=fast.bos_token_id,
        eos_token_id=fast.eos_token_id,
        type_vocab_size=1,
    )
    RobertaForMaskedLM(cfg).save_pretrained(str(folder))
    fast.save_pretrained(str(folder))
    return folder
