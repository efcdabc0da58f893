"""A stored question set written as files (``export_questions``, the set page's downloads): JSONL,
CSV, an lm-eval task, a Hugging Face dataset folder or fine-tuning pairs."""

from __future__ import annotations

from pathlib import Path

from commonsense.questions import export as writers
from commonsense.questions.finetune import diversity_filter, write_finetune
from knowledge.models import QuestionSet
from knowledge.services.imports import ImportRefused
from knowledge.services.publication import question_set_publish
from knowledge.services.question_rows import built_question

EXPORT_FORMATS = ("jsonl", "csv", "lm-eval", "hf", "finetune-prompt", "finetune-chat")


def question_set_export_file(name: str, fmt: str, out: str | Path, *, diverse_top: int | None = None) -> Path:
    """Write a stored set as JSONL, CSV, an lm-eval task or a Hugging Face dataset folder (``hf``;
    ``out`` is then a directory, :mod:`knowledge.services.publication`), or fine-tuning pairs
    (``finetune-prompt``: prompt/completion JSONL, ``finetune-chat``: chat messages); ``diverse_top``
    keeps only COM2's top-N queries per answer by unigram gain."""
    if fmt not in EXPORT_FORMATS:
        raise ImportRefused(f"unknown export format {fmt!r}; choose one of {', '.join(EXPORT_FORMATS)}")
    try:
        qset = QuestionSet.objects.get(name=name)
    except QuestionSet.DoesNotExist:
        raise ImportRefused(f"no question set named {name!r}") from None
    questions = [built_question(r) for r in qset.questions.order_by("position").iterator(chunk_size=2000)]
    out = Path(out)
    if diverse_top is not None:
        questions = diversity_filter(questions, diverse_top)
    if fmt.startswith("finetune-"):
        write_finetune(questions, out, "chat" if fmt == "finetune-chat" else "prompt-completion")
        return out
    if fmt == "jsonl":
        writers.write_jsonl(questions, out, qset.name)
        return out
    if fmt == "csv":
        writers.write_csv(questions, out, qset.name)
        return out
    if fmt == "hf":
        return question_set_publish(qset, questions, out)
    return writers.write_lm_eval(questions, out, qset.name)
