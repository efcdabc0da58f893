"""The oracle of the NWW reproduction tests: Table C.1 of Nguyen, Watts & Whiting (computed on the
full 4,407-statement corpus) as model -> (consensus C, awareness A, commonsensicality M) in %. The
transcription itself is written once, in commonsense/metrics/nww_paper.py (the pages state the
paper's figures beside ours from it). Read by tests/commonsense/test_nww_reproduction.py (the metrics
on the CSV's binary answers) and tests/runs/test_replay_paper.py (the same answers replayed through
real runs)."""

from __future__ import annotations

from commonsense.metrics.nww_paper import TABLE_C1 as PAPER_C1

TABLE_C1: dict[str, tuple[float, float, float]] = {r.model: (r.C, r.A, r.M) for r in PAPER_C1}
