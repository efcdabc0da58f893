"""Where the explorer's data from other apps comes from, behind one named interface per need.

``runs`` provides runs and predictions; ``annotation`` provides human votes, agreement and final
labels. Each function here says what it returns; when the app behind it offers nothing yet it
returns an "unavailable" value (and the page says so) instead of inventing data.
"""

from __future__ import annotations

from django.apps import apps


def runs_available() -> bool:
    return apps.is_installed("runs") and _has_model("runs", "Prediction")


def annotation_available() -> bool:
    """True once the functions below read the annotation app's models (they do not yet: its models
    have not landed; see the module docstring)."""
    return False


def _has_model(app: str, model: str) -> bool:
    try:
        apps.get_model(app, model)
    except LookupError:
        return False
    return True


# -- human judgements (the annotation app) ------------------------------------------------------
# Until the annotation app stores campaigns, responses and final labels, these return "nothing"
# and the pages say what is missing. They are the only place the explorer reads annotation data.

AGREEMENT_PENDING = ("No human agreement levels yet: they come from the annotation app's MCQA validation "
                     "campaigns (final labels with their agreement).")
HUMAN_SCORES_PENDING = ("No human rater scores yet: the distribution of raters' commonsensicality comes from a "
                        "survey campaign in the annotation app.")
HUMAN_RATES_NOTE = ("Human side: the statement's stored human majority (0/1). Per-statement agree rates replace it "
                    "once survey answers exist in the annotation app.")
VALIDATION_STATUSES = ("unvalidated", "in-progress", "validated", "adjudicated", "rejected")


def validation_choices() -> list[str]:
    return list(VALIDATION_STATUSES) if annotation_available() else []


def questions_with_validation(qs, status: str):  # type: ignore[no-untyped-def]
    """Filter questions by their validation status; without the annotation app every question is
    "unvalidated"."""
    return qs if status == "unvalidated" else qs.none()


def question_votes(question_ids: list[int]) -> dict[int, dict[str, object]]:
    """question id -> {"votes": [per-option counts], "raters": n, "agreement": x, "label": provenance}."""
    return {}


def statement_votes(statement_ids: list[int]) -> dict[int, dict[str, object]]:
    """statement id -> {"agree_rate": d_a, "predict_rate": d_b, "raters": n}."""
    return {}


def agreement_levels_for_run(run) -> list[dict[str, object]]:  # type: ignore[no-untyped-def]
    """[{run, group: agreement level, n, ok}] for the run's questions with final human labels."""
    return []


def human_commonsensicality(statement_set) -> list[float]:  # type: ignore[no-untyped-def]
    """Every rater's commonsensicality M_j on the statement set's survey campaign(s)."""
    return []
