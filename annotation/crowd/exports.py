"""The participant export a payment or bonus upload needs: one CSV row per crowd participant
(platform id as given, platform, study and session, stage, started, finished, items answered,
attention checks, qualification score, completion code, the annotator model's estimates - Dawid-Skene
accuracy, sensitivity and specificity, MACE competence, a likely-spammer flag - and the demographics
that were asked)."""

from __future__ import annotations

import csv
import io

from annotation.crowd.selectors import person_rows
from annotation.crowd.services import study_of
from annotation.models import AnnotatorQuality, Campaign

COLUMNS = [
    "participant_id",
    "platform",
    "study_id",
    "session_id",
    "stage",
    "started",
    "finished",
    "items_answered",
    "time_on_items_s",
    "attention_passed",
    "attention_failed",
    "qualification_score",
    "qualification_attempts",
    "completion_code",
    "ds_accuracy",
    "ds_sensitivity",
    "ds_specificity",
    "mace_competence",
    "quality_flag",
]
_FORMULA = ("=", "+", "-", "@", "\t", "\r")


def _cell(value: object) -> str:
    """A participant id from another panel is free text: one that a spreadsheet would run as a
    formula gets a leading apostrophe (OWASP's CSV-injection advice)."""
    s = "" if value is None else str(value)
    return "'" + s if s.startswith(_FORMULA) else s


def _quality_cells(q: AnnotatorQuality | None) -> list[object]:
    if q is None:
        return ["", "", "", "", ""]
    return [
        round(q.accuracy, 4),
        round(q.ds_sensitivity, 4),
        round(q.ds_specificity, 4),
        round(q.mace_competence, 4),
        q.flag,
    ]


def participants_csv(campaign: Campaign) -> str:
    asked = list(study_of(campaign).demographics)
    out = io.StringIO()
    w = csv.writer(out)
    w.writerow(COLUMNS + asked)
    for r in person_rows(campaign):
        w.writerow(
            [
                _cell(r.who),
                r.platform,
                _cell(r.study_ref),
                _cell(r.session_ref),
                r.stage,
                r.started.isoformat() if r.started else "",
                r.finished.isoformat() if r.finished else "",
                r.items_answered,
                round(r.time_on_items_s, 1),
                r.attention_passed,
                r.attention_failed,
                "" if r.qualification_score is None else round(r.qualification_score, 4),
                r.qualification_attempts,
                r.completion_code,
                *_quality_cells(r.quality),
            ]
            + [_cell(r.demographics.get(f, "")) for f in asked]
        )
    return out.getvalue()
