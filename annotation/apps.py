from typing import Any

from django.apps import AppConfig


def _question_set_human_quality(sender: Any, *, question_set: Any, **kwargs: Any) -> Any:
    from annotation.selectors.verdicts import question_set_human_quality

    return question_set_human_quality(question_set)


def _human_ratings(sender: Any, *, statement_set: Any, **kwargs: Any) -> Any:
    from annotation.selectors.surveys import survey_ratings

    return survey_ratings(statement_set)


def _question_set_export_refused(sender: Any, *, question_set: Any, user: Any, fmt: str, **kwargs: Any) -> Any:
    from annotation.selectors.export_access import question_set_export_refusal

    return question_set_export_refusal(question_set, user, fmt)


def _question_set_human_part(sender: Any, *, question_set: Any, **kwargs: Any) -> Any:
    from annotation.selectors.publication import question_set_human_part

    return question_set_human_part(question_set)


class AnnotationConfig(AppConfig):
    name = "annotation"

    def ready(self) -> None:
        """Answer the lower apps' signals: a question set's human quality (knowledge), a statement
        set's human ratings (runs); and contribute the human part of a published set."""
        from knowledge.signals import (
            question_set_export_refused,
            question_set_human_part_wanted,
            question_set_human_quality_wanted,
        )
        from runs.signals import human_ratings_wanted

        question_set_human_quality_wanted.connect(_question_set_human_quality, dispatch_uid="annotation-human-quality")
        human_ratings_wanted.connect(_human_ratings, dispatch_uid="annotation-human-ratings")
        question_set_human_part_wanted.connect(_question_set_human_part, dispatch_uid="annotation-human-part")
        question_set_export_refused.connect(_question_set_export_refused, dispatch_uid="annotation-export-refused")
