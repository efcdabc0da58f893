"""Signals of the runs app, for the apps above it (which runs must not import)."""

from __future__ import annotations

from django.dispatch import Signal

# Sent with ``run_id`` by the evaluation loop once a run is DONE (its predictions and metrics stored),
# from the worker that ran it; a receiver's failure is logged and never fails the run.
run_finished = Signal()
