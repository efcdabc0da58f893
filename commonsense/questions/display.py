"""Node text as a question shows it: ATOMIC ``___`` blanks filled from the graph, lemmatised
ASER events in fluent present tense (:mod:`.fluent`). The graph's own text stays in the chain.

An ATOMIC head with a blank ("PersonX keeps ___ up all night") is filled with the first of its
``isFilledBy`` tails ("the baby"); a blank head without one is left out of every query
(:meth:`Display.usable`), never shown unfilled.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from commonsense.kg.index import GraphIndex

from .repairs import display_form

BLANK = "___"
FILL_RELATION = "isFilledBy"


class Display:
    def __init__(self, index: GraphIndex, *, fluent_text: bool = True) -> None:
        self.index = index
        self.fluent_text = fluent_text
        self._memo: dict[int, str] = {}
        self._fill: dict[int, str] | None = None

    @property
    def fills(self) -> dict[int, str]:
        """Blank node -> its filled text (only nodes whose blank the graph can fill)."""
        if self._fill is None:
            idx = self.index
            rel = idx.rel_ids.get(FILL_RELATION)
            out: dict[int, str] = {}
            for node, name in enumerate(idx.names):
                if BLANK not in name or rel is None:
                    continue
                fillers = idx.successors(node, rel)
                if fillers.shape[0]:
                    filler = min(idx.names[int(f)] for f in fillers)  # deterministic, graph order-free
                    out[node] = name.replace(BLANK, filler, 1)
            self._fill = out
        return self._fill

    def usable(self) -> npt.NDArray[np.bool_] | None:
        """Per node: may it appear in a query? (None: every node may)."""
        names = self.index.names
        blank = np.fromiter((BLANK in t for t in names), dtype=bool, count=len(names))
        if not blank.any():
            return None
        ok = ~blank
        fills = self.fills
        if fills:
            ok[np.fromiter(fills, dtype=np.int64)] = True
        return ok

    def __call__(self, node: int) -> str:
        got = self._memo.get(node)
        if got is None:
            text = self.fills.get(node) if BLANK in self.index.names[node] else None
            stored = self.index.displays
            if text is None and self.fluent_text and stored is not None:
                got = stored[node]  # the graph's stored node text (knowledge.node_texts)
            else:
                text = text or self.index.names[node]
                # what the text rules judged (and the store keeps): the fluent text with "people"
                got = display_form(text) if self.fluent_text else text
            self._memo[node] = got
        return got
