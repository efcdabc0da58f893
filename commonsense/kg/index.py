"""A compact, cacheable graph index for query sampling.

Built once from ``(head, relation, tail[, plausibility[, ref]])`` records: node texts get integer
ids, duplicate edges collapse, and two CSR adjacencies are kept as numpy arrays:

* forward, sorted by (head, relation, tail): ``successors(node, rel)`` for answer traversal;
* backward, per tail sorted by plausibility (desc) then a fixed pseudo-random rank: the first
  T entries are COM2's "top-T neighbours" used when sampling predecessors.

``ref`` is an optional integer carried per edge (the database id of the triple), so questions
built from the index can point back at the stored triples.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from array import array
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from . import relations
from .normalize import clean, is_none, normalize_tail

IntArray = npt.NDArray[np.int64]
FORMAT_VERSION = 1
Record = Sequence[Any]  # (head, relation, tail[, plausibility[, ref]])


@dataclass(frozen=True)
class IndexOptions:
    normalize: bool = False  # COM2 Table 5 tail normalisation (needed for projection chains)
    min_plausibility: float | None = None  # keep rows with plausibility >= this (CSKB label 1: 0.5)
    drop_none: bool = True  # ATOMIC's "none" tails are not entities
    max_degree: int = 10  # default top-T neighbour cut for sampling (COM2 --max-degree)
    # COM2 §3.1's node merging: nodes whose embeddings have cosine above this are one (None: off);
    # the merge itself is passed to build() (commonsense.questions.graph_steps.node_merger)
    merge: float | None = None

    def key(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)


class GraphIndex:
    def __init__(
        self, names: list[str], rel_names: list[str], arrays: dict[str, IntArray], options: IndexOptions
    ) -> None:
        self.names = names
        self.rel_names = rel_names
        self.options = options
        self.f_off, self.f_rel, self.f_dst, self.f_ref = (
            arrays["f_off"],
            arrays["f_rel"],
            arrays["f_dst"],
            arrays["f_ref"],
        )
        self.g_key, self.g_start = arrays["g_key"], arrays["g_start"]
        self.b_off, self.b_rel, self.b_src = arrays["b_off"], arrays["b_rel"], arrays["b_src"]
        self.tail_nodes = arrays["tail_nodes"]
        self.rel_ids = {r: i for i, r in enumerate(rel_names)}
        self._node_ids: dict[str, int] | None = None
        # what the edge filter did to the graph's triples, [relation, stage, reason, count] rows (the
        # build funnel's first stages), kept with the cached index; None when not counted
        self.edge_tally: list[tuple[str, str, str, int]] | None = None
        # each node's text as questions show it, when the graph's stored node texts were read at the
        # build (knowledge.node_texts), kept with the cached index; None: computed where needed
        self.displays: list[str] | None = None

    # ------------------------------------------------------------------ size and lookup
    @property
    def n_nodes(self) -> int:
        return len(self.names)

    @property
    def n_edges(self) -> int:
        return int(self.f_dst.shape[0])

    @property
    def node_ids(self) -> dict[str, int]:
        if self._node_ids is None:
            self._node_ids = {n: i for i, n in enumerate(self.names)}
        return self._node_ids

    def node(self, text: str) -> int | None:
        return self.node_ids.get(text)

    def _group(self, node: int, rel: int) -> tuple[int, int]:
        key = node * len(self.rel_names) + rel
        i = int(np.searchsorted(self.g_key, key))
        if i >= self.g_key.shape[0] or int(self.g_key[i]) != key:
            return 0, 0
        return int(self.g_start[i]), int(self.g_start[i + 1])

    def successors(self, node: int, rel: int) -> IntArray:
        a, b = self._group(node, rel)
        return self.f_dst[a:b]

    def successor_set(self, nodes: Iterable[int], rel: int) -> set[int]:
        out: set[int] = set()
        for n in nodes:
            a, b = self._group(n, rel)
            if b > a:
                out.update(self.f_dst[a:b].tolist())
        return out

    def edge_ref(self, head: int, rel: int, tail: int) -> int:
        a, b = self._group(head, rel)
        j = a + int(np.searchsorted(self.f_dst[a:b], tail))
        return int(self.f_ref[j]) if j < b and int(self.f_dst[j]) == tail else -1

    def out_edges(self, node: int) -> tuple[IntArray, IntArray]:
        a, b = int(self.f_off[node]), int(self.f_off[node + 1])
        return self.f_rel[a:b], self.f_dst[a:b]

    def in_edges(self, node: int) -> tuple[IntArray, IntArray]:
        """(relations, heads) of the edges into ``node``, best first (top-T order)."""
        a, b = int(self.b_off[node]), int(self.b_off[node + 1])
        return self.b_rel[a:b], self.b_src[a:b]

    def in_degree(self) -> IntArray:
        return np.diff(self.b_off)

    # ------------------------------------------------------------------ build
    @classmethod
    def build(
        cls,
        records: Iterable[Record],
        options: IndexOptions | None = None,
        merger: Callable[[list[str]], dict[str, str]] | None = None,
    ) -> GraphIndex:
        """The index of ``records``; with ``options.merge`` the node texts go through ``merger``
        (text -> the text it merges into) and edges that merging made a loop are dropped."""
        opts = options or IndexOptions()
        if opts.merge is not None and merger is None:
            raise ValueError("IndexOptions.merge needs a merger (commonsense.questions.graph_steps.node_merger)")
        rel_ids: dict[str, int] = {}
        hs: list[str] = []
        ts: list[str] = []
        rel = array("q")
        plaus, refs = array("d"), array("q")
        minp = opts.min_plausibility
        # Tails and heads repeat a lot: memoise the string work (the bulk of the build time).
        # tail_memo maps (raw relation, raw tail) to (relation id, node text), or None to drop.
        head_memo: dict[str, str] = {}
        tail_memo: dict[tuple[str, str], tuple[int, str] | None] = {}
        nan = float("nan")
        for rec in records:
            h, r, t = rec[0], rec[1], rec[2]
            n = len(rec)
            p = rec[3] if n > 3 else None
            if minp is not None and (p is None or p < minp):
                continue
            key = (r, t)
            if key in tail_memo:
                rt = tail_memo[key]
            else:
                rt = tail_memo[key] = cls._tail(r, t, opts, rel_ids)
            if rt is None:
                continue
            hn = head_memo.get(h)
            if hn is None:
                hn = head_memo[h] = clean(h) if opts.normalize else h.strip()
            if not hn or hn == rt[1]:
                continue
            hs.append(hn)
            ts.append(rt[1])
            rel.append(rt[0])
            plaus.append(nan if p is None else float(p))
            refs.append(int(rec[4]) if n > 4 and rec[4] is not None else -1)
        if opts.merge is not None and merger is not None:
            hs, ts, rel, plaus, refs = cls._merged(hs, ts, rel, plaus, refs, merger)
        # Interning in C (pandas.factorize) is several times faster than a dict loop at 1 M rows.
        import pandas as pd

        codes, uniques = pd.factorize(np.array(hs + ts, dtype=object), sort=False)
        codes = codes.astype(np.int64)
        m = len(hs)
        return cls._from_arrays([str(u) for u in uniques], list(rel_ids), codes[:m], rel, codes[m:], plaus, refs, opts)

    @staticmethod
    def _merged(
        hs: list[str],
        ts: list[str],
        rel: array[int],
        plaus: array[float],
        refs: array[int],
        merger: Callable[[list[str]], dict[str, str]],
    ) -> tuple[list[str], list[str], array[int], array[float], array[int]]:
        to = merger(sorted(set(hs) | set(ts)))
        keep = [i for i, (h, t) in enumerate(zip(hs, ts, strict=True)) if to.get(h, h) != to.get(t, t)]
        return (
            [to.get(hs[i], hs[i]) for i in keep],
            [to.get(ts[i], ts[i]) for i in keep],
            array("q", (rel[i] for i in keep)),
            array("d", (plaus[i] for i in keep)),
            array("q", (refs[i] for i in keep)),
        )

    @staticmethod
    def _tail(r: str, t: str, opts: IndexOptions, rel_ids: dict[str, int]) -> tuple[int, str] | None:
        if opts.drop_none and is_none(t):
            return None
        name = relations.canonical_name(r)
        text = normalize_tail(name, t) if opts.normalize else t.strip()
        if not text:
            return None
        return rel_ids.setdefault(name, len(rel_ids)), text

    @classmethod
    def _from_arrays(
        cls,
        names: list[str],
        rel_names: list[str],
        src: IntArray,
        rel_a: array[int],
        dst: IntArray,
        plaus_a: array[float],
        refs_a: array[int],
        opts: IndexOptions,
    ) -> GraphIndex:
        n, nr = len(names), max(len(rel_names), 1)
        rel = np.frombuffer(rel_a, dtype=np.int64) if len(rel_a) else np.zeros(0, np.int64)
        plaus = np.frombuffer(plaus_a, dtype=np.float64) if len(plaus_a) else np.zeros(0)
        refs = np.frombuffer(refs_a, dtype=np.int64) if len(refs_a) else np.zeros(0, np.int64)
        # Forward order (head, relation, tail); duplicates keep their best plausibility.
        score = np.where(np.isnan(plaus), -1.0, plaus)
        order = np.lexsort((-score, dst, rel, src))
        src, rel, dst, score, refs = src[order], rel[order], dst[order], score[order], refs[order]
        keep = np.ones(src.shape[0], dtype=bool)
        if src.shape[0]:
            keep[1:] = (src[1:] != src[:-1]) | (rel[1:] != rel[:-1]) | (dst[1:] != dst[:-1])
        src, rel, dst, score, refs = src[keep], rel[keep], dst[keep], score[keep], refs[keep]
        f_off = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(np.bincount(src, minlength=n), out=f_off[1:])
        gkey = src * nr + rel
        starts = np.flatnonzero(np.r_[True, gkey[1:] != gkey[:-1]]) if gkey.shape[0] else np.zeros(0, np.int64)
        g_key = gkey[starts]
        g_start = np.r_[starts, gkey.shape[0]].astype(np.int64)
        # Backward order: per tail, plausibility desc, then a fixed pseudo-random tie-break.
        tie = np.random.default_rng(0).permutation(src.shape[0])
        border = np.lexsort((tie, -score, dst))
        b_off = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(np.bincount(dst, minlength=n), out=b_off[1:])
        arrays: dict[str, IntArray] = {
            "f_off": f_off,
            "f_rel": rel.astype(np.int64),
            "f_dst": dst.astype(np.int64),
            "f_ref": refs,
            "g_key": g_key.astype(np.int64),
            "g_start": g_start,
            "b_off": b_off,
            "b_rel": rel[border].astype(np.int64),
            "b_src": src[border].astype(np.int64),
            "tail_nodes": np.flatnonzero(np.diff(b_off) > 0).astype(np.int64),
        }
        return cls(names, rel_names, arrays, opts)

    # ------------------------------------------------------------------ disk cache
    def save(self, path: str | Path) -> None:
        blob = "\n".join(self.names).encode("utf-8")
        arrays = {
            k: getattr(self, k)
            for k in ("f_off", "f_rel", "f_dst", "f_ref", "g_key", "g_start", "b_off", "b_rel", "b_src", "tail_nodes")
        }
        meta = json.dumps(
            {
                "version": FORMAT_VERSION,
                "rel_names": self.rel_names,
                "options": asdict(self.options),
                **({"edge_tally": self.edge_tally} if self.edge_tally is not None else {}),
            }
        )
        p = Path(path)
        p.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=p.parent, suffix=".npz.tmp")
        os.close(fd)
        if self.displays is not None:
            arrays["displays"] = np.frombuffer("\n".join(self.displays).encode("utf-8"), dtype=np.uint8)
        with open(tmp, "wb") as fh:
            np.savez(
                fh,
                names=np.frombuffer(blob, dtype=np.uint8),
                meta=np.frombuffer(meta.encode(), dtype=np.uint8),
                **arrays,
            )
        os.replace(tmp, p)  # atomic: a reader never sees half a file

    @classmethod
    def load(cls, path: str | Path) -> GraphIndex:
        with np.load(path, allow_pickle=False) as z:
            meta = json.loads(z["meta"].tobytes().decode())
            if meta.get("version") != FORMAT_VERSION:
                raise ValueError(f"{path}: index format {meta.get('version')} != {FORMAT_VERSION}")
            blob = z["names"].tobytes().decode("utf-8")
            shown = z["displays"].tobytes().decode("utf-8") if "displays" in z.files else None
            arrays = {k: z[k] for k in z.files if k not in ("names", "meta", "displays")}
        names = blob.split("\n") if blob else []
        index = cls(names, list(meta["rel_names"]), arrays, IndexOptions(**meta["options"]))
        if shown is not None:
            index.displays = shown.split("\n") if names else []
        if "edge_tally" in meta:
            index.edge_tally = [(str(r), str(s), str(w), int(n)) for r, s, w, n in meta["edge_tally"]]
        return index

    @classmethod
    def cached(
        cls,
        cache_dir: str | Path,
        fingerprint: str,
        records: Iterable[Record] | Any,
        options: IndexOptions | None = None,
        annotate: Any = None,
        merger: Callable[[list[str]], dict[str, str]] | None = None,
    ) -> GraphIndex:
        """Load the index for ``fingerprint`` (a content hash of the graph chosen by the caller)
        and ``options`` from ``cache_dir``, or build it from ``records`` (an iterable, or a
        zero-argument callable returning one, so nothing is read on a cache hit) and store it.
        ``annotate`` (a callable taking the index) runs after a build, before the index is saved."""
        opts = options or IndexOptions()
        digest = hashlib.sha256(f"{fingerprint}\0{opts.key()}\0{FORMAT_VERSION}".encode()).hexdigest()[:24]
        path = Path(cache_dir) / f"index-{digest}.npz"
        if path.exists():
            try:
                return cls.load(path)
            except (OSError, ValueError, KeyError):
                path.unlink(missing_ok=True)  # a corrupt or outdated cache file is rebuilt
        index = cls.build(records() if callable(records) else records, opts, merger)
        if annotate is not None:
            annotate(index)
        index.save(path)
        return index


def file_fingerprint(path: str | Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()
