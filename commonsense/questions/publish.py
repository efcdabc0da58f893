"""A question set as a Hugging Face dataset folder that ``datasets.load_dataset(DIR)`` reads
offline: Parquet files under ``data/`` and a ``README.md`` dataset card whose YAML ``configs`` name
them (https://huggingface.co/docs/hub/datasets-manual-configuration).

- ``items`` (the default config): one row per question, with its answer;
- ``answers``: every individual answer of the human validation, by an opaque annotator id;
- ``votes``: per item, the votes per option, the agreement, the label's provenance, the confidence
  of the label and whether the item is settled.

Each file has a fixed Arrow schema, so an empty split loads with the same columns. The card's
metadata block is written by ``huggingface_hub``'s ``DatasetCardData``; its text says where the
data comes from and under which licence, how the set was built, the campaign that validated it,
the agreement, the shortcut audit and the counts."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypedDict

from ..io.known_data import KnownData
from .audit import shortcut_lines


class ItemRow(TypedDict):
    id: str
    position: int
    kind: str
    context: str
    question: str
    options: list[str]
    answer_index: int
    answer: str
    answers: list[str]
    anchors: list[str]
    relations: list[str]
    chain: list[list[str]]
    group: str
    role: str
    option_provenance: list[str]  # per option: gold / adversarial / random ([] where the build kept none)


class AnswerRow(TypedDict):
    item: str  # the item's id in ``items``
    annotator: str  # opaque: numbered by first answer within the campaign
    ticked: list[str]  # the option texts ticked as plausible
    none_correct: bool
    bad_context: bool
    time_ms: int | None


class VoteRow(TypedDict):
    item: str
    n_answers: int
    options: list[str]  # the published options, in order
    option_votes: list[int]  # answers that found each published option plausible ("None …": none_correct)
    source_options: list[str]  # the options the annotators saw
    source_option_votes: list[int]
    none_correct_votes: int
    bad_context_votes: int
    agreement: float | None  # mean pairwise agreement over the source options
    provenance: str  # unanimous | majority | adjudicated
    confidence: list[float | None]  # per source option: of the label's verdict, see ``confidence_method``
    confidence_least: float | None  # the item's confidence: the least of its verdicts'
    confidence_method: str
    settled: bool | None  # None: the campaign had no settling rule
    settlement: str  # how it settled (unanimous, confident, exhausted, open, below_min) or ""


@dataclass(frozen=True, slots=True)
class SourceFile:
    filename: str
    fmt: str
    sha256: str
    rows: int
    data: KnownData | None
    recognised_by: str  # "content hash" | "format" | ""


@dataclass(slots=True)
class Publication:
    name: str
    description: str
    kind: str
    items: list[ItemRow]
    sources: list[SourceFile]
    build: Mapping[str, Any]
    answers: list[AnswerRow] | None = None
    votes: list[VoteRow] | None = None
    counts: dict[str, Any] = field(default_factory=dict)
    campaign: dict[str, Any] | None = None
    agreement: dict[str, Any] | None = None
    shortcuts: Mapping[str, Any] | None = None
    quality: list[str] = field(default_factory=list)


def _schemas() -> dict[str, Any]:
    import pyarrow as pa

    text, texts = pa.string(), pa.list_(pa.string())
    return {
        "items": pa.schema(
            [
                ("id", text),
                ("position", pa.int64()),
                ("kind", text),
                ("context", text),
                ("question", text),
                ("options", texts),
                ("answer_index", pa.int64()),
                ("answer", text),
                ("answers", texts),
                ("anchors", texts),
                ("relations", texts),
                ("chain", pa.list_(texts)),
                ("group", text),
                ("role", text),
                ("option_provenance", texts),
            ]
        ),
        "answers": pa.schema(
            [
                ("item", text),
                ("annotator", text),
                ("ticked", texts),
                ("none_correct", pa.bool_()),
                ("bad_context", pa.bool_()),
                ("time_ms", pa.int64()),
            ]
        ),
        "votes": pa.schema(
            [
                ("item", text),
                ("n_answers", pa.int64()),
                ("options", texts),
                ("option_votes", pa.list_(pa.int64())),
                ("source_options", texts),
                ("source_option_votes", pa.list_(pa.int64())),
                ("none_correct_votes", pa.int64()),
                ("bad_context_votes", pa.int64()),
                ("agreement", pa.float64()),
                ("provenance", text),
                ("confidence", pa.list_(pa.float64())),
                ("confidence_least", pa.float64()),
                ("confidence_method", text),
                ("settled", pa.bool_()),
                ("settlement", text),
            ]
        ),
    }


def _write_parquet(rows: Sequence[Mapping[str, Any]], schema: Any, path: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    path.parent.mkdir(parents=True, exist_ok=True)
    table = pa.Table.from_pylist([dict(r) for r in rows], schema=schema)
    pq.write_table(table, path)


def _size_category(n: int) -> str:
    for limit, name in ((1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K"), (1_000_000, "100K<n<1M")):
        if n < limit:
            return name
    return "n>1M"


def licences(pub: Publication) -> list[str]:
    """The licence ids of the sources, "unknown" when any is unknown or not recognised by content."""
    out: list[str] = []
    for s in pub.sources:
        for lic in s.data.licences if s.data is not None else ("unknown",):
            if lic not in out:
                out.append(lic)
    return out or ["unknown"]


def card_metadata(pub: Publication) -> Any:
    """The card's YAML block, as ``huggingface_hub.DatasetCardData``."""
    from huggingface_hub import DatasetCardData

    configs: list[dict[str, Any]] = [
        {"config_name": "items", "data_files": [{"split": "test", "path": "data/items.parquet"}], "default": True}
    ]
    for name, rows in (("answers", pub.answers), ("votes", pub.votes)):
        if rows is not None:
            configs.append({"config_name": name, "data_files": [{"split": "test", "path": f"data/{name}.parquet"}]})
    lic = licences(pub)
    return DatasetCardData(
        pretty_name=pub.name,
        language=["en"],
        license=lic[0] if len(lic) == 1 else lic,
        task_categories=["multiple-choice"],
        task_ids=["multiple-choice-qa"],
        annotations_creators=["crowdsourced"] if pub.answers else ["machine-generated"],
        size_categories=[_size_category(len(pub.items))],
        source_datasets=[s.data.name for s in pub.sources if s.data is not None] or None,
        tags=["commonsense", "cocoweb"],
        configs=configs,
    )


def _cell(v: Any) -> str:
    return str(v).replace("|", "\\|").replace("\n", " ")


def _table(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> list[str]:
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(_cell(c) for c in r) + " |" for r in rows]
    return out


def _json_block(value: Any) -> list[str]:
    return ["```json", json.dumps(value, indent=2, ensure_ascii=False, sort_keys=True, default=str), "```"]


def _fmt(v: Any) -> str:
    return "n/a" if v is None else (f"{v:.4f}" if isinstance(v, float) else str(v))


def card_body(pub: Publication) -> str:
    lines = [f"# {pub.name}", "", pub.description or "A question set built with cocoweb.", ""]
    lines += ["## Contents", ""]
    rows: list[list[Any]] = [
        ["items", len(pub.items), "one row per question, with its answer (`answer_index`, `answer`)"]
    ]
    if pub.answers is not None:
        rows.append(["answers", len(pub.answers), "every individual answer; `annotator` is an opaque id"])
    if pub.votes is not None:
        rows.append(["votes", len(pub.votes), "per item: votes per option, agreement, provenance, confidence, settled"])
    lines += _table(["config", "rows", "what"], rows)
    lines += [
        "",
        "```python",
        "from datasets import load_dataset",
        'items = load_dataset("path/to/this/folder")["test"]  # the default config: items',
    ]
    if pub.answers is not None:
        lines.append('answers = load_dataset("path/to/this/folder", "answers")["test"]')
    lines += ["```", "", "## Counts", ""]
    lines += _table(["what", "n"], [[k.replace("_", " "), v] for k, v in pub.counts.items()])
    lines += ["", "## Source data and licence", ""]
    src_rows = []
    for s in pub.sources:
        d = s.data
        src_rows.append(
            [
                f"`{s.filename}`",
                s.fmt,
                s.rows,
                s.sha256[:12],
                d.name if d else "not recognised",
                (d.licence_note if d else "unknown: state it before publishing")
                + (" (recognised by its format only: confirm it)" if s.recognised_by == "format" else ""),
                f"{d.cite} <{d.url}>" if d else "",
            ]
        )
    lines += _table(["file", "format", "rows", "sha256", "data set", "licence", "cite"], src_rows)
    lic = licences(pub)
    lines += [
        "",
        f"The sources' licences, which this derived set carries: {', '.join(lic)}; attribute every source above."
        + (" A source's licence is unknown: do not redistribute before it is settled." if "unknown" in lic else ""),
        "",
        "## Build parameters",
        "",
        *_json_block(pub.build),
        "",
        "## Human validation",
        "",
    ]
    if pub.campaign is None:
        lines.append("No validation campaign: the answers are the builder's, not checked by people.")
    else:
        lines += _table(
            ["campaign setting", "value"], [[k.replace("_", " "), _fmt(v)] for k, v in pub.campaign.items()]
        )
    if pub.agreement:
        lines += ["", "Agreement:", ""]
        lines += _table(["measure", "value"], [[k.replace("_", " "), _fmt(v)] for k, v in pub.agreement.items()])
    lines += ["", "## Shortcut audit", ""]
    if pub.shortcuts:
        lines += [
            "How often baselines that never read the question pick the gold (95 % interval, n, chance); a "
            "flag marks one more than 15 points above chance. Read any accuracy on this set beside them.",
            "",
            *[f"- {line}" for line in shortcut_lines(pub.shortcuts)],
            "",
            "<details><summary>The audit's figures</summary>",
            "",
            *_json_block(dict(pub.shortcuts)),
            "",
            "</details>",
        ]
    else:
        lines.append(
            "Not computed for this set: an accuracy on it cannot yet be told apart from a shortcut that reads "
            "only the options."
        )
    if pub.quality:
        lines += ["", "## Quality report", "", *[f"- {q}" for q in pub.quality]]
    return "\n".join(lines) + "\n"


def card_text(pub: Publication) -> str:
    return f"---\n{card_metadata(pub).to_yaml()}\n---\n\n{card_body(pub)}"


def _unique_ids(items: list[ItemRow]) -> None:
    seen: set[str] = set()
    for row in items:
        if row["id"] in seen:
            raise ValueError(f"item id {row['id']!r} occurs twice: the answers and votes could not be joined")
        seen.add(row["id"])


def write_hf(pub: Publication, out_dir: str | Path) -> Path:
    """Write ``README.md`` and ``data/*.parquet`` into ``out_dir``; return the card's path."""
    _unique_ids(pub.items)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    schemas = _schemas()
    _write_parquet(pub.items, schemas["items"], out / "data" / "items.parquet")
    if pub.answers is not None:
        _write_parquet(pub.answers, schemas["answers"], out / "data" / "answers.parquet")
    if pub.votes is not None:
        _write_parquet(pub.votes, schemas["votes"], out / "data" / "votes.parquet")
    card = out / "README.md"
    card.write_text(card_text(pub), encoding="utf-8")
    return card
