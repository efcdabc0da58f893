"""A tiny BERT (masked LM) built from a config, with a WordPiece tokenizer trained here on the
tiny GPT-2's lines: a local model folder for BERTScore and masked-LM scoring, never a download."""

from __future__ import annotations

from pathlib import Path

from tests.commonsense.tiny_lm import training_lines

SPECIAL = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]


def build_tiny_bert(folder: Path, *, vocab_size: int = 800, seed: int = 0) -> Path:
    import torch
    from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, processors, trainers
    from transformers import BertConfig, BertForMaskedLM, BertTokenizerFast

    if (folder / "config.json").exists():
        return folder
    tok = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tok.normalizer = normalizers.BertNormalizer(lowercase=True)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tok.decoder = decoders.WordPiece()
    tok.train_from_iterator(
        training_lines(), trainer=trainers.WordPieceTrainer(vocab_size=vocab_size, special_tokens=SPECIAL)
    )
    cls, sep = tok.token_to_id("[CLS]"), tok.token_to_id("[SEP]")
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1", special_tokens=[("[CLS]", cls), ("[SEP]", sep)]
    )
    fast = BertTokenizerFast(
        tokenizer_object=tok,
        unk_token="[UNK]",
        sep_token="[SEP]",
        pad_token="[PAD]",
        cls_token="[CLS]",
        mask_token="[MASK]",
        model_max_length=128,
    )
    torch.manual_seed(seed)
    cfg = BertConfig(
        vocab_size=len(fast),
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=128,
        pad_token_id=fast.pad_token_id,
    )
    folder.mkdir(parents=True, exist_ok=True)
    BertForMaskedLM(cfg).save_pretrained(str(folder))
    fast.save_pretrained(str(folder))
    return folder
