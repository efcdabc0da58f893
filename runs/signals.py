"""Signals of the runs app, for the apps above it (which runs must not import): the one way a
lower app tells the ones above it (docs/ARCHITECTURE.md, "Layers")."""

from __future__ import annotations

from django.dispatch import Signal

# Sent with ``run_id`` by the evaluation loop once a run is DONE (its predictions and metrics stored),
# from the worker that ran it; a receiver's failure is logged and never fails the run.
run_finished = Signal()

# Sent with ``tick`` (seconds between ticks) and ``queue`` (the housekeeping queue) by the
# housekeeping timer of the default worker (runs/tasks.py HousekeepingTicker), after it sent the
# runs' and builds' sweeps: an app above runs enqueues its own periodic work (explorer: the survey
# warm-up). Sent robustly: a receiver's failure is logged, the other receivers still run.
housekeeping_tick = Signal()

# Sent with ``statement_set`` by whoever needs its human ratings (the NWW population report of
# ``run_eval``: runs/selectors/nww_population.py ``human_ratings``); a receiver (annotation: the
# set's latest survey campaign) returns a ``HumanRatings`` or None.
human_ratings_wanted = Signal()
