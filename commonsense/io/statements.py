"""Reader for the Whiting & Watts commonsense statements CSV (NWW corpus) with the human majority
label and the binarised answers of the models (``<Model>_q1`` / ``<Model>_q2`` columns)."""

from __future__ import annotations

import csv
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from .errors import DataFormatError, check_field
from .text import iter_lines

FEATURES = ("behavior", "everyday", "figure_of_speech", "judgment", "opinion", "reasoning")
REQUIRED = ("statement", *FEATURES, "category", "elicitation")
QUESTIONS = ("q1", "q2", "q3")


@dataclass(slots=True)
class StatementRecord:
    line: int
    external_id: str
    text: str
    features: dict[str, int]
    category: str
    elicitation: str
    human_majority: int | None
    # model name -> {"q1": 0/1, "q2": 0/1}
    model_answers: dict[str, dict[str, int]] = field(default_factory=dict)


def _binary(path: Path, line: int, name: str, value: str, *, required: bool) -> int | None:
    v = value.strip()
    if v == "" and not required:
        return None
    if v in ("0", "1", "0.0", "1.0"):
        return int(float(v))
    raise DataFormatError(path, line, name, f"must be 0 or 1, got {v!r}")


def read_statements_csv(path: str | Path) -> Iterator[StatementRecord]:
    p = Path(path)
    reader = csv.reader((t for _, t in iter_lines(p)), strict=True)
    try:
        header = [h.strip() for h in next(reader)]
    except StopIteration:
        raise DataFormatError(p, None, None, "file is empty") from None
    except csv.Error as exc:
        raise DataFormatError(p, 1, None, f"CSV error: {exc}") from None
    missing = [c for c in REQUIRED if c not in header]
    if missing:
        raise DataFormatError(p, 1, missing[0], f"header lacks column(s): {', '.join(missing)}")
    idx = {name: i for i, name in enumerate(header)}
    id_col = 0 if header[0] in ("", "id", "Unnamed: 0") else None
    model_cols: list[tuple[str, str, int]] = []
    for i, name in enumerate(header):
        for q in QUESTIONS:
            suffix = "_" + q
            if name.endswith(suffix) and name != "human_" + q:
                model_cols.append((name[: -len(suffix)], q, i))
    seen = False
    while True:
        try:
            row = next(reader)
        except StopIteration:
            break
        except csv.Error as exc:
            raise DataFormatError(p, reader.line_num, None, f"CSV error: {exc}") from None
        line = reader.line_num
        if not any(c.strip() for c in row):
            continue
        if len(row) != len(header):
            raise DataFormatError(p, line, None, f"expected {len(header)} columns, found {len(row)}")
        text = check_field(p, line, "statement", row[idx["statement"]])
        feats = {f: _binary(p, line, f, row[idx[f]], required=True) or 0 for f in FEATURES}
        human = _binary(p, line, "human_q1", row[idx["human_q1"]], required=False) if "human_q1" in idx else None
        answers: dict[str, dict[str, int]] = {}
        for model, q, i in model_cols:
            v = _binary(p, line, header[i], row[i], required=False)
            if v is not None:
                answers.setdefault(model, {})[q] = v
        ext = row[id_col].strip() if id_col is not None else str(line - 1)
        seen = True
        yield StatementRecord(
            line=line,
            external_id=ext or str(line - 1),
            text=text,
            features=feats,
            category=check_field(p, line, "category", row[idx["category"]], required=False),
            elicitation=check_field(p, line, "elicitation", row[idx["elicitation"]], required=False),
            human_majority=human,
            model_answers=answers,
        )
    if not seen:
        raise DataFormatError(p, None, None, "no statements found")
