"""Panel of a COM2 generative run (``generate-answer``): ROUGE-L, BLEU-2, CIDEr and BERTScore F1
per query kind and overall, one cluster per metric group, read from the stored run metrics."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from runs.models import Run
from runs.selectors import metric_values

from .. import charts
from .panels import Panel

METRICS = ("rouge_l", "bleu_2", "cider", "bertscore_f1")


def generation_panel(runs: Sequence[Run], want: Callable[..., bool], label: Callable[[Run], str]) -> list[Panel]:
    gen = [r for r in runs if r.scoring == "generate-answer"]
    if not gen or not want("generation"):
        return []
    rows = [
        (m.run, m.name, m.scope, m.value, m.n)
        for m in metric_values(gen, METRICS, scope="overall", scope_prefix="structure=")
    ]
    scopes = sorted({s for _, _, s, _, _ in rows}, key=lambda s: (s != "overall", s))
    groups = [f"{m} · {s.removeprefix('structure=')}" for s in scopes for m in METRICS]
    series, table = [], []
    for run in gen:
        mine = {(m, s): (v, n) for rid, m, s, v, n in rows if rid == run.pk}
        vals = [mine.get((m, s), (None, 0)) for s in scopes for m in METRICS]
        series.append(charts.Series(label(run), [v for v, _ in vals], [n for _, n in vals]))
        for s in scopes:
            table.append(
                (
                    label(run),
                    s.removeprefix("structure="),
                    *(mine.get((m, s), (None, 0))[0] for m in METRICS),
                    mine.get(("rouge_l", s), (None, 0))[1],
                )
            )
    return [
        Panel(
            "generation",
            "COM2 generative setting: generations against every reference answer (Table 3)",
            charts.grouped_bars(
                groups,
                series,
                axis="metric · query kind",
                value="score",
                percent=False,
                empty="No generative metrics stored for these runs.",
            ),
            ["run", "query kind", "ROUGE-L", "BLEU-2", "CIDEr", "BERTScore F1", "n"],
            table,
            click="",
            note="Fractions (the paper prints ×100); CIDEr-D on its own scale (1.072 = the paper's 107.2). "
            "BLEU-2 is the corpus BLEU of the group; per-item scores are on each prediction.",
        )
    ]
