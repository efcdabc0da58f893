"""Query structures as data (Query2box / BetaE notation, COM2 Figure 2, CoCo Eq. 11).

A structure is a tree read from the answer down: ``Proj(child)`` is one relation hop whose head
is what ``child`` denotes, ``Inter(b1, b2, …)`` intersects branches, ``Anchor()`` is a given
event. ``negated_branch`` marks 2in (COM2's 2i-neg): that branch's relation is HinderedBy.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Anchor:
    pass


@dataclass(frozen=True)
class Proj:
    child: Shape


@dataclass(frozen=True)
class Inter:
    branches: tuple[Shape, ...]


Shape = Anchor | Proj | Inter

_A = Anchor()


@dataclass(frozen=True)
class Structure:
    kind: str
    shape: Shape
    negated_branch: int | None = None  # 2in: index of the Inter branch whose relation is HinderedBy

    @property
    def n_anchors(self) -> int:
        return _count(self.shape, Anchor)

    @property
    def n_hops(self) -> int:
        return _count(self.shape, Proj)


def _count(shape: Shape, cls: type) -> int:
    own = 1 if isinstance(shape, cls) else 0
    if isinstance(shape, Proj):
        return own + _count(shape.child, cls)
    if isinstance(shape, Inter):
        return own + sum(_count(b, cls) for b in shape.branches)
    return own


STRUCTURES: dict[str, Structure] = {
    s.kind: s
    for s in (
        Structure("1p", Proj(_A)),
        Structure("2p", Proj(Proj(_A))),
        Structure("3p", Proj(Proj(Proj(_A)))),
        Structure("2i", Inter((Proj(_A), Proj(_A)))),
        Structure("3i", Inter((Proj(_A), Proj(_A), Proj(_A)))),
        # ip: r3(V, t) with V = r1(h1) ∩ r2(h2)
        Structure("ip", Proj(Inter((Proj(_A), Proj(_A))))),
        # pi: r3(r1(h1)) ∩ r2(h2), the projection branch first (COM2 / CoCo Table 9 order)
        Structure("pi", Inter((Proj(Proj(_A)), Proj(_A)))),
        Structure("2in", Inter((Proj(_A), Proj(_A))), negated_branch=1),
    )
}
KINDS: tuple[str, ...] = tuple(STRUCTURES)
NEGATION_RELATION = "HinderedBy"
