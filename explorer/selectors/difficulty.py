"""ReComSBench difficulty on the model-error pages: accuracy per difficulty bucket d(Q), the
core windows by the run metrics' definition (rank sums read in one statement), and sliding
windows over buckets."""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from typing import TypedDict

from django.db import connection
from django.db.models import (
    Exists,
    OuterRef,
)

from commonsense.metrics.recoms import window_bounds
from explorer.selectors.run_aggregates import each_finished_run, per_finished_runs
from runs.models import Prediction, Run

# Each dimension is a column copied from the question when the prediction was stored
# (runs.item_facets), read from the covering index ``prediction_item_facets``.

_PRED = Prediction._meta.db_table


class DifficultyBucket(TypedDict):
    bucket: int
    n: int
    ok: int
    d_sum: float
    d_min: int
    d_max: int


class DifficultyWindow(TypedDict):
    window: int
    first_bucket: int
    last_bucket: int
    n: int
    accuracy: float | None
    mean_d: float | None
    d_min: int
    d_max: int


# -- ReComSBench --------------------------------------------------------------------------------


def runs_with_difficulty(runs: Sequence[Run]) -> set[int]:
    """The ids of those ``runs`` with a prediction that has a difficulty d(Q): the runs whose
    ReComSBench panels are shown. One statement, an index probe per run."""
    return set(_difficulty_present(runs))


@each_finished_run("with-difficulty")
def _difficulty_present(runs: Sequence[Run]) -> dict[int, bool]:
    ids = sorted({int(r.pk) for r in runs})
    if not ids:
        return {}
    has = Exists(Prediction.objects.filter(run_id=OuterRef("pk"), item_difficulty__isnull=False))
    return dict.fromkeys(Run.objects.filter(pk__in=ids).filter(has).values_list("pk", flat=True), True)


@per_finished_runs("difficulty")
def difficulty_buckets(runs: Sequence[Run], n_buckets: int = 9) -> dict[int, list[DifficultyBucket]]:
    """Items sorted by difficulty d(Q) (ties by position) cut into ``n_buckets`` equal ranks (rank
    r of N goes to bucket r * n_buckets // N), per run: [{bucket, n, ok, d_sum, d_min, d_max}].
    ReComSBench's windows (length N/3, step N/9) are three consecutive buckets.

    Two queries in the order of the ``prediction_difficulty`` index (run, item_difficulty,
    position, correct), with no sort or window function: the counts per difficulty value, then,
    for each difficulty value a bucket boundary cuts, the correct answers among its first k
    items (by position)."""
    run_ids = sorted({int(r.pk) for r in runs})
    if not run_ids:
        return {}
    marks = ", ".join(["%s"] * len(run_ids))
    table = Prediction._meta.db_table
    groups: dict[int, list[tuple[int, int, int]]] = {}  # run -> [(d, n, ok)] in d order
    with connection.cursor() as cur:
        cur.execute(
            f"SELECT run_id, item_difficulty, COUNT(*), SUM(CASE WHEN correct THEN 1 ELSE 0 END) FROM {table} "
            f"WHERE run_id IN ({marks}) AND item_difficulty IS NOT NULL "
            "GROUP BY run_id, item_difficulty ORDER BY run_id, item_difficulty",
            run_ids,
        )
        for run_id, d, n, ok in cur.fetchall():
            groups.setdefault(int(run_id), []).append((int(d), int(n), int(ok or 0)))
        pieces = {rid: _bucket_pieces(gs, n_buckets) for rid, gs in groups.items()}
        cuts: set[tuple[int, int, int]] = set()  # (run, d, k): a boundary after the first k items of d
        for rid, ps in pieces.items():
            size = {d: n for d, n, _ in groups[rid]}
            cuts.update((rid, d, k) for _, d, k0, k1 in ps for k in (k0, k1) if 0 < k < size[d])
        ordered = sorted(cuts)
        ok_first: dict[tuple[int, int, int], int] = {}  # correct answers among the first k items of d
        if ordered:
            part = (
                f"SELECT %s AS i, (SELECT SUM(CASE WHEN correct THEN 1 ELSE 0 END) FROM (SELECT correct FROM {table} "
                "WHERE run_id = %s AND item_difficulty = %s ORDER BY position LIMIT %s) f) AS ok"
            )
            cur.execute(" UNION ALL ".join([part] * len(ordered)), [x for i, c in enumerate(ordered) for x in (i, *c)])
            ok_first = {ordered[int(i)]: int(ok or 0) for i, ok in cur.fetchall()}
    out: dict[int, list[DifficultyBucket]] = {}
    for rid, ps in pieces.items():
        size_ok = {d: (n, ok) for d, n, ok in groups[rid]}

        def ok_until(d: int, k: int, rid: int = rid, size_ok: dict[int, tuple[int, int]] = size_ok) -> int:
            n, ok = size_ok[d]
            return 0 if k == 0 else ok if k == n else ok_first[(rid, d, k)]

        buckets: dict[int, DifficultyBucket] = {}
        for b, d, k0, k1 in ps:
            bk = buckets.setdefault(b, DifficultyBucket(bucket=b, n=0, ok=0, d_sum=0.0, d_min=d, d_max=d))
            bk["n"] += k1 - k0
            bk["ok"] += ok_until(d, k1) - ok_until(d, k0)
            bk["d_sum"] += float(d * (k1 - k0))
            bk["d_max"] = d
        out[rid] = [buckets[b] for b in sorted(buckets)]
    return out


class CoreWindow(TypedDict):
    """A difficulty window of a run as its metrics table defines it, with its KBA."""

    window: int
    start: int
    stop: int
    d_min: int
    d_max: int
    mean_d: float
    n: int
    accuracy: float
    kba: float | None


# The items of the windows, as the partial index ``prediction_core_windows`` holds them: a question
# with a difficulty and a known answer, no scoring error (item_answer is the question's answer_index).
_WINDOW_ITEMS = "item_difficulty IS NOT NULL AND item_answer IS NOT NULL AND error = ''"
_WINDOW_SUMS = (
    "SUM(CASE WHEN correct THEN 1 ELSE 0 END), SUM(CASE WHEN kba_correct IS NOT NULL THEN 1 ELSE 0 END), "
    "SUM(CASE WHEN kba_correct THEN 1 ELSE 0 END)"
)


@each_finished_run("core-windows")
def core_windows(runs: Sequence[Run]) -> dict[int, list[CoreWindow]]:
    """Per run, ReComSBench's windows by the same definition as the run's metrics table
    (commonsense.metrics.recoms.window_bounds: the questions with a difficulty and a known answer,
    failed items left out, sorted by d(Q) with ties in item order, the paper's seven windows of N/3
    items at step N/9, the last ending at N).

    Two statements in the order of the ``prediction_core_windows`` index (run, item_difficulty,
    position, correct, kba_correct), with no sort and no row per prediction (as
    :func:`difficulty_buckets`): the sums per difficulty value (items, correct, KBA answered, KBA
    correct), then, for each difficulty value a window boundary falls inside, the same sums over
    its first k items by position. A window's figures are differences of those running sums."""
    run_ids = sorted({int(r.pk) for r in runs})
    if not run_ids:
        return {}
    marks = ", ".join(["%s"] * len(run_ids))
    groups: dict[int, list[tuple[int, int, tuple[int, int, int]]]] = {}  # run -> [(d, n, sums)] in d order
    with connection.cursor() as cur:
        cur.execute(
            f"SELECT run_id, item_difficulty, COUNT(*), {_WINDOW_SUMS} FROM {_PRED} "
            f"WHERE run_id IN ({marks}) AND {_WINDOW_ITEMS} "
            "GROUP BY run_id, item_difficulty ORDER BY run_id, item_difficulty",
            run_ids,
        )
        for run_id, d, n, ok, kba_n, kba_ok in cur.fetchall():
            groups.setdefault(int(run_id), []).append(
                (int(d), int(n), (int(ok or 0), int(kba_n or 0), int(kba_ok or 0)))
            )
        ranks = {rid: _RankSums(gs) for rid, gs in groups.items()}
        bounds = {rid: window_bounds(rs.total) for rid, rs in ranks.items()}
        cuts = sorted(  # (run, d, k): a boundary after the first k > 0 items of value d
            {(rid, *c) for rid, rs in ranks.items() for ab in bounds[rid] for c in map(rs.inside, ab) if c is not None}
        )
        if cuts:
            part = (
                f"SELECT %s AS i, f.* FROM (SELECT {_WINDOW_SUMS} FROM (SELECT correct, kba_correct FROM {_PRED} "
                f"WHERE run_id = %s AND item_difficulty = %s AND {_WINDOW_ITEMS} ORDER BY position LIMIT %s) g) f"
            )
            cur.execute(" UNION ALL ".join([part] * len(cuts)), [x for i, c in enumerate(cuts) for x in (i, *c)])
            for i, ok, kba_n, kba_ok in cur.fetchall():
                rid, d, k = cuts[int(i)]
                ranks[rid].first[(d, k)] = (int(ok or 0), int(kba_n or 0), int(kba_ok or 0))
    out: dict[int, list[CoreWindow]] = {}
    for rid, rs in ranks.items():
        wins = []
        for i, (a, b) in enumerate(bounds[rid]):
            (ok_a, kn_a, kok_a), (ok_b, kn_b, kok_b) = rs.sums(a), rs.sums(b)
            n, kba_n = b - a, kn_b - kn_a
            wins.append(
                CoreWindow(
                    window=i,
                    start=a,
                    stop=b,
                    d_min=rs.value_at(a),
                    d_max=rs.value_at(b - 1),
                    mean_d=(rs.d_sum(b) - rs.d_sum(a)) / n,
                    n=n,
                    accuracy=(ok_b - ok_a) / n,
                    kba=(kok_b - kok_a) / kba_n if kba_n else None,
                )
            )
        out[rid] = wins
    return out


class _RankSums:
    """Running sums over a run's window items in (d, position) order, from the sums per difficulty
    value and the sums over the first k items of the values a boundary falls inside (``first``)."""

    def __init__(self, groups: Sequence[tuple[int, int, tuple[int, int, int]]]) -> None:
        self.values = [d for d, _, _ in groups]
        self.starts, self.before, self.d_before = [0], [(0, 0, 0)], [0]  # per group: what precedes it
        for d, n, (ok, kba_n, kba_ok) in groups:
            s0, s1, s2 = self.before[-1]
            self.starts.append(self.starts[-1] + n)
            self.before.append((s0 + ok, s1 + kba_n, s2 + kba_ok))
            self.d_before.append(self.d_before[-1] + d * n)
        self.total = self.starts[-1]
        self.first: dict[tuple[int, int], tuple[int, int, int]] = {}  # (d, k) -> sums over its first k items

    def _locate(self, rank: int) -> tuple[int, int]:
        """(group index, offset in it) of the item at ``rank``; (number of groups, 0) for rank = total."""
        g = bisect.bisect_right(self.starts, rank) - 1
        return g, rank - self.starts[g]

    def value_at(self, rank: int) -> int:
        return self.values[self._locate(rank)[0]]

    def inside(self, rank: int) -> tuple[int, int] | None:
        """(d, k) when ``rank`` falls after the first k > 0 items of value d, else None."""
        g, k = self._locate(rank)
        return (self.values[g], k) if k else None

    def sums(self, rank: int) -> tuple[int, int, int]:
        """(correct, KBA answered, KBA correct) over the items before ``rank``."""
        g, k = self._locate(rank)
        s0, s1, s2 = self.before[g]
        p0, p1, p2 = self.first[(self.values[g], k)] if k else (0, 0, 0)
        return s0 + p0, s1 + p1, s2 + p2

    def d_sum(self, rank: int) -> int:
        """The sum of d(Q) over the items before ``rank``."""
        g, k = self._locate(rank)
        return self.d_before[g] + (self.values[g] * k if k else 0)


def _bucket_pieces(groups: Sequence[tuple[int, int, int]], n_buckets: int) -> list[tuple[int, int, int, int]]:
    """Cut difficulty groups [(d, n, ok)] (in d order, items of a group in position order) at the
    bucket boundaries: [(bucket, d, k0, k1)] = items k0..k1-1 of group d are in the bucket. Rank r
    of N items is in bucket r * n_buckets // N."""
    total = sum(n for _, n, _ in groups)
    out = []
    start = 0
    for d, n, _ in groups:
        r = start
        while r < start + n:
            b = r * n_buckets // total
            next_bucket_at = -(-(b + 1) * total // n_buckets)  # the first rank of bucket b + 1
            stop = min(start + n, next_bucket_at)
            out.append((b, d, r - start, stop - start))
            r = stop
        start += n
    return out


def sliding_windows(buckets: Sequence[DifficultyBucket], width: int = 3) -> list[DifficultyWindow]:
    """Windows of ``width`` consecutive buckets (step one bucket): mean difficulty and accuracy."""
    out = []
    for i in range(0, max(len(buckets) - width + 1, 0)):
        part = buckets[i : i + width]
        n = sum(b["n"] for b in part)
        out.append(
            DifficultyWindow(
                window=i,
                first_bucket=part[0]["bucket"],
                last_bucket=part[-1]["bucket"],
                n=n,
                accuracy=sum(b["ok"] for b in part) / n if n else None,
                mean_d=sum(b["d_sum"] for b in part) / n if n else None,
                d_min=part[0]["d_min"],
                d_max=part[-1]["d_max"],
            )
        )
    return out
