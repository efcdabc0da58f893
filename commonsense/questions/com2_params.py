"""A COM2 build's parameters (:class:`BuildParams`, stored with the set) and its report
(:class:`BuildReport`: counts, rejections and the build funnel), with the defaults they name."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from commonsense.kg.relations import COM2_RELATIONS

from ..queries.rules import DEFAULT_RULES_MODE, CompositionRules, rules_for
from ..queries.structures import NEGATION_RELATION
from . import funnel as stages
from .chain_phrasing import CHAIN_PHRASINGS, DEFAULT_CHAIN_PHRASING
from .neardup import DEFAULT_THRESHOLD
from .negatives import NegativeSpec
from .synonyms import DEFAULT_SYNONYM_THRESHOLD

# COM2 Table 8's twelve relations; HinderedBy only on 2in's negated branch.
DEFAULT_COM2_HOPS: tuple[str, ...] = tuple(r for r in COM2_RELATIONS if r != NEGATION_RELATION)


@dataclass
class BuildReport:
    """What a build did, stored with the set: requested and built counts, why attempts and
    distractor candidates were dropped."""

    requested: int = 0
    built: int = 0
    kind: str = ""
    attempts: int = 0
    dropped: Counter[str] = field(default_factory=Counter)
    distractors_rejected: Counter[str] = field(default_factory=Counter)
    judge_vetoed: Counter[str] = field(default_factory=Counter)  # by provenance (adversarial / random)
    # the build funnel (:mod:`.funnel`): the graph's stages and what sampling counted
    graph: list[stages.Stage] = field(default_factory=list)
    sampling: stages.SamplingCounts = field(default_factory=stages.SamplingCounts)

    def funnel(self) -> dict[str, object]:
        s = self.sampling
        return stages.funnel(self.graph, stages.sampling_stages(s), stages.candidate_stage(s), s.space)

    def as_dict(self) -> dict[str, object]:
        return {
            **({"kind": self.kind} if self.kind else {}),
            "requested": self.requested,
            "built": self.built,
            "shortfall": max(self.requested - self.built, 0),
            "attempts": self.attempts,
            "dropped": dict(sorted(self.dropped.items())),
            "distractors_rejected": dict(sorted(self.distractors_rejected.items())),
            "judge_vetoed": dict(sorted(self.judge_vetoed.items())),
            "funnel": self.funnel(),
        }


@dataclass
class BuildParams:
    kind: str
    count: int
    seed: int
    relations: list[str] | None = None  # None: COM2's twelve (DEFAULT_COM2_HOPS + HinderedBy for 2in)
    max_degree: int = 10
    person_names: bool = True
    diverse: bool = False
    # which hops may be chained and intersected (rules.RULES_MODES): "curated" (the default), "paper"
    # (every pattern the papers print), "any" (no rule: the papers' bare sampler)
    rules: str = DEFAULT_RULES_MODE
    fluent: bool = True
    near_duplicate: float | None = DEFAULT_THRESHOLD  # None: no near-duplicate check
    # no distractor whose predicate means what an answer's does (synonyms.py; MiniLM cosine of the
    # predicates, WordNet adjective clusters); None: off. Runs only with the near-duplicate check
    near_synonym: float | None = DEFAULT_SYNONYM_THRESHOLD
    # COM2's hard negatives (negatives.py): adversarial ones from the query's branches ("branch") or
    # any anchor neighbour ("neighbours"); random ones among the asked relation's tails
    # ("relation"), the graph's shared event tails ("shared") or any tail ("whole-graph", COM2's
    # literal "randomly sampled across the whole CSKG")
    adversarial_negatives: str = "branch"
    # "" : the rules mode's own (issue 27: "paper" draws COM2's whole-graph randoms, the others "relation")
    random_negatives: str = ""
    # the former same-type veto (sessions 11-15), off by default: it removed exactly COM2's
    # adversarial negatives and let option shape answer most items (issue 25). With
    # adversarial_negatives="neighbours": only anchor edges whose tails answer another kind of thing
    adversarial_other_kind: bool = False
    # False: no feeling or attribute as a distractor where one can answer (StateDistractorCheck)
    state_distractors: bool = True
    # checked distractors kept beside the options for the validation's top-up (COM2 A.4)
    spare_distractors: int = 3
    # how a 2p chain is worded (chain_phrasing.py): "step" (the middle step told in the context, not
    # named), "named" (the middle event named), "stacked" (the papers' prompts one inside the other)
    chain_phrasing: str = DEFAULT_CHAIN_PHRASING
    extra: dict[str, object] = field(default_factory=dict)

    def __post_init__(self) -> None:
        rules_for(self.rules)  # an unknown mode is refused here, naming the modes
        if not self.random_negatives:
            self.random_negatives = PAPER_RANDOM_NEGATIVES if self.rules == "paper" else "relation"
        NegativeSpec(self.adversarial_negatives, self.random_negatives)  # so is an unknown source of negatives
        if self.chain_phrasing not in CHAIN_PHRASINGS:
            raise ValueError(
                f"unknown chain phrasing {self.chain_phrasing!r}; choose one of {', '.join(CHAIN_PHRASINGS)}"
            )

    @property
    def composition_rules(self) -> CompositionRules | None:
        return rules_for(self.rules)

    @property
    def hop_relations(self) -> list[str]:
        return list(self.relations) if self.relations else list(DEFAULT_COM2_HOPS)

    def as_dict(self) -> dict[str, object]:
        return {
            "kind": self.kind,
            "count": self.count,
            "seed": self.seed,
            "relations": self.relations,
            "hop_relations": self.hop_relations,
            "max_degree": self.max_degree,
            "person_names": self.person_names,
            "diverse": self.diverse,
            "rules": self.rules,
            "composition_rules": self.composition_rules.name if self.composition_rules is not None else None,
            "fluent": self.fluent,
            "near_duplicate": self.near_duplicate,
            "near_synonym": self.near_synonym if self.near_duplicate is not None else None,
            "adversarial_negatives": self.adversarial_negatives,
            "random_negatives": self.random_negatives,
            "adversarial_other_kind": self.adversarial_other_kind,
            "state_distractors": self.state_distractors,
            "spare_distractors": self.spare_distractors,
            "chain_phrasing": self.chain_phrasing,
        }

    @property
    def negatives(self) -> NegativeSpec:
        return NegativeSpec(self.adversarial_negatives, self.random_negatives)


# ``--rules paper`` builds as COM2 wrote: its random negatives are "randomly sampled across the whole CSKG"
PAPER_RANDOM_NEGATIVES = "whole-graph"

# The distractors of main before issue 25 (the same-type veto): BuildParams(**OLD_VETO, ...) builds
# them again, for A/B measurements and the audit's test that it can fail.
OLD_VETO: dict[str, object] = {
    "adversarial_negatives": "neighbours",
    "random_negatives": "shared",
    "adversarial_other_kind": True,
    "state_distractors": False,
    "near_synonym": None,
}
