"""Readers for the four commonsense QA sets COM2's Table 2 transfers to, in their official formats.
No data is shipped: each set keeps its own licence (as its card states at the time of writing —
check before use): αNLI (Bhagavatula et al. 2020, AI2; the card states none), PIQA (Bisk et al.
2020; Academic Free License 3.0), Social IQa (Sap et al. 2019, AI2; CC BY 4.0), WinoGrande
(Sakaguchi et al. 2020, AI2; CC BY).

- **αNLI** ``anli``: JSONL ``{story_id, obs1, obs2, hyp1, hyp2}``; labels ``1``/``2`` one per line in
  ``<stem>-labels.lst`` beside it (``dev.jsonl`` + ``dev-labels.lst``).
- **PIQA** ``piqa``: JSONL ``{goal, sol1, sol2}`` (``id`` optional); labels ``0``/``1`` in
  ``<stem>-labels.lst``.
- **Social IQa** ``siqa``: JSONL ``{context, question, answerA, answerB, answerC}``; labels ``1``–``3``
  in ``<stem>-labels.lst``.
- **WinoGrande** ``winogrande``: JSONL ``{qID, sentence, option1, option2, answer}``, the answer
  ``"1"``/``"2"`` inline (empty or absent on the test split); the sentence's ``_`` is the blank.

Without a labels file the questions have no answer (a test split). Every refusal names the file,
the line and the field (a label's line in the labels file)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from .errors import DataFormatError, check_field
from .records import QuestionRecord, _json_lines
from .text import iter_lines

TRANSFER_FORMATS = ("anli", "piqa", "siqa", "winogrande")
LICENCES = {
    "anli": "αNLI (AI2): no licence stated on its card",
    "piqa": "PIQA: Academic Free License 3.0",
    "siqa": "Social IQa (AI2): CC BY 4.0",
    "winogrande": "WinoGrande (AI2): CC BY",
}


def labels_path(path: Path) -> Path:
    """``dev.jsonl`` -> ``dev-labels.lst`` (the official naming of the AI2 leaderboards)."""
    return path.with_name(f"{path.stem}-labels.lst")


def _labels(path: Path, allowed: tuple[str, ...]) -> list[tuple[int, str]] | None:
    lp = labels_path(path)
    if not lp.is_file():
        return None
    out = []
    for line, text in iter_lines(lp):
        value = text.strip()
        if not value:
            continue
        if value not in allowed:
            raise DataFormatError(lp, line, "label", f"must be one of {', '.join(allowed)}, got {value!r}")
        out.append((line, value))
    return out


def _text(p: Path, line: int, obj: dict[str, Any], key: str) -> str:
    v = obj.get(key)
    if not isinstance(v, str):
        raise DataFormatError(p, line, key, "missing or not a string")
    return check_field(p, line, key, v)


Make = Callable[[Path, int, dict[str, Any]], tuple[str, str, str, list[str]]]  # id, context, stem, options


def _anli(p: Path, line: int, o: dict[str, Any]) -> tuple[str, str, str, list[str]]:
    o1, o2 = _text(p, line, o, "obs1"), _text(p, line, o, "obs2")
    opts = [_text(p, line, o, "hyp1"), _text(p, line, o, "hyp2")]
    return str(o.get("story_id") or line), f"{o1} … {o2}", "What happened in between?", opts


def _piqa(p: Path, line: int, o: dict[str, Any]) -> tuple[str, str, str, list[str]]:
    return str(o.get("id") or line), "", _text(p, line, o, "goal"), [_text(p, line, o, k) for k in ("sol1", "sol2")]


def _siqa(p: Path, line: int, o: dict[str, Any]) -> tuple[str, str, str, list[str]]:
    opts = [_text(p, line, o, k) for k in ("answerA", "answerB", "answerC")]
    return str(line), _text(p, line, o, "context"), _text(p, line, o, "question"), opts


def _winogrande(p: Path, line: int, o: dict[str, Any]) -> tuple[str, str, str, list[str]]:
    sentence = _text(p, line, o, "sentence")
    if sentence.count("_") != 1:
        raise DataFormatError(p, line, "sentence", f"must hold exactly one blank '_', found {sentence.count('_')}")
    return str(o.get("qID") or line), "", sentence, [_text(p, line, o, k) for k in ("option1", "option2")]


# format -> (make, labels allowed in the labels file, label -> answer index); WinoGrande's are inline
SPECS: dict[str, tuple[Make, tuple[str, ...], dict[str, int]]] = {
    "anli": (_anli, ("1", "2"), {"1": 0, "2": 1}),
    "piqa": (_piqa, ("0", "1"), {"0": 0, "1": 1}),
    "siqa": (_siqa, ("1", "2", "3"), {"1": 0, "2": 1, "3": 2}),
    "winogrande": (_winogrande, ("1", "2"), {"1": 0, "2": 1}),
}


def read_transfer(path: str | Path, fmt: str) -> Iterator[QuestionRecord]:
    """The questions of one official file of ``fmt`` (see the module note)."""
    if fmt not in SPECS:
        raise ValueError(f"unknown transfer format {fmt!r}; choose one of {', '.join(TRANSFER_FORMATS)}")
    p = Path(path)
    make, allowed, index = SPECS[fmt]
    labels = None if fmt == "winogrande" else _labels(p, allowed)
    n = 0
    for line, obj in _json_lines(p):
        ext, context, stem, options = make(p, line, obj)
        answer: int | None = None
        if fmt == "winogrande":
            raw = obj.get("answer")
            if raw not in (None, ""):
                if str(raw) not in allowed:
                    raise DataFormatError(p, line, "answer", f"must be '1' or '2', got {raw!r}")
                answer = index[str(raw)]
        elif labels is not None:
            if n >= len(labels):
                raise DataFormatError(
                    labels_path(p), None, "label", f"has {len(labels)} labels, fewer than the questions"
                )
            answer = index[labels[n][1]]
        n += 1
        yield QuestionRecord(
            line=line,
            external_id=ext,
            stem=stem,
            options=options,
            answer_index=answer,
            context=context,
            structure=fmt,
            metadata={"source_format": fmt, **({"blank": True} if fmt == "winogrande" else {})},
        )
    if n == 0:
        raise DataFormatError(p, None, None, "no questions found")
    if labels is not None and len(labels) != n:
        line_no = labels[n][0]
        raise DataFormatError(labels_path(p), line_no, "label", f"{len(labels)} labels for {n} questions")
