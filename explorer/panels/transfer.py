"""COM2 Table 2-shaped view: zero-shot accuracy per model (backend · model · scoring) across the
transfer sets αNLI, CommonsenseQA, PIQA, Social IQa and WinoGrande, their average, and COM2 itself
(in-domain), with the chance row. A run counts for the column of its questions' structure
(commonsense.io.transfer's formats, ``csqa``; a COM2 set for "COM2"); the latest run per cell."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from commonsense.scoring.naming import model_display_name
from explorer import charts
from explorer.panels.base import Panel
from knowledge.models import QuestionSet
from runs.models import Run
from runs.selectors.runs import metric_values, table3_rows

COLUMNS = ("anli", "csqa", "piqa", "siqa", "winogrande")
TITLES = {"anli": "a-NLI", "csqa": "CSQA", "piqa": "PIQA", "siqa": "SIQA", "winogrande": "WG", "com2": "COM2"}
CHANCE = {"anli": 0.5, "csqa": 0.2, "piqa": 0.5, "siqa": 1 / 3, "winogrande": 0.5, "com2": 0.2}


def _column(run: Run, structures: set[str]) -> str | None:
    qs = run.question_set
    if qs is not None and qs.kind == QuestionSet.Kind.COM2:
        return "com2"
    found = [c for c in COLUMNS if c in structures]
    return found[0] if len(found) == 1 and len(structures) == 1 else None


def transfer_panel(runs: Sequence[Run], want: Callable[..., bool]) -> list[Panel]:
    if not want("transfer-table") or not runs:
        return []
    overall = {m.run: m.value for m in metric_values(runs, ["accuracy"], scope="overall")}
    structures: dict[int, set[str]] = {r.pk: set() for r in runs}
    for m in metric_values(runs, ["accuracy"], scope_prefix="structure="):
        structures[m.run].add(m.scope.split("=", 1)[1])
    cells: dict[tuple[str, str, str], dict[str, float | None]] = {}
    for r in sorted(runs, key=lambda r: r.pk):
        col = _column(r, structures.get(r.pk, set()))
        if col is not None:
            cells.setdefault((r.backend, r.model, r.scoring), {})[col] = overall.get(r.pk)
    if not any(any(c in row for c in COLUMNS) for row in cells.values()):
        return []
    cols = (*COLUMNS, "com2")

    def avg(row: dict[str, float | None]) -> float | None:
        vals = [row.get(c) for c in COLUMNS]
        return sum(v for v in vals if v is not None) / len(vals) if all(v is not None for v in vals) else None

    rows: list[Any] = [("random (chance)", *(CHANCE[c] for c in COLUMNS), avg(CHANCE), CHANCE["com2"])]  # type: ignore[arg-type]
    for (backend, model, scoring), row in cells.items():
        rows.append(
            (
                f"{backend} {model_display_name(backend, model) if model else ''} · {scoring}".strip(),
                *(row.get(c) for c in COLUMNS),
                avg(row),
                row.get("com2"),
            )
        )
    series = [charts.Series(r[0], [r[i + 1] for i in range(len(cols))]) for r in rows[1:]]
    return [
        Panel(
            "transfer-table",
            "Zero-shot transfer across commonsense QA sets (COM2 Table 2's shape)",
            charts.grouped_bars([TITLES[c] for c in cols], series, axis="set", value="accuracy"),
            ["model", *(TITLES[c] for c in COLUMNS), "Avg", "COM2 (in-domain)"],
            rows,
            click="",
            note="Accuracy of each model's latest run per set; Avg over the five transfer sets when all are run. "
            "The paper's Table 2 (e.g. CAR + COM2: 81.2 / 70.9 / 80.3 / 65.6 / 77.4, Avg 75.1, COM2 63.8) used "
            "DeBERTa-v3-large trained on ATOMIC and COM2, scored by Eq. 2 (`--scoring mlm-pll`).",
        )
    ]


def curriculum_panel(runs: Sequence[Run], want: Callable[..., bool]) -> list[Panel]:
    """ReComSBench Table 3's shape: the base model and each fine-tune (RandSample, Score-CL,
    Reason-CL; runs.finetune) evaluated by ReComSBench runs, Acc / KBA / Δ / Δ* per set."""
    if not want("curriculum-table"):
        return []
    rows = table3_rows(list(runs))
    if not rows:
        return []
    sets = sorted({r[1] for r in rows})
    series = [charts.Series(f"{r[0]} · {r[1]}", [r[2], r[3]]) for r in rows]
    return [
        Panel(
            "curriculum-table",
            "ReComSBench: training strategies compared (Table 3's shape: Acc / KBA / Δ / Δ*)",
            charts.grouped_bars(["accuracy", "KBA"], series, axis="measure", value="share"),
            ["method", "set", "Acc", "KBA", "Δ (Easy − Hard)", "Δ* (on KBA)"],
            rows,
            click="",
            note=f"Sets: {', '.join(sets)}. Base = runs of a fine-tune's base model; each fine-tuned row is a run on "
            "its merged model. The paper (Llama3.1, CSQA): Base 73.2 / 83.8 / 24.8 / 6.9, RandSample 82.4 / 87.1 / "
            "14.6 / 8.9, Score-CL 81.4 / 87.1 / 15.1 / 7.9, Reason-CL 82.7 / 88.2 / 13.4 / 7.9.",
        )
    ]
