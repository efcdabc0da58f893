"""The build funnel (issue 27 item 5): per kind, how many candidates each stage of a build kept and
why it dropped the others, so that a low yield names the stage that starved it.

Two chains of stages, each stage's ``considered`` the previous stage's ``kept``:

* **graph** (unit: the graph's triples, then the index's edges): the kind's hop **relations**, the
  **labels** (implausible, populated from ASER, ``none`` tails), the **readable** text rules
  (:mod:`.wellformed`), a **plausibility model** when one filters edges, and the **graph index**
  (duplicates that normalisation merged). Counted once when the index is built
  (``GraphIndex.edge_tally``, cached with it).
* **sampling** (unit: sampling attempts, then queries, then items): **queries** (an answer node and
  predecessors for every hop; :data:`commonsense.queries.sampling.QuerySampler.failures` names the
  stage that lost the last candidate, the **composition rules** among them), **distinct queries**,
  **answer sets** (no anchor may answer), **distractors** (four options pass every check; a query
  that ran out is charged to the check that refused most of its candidates), then the pool's
  **diverse selection** and the **fluent contexts** a model marked NA, when they ran.

Beside them the **distractor candidates**: how many the checks (near-duplicates, states, a
plausibility model) saw and refused, by reason. Every stage satisfies ``considered == kept +
sum(dropped)`` (:func:`check`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from commonsense.kg import relations as registry
from commonsense.kg.edges import EdgeFilter, EdgeTally
from commonsense.kg.index import GraphIndex, IndexOptions, Record

TOO_FEW = "too few distractors"
PLAUSIBLE_TO_MODEL = "a plausible answer to the plausibility model"


@dataclass
class Stage:
    name: str
    unit: str
    considered: int
    kept: int
    dropped: dict[str, int] = field(default_factory=dict)

    def as_dict(self) -> dict[str, object]:
        return {
            "stage": self.name,
            "unit": self.unit,
            "considered": self.considered,
            "kept": self.kept,
            "dropped": dict(sorted(self.dropped.items(), key=lambda kv: (-kv[1], kv[0]))),
        }


def _stage(name: str, unit: str, considered: int, dropped: Mapping[str, int]) -> Stage:
    d = {k: int(v) for k, v in dropped.items() if v}
    return Stage(name, unit, considered, considered - sum(d.values()), d)


def tallied_index(records: Iterable[Record], edges: EdgeFilter, options: IndexOptions | None = None) -> GraphIndex:
    """The index of ``edges(records)`` carrying the filter's tally (what ``knowledge.services.builds.graph_index``
    caches), for builds outside the database."""
    tally: EdgeTally = Counter()
    index = GraphIndex.build(edges(records, tally), options)
    index.edge_tally = sorted((r, s, w, n) for (r, s, w), n in tally.items())
    return index


def graph_stages(index: GraphIndex, hops: Iterable[str]) -> list[Stage]:
    """The graph chain for a build that hops over ``hops`` (relation names), from the index's
    tally; empty when the index was built without one."""
    if index.edge_tally is None:
        return []
    hop = {registry.canonical_name(r) for r in hops}
    by_stage: dict[str, Counter[str]] = {}
    total = inside = 0
    for rel, stage, reason, n in index.edge_tally:
        total += n
        if registry.canonical_name(rel) not in hop:
            continue
        inside += n
        by_stage.setdefault(stage, Counter())[reason] += n
    out = [_stage("relations", "triples", total, {"other relations": total - inside})]
    for name in ("labels", "readable", "plausibility model"):
        if name in by_stage or name != "plausibility model":
            out.append(_stage(name, "triples", out[-1].kept, by_stage.get(name, Counter())))
    ids = [i for i, r in enumerate(index.rel_names) if r in hop]
    edges = int(sum(int((index.f_rel == i).sum()) for i in ids))
    out.append(_stage("graph index", "edges", out[-1].kept, {"merged by normalisation": out[-1].kept - edges}))
    return out


@dataclass
class SamplingCounts:
    """What the sampling loop counted (a :class:`commonsense.questions.com2.BuildReport` holds one)."""

    attempts: int = 0
    no_query: Counter[str] = field(default_factory=Counter)  # QuerySampler.failures of this build
    repeated: int = 0
    anchor_answers: int = 0
    too_few: Counter[str] = field(default_factory=Counter)  # "too few distractors: <cause>"
    candidates_checked: int = 0
    candidates_rejected: Counter[str] = field(default_factory=Counter)
    # stages after the items were made, in order: (stage, unit, reason, items dropped), e.g. the
    # pool's diverse selection, CoCo's atomic questions, a fluent-context model's NA
    after: list[tuple[str, str, str, int]] = field(default_factory=list)
    # a build short of its count: how many distinct queries the graph holds (commonsense.queries.space),
    # under the build's rules ("rules") and under none ("no rules"): {"distinct", "usable", "capped"} each
    space: dict[str, dict[str, object]] = field(default_factory=dict)


DIVERSE = ("diverse selection", "items", "not selected by vote-k")
FLUENT = ("fluent contexts", "items", "marked NA by the model")
ATOMICS = ("atomic questions", "items", "an atomic question of the chain has too few distractors")


def sampling_stages(c: SamplingCounts) -> list[Stage]:
    out = [_stage("queries", "attempts", c.attempts, c.no_query)]
    out.append(_stage("distinct queries", "queries", out[-1].kept, {"repeated query": c.repeated}))
    out.append(_stage("answer sets", "queries", out[-1].kept, {"an anchor is an answer": c.anchor_answers}))
    out.append(_stage("distractors", "queries", out[-1].kept, c.too_few))
    for name, unit, reason, n in c.after:
        out.append(_stage(name, unit, out[-1].kept, {reason: n}))
    return out


def candidate_stage(c: SamplingCounts) -> Stage:
    return _stage("distractor candidates", "candidates", c.candidates_checked, c.candidates_rejected)


def too_few_cause(rejected: Counter[str]) -> str:
    """The cause of a query's running out of distractors: the check that refused most of its
    candidates, or the graph's own shortage when no check refused any."""
    if not rejected:
        return f"{TOO_FEW}: too few candidates in the graph"
    why, _ = max(rejected.items(), key=lambda kv: (kv[1], kv[0]))
    return f"{TOO_FEW}: most refused as {why}"


def funnel(
    graph: list[Stage], sampling: list[Stage], candidates: Stage, space: Mapping[str, object] | None = None
) -> dict[str, object]:
    return {
        "graph": [s.as_dict() for s in graph],
        "sampling": [s.as_dict() for s in sampling],
        "candidates": candidates.as_dict(),
        **({"space": dict(space)} if space else {}),
    }


def space_line(kind: str, space: Mapping[str, Any], drawn: int) -> str:
    """The funnel's verdict on a short build: "2in query space: the graph holds 2 distinct queries
    under the build's composition rules and filters (5 with no composition rule); the build drew
    all 2: more attempts cannot raise the yield, only a wider graph or looser rules"."""
    got, bare = space.get("rules") or {}, space.get("no rules") or {}

    def n(d: Mapping[str, Any]) -> str:
        return f"{'at least ' if d.get('capped') else ''}{d.get('usable', 0):,}"

    out = f"{kind} query space: the graph holds {n(got)} usable distinct queries under the build's rules and filters"
    if bare:
        out += f" ({n(bare)} with no composition rule)"
    if not got.get("capped") and drawn >= int(got.get("usable", 0)):
        out += (
            f"; the build drew all {drawn:,}: more attempts cannot raise the yield, only a wider graph "
            "(the graph stages above) or looser rules"
        )
    else:
        out += f"; the build drew {drawn:,} of them"
    return out


def check(report: Mapping[str, object]) -> list[str]:
    """What does not add up in a stored funnel (empty when every count does): each stage's
    considered = kept + dropped, and each stage considers what the one before it kept."""
    bad: list[str] = []
    for chain in ("graph", "sampling"):
        stages = report.get(chain) or []
        assert isinstance(stages, list)
        for i, s in enumerate(stages):
            if s["considered"] != s["kept"] + sum(s["dropped"].values()) or s["kept"] < 0:
                bad.append(f"{chain} stage {s['stage']!r}: {s['considered']} != {s['kept']} + {s['dropped']}")
            if i and s["considered"] != stages[i - 1]["kept"]:
                bad.append(f"{chain} stage {s['stage']!r} considers {s['considered']}, not {stages[i - 1]['kept']}")
    return bad


def space_verdict(kind: str, f: Mapping[str, Any]) -> str | None:
    """A stored funnel's query-space line (:func:`space_line`), None for a build that was not short."""
    space = f.get("space")
    if not space:
        return None
    sampling = f.get("sampling") or []
    drawn = sampling[2]["kept"] if len(sampling) > 2 else 0  # the queries past "answer sets"
    return space_line(kind, space, drawn)


def lines(kind: str, f: Mapping[str, Any]) -> list[str]:
    """A funnel as a line per chain: "2p sampling: 1,200 attempts -> queries 300 (refused by the
    composition rules 800, …) -> …", and one for the distractor candidates."""
    out: list[str] = []
    for chain in ("graph", "sampling"):
        stages = f.get(chain) or []
        if not stages:
            continue
        parts = [f"{stages[0]['considered']:,} {stages[0]['unit']}"]
        for s in stages:
            why = ", ".join(f"{k} {v:,}" for k, v in s["dropped"].items())
            parts.append(f"{s['stage']} {s['kept']:,}" + (f" ({why})" if why else ""))
        out.append(f"{kind} {chain}: " + " -> ".join(parts))
    verdict = space_verdict(kind, f)
    if verdict:
        out.append(verdict)
    c = f.get("candidates")
    if c and c["considered"]:
        why = ", ".join(f"{k} {v:,}" for k, v in c["dropped"].items())
        out.append(
            f"{kind} distractor candidates: {c['considered']:,} checked, {c['kept']:,} kept"
            + (f" ({why})" if why else "")
        )
    return out
