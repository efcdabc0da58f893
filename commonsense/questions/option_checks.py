"""The distractor checks of a COM2 build (B2.3 and issue 25): what a check sees
(:class:`OptionCandidate`), the checks as one reject function over nodes, and the checks
themselves: other kinds of answer as adversarial negatives, near-synonyms and near-duplicates of an
answer (MiniLM, WordNet), no state where a state answers. Plausibility models plug in as
:data:`OptionCheck` too (:mod:`.plausible`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from commonsense.kg.index import GraphIndex

from ..queries.rules import ANSWER_CLASS
from ..queries.sampling import QInter, QProj, Query
from . import distractors, wellformed
from . import funnel as stages
from .neardup import NearDuplicates
from .synonyms import NearSynonyms


@dataclass(frozen=True)
class OptionCandidate:
    """What a distractor check sees: the candidate, the query and the item so far."""

    node: int
    text: str  # as displayed, placeholders (PersonX) not yet replaced by names
    answers: Sequence[str]
    options: Sequence[str]  # chosen so far, the gold first
    query: Query
    index: GraphIndex


# A distractor check: a reason to reject the candidate, or None. Plausibility models plug in here.
OptionCheck = Callable[[OptionCandidate], str | None]


def other_kind(index: GraphIndex, query: Query) -> Callable[[int], bool]:
    """Relation ids whose tails answer a different kind of thing (rules.ANSWER_CLASS) than the
    query's last hops: "Sara is upset" (xReact) is no adversarial distractor for "what Sara feels",
    "Sara wants to apologise" (xWant) is."""
    root = query.root
    tops = [root] if isinstance(root, QProj) else list(root.branches) if isinstance(root, QInter) else []
    kinds = {ANSWER_CLASS.get(index.rel_names[b.rel]) for b in tops if isinstance(b, QProj)}
    bad = {i for i, r in enumerate(index.rel_names) if ANSWER_CLASS.get(r) in kinds or ANSWER_CLASS.get(r) is None}
    return lambda r: r not in bad


def option_checks(
    index: GraphIndex,
    query: Query,
    display: Callable[[int], str],
    answers: Sequence[str],
    checks: Sequence[OptionCheck],
    chosen_first: str,
) -> distractors.Reject:
    """The checks as a :data:`distractors.Reject` over nodes."""

    def reject(node: int, chosen: list[int]) -> str | None:
        cand = OptionCandidate(
            node, display(node), answers, [chosen_first, *(display(n) for n in chosen)], query, index
        )
        for check in checks:
            why = check(cand)
            if why is not None:
                return why
        return None

    return reject


class NearSynonymCheck:
    """:class:`~.synonyms.NearSynonyms` as an :data:`OptionCheck` (against the item's answers)."""

    def __init__(self, ns: NearSynonyms) -> None:
        self.ns = ns

    def __call__(self, c: OptionCandidate) -> str | None:
        return self.ns.reason(c.text, c.answers)

    def prefetch(self, texts: Sequence[str]) -> None:
        self.ns.prefetch(texts)


class NearDuplicateCheck:
    """The MiniLM near-duplicate veto as an :data:`OptionCheck`; ``prefetch`` embeds a question's
    answers and likely candidates in one batch (one encoder call per question, not per text)."""

    def __init__(self, nd: NearDuplicates) -> None:
        self.nd = nd

    def __call__(self, c: OptionCandidate) -> str | None:
        return self.nd.reason(c.text, c.answers, c.options)

    def prefetch(self, texts: Sequence[str]) -> None:
        self.nd.vectors(list(texts))


STATE_CLASSES = frozenset({"feeling of PersonX", "attribute of PersonX", "feeling of PersonY"})
# relations whose answers a state (a feeling, an attribute) can defensibly be: what happens after
STATE_ANSWERABLE = frozenset({"xEffect", "oEffect", "isAfter", "Causes", "HasSubEvent"})


class StateDistractorCheck:
    """No state (a tail of xReact, oReact or xAttr: "Samantha is happy") as a distractor where a
    state answers the question: to "what Samantha is seen as given …" with gold "Samantha is needy",
    "Samantha is happy" and "Samantha is satisfied" were defensible too; to "the effect on Emma
    after …" so was "Emma feels impatient". Read blind, such options were the main cause of "several
    defensible answers" on ATOMIC builds. Questions about wants, needs and intents keep them (a
    feeling is no answer to what someone needed to do)."""

    def __init__(self, index: GraphIndex) -> None:
        state_rels = np.array([ANSWER_CLASS.get(r) in STATE_CLASSES for r in index.rel_names], dtype=bool)
        self.state = np.zeros(len(index.names), dtype=bool)
        if index.f_rel.shape[0]:
            self.state[index.f_dst[state_rels[index.f_rel]]] = True
        self.names = index.names
        self._shaped: dict[int, bool] = {}
        self._last: tuple[Query, bool] | None = None

    def state_shaped(self, node: int) -> bool:
        """A node that reads as a state whatever relation it came from: "Jake is really sad" as an
        xEffect tail. Read blind, such options beside a feeling gold ("what Jake feels after the
        effect on Jake after …": "Jake is really sad" / "Jake is hurt") were a second defensible
        answer."""
        got = self._shaped.get(node)
        if got is None:
            shown = wellformed.display_form(self.names[node])
            got = self._shaped[node] = any(wellformed.misfit(r, shown) is None for r in ("xReact", "oReact", "xAttr"))
        return got

    def applies(self, index: GraphIndex, query: Query) -> bool:
        if self._last is not None and self._last[0] is query:
            return self._last[1]
        root = query.root
        tops = [root] if isinstance(root, QProj) else list(root.branches) if isinstance(root, QInter) else []
        rels = {index.rel_names[b.rel] for b in tops if isinstance(b, QProj)}
        got = any(ANSWER_CLASS.get(r) in STATE_CLASSES or r in STATE_ANSWERABLE for r in rels)
        self._last = (query, got)
        return got

    def __call__(self, c: OptionCandidate) -> str | None:
        if (self.state[c.node] or self.state_shaped(c.node)) and self.applies(c.index, c.query):
            return "a state where a state answers"
        return None


def _counted(reject: distractors.Reject, counts: stages.SamplingCounts) -> distractors.Reject:
    """``reject`` counting every candidate it sees (the funnel's distractor candidates)."""

    def counted(node: int, chosen: list[int]) -> str | None:
        counts.candidates_checked += 1
        return reject(node, chosen)

    return counted


def near_duplicate_check(nd: NearDuplicates) -> OptionCheck:
    return NearDuplicateCheck(nd)
