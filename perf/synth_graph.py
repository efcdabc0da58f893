"""Synthesize an ATOMIC-2020-sized graph as an ATOMIC TSV (head<TAB>relation<TAB>tail), seeded.

The shape follows the developer sample ``../shared/data/atomic2020_sample/atomic2020_triples.tsv``:

* every synthetic head copies the relation/tail-count profile of a random sample head, so the
  relation mix and the number of tails per (head, relation) group match the sample;
* head and tail strings are sample strings with one or two words swapped for other sample words,
  so their lengths and styles ("to go home", "none", "PersonX's") match;
* tails are shared: a new tail reuses a skewed pick from its relation's pool with probability
  ``share`` (so intersections 2i/3i exist), and about ``chain`` of the event heads are the
  COM2-normalised form of an earlier tail (so projection chains 2p/ip/pi exist after
  normalisation).

    .venv/bin/python perf/synth_graph.py OUT.tsv [--triples 1330000] [--seed 0]
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from commonsense.kg.normalize import normalize_tail  # noqa: E402

SAMPLE = Path(os.environ.get("COCOWEB_SHARED_DATA", ROOT.parent / "shared" / "data")) / (
    "atomic2020_sample/atomic2020_triples.tsv"
)
_KEEP = {"PersonX", "PersonY", "PersonX's", "PersonY's", "to", "___", "none"}
_SOCIAL = ("xWant", "oWant", "xIntent", "xNeed", "xEffect", "oEffect", "xReact", "oReact", "xAttr")


def _load(sample: Path) -> list[tuple[str, str, str]]:
    rows = []
    with sample.open(encoding="utf-8") as fh:
        for line in fh:
            cols = line.rstrip("\n").split("\t")
            if len(cols) == 3 and all(cols):
                rows.append((cols[0], cols[1], cols[2]))
    if not rows:
        raise ValueError(f"{sample}: no triples")
    return rows


def _mutate(rng: random.Random, text: str, vocab: list[str], n: int) -> str:
    words = text.split()
    slots = [i for i, w in enumerate(words) if w not in _KEEP and not (i == 0 and w.lower() == "to")]
    if not slots:
        return text
    for i in rng.sample(slots, min(n, len(slots))):
        words[i] = rng.choice(vocab)
    return " ".join(words)


def synthesize(
    path: str | Path,
    n_triples: int = 1_330_000,
    seed: int = 0,
    *,
    sample: str | Path | None = None,
    share: float = 0.6,
    chain: float = 0.3,
) -> Path:
    """Write ``n_triples`` synthetic triples to ``path`` and return it. Same seed, same bytes."""
    rng = random.Random(seed)
    rows = _load(Path(sample) if sample else SAMPLE)
    profiles: dict[str, list[tuple[str, list[str]]]] = {}
    groups: dict[tuple[str, str], list[str]] = defaultdict(list)
    for h, r, t in rows:
        groups[(h, r)].append(t)
    for (h, r), tails in groups.items():
        profiles.setdefault(h, []).append((r, tails))
    heads = sorted(profiles)
    vocab = sorted({w for h, _, t in rows for w in (h + " " + t).split() if w.isalpha() and w.islower()})
    pools: dict[str, list[str]] = defaultdict(list)
    chainable: list[tuple[str, str]] = []
    seen_heads: set[str] = set()
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    written = 0
    with out.open("w", encoding="utf-8", newline="\n") as fh:
        while written < n_triples:
            template = rng.choice(heads)
            event = template.startswith("PersonX")
            head = ""
            if event and chainable and rng.random() < chain:
                r, t = chainable[rng.randrange(len(chainable))]
                head = normalize_tail(r, t)
            if not head or head in seen_heads:
                head = _mutate(rng, template, vocab, 1 + rng.randrange(2))
                while head in seen_heads:
                    head = _mutate(rng, template, vocab, 2)
                    if head in seen_heads:
                        head = f"{head} {rng.choice(vocab)}"
            seen_heads.add(head)
            lines = []
            for r, tails in profiles[template]:
                used: set[str] = set()
                for t0 in tails:
                    t = ""
                    if t0 == "none":
                        t = "none"
                    elif pools[r] and rng.random() < share:
                        pool = pools[r]
                        t = pool[int(len(pool) * rng.random() ** 3)]  # skewed: early tails are popular
                    if not t or t in used:
                        t = _mutate(rng, t0, vocab, 1)
                        pools[r].append(t)
                        if r in _SOCIAL:
                            chainable.append((r, t))
                    if t in used:
                        continue
                    used.add(t)
                    lines.append(f"{head}\t{r}\t{t}\n")
            take = lines[: n_triples - written]
            fh.writelines(take)
            written += len(take)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out")
    ap.add_argument("--triples", type=int, default=1_330_000)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    t0 = time.perf_counter()
    p = synthesize(args.out, n_triples=args.triples, seed=args.seed)
    print(f"{args.triples:,} triples -> {p} ({p.stat().st_size / 1e6:.0f} MB) in {time.perf_counter() - t0:.1f} s")


if __name__ == "__main__":
    main()
