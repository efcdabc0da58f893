"""Verified-set exports: one record per answered regular item with its content, votes, every
answer (who, what, how long), agreement and final label with provenance. MCQA records also carry
COM2's post-processed item (one majority-plausible answer, three negatives, "None of the answers
are correct." as option E); items whose context was judged meaningless are marked discarded.
Survey records carry the NWW statement scores; generation records the run, the prediction, the
query kind, the generated answer and its final judgement (COM2 Table 4). Formats: JSONL, CSV (nested fields as JSON
text) and Parquet (same columns as the CSV)."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from dataclasses import asdict
from typing import Any

import numpy as np

from annotation.models import Campaign, FinalLabel, Item, Response
from annotation.selectors.agreement import campaign_matrices
from commonsense.io import csv_safe
from commonsense.metrics import nww
from commonsense.validation import com2_postprocess

FORMATS = {"jsonl": "application/x-ndjson", "csv": "text/csv", "parquet": "application/vnd.apache.parquet"}
NESTED = ("payload", "label", "votes", "answers", "com2", "nww")


def _num(x: Any) -> float | None:
    return None if x is None or not np.isfinite(x) else round(float(x), 6)


def _nww_by_item(campaign: Campaign) -> dict[int, dict[str, Any]]:
    if campaign.kind != Campaign.Kind.SURVEY:
        return {}
    m = campaign_matrices(campaign)
    if not m.items or m.predict is None:
        return {}
    s = nww.statement_scores(m.primary, m.predict)
    return {
        item: {
            "agree_rate": _num(s.agree_rate[i]),
            "predict_rate": _num(s.predict_rate[i]),
            "consensus": _num(s.consensus[i]),
            "awareness": _num(s.awareness[i]),
            "commonsensicality": _num(s.commonsensicality[i]),
        }
        for i, item in enumerate(m.items)
    }


def campaign_records(campaign: Campaign) -> Iterator[dict[str, Any]]:
    # Reads the stored final labels (kept current by the writes that change votes): an export,
    # often a GET, rewrites nothing.
    finals = {
        f.item_id: f
        for f in FinalLabel.objects.filter(item__campaign=campaign).select_related("adjudication__decided_by")
    }
    answers: dict[int, list[dict[str, Any]]] = {}
    for r in (
        Response.objects.filter(campaign=campaign, item__role=Item.Role.REGULAR)
        .select_related("user")
        .order_by("item_id", "id")
    ):
        answers.setdefault(r.item_id, []).append(
            {
                "rater": r.user.username,
                "answer": r.answer,
                "time_ms": r.time_ms,
                "source": r.source,
                "at": r.created_at.isoformat(),
            }
        )
    scores = _nww_by_item(campaign)
    for item in Item.objects.filter(campaign=campaign, role=Item.Role.REGULAR, pk__in=list(finals)).order_by(
        "position"
    ):
        f = finals[item.pk]
        rec: dict[str, Any] = {
            "campaign": campaign.name,
            "kind": campaign.kind,
            "item_id": item.pk,
            "key": item.key,
            "position": item.position,
            "payload": item.payload,
            "n_answers": f.n_answers,
            "votes": f.votes,
            "agreement": _num(f.agreement),
            "below_threshold": f.below_threshold,
            "label": f.label,
            "provenance": f.provenance,
            "answers": answers.get(item.pk, []),
        }
        if f.adjudication is not None:
            a = f.adjudication
            rec["adjudicated_by"] = a.decided_by.username
            rec["adjudicated_at"] = a.decided_at.isoformat()
            rec["adjudication_reason"] = a.reason
        if campaign.kind == Campaign.Kind.MCQA:
            if f.label.get("bad_context"):
                rec["discarded"], rec["com2"] = True, None
            elif f.label.get("none_correct") is None and not f.label.get("plausible"):
                rec["discarded"], rec["com2"] = False, None  # a tied majority: no answer until adjudicated
            else:
                post = com2_postprocess(
                    item.payload.get("options", []), f.label.get("plausible", []), seed=campaign.seed, key=item.key
                )
                rec["discarded"], rec["com2"] = False, asdict(post)
        if campaign.kind == Campaign.Kind.SURVEY:
            rec["nww"] = scores.get(item.pk)
        if campaign.kind == Campaign.Kind.GENERATION:
            p = item.payload
            rec["run"], rec["prediction"] = campaign.run_id, p.get("prediction")
            rec["query_kind"], rec["generation"] = p.get("structure", ""), p.get("generation", "")
            rec["judgement"] = f.label.get("judgement")  # None: tied votes, not adjudicated yet
        yield rec


def to_jsonl(records: Iterator[dict[str, Any]]) -> bytes:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records).encode()


def _flat(rec: dict[str, Any]) -> dict[str, Any]:
    return {k: json.dumps(v, ensure_ascii=False) if k in NESTED else v for k, v in rec.items()}


BASE_COLUMNS = [
    "campaign",
    "kind",
    "item_id",
    "key",
    "position",
    "payload",
    "n_answers",
    "votes",
    "agreement",
    "below_threshold",
    "label",
    "provenance",
    "answers",
    "adjudicated_by",
    "adjudicated_at",
    "adjudication_reason",
]
KIND_COLUMNS = {
    Campaign.Kind.MCQA: ["discarded", "com2"],
    Campaign.Kind.SURVEY: ["nww"],
    Campaign.Kind.GENERATION: ["run", "prediction", "query_kind", "generation", "judgement"],
}


def columns_for(kind: str) -> list[str]:
    """Every column a record of this campaign kind can have, in a fixed order: an export has the
    same header whether it holds no item, or only items without an adjudication."""
    return BASE_COLUMNS + KIND_COLUMNS.get(kind, [])  # type: ignore[call-overload]


def _columns(rows: list[dict[str, Any]], kind: str = "") -> list[str]:
    cols: list[str] = columns_for(kind) if kind else []
    for r in rows:
        cols.extend(k for k in r if k not in cols)
    return cols


def to_csv(records: Iterator[dict[str, Any]], kind: str = "") -> bytes:
    rows = [_flat(r) for r in records]
    buf = io.StringIO()
    w = csv_safe.dict_writer(buf, fieldnames=_columns(rows, kind) or ["campaign"])
    w.writeheader()
    w.writerows(rows)
    return buf.getvalue().encode()


def to_parquet(records: Iterator[dict[str, Any]], kind: str = "") -> bytes:
    import pyarrow as pa
    import pyarrow.parquet as pq

    rows = [_flat(r) for r in records]
    cols = _columns(rows, kind) or ["campaign"]
    table = pa.table({c: [r.get(c) for r in rows] for c in cols})
    buf = io.BytesIO()
    pq.write_table(table, buf)
    return buf.getvalue()


def campaign_export(campaign: Campaign, fmt: str) -> bytes:
    if fmt not in FORMATS:
        raise ValueError(f"unknown export format {fmt!r}; choose one of {', '.join(FORMATS)}")
    if fmt == "jsonl":
        return to_jsonl(campaign_records(campaign))
    writer = {"csv": to_csv, "parquet": to_parquet}[fmt]
    return writer(campaign_records(campaign), campaign.kind)
