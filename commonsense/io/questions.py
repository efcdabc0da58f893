"""Readers for multiple-choice question files: CommonsenseQA JSONL and the RICA probe files (the
transfer sets αNLI, PIQA, Social IQa and WinoGrande: :mod:`commonsense.io.transfer`)."""

from __future__ import annotations

import ast
import csv
import re
from collections.abc import Iterator
from pathlib import Path

from .errors import DataFormatError, check_field
from .records import QuestionRecord as QuestionRecord
from .records import _json_lines
from .text import iter_lines

# and COM2 Table 2's transfer sets in their official formats (commonsense.io.transfer)
FORMATS = ("csqa", "rica-probes", "rica-axioms", "anli", "piqa", "siqa", "winogrande")
MASK = "[MASK]"


def read_csqa_jsonl(path: str | Path) -> Iterator[QuestionRecord]:
    """CommonsenseQA in the Hub layout (``choices: {label, text}``) or the original layout
    (``question: {stem, choices: [{label, text}]}``)."""
    p = Path(path)
    seen = False
    for line, obj in _json_lines(p):
        q = obj.get("question")
        if isinstance(q, dict):  # original CSQA layout
            stem = q.get("stem", "")
            labels = [c.get("label") for c in q.get("choices", [])]
            texts = [c.get("text") for c in q.get("choices", [])]
            concept = q.get("question_concept", "")
        else:
            stem = q or ""
            choices = obj.get("choices")
            if not isinstance(choices, dict):
                raise DataFormatError(p, line, "choices", "missing or not an object with 'label' and 'text'")
            labels, texts = choices.get("label") or [], choices.get("text") or []
            concept = obj.get("question_concept", "")
        if not isinstance(stem, str):
            raise DataFormatError(p, line, "question", "must be a string")
        stem = check_field(p, line, "question", stem)
        if len(labels) != len(texts) or len(texts) < 2:
            raise DataFormatError(
                p, line, "choices", f"needs matching labels and texts (got {len(labels)} labels, {len(texts)} texts)"
            )
        if not all(isinstance(t, str) and t.strip() for t in texts):
            raise DataFormatError(p, line, "choices", "every choice text must be a non-empty string")
        key = obj.get("answerKey")
        if key in (None, ""):
            answer = None
        elif key not in labels:
            raise DataFormatError(p, line, "answerKey", f"{key!r} is not one of the labels {labels}")
        else:
            answer = labels.index(key)
        ext = str(obj.get("id") or line)
        seen = True
        yield QuestionRecord(
            line=line,
            external_id=ext,
            stem=stem,
            options=[t.strip() for t in texts],
            answer_index=answer,
            structure="csqa",
            metadata={"question_concept": concept, "labels": labels},
        )
    if not seen:
        raise DataFormatError(p, None, None, "no questions found")


_WORD = re.compile(r"[A-Za-z']+")


def mask_conclusion(sentence: str, answer: str) -> str | None:
    """Mask the answer word in the conclusion (the part after ", so"), RICA-style."""
    prem, sep, conc = sentence.partition(", so ")
    if not sep:
        prem, conc = "", sentence
    pattern = re.compile(rf"\b{re.escape(answer)}\b")
    if not pattern.search(conc):
        return None
    masked = pattern.sub(MASK, conc, count=1)
    return f"{prem}{sep}{masked}" if sep else masked


_TOKEN = re.compile(r"[A-Za-z']+|[^A-Za-z'\s]+")


def _novel_entity_names(sentences: list[str]) -> set[str]:
    """RICA's novel entities are random strings reused in fixed pairs across probes. A probe's
    first word is one; its partner is a word found in every probe that starts with the first
    word, and only in probes that contain the first word."""
    token_sets = [set(_WORD.findall(s)) for s in sentences]
    firsts = [s.split()[0] if s.split() else "" for s in sentences]
    by_first: dict[str, list[int]] = {}
    where: dict[str, set[int]] = {}
    for i, (first, toks) in enumerate(zip(firsts, token_sets, strict=True)):
        by_first.setdefault(first, []).append(i)
        for t in toks:
            where.setdefault(t, set()).add(i)
    names = set(by_first) - {"", "the", "a", "an", "The", "A", "An"}
    for a in list(names):
        common = set.intersection(*(token_sets[i] for i in by_first[a])) - {a}
        names |= {t for t in common if all(a in token_sets[i] for i in where[t])}
    return names


def read_rica_probes_tsv(path: str | Path) -> Iterator[QuestionRecord]:
    """RICA human-curated probes: TSV ``line_no, sentence, answer, options`` (options as a
    Python list literal). The group id is the premise with its novel entities replaced, so all
    perturbations and entity variants of one premise share a group."""
    p = Path(path)
    lines = list(iter_lines(p))
    reader = csv.reader((t for _, t in lines), delimiter="\t", quoting=csv.QUOTE_NONE)
    header = next(reader, None)
    expected = ["line_no", "sentence", "answer", "options"]
    if header is None:
        raise DataFormatError(p, None, None, "file is empty")
    if [h.strip() for h in header] != expected:
        raise DataFormatError(p, 1, None, f"header must be {' '.join(expected)} (tab-separated), got {header}")
    rows: list[tuple[int, list[str]]] = []
    for row in reader:
        line = reader.line_num
        if not any(c.strip() for c in row):
            continue
        if len(row) != 4:
            raise DataFormatError(p, line, None, f"expected 4 tab-separated columns, found {len(row)}")
        rows.append((line, row))
    if not rows:
        raise DataFormatError(p, None, None, "no probes found")
    names = _novel_entity_names([r[1] for _, r in rows])
    for line, (line_no, sentence, answer, options_s) in rows:
        sentence = check_field(p, line, "sentence", sentence)
        answer = check_field(p, line, "answer", answer)
        try:
            options = ast.literal_eval(check_field(p, line, "options", options_s))
        except (ValueError, SyntaxError, RecursionError, MemoryError):
            raise DataFormatError(
                p, line, "options", f"must be a list literal like ['more', 'less'], got {options_s!r}"
            ) from None
        if not isinstance(options, list) or len(options) < 2 or not all(isinstance(o, str) for o in options):
            raise DataFormatError(p, line, "options", "must be a list of at least two strings")
        options = [check_field(p, line, "options", o) for o in options]
        if answer not in options:
            raise DataFormatError(p, line, "answer", f"{answer!r} is not among the options {options}")
        masked = mask_conclusion(sentence, answer)
        if masked is None:
            raise DataFormatError(p, line, "answer", f"{answer!r} does not occur in the conclusion of the sentence")
        premise = sentence.partition(", so ")[0]
        ents: dict[str, str] = {}
        pattern_toks = []
        for tok in _TOKEN.findall(premise):
            if tok in names:
                ents.setdefault(tok, "AB"[len(ents)] if len(ents) < 2 else "C")
                pattern_toks.append(ents[tok])
            else:
                pattern_toks.append(tok)
        yield QuestionRecord(
            line=line,
            external_id=line_no.strip() or str(line),
            stem=masked,
            options=options,
            answer_index=options.index(answer),
            structure="rica-probe",
            group=" ".join(pattern_toks),
            metadata={
                "sentence": sentence,
                "entities": list(ents),
                "negated": bool(re.search(r"\bnot\b|n't\b", sentence.partition(", so ")[2])),
            },
        )


RICA_PERTURBATIONS = (
    "original",
    "negated",
    "asymmetric_premise",
    "asymmetric_conclusion",
    "negated_asymmetric_premise",
    "negated_asymmetric_conclusion",
)
_COMPARATORS = (
    ("more", "less"),
    ("better", "worse"),
    ("easier", "harder"),
    ("higher", "lower"),
    ("larger", "smaller"),
    ("faster", "slower"),
)


def _comparator_options(conclusion: str) -> tuple[list[str], str] | None:
    words = _WORD.findall(conclusion.lower())
    for pair in _COMPARATORS:
        for w in words:
            if w in pair:
                return list(pair), w
    return None


def read_rica_axioms_jsonl(path: str | Path) -> Iterator[QuestionRecord]:
    """RICA axiom sets: one JSON object per axiom with the six perturbations, each
    ``[logical_form, [sentence, ...]]``. Every sentence becomes a 2-option masked-word probe
    (the comparator word in the conclusion vs its antonym); all probes of one axiom share the
    axiom's group id, which makes "all perturbations correct" computable."""
    p = Path(path)
    seen = False
    for line, obj in _json_lines(p):
        if "original" not in obj:
            raise DataFormatError(p, line, "original", "missing (each axiom needs at least its original form)")
        group = f"axiom-{line}"
        for pert in RICA_PERTURBATIONS:
            if pert not in obj:
                continue
            val = obj[pert]
            if not (isinstance(val, list) and len(val) == 2 and isinstance(val[0], str) and isinstance(val[1], list)):
                raise DataFormatError(p, line, pert, "must be [logical_form, [sentence, ...]]")
            logical, sentences = val
            for k, sentence in enumerate(sentences):
                if not isinstance(sentence, str) or not sentence.strip():
                    raise DataFormatError(p, line, pert, f"sentence {k + 1} must be a non-empty string")
                sentence = check_field(p, line, pert, sentence)
                conc = sentence.partition(", so ")[2] or sentence
                found = _comparator_options(conc)
                if found is None:
                    continue  # no maskable comparator: keep the axiom's other sentences
                options, answer = found
                masked = mask_conclusion(sentence, answer) or sentence
                seen = True
                yield QuestionRecord(
                    line=line,
                    external_id=f"{line}-{pert}-{k + 1}",
                    stem=masked,
                    options=options,
                    answer_index=options.index(answer),
                    structure="rica-axiom",
                    group=group,
                    metadata={"perturbation": pert, "logical_form": logical, "sentence": sentence},
                )
    if not seen:
        raise DataFormatError(p, None, None, "no axiom sentences with a maskable comparator found")


def read_questions(path: str | Path, fmt: str) -> Iterator[QuestionRecord]:
    if fmt == "csqa":
        return read_csqa_jsonl(path)
    if fmt == "rica-probes":
        return read_rica_probes_tsv(path)
    if fmt == "rica-axioms":
        return read_rica_axioms_jsonl(path)
    from .transfer import TRANSFER_FORMATS, read_transfer

    if fmt in TRANSFER_FORMATS:
        return read_transfer(path, fmt)
    raise ValueError(f"unknown question format {fmt!r}; choose one of {', '.join(FORMATS)}")
