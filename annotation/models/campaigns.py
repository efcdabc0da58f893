"""Annotation campaigns: items copied from a statement set, a question set, a RICA probe set or
the generated answers of a ``generate-answer`` run;
who takes part; reservations (assignments) with a time-to-live; responses; adjudications; and the
final label of every item with its provenance.

Invariants the services keep (and the database enforces where it can):

- ``Item.slots_taken`` counts accepted answers plus live reservations of a regular item and never
  exceeds ``Item.answers_wanted`` (a conditional ``UPDATE … WHERE slots_taken < answers_wanted``),
  which starts at the campaign's minimum (``redundancy``) and, for an MCQA item that is not settled
  yet, grows by one answer at a time up to the campaign's maximum (adaptive redundancy, issue 26:
  :func:`commonsense.annotators.settle`).
- One assignment and at most one response per (item, person): an item is never shown twice to
  the same person and a retried submit stores one answer (``Response.idempotency_key`` too).
- At most one live reservation per (campaign, person) (a partial unique index).
"""

from __future__ import annotations

import secrets

from django.conf import settings
from django.db import models
from django.db.models import Q

from knowledge.models import Question, QuestionSet, Statement, StatementSet


class Campaign(models.Model):
    class Kind(models.TextChoices):
        SURVEY = "survey", "Commonsensicality survey (NWW)"
        MCQA = "mcqa", "Multiple-choice validation (COM2)"
        RICA = "rica", "RICA statement pairs"
        GENERATION = "generation", "Judge generated answers (COM2 human evaluation)"
        REVIEW = "review", "Blind review of settled validation items"

    class Status(models.TextChoices):
        DRAFT = "draft", "Draft"
        OPEN = "open", "Open"
        CLOSED = "closed", "Closed"

    name = models.SlugField(max_length=100, unique=True)
    title = models.CharField(max_length=200)
    kind = models.CharField(max_length=16, choices=Kind.choices)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.DRAFT)
    instructions = models.TextField(blank=True)
    statement_set = models.ForeignKey(StatementSet, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    question_set = models.ForeignKey(QuestionSet, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    run = models.ForeignKey(
        "runs.Run",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
        help_text="generation campaigns: the generate-answer run whose answers are judged",
    )
    redundancy = models.PositiveSmallIntegerField(
        default=3, help_text="answers every item gets at least (the minimum; a fixed redundancy when no maximum is set)"
    )
    max_answers = models.PositiveSmallIntegerField(
        null=True,
        blank=True,
        help_text="MCQA: answers an item that is not settled may get at most (adaptive redundancy); empty: the minimum",
    )
    settle_threshold = models.FloatField(
        default=0.95, help_text="the posterior every verdict of a settled item's label needs (confidence rule)"
    )
    label_rule = models.CharField(
        max_length=16,
        choices=[
            ("majority", "Majority of the answers"),
            ("dawid_skene", "Weighted by the annotators' Dawid–Skene estimates"),
            ("mace", "Weighted by the annotators' MACE estimates"),
        ],
        default="majority",
        help_text="how an MCQA item's final label is made from its answers",
    )
    settlement_rule = models.CharField(
        max_length=16,
        choices=[
            ("all_verdicts", "Every verdict of the label confident (or unanimous)"),
            ("needs", "What the verified item needs: context, gold, three negatives"),
        ],
        default="needs",
        help_text="MCQA: when an item is settled (commonsense.annotators.RULE / commonsense.verified_needs.NEEDS_RULE)",
    )
    require_agreement = models.BooleanField(
        default=True,
        help_text="MCQA: an item settles only when every answer agrees on what its verified item publishes; "
        "a dissent closes it as disputed (commonsense.annotators.AGREEMENT_RULE)",
    )
    reviews = models.PositiveSmallIntegerField(
        default=0, help_text="MCQA: blind reviews each settled item gets before it is published (0: no review stage)"
    )
    review_of = models.OneToOneField(  # annotation.services.reviews
        "self", null=True, blank=True, on_delete=models.CASCADE, related_name="review_stage"
    )
    annotator_model = models.JSONField(
        default=dict, blank=True, help_text="the latest annotator-model fit: prior, pooled annotator, answers, when"
    )
    serve_disagreements_first = models.BooleanField(
        default=False, help_text="MCQA: items where a model's vote and the build disagree are served first"
    )
    max_items_per_annotator = models.PositiveIntegerField(null=True, blank=True)
    ask_common_sense = models.BooleanField(default=False, help_text="survey question (c)")
    attention_every = models.PositiveSmallIntegerField(
        default=0, help_text="one attention item after every N items (0 = none)"
    )
    attention_max_failures = models.PositiveSmallIntegerField(
        default=1, help_text="more failures than this block the person"
    )
    qualification_pass_mark = models.FloatField(
        default=0.85, help_text="share of the test's items answered exactly right"
    )
    qualification_size = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text="qualification items each person answers, drawn from the pool (empty = all)"
    )
    qualification_source = models.CharField(
        max_length=300, blank=True, help_text="where the qualification items come from (a verified set, a gold file)"
    )
    agreement_threshold = models.FloatField(default=0.6, help_text="items below go to adjudication")
    reservation_ttl_seconds = models.PositiveIntegerField(default=600)
    assign_order = models.CharField(
        max_length=8,
        choices=[("fill", "Most-answered first"), ("even", "Least-answered first, random within (crowd studies)")],
        default="fill",
        help_text="which free item a person gets next",
    )
    item_order = models.CharField(
        max_length=8,
        choices=[
            ("rater", "Each rater's own order (seeded by the campaign and the rater)"),
            ("fixed", "The statement set's order, the same for every rater"),
        ],
        default="rater",
        help_text="surveys: the order statements are served in. NWW's design shows each rater the statements in "
        "a random order of their own, the same in every session of theirs (a shuffle seeded by the campaign's "
        "seed and the rater)",
    )
    seed = models.BigIntegerField(default=0, help_text="RICA pair order, COM2 post-processing, survey raters' order")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.CheckConstraint(condition=Q(redundancy__gte=1), name="campaign_redundancy_positive"),
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def is_open(self) -> bool:
        return self.status == self.Status.OPEN

    @property
    def adaptive(self) -> bool:
        """Items are settled by the confidence rule (MCQA validation)."""
        return self.kind == self.Kind.MCQA

    @property
    def answers_max(self) -> int:
        """The most answers an item may get: the maximum, never below the minimum."""
        if not self.adaptive:
            return self.redundancy
        return max(self.max_answers or self.redundancy, self.redundancy)


def item_uid() -> str:
    """An opaque, unguessable item reference for pages and the API (neither the row id, whose
    order tells gold items from regular ones, nor the source id, which finds the answer in the
    public data)."""
    return secrets.token_urlsafe(12)


class Item(models.Model):
    class Role(models.TextChoices):
        REGULAR = "regular", "Regular"
        ATTENTION = "attention", "Attention check"
        QUALIFICATION = "qualification", "Qualification"

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="items")
    role = models.CharField(max_length=16, choices=Role.choices, default=Role.REGULAR)
    position = models.PositiveIntegerField()
    statement = models.ForeignKey(Statement, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    question = models.ForeignKey(Question, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    key = models.CharField(max_length=128, help_text="source id: external id or position")
    payload = models.JSONField(default=dict, help_text="what the annotator sees")
    gold = models.JSONField(null=True, blank=True, help_text="expected answer (attention / qualification)")
    slots_taken = models.PositiveIntegerField(default=0, help_text="accepted answers + live reservations")
    answer_count = models.PositiveIntegerField(default=0)
    answers_wanted = models.PositiveSmallIntegerField(
        default=3, help_text="the answers this item wants now: the queue's cap (the minimum, more while unsettled)"
    )
    priority = models.SmallIntegerField(
        default=0, help_text="1: a model's vote disagrees with the build and the campaign serves those first"
    )
    uid = models.CharField(max_length=24, unique=True, default=item_uid, editable=False)

    class Meta:
        ordering = ["campaign", "role", "position"]
        constraints = [
            models.UniqueConstraint(fields=["campaign", "role", "position"], name="item_unique_position"),
        ]
        indexes = [
            models.Index(
                fields=["campaign", "role", "-answers_wanted", "-priority", "-slots_taken", "position"],
                name="item_queue_wanted",
            )
        ]

    def __str__(self) -> str:
        return f"{self.campaign_id}/{self.role}/{self.position}"

    @property
    def display_text(self) -> str:
        p = self.payload
        if "statements" in p:
            return " / ".join(p["statements"])
        return str(p.get("text") or p.get("stem") or "")

    @property
    def n_options(self) -> int:
        return len(self.payload.get("options", []))


class Membership(models.Model):
    class State(models.TextChoices):
        QUALIFYING = "qualifying", "Taking the qualification"
        ACTIVE = "active", "Active"
        FAILED = "failed", "Failed the qualification"
        BLOCKED = "blocked", "Blocked (attention checks)"

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="annotation_memberships")
    state = models.CharField(max_length=16, choices=State.choices, default=State.ACTIVE)
    qualification_score = models.FloatField(null=True, blank=True)
    attention_passed = models.PositiveIntegerField(default=0)
    attention_failed = models.PositiveIntegerField(default=0)
    regular_answered = models.PositiveIntegerField(default=0)
    imported = models.BooleanField(default=False, help_text="ratings came from an import")
    joined_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["campaign", "user"], name="membership_unique")]


class Assignment(models.Model):
    """An item shown to (reserved for) one person: the reservation, then its outcome."""

    class State(models.TextChoices):
        RESERVED = "reserved", "Reserved"
        ANSWERED = "answered", "Answered"
        SKIPPED = "skipped", "Skipped"
        EXPIRED = "expired", "Expired"

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="assignments", db_index=False)
    item = models.ForeignKey(Item, on_delete=models.CASCADE, related_name="assignments", db_index=False)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    state = models.CharField(max_length=16, choices=State.choices, default=State.RESERVED)
    reserved_at = models.DateTimeField()
    expires_at = models.DateTimeField()
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["item", "user"], name="assignment_once_per_person"),
            models.UniqueConstraint(
                fields=["campaign", "user"], condition=Q(state="reserved"), name="assignment_one_live_reservation"
            ),
        ]
        indexes = [models.Index(fields=["campaign", "state", "expires_at"], name="assignment_expiry")]


class Response(models.Model):
    class Source(models.TextChoices):
        WEB = "web", "Web"
        API = "api", "API"
        IMPORT = "import", "Import"

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="responses", db_index=False)
    item = models.ForeignKey(Item, on_delete=models.CASCADE, related_name="responses", db_index=False)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="annotation_responses")
    assignment = models.OneToOneField(
        Assignment, null=True, blank=True, on_delete=models.SET_NULL, related_name="response"
    )
    answer = models.JSONField()
    time_ms = models.PositiveIntegerField(null=True, blank=True, help_text="time on the item")
    idempotency_key = models.CharField(max_length=64, unique=True)
    source = models.CharField(max_length=8, choices=Source.choices, default=Source.WEB)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["item", "user"], name="response_once_per_person")]
        indexes = [models.Index(fields=["campaign", "created_at"], name="response_recent")]


class Adjudication(models.Model):
    item = models.ForeignKey(Item, on_delete=models.CASCADE, related_name="adjudications")
    label = models.JSONField()
    reason = models.TextField()
    decided_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    decided_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-decided_at"]


class FinalLabel(models.Model):
    class Provenance(models.TextChoices):
        UNANIMOUS = "unanimous", "Unanimous"
        MAJORITY = "majority", "Majority"
        ADJUDICATED = "adjudicated", "Adjudicated"

    item = models.OneToOneField(Item, on_delete=models.CASCADE, related_name="final_label")
    label = models.JSONField()
    provenance = models.CharField(max_length=16, choices=Provenance.choices)
    agreement = models.FloatField(null=True, blank=True)
    votes = models.JSONField(default=dict)
    n_answers = models.PositiveIntegerField(default=0)
    below_threshold = models.BooleanField(default=False, help_text="agreement under the campaign threshold")
    adjudication = models.ForeignKey(Adjudication, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    settled = models.BooleanField(default=False, help_text="the label meets the campaign's confidence rule")
    settlement = models.CharField(
        max_length=12, blank=True, help_text="unanimous | confident | open | exhausted | disputed | below_min (MCQA)"
    )
    confidence = models.FloatField(null=True, blank=True, help_text="least posterior of a verdict of the label")
    posteriors = models.JSONField(default=list, blank=True, help_text="P(plausible) per option, then bad context")
    computed_at = models.DateTimeField(auto_now=True)


class VerifiedSet(models.Model):
    """A question set made from a finished MCQA validation campaign (issue 11 item 7): the
    accepted items of ``source_set``, rewritten with COM2's post-processing. ``counts`` says how
    many items were kept and why the others were left out."""

    campaign = models.ForeignKey(Campaign, on_delete=models.PROTECT, related_name="verified_sets")
    source_set = models.ForeignKey(QuestionSet, on_delete=models.PROTECT, related_name="+")
    question_set = models.OneToOneField(QuestionSet, on_delete=models.CASCADE, related_name="verified_from")
    counts = models.JSONField(default=dict)
    include_unsettled = models.BooleanField(
        default=False, help_text="the researcher chose to keep items the confidence rule did not settle"
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.question_set} (verified by {self.campaign})"


class AnnotatorQuality(models.Model):
    """One annotator's Dawid–Skene and MACE estimates in one campaign, from the latest fit
    (:mod:`annotation.services.quality`). A refit replaces the campaign's rows."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="annotator_quality")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    ds_sensitivity = models.FloatField(help_text="Dawid–Skene: P(ticks an option | it is plausible)")
    ds_specificity = models.FloatField(help_text="Dawid–Skene: P(leaves an option | it is not plausible)")
    accuracy = models.FloatField(help_text="expected share of verdicts right at the campaign's plausible share")
    mace_competence = models.FloatField(help_text="MACE: P(knows the answer)")
    mace_guessing = models.FloatField(help_text="MACE: P(guesses)")
    mace_guess_yes = models.FloatField(help_text="MACE: P(ticks) when guessing")
    mace_guess_no = models.FloatField(help_text="MACE: P(leaves) when guessing")
    verdicts = models.PositiveIntegerField(default=0)
    flag = models.CharField(max_length=12, blank=True, help_text="spammer | adversary | empty")
    computed_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["campaign", "user"], name="annotator_quality_once")]


class ModelVote(models.Model):
    """A model's answer to a validation item, given as an annotator would (a plausibility verdict per
    option). Kept apart from :class:`Response`: it never counts toward an item's answers or label and
    no annotator page or API response shows it."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="model_votes")
    item = models.ForeignKey(Item, on_delete=models.CASCADE, related_name="model_votes")
    model = models.CharField(max_length=200, help_text="backend:model, as configured")
    answer = models.JSONField(help_text="the answer in an annotator's shape: plausible, none_correct, bad_context")
    scores = models.JSONField(default=list, help_text="the model's plausibility score per option")
    disagrees = models.BooleanField(default=False, help_text="the verdicts differ from the build's gold")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["item", "model"], name="model_vote_once")]
