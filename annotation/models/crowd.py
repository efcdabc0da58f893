"""Crowd studies: a campaign opened to a crowd platform (Prolific, MTurk, any panel) through a
study link, and the password-less participants that link creates.

A participant is a Django user without a role (so no annotator, researcher or admin page lets them
in) bound one-to-one to a :class:`Participant` row: (campaign, platform, participant id as the
platform gave it). The crowd pages (:mod:`annotation.crowd.views.participant`) admit that user for that campaign only.
Imported by :mod:`annotation.models`, so Django registers these models with the ``annotation`` app.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models

from annotation.models.campaigns import Campaign

DEMOGRAPHIC_FIELDS = ("age_band", "gender", "country", "language", "education")


class CrowdStudy(models.Model):
    """What a campaign shows crowd participants around the items."""

    campaign = models.OneToOneField(Campaign, on_delete=models.CASCADE, related_name="crowd")
    consent_text = models.TextField(
        default="This is a research study. Your answers are stored without your name and used for research only. "
        "You may stop at any time."
    )
    examples = models.JSONField(
        default=list, blank=True, help_text='worked examples: [{"text": …, "answer": …, "why": …}]'
    )
    demographics = models.JSONField(default=list, blank=True, help_text=f"fields asked, of {DEMOGRAPHIC_FIELDS}")
    qualification_attempts = models.PositiveSmallIntegerField(default=2, help_text="attempts allowed (Prolific: 2)")
    completion_url = models.URLField(
        max_length=500, blank=True, help_text="where a finished participant is sent; {code} is replaced by their code"
    )
    return_url = models.URLField(max_length=500, blank=True, help_text="where someone who declines is sent")
    screenout_code = models.CharField(
        max_length=64,
        blank=True,
        help_text="the platform's code for screened-out participants (Prolific: a completion code with the "
        "'screened out' status), shown to whom the qualification or the attention checks screen out",
    )
    screenout_url = models.URLField(
        max_length=500,
        blank=True,
        help_text="where a screened-out participant is sent; {code} is replaced by the screen-out code",
    )

    def __str__(self) -> str:
        return f"crowd study of {self.campaign_id}"


class Participant(models.Model):
    class Platform(models.TextChoices):
        PROLIFIC = "prolific", "Prolific"
        MTURK = "mturk", "Amazon Mechanical Turk"
        OTHER = "other", "Other panel"

    class Stage(models.TextChoices):
        CONSENT = "consent", "Consent"
        INSTRUCTIONS = "instructions", "Instructions"
        DEMOGRAPHICS = "demographics", "Demographics"
        ITEMS = "items", "Items"
        FINISHED = "finished", "Finished"
        RETURNED = "returned", "Returned (declined)"
        SCREENED_OUT = "screened_out", "Screened out"

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="participants")
    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="crowd_participant")
    platform = models.CharField(max_length=16, choices=Platform.choices)
    external_id = models.CharField(max_length=200, help_text="the platform's participant id, as given")
    study_ref = models.CharField(max_length=200, blank=True, help_text="Prolific STUDY_ID / MTurk hitId")
    session_ref = models.CharField(max_length=200, blank=True, help_text="Prolific SESSION_ID / MTurk assignmentId")
    stage = models.CharField(max_length=16, choices=Stage.choices, default=Stage.CONSENT)
    demographics = models.JSONField(default=dict, blank=True)
    qualification_scores = models.JSONField(default=list, blank=True, help_text="scores of earlier failed attempts")
    completion_code = models.CharField(max_length=32, unique=True, null=True, blank=True)
    claim = models.CharField(max_length=32, blank=True, help_text="the browser session that holds this participant")
    last_seen_at = models.DateTimeField(null=True, blank=True)
    started_at = models.DateTimeField(auto_now_add=True)
    consented_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["campaign", "platform", "external_id"], name="participant_once_per_id"),
            # one participant per platform session (Prolific STUDY_ID + SESSION_ID, MTurk hitId + assignmentId)
            models.UniqueConstraint(
                fields=["campaign", "platform", "study_ref", "session_ref"],
                condition=~models.Q(session_ref=""),
                name="participant_once_per_session",
            ),
        ]
        indexes = [models.Index(fields=["campaign", "stage"], name="participant_stage")]

    def __str__(self) -> str:
        return f"{self.platform}:{self.pk}"
