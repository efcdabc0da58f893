"""CoCo's diversity selection (Eq. 9, vote-k after Su et al. 2023) on sentence embeddings, with
embeddings cached per graph on disk so that a second build does not re-embed."""

from __future__ import annotations

import copy
import hashlib
import os
import tempfile
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt

from commonsense.kg.index import GraphIndex
from commonsense.kg.normalize import Encoder

FloatArray = npt.NDArray[np.float32]


def knn(emb: FloatArray, k: int, chunk: int = 1024) -> npt.NDArray[np.int64]:
    """Each row's k nearest other rows by cosine similarity, exact (every pair compared, in row
    chunks), nearest first; equal similarities in lower-index-first order except at the k-th
    place, where numpy's introselect decides (the same way on every run)."""
    n = emb.shape[0]
    k = min(k, n - 1)
    x = emb / np.maximum(np.linalg.norm(emb, axis=1, keepdims=True), 1e-12)
    out = np.zeros((n, max(k, 0)), dtype=np.int64)
    if k <= 0:
        return out
    for s in range(0, n, chunk):
        sim = x[s : s + chunk] @ x.T
        rows = np.arange(sim.shape[0])
        sim[rows, s + rows] = -np.inf
        if k < n - 1:  # the k largest of each row (linear time), then only those sorted
            part = np.argpartition(-sim, k - 1, axis=1)[:, :k]
            part.sort(axis=1)  # index order first, so the stable sort keeps lower indices first on ties
        else:
            part = np.broadcast_to(np.arange(n), sim.shape)
        top = np.take_along_axis(sim, part, axis=1)
        order = np.argsort(-top, axis=1, kind="stable")
        out[s : s + chunk] = np.take_along_axis(part, order, axis=1)[:, :k]
    return out


def vote_k(emb: FloatArray, n_select: int, k: int = 150, rho: float = 10.0) -> list[int]:
    """Greedy Eq. 9: score(u) = Σ_{v: u ∈ kNN(v), v unselected} ρ^(-|kNN(v) ∩ selected|);
    take the argmax, repeat. Returns indices in selection order."""
    return vote_k_scored(emb, n_select, k=k, rho=rho)[0]


def vote_k_scored(emb: FloatArray, n_select: int, k: int = 150, rho: float = 10.0) -> tuple[list[int], list[float]]:
    """:func:`vote_k` with each pick's Eq. 9 score at the moment it was picked (ties: lower index)."""
    if rho <= 1:
        raise ValueError("rho must be > 1")
    n = emb.shape[0]
    n_select = min(n_select, n)
    if n_select <= 0:
        return [], []
    nbrs = knn(emb, k)
    kk = nbrs.shape[1]
    flat = nbrs.ravel()
    order = np.argsort(flat, kind="stable")
    inn_src = (order // max(kk, 1)).astype(np.int64)  # v such that flat index belongs to row v
    inn_off = np.r_[0, np.cumsum(np.bincount(flat, minlength=n))].astype(np.int64)
    w = np.ones(n, dtype=np.float64)
    cnt = np.zeros(n, dtype=np.int64)
    score = np.bincount(flat, weights=np.repeat(w, kk), minlength=n).astype(np.float64)
    selected = np.zeros(n, dtype=bool)
    out: list[int] = []
    picked: list[float] = []
    for _ in range(n_select):
        # rounded: the incremental updates leave float noise, and equal scores go to the lowest index
        masked = np.where(selected, -np.inf, np.round(score, 9))
        u = int(np.argmax(masked))
        out.append(u)
        picked.append(float(score[u]))
        selected[u] = True
        if kk:
            score[nbrs[u]] -= w[u]
        w[u] = 0.0
        vs = inn_src[inn_off[u] : inn_off[u + 1]]
        cnt[vs] += 1
        vs = vs[~selected[vs]]
        if vs.shape[0] and kk:
            new = rho ** (-cnt[vs].astype(np.float64))
            delta = new - w[vs]
            w[vs] = new
            np.add.at(score, nbrs[vs].ravel(), np.repeat(delta, kk))
    return out, picked


class EmbeddingCache:
    """Text -> embedding, persisted in ``cache_dir/embeddings-<name>.npz`` (keys are SHA-1s of the
    texts). ``encoded`` counts the texts this instance actually had to embed."""

    def __init__(self, cache_dir: str | Path, encoder: Encoder, name: str = "minilm") -> None:
        self.path = Path(cache_dir) / f"embeddings-{name}.npz"
        self.encoder = encoder
        self.encoded = 0
        self._keys: dict[bytes, int] = {}
        self._vecs: FloatArray | None = None
        if self.path.exists():
            try:
                with np.load(self.path, allow_pickle=False) as z:
                    keys, vecs = z["keys"], z["vecs"]
                self._keys = {bytes(kk): i for i, kk in enumerate(keys)}
                self._vecs = np.asarray(vecs, dtype=np.float32)
            except (OSError, ValueError, KeyError):
                self._keys, self._vecs = {}, None

    @staticmethod
    def _key(text: str) -> bytes:
        return hashlib.sha1(text.encode("utf-8")).hexdigest().encode("ascii")  # hex: numpy S-arrays drop trailing NULs

    def get(self, texts: Sequence[str]) -> FloatArray:
        keys = [self._key(t) for t in texts]
        missing = sorted({kk: t for kk, t in zip(keys, texts, strict=True) if kk not in self._keys}.items())
        if missing:
            new = np.asarray(self.encoder([t for _, t in missing]), dtype=np.float32)
            self.encoded += len(missing)
            base = 0 if self._vecs is None else self._vecs.shape[0]
            for i, (kk, _) in enumerate(missing):
                self._keys[kk] = base + i
            self._vecs = new if self._vecs is None else np.vstack([self._vecs, new])
            self._save()
        assert self._vecs is not None
        return self._vecs[[self._keys[kk] for kk in keys]]

    def lookup(self, texts: Sequence[str]) -> dict[str, FloatArray]:
        """The stored embeddings of those ``texts`` that are cached (nothing is encoded)."""
        if self._vecs is None:
            return {}
        out: dict[str, FloatArray] = {}
        for t in texts:
            i = self._keys.get(self._key(t))
            if i is not None:
                out[t] = self._vecs[i]
        return out

    def add(self, texts: Sequence[str], vecs: FloatArray) -> None:
        """Store embeddings computed elsewhere (one write for the whole batch)."""
        new = [(self._key(t), i) for i, t in enumerate(texts) if self._key(t) not in self._keys]
        if not new:
            return
        rows = np.asarray(vecs, dtype=np.float32)[[i for _, i in new]]
        base = 0 if self._vecs is None else self._vecs.shape[0]
        for j, (kk, _) in enumerate(new):
            self._keys[kk] = base + j
        self._vecs = rows if self._vecs is None else np.vstack([self._vecs, rows])
        self._save()

    def _save(self) -> None:
        assert self._vecs is not None
        self.path.parent.mkdir(parents=True, exist_ok=True)
        keys = np.array(sorted(self._keys, key=self._keys.__getitem__), dtype="S40")
        fd, tmp = tempfile.mkstemp(dir=self.path.parent, suffix=".npz.tmp")
        os.close(fd)
        with open(tmp, "wb") as fh:
            np.savez(fh, keys=keys, vecs=self._vecs)
        os.replace(tmp, self.path)


def select_diverse(texts: Sequence[str], n: int, cache: EmbeddingCache, k: int = 150, rho: float = 10.0) -> list[int]:
    """Indices of ``n`` diverse texts, in ascending order (so output order follows input order)."""
    if n >= len(texts):
        return list(range(len(texts)))
    return sorted(vote_k(cache.get(texts), n, k=k, rho=rho))


def busy_nodes(
    index: GraphIndex, relations: Sequence[str] | None, top: int
) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.int64]]:
    """Which in-edges have one of ``relations`` (None: all), as a mask over ``index.b_rel``, and the
    nodes with more than ``top`` such in-edges (the ones a top-T reordering touches)."""
    allowed = np.ones(len(index.rel_names), dtype=bool)
    if relations is not None:
        allowed[:] = False
        for r in relations:
            if r in index.rel_ids:
                allowed[index.rel_ids[r]] = True
    ok = allowed[index.b_rel] if index.b_rel.shape[0] else np.zeros(0, dtype=bool)
    csum = np.r_[0, np.cumsum(ok)]
    counts = csum[index.b_off[1:]] - csum[index.b_off[:-1]]
    busy = np.flatnonzero(counts > top)
    return ok, busy


def eq9_neighbour_order(
    index: GraphIndex,
    cache: EmbeddingCache,
    top: int,
    *,
    relations: Sequence[str] | None = None,
    k: int = 150,
    rho: float = 10.0,
) -> GraphIndex:
    """CoCo A2.3's degree control, "we only sample from top 10 neighbors of a node scored by
    Equation 9": a copy of ``index`` in which every node with more than ``top`` in-edges of the
    sampled ``relations`` (None: all) has Eq. 9's first ``top`` picks among those in-edges first
    (greedy vote-k over the embeddings of the triples, "h r t" with the relation's statement
    phrase, k nearest among them, ρ), the others after them in their former order. A sampler over
    the same relations takes exactly those picks as its top-T. Nodes with at most ``top`` such
    in-edges keep their order (all of them are used anyway)."""
    from commonsense.kg import relations as registry

    ok, busy = busy_nodes(index, relations, top)
    if busy.shape[0] == 0:
        return index

    def phrase(r: str) -> str:
        try:
            return registry.get(r).statement
        except registry.UnknownRelation:
            return r

    phrases = [phrase(r) for r in index.rel_names]
    spans = [(int(index.b_off[v]), int(index.b_off[v + 1])) for v in busy]
    cands = [a + np.flatnonzero(ok[a:b]) for a, b in spans]
    texts = [
        f"{index.names[int(index.b_src[j])]} {phrases[int(index.b_rel[j])]} {index.names[int(v)]}"
        for v, js in zip(busy, cands, strict=True)
        for j in js
    ]
    emb = cache.get(texts)
    b_rel, b_src = index.b_rel.copy(), index.b_src.copy()
    at = 0
    for (a, b), js in zip(spans, cands, strict=True):
        d = js.shape[0]
        picks = js[np.asarray(vote_k(emb[at : at + d], top, k=min(k, d - 1), rho=rho), dtype=np.int64)]
        rest = np.setdiff1d(np.arange(a, b), picks, assume_unique=True)  # former order (sorted positions)
        order = np.r_[picks, rest]
        b_rel[a:b], b_src[a:b] = index.b_rel[order], index.b_src[order]
        at += d
    out = copy.copy(index)
    out.b_rel, out.b_src = b_rel, b_src
    return out
