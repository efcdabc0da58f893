"""Panel of a COM2 generative run (``generate-answer``): ROUGE-L, BLEU-2, CIDEr and BERTScore F1
per query kind and overall, one cluster per metric group, read from the stored run metrics; and
the human judgements of the generations (COM2 Table 4) from the generation campaigns judging them."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import cast

from django.apps import apps

from commonsense.validation import JUDGEMENT_NAMES, JUDGEMENTS
from explorer import charts
from explorer.panels.base import Panel
from runs.models import Run
from runs.selectors.runs import metric_values

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


def judgement_panel(runs: Sequence[Run], want: Callable[..., bool], label: Callable[[Run], str]) -> list[Panel]:
    """COM2 Table 4 (human evaluation of generations): the share of Plausible / 1-hop / False
    final labels per query kind and overall, from each generation campaign judging these runs."""
    gen = {r.pk: r for r in runs if r.scoring == "generate-answer"}
    if not gen or not want("judgements") or not apps.is_installed("annotation"):
        return []
    from annotation.selectors.verdicts import generation_judgements, run_generation_campaigns

    campaigns = run_generation_campaigns(list(gen))
    if not campaigns:
        return []
    groups: list[str] = []
    values: dict[str, list[float | None]] = {j: [] for j in JUDGEMENTS}
    counts: list[int] = []
    table = []
    for c in campaigns:
        run = gen[cast(int, c.run_id)]  # the query selected campaigns by run
        for row in generation_judgements(c):
            groups.append(f"{label(run) if len(gen) > 1 else ''} {c.name} · {row.group}".strip())
            counts.append(row.n)
            for j in JUDGEMENTS:
                values[j].append(row.shares[j])
            table.append(
                (
                    label(run),
                    c.name,
                    row.group,
                    *(x for j in JUDGEMENTS for x in (row.counts[j], row.shares[j])),
                    row.n,
                    row.undecided,
                )
            )
    series = [charts.Series(JUDGEMENT_NAMES[j], values[j], counts) for j in JUDGEMENTS]
    columns = ["run", "campaign", "query kind"]
    columns += [f"{JUDGEMENT_NAMES[j]}{suffix}" for j in JUDGEMENTS for suffix in (" n", " share")]
    return [
        Panel(
            "judgements",
            "COM2 human evaluation of the generations: Plausible / 1-hop / False (Table 4)",
            charts.grouped_bars(
                groups,
                series,
                axis="campaign · query kind",
                value="share of judged generations",
                empty="No generation judged yet.",
            ),
            [*columns, "n", "undecided"],
            table,
            click="",
            note="Final labels by majority of the campaign's annotators (or a reviewer's decision); n = judged "
            "generations with a label, undecided = tied votes not adjudicated yet (left out of the shares). "
            "1-hop: the answer fits only one branch of an intersection or only the first hop of a chain.",
        )
    ]
