"""Model evaluations: a :class:`Run` of one model over one question or statement set, the
:class:`Prediction` it stores per item, and the :class:`RunMetric` rows computed when it ends.

A run has an explicit lifecycle, one state per phase (as Read the Docs' builds do):
``queued -> loading (model) -> scoring (items) -> metrics -> done``, or ``failed`` / ``cancelled``.
A worker holds a run through a *lease* (a token plus a heartbeat it refreshes); a run whose
heartbeat went stale (its worker died) is taken over by the next worker, which skips every item
already stored.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models

from cocoweb.leases import LeasedJob
from commonsense.scoring.naming import model_display_name
from knowledge.models import Question, QuestionSet, Statement, StatementSet


class Run(LeasedJob):
    class State(models.TextChoices):
        QUEUED = "queued", "Queued"
        LOADING = "loading", "Loading the model"
        SCORING = "scoring", "Scoring items"
        METRICS = "metrics", "Computing metrics"
        DONE = "done", "Done"
        FAILED = "failed", "Failed"
        CANCELLED = "cancelled", "Cancelled"

    ACTIVE = (State.LOADING, State.SCORING, State.METRICS)
    TERMINAL = (State.DONE, State.FAILED, State.CANCELLED)
    HELD_STATES = ACTIVE
    STALE_SETTING = "COCOWEB_RUN_STALE_SECONDS"
    HEARTBEAT_SETTING = "COCOWEB_RUN_HEARTBEAT_SECONDS"

    question_set = models.ForeignKey(QuestionSet, null=True, blank=True, on_delete=models.CASCADE, related_name="runs")
    statement_set = models.ForeignKey(
        StatementSet, null=True, blank=True, on_delete=models.CASCADE, related_name="runs"
    )
    name = models.CharField(
        max_length=200, blank=True, help_text="shown wherever runs are listed; default: the model's own name"
    )
    backend = models.CharField(max_length=32)
    model = models.CharField(max_length=500, blank=True, help_text="model folder, GGUF file, or name")
    url = models.CharField(max_length=500, blank=True, help_text="server URL (openai backend)")
    scoring = models.CharField(max_length=32)
    seed = models.BigIntegerField(default=0)
    limit = models.PositiveIntegerField(null=True, blank=True, help_text="score only the first N items")
    params = models.JSONField(default=dict, blank=True, help_text="extra scorer parameters")
    scorer_settings = models.JSONField(default=dict, blank=True, help_text="what the scorer reported (describe())")
    rerun_of = models.ForeignKey("self", null=True, blank=True, on_delete=models.SET_NULL, related_name="reruns")

    state = models.CharField(max_length=16, choices=State.choices, default=State.QUEUED, db_index=True)
    phases = models.JSONField(default=list, blank=True, help_text="[[state, ISO time], …] in order")
    items_total = models.PositiveIntegerField(default=0)
    items_done = models.PositiveIntegerField(default=0)
    items_failed = models.PositiveIntegerField(default=0, help_text="items whose scorer reported an error")
    items_per_s = models.FloatField(null=True, blank=True)
    eta_s = models.FloatField(null=True, blank=True)
    error = models.TextField(blank=True, help_text="why the run failed")
    recent_errors = models.JSONField(default=list, blank=True, help_text="last per-item errors")
    cancel_requested = models.BooleanField(default=False)

    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    sample_summary = models.JSONField(
        null=True,
        blank=True,
        editable=False,
        help_text="a finished run's prediction counts per relation and kind, under its state (runs.selectors.samples)",
    )

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.CheckConstraint(
                condition=(
                    models.Q(question_set__isnull=False, statement_set__isnull=True)
                    | models.Q(question_set__isnull=True, statement_set__isnull=False)
                ),
                name="run_exactly_one_set",
            ),
        ]

    def __str__(self) -> str:
        return f"run {self.pk}: {self.label} {self.scoring} on {self.set_name}"

    @property
    def model_name(self) -> str:
        """The model's own name (``SmolLM2-135M-Instruct``), not the folder or file it was loaded
        from; ``model`` keeps the full path for operators (page tooltips, the API)."""
        return model_display_name(self.backend, self.model) if self.model else ""

    @property
    def label(self) -> str:
        """The run's name (the model's own name unless someone named it), never a path."""
        return self.name or model_display_name(self.backend, self.model)

    @property
    def set_name(self) -> str:
        s = self.question_set or self.statement_set
        return s.name if s is not None else "?"

    @property
    def is_statement_run(self) -> bool:
        return self.statement_set_id is not None

    @property
    def is_finished(self) -> bool:
        return self.state in self.TERMINAL

    @property
    def error_summary(self) -> str:
        """The line of ``error`` that says what failed (a traceback's last line), kept short; the
        run page shows it and folds the whole text away."""
        lines = [ln.strip() for ln in self.error.splitlines() if ln.strip()]
        if not lines:
            return ""
        line = lines[-1] if lines[0].startswith("Traceback") else lines[0]  # runs store "Type: message\n\ntraceback"
        return line if len(line) <= 300 else line[:299] + "…"

    @property
    def error_has_details(self) -> bool:
        return self.error.strip() != self.error_summary

    @property
    def percent(self) -> int:
        return int(100 * self.items_done / self.items_total) if self.items_total else 0

    @property
    def eta_text(self) -> str:
        """The time left in words ("about 8 min", "40 s"), empty when unknown or finished."""
        if self.eta_s is None or self.is_finished:
            return ""
        s = round(self.eta_s)
        if s < 90:
            return f"{s} s"
        if s < 5400:
            return f"about {round(s / 60)} min"
        return f"about {s / 3600:.1f} h"


class RunShard(LeasedJob):
    """A slice of a sharded run's items (consecutive positions ``first``..``last`` of its set), held
    by one eval worker at a time under the shared lease (``cocoweb/leases.py``): any number of workers,
    on any number of machines, claim a run's shards (``runs/shards.py``) and store their predictions
    on the run; the worker that finishes the last shard computes the run's metrics once. A run is
    sharded when it has more items than its shard size (``COCOWEB_EVAL_SHARD_SIZE``, or the run's
    ``shard_size`` parameter); otherwise it has no shards and one worker holds the run itself."""

    class State(models.TextChoices):
        QUEUED = "queued", "Queued"
        SCORING = "scoring", "Scoring"
        DONE = "done", "Done"
        CANCELLED = "cancelled", "Cancelled"
        FAILED = "failed", "Failed"

    HELD_STATES = (State.SCORING,)
    UNFINISHED = (State.QUEUED, State.SCORING)
    STALE_SETTING = "COCOWEB_RUN_STALE_SECONDS"
    HEARTBEAT_SETTING = "COCOWEB_RUN_HEARTBEAT_SECONDS"

    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="shards")
    index = models.PositiveIntegerField(help_text="0, 1, … in set order")
    first = models.PositiveIntegerField(help_text="position of its first item")
    last = models.PositiveIntegerField(help_text="position of its last item")
    items = models.PositiveIntegerField(help_text="how many items it has")
    items_done = models.PositiveIntegerField(default=0)
    items_per_s = models.FloatField(null=True, blank=True, help_text="its current worker's pace")
    state = models.CharField(max_length=16, choices=State.choices, default=State.QUEUED, db_index=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["run", "index"]
        constraints = [models.UniqueConstraint(fields=["run", "index"], name="runshard_unique_index")]

    def __str__(self) -> str:
        return f"run {self.run_id} shard {self.index} ({self.first}-{self.last})"


class Prediction(models.Model):
    """One scored item. Unique per (run, item): a retried or resumed task never stores an item twice."""

    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="predictions")
    # indexed by prediction_question_runs / prediction_statement_runs below (item first), not alone
    question = models.ForeignKey(
        Question, null=True, blank=True, on_delete=models.CASCADE, related_name="+", db_index=False
    )
    statement = models.ForeignKey(
        Statement, null=True, blank=True, on_delete=models.CASCADE, related_name="+", db_index=False
    )
    position = models.PositiveIntegerField(help_text="the item's position in its set")
    chosen = models.SmallIntegerField(null=True, blank=True, help_text="chosen option index; null = no answer")
    chosen_norm = models.SmallIntegerField(null=True, blank=True, help_text="choice by length-normalised score")
    correct = models.BooleanField(null=True, blank=True)
    scores = models.JSONField(default=list, blank=True)
    norm_scores = models.JSONField(null=True, blank=True)
    extra = models.JSONField(default=dict, blank=True)
    raw_output = models.TextField(blank=True)
    latency_s = models.FloatField(default=0.0)
    prompt_tokens = models.PositiveIntegerField(default=0)
    completion_tokens = models.PositiveIntegerField(default=0)
    error = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    # Copied from the question when stored (runs.item_facets.question_facets), so that the error
    # views aggregate a run from an index, without joining its questions or parsing their JSON.
    item_relation = models.CharField(max_length=64, blank=True, default="", help_text="question metadata.relation")
    item_kind = models.CharField(max_length=32, blank=True, default="", help_text="question structure")
    item_perturbation = models.CharField(
        max_length=64, blank=True, default="", help_text="question metadata.perturbation"
    )
    item_role = models.CharField(max_length=32, blank=True, default="", help_text="question role (CoCo)")
    item_group = models.CharField(max_length=255, blank=True, default="", help_text="question group (CoCo set)")
    item_answer = models.SmallIntegerField(null=True, blank=True, help_text="question answer_index")
    item_options = models.SmallIntegerField(null=True, blank=True, help_text="number of options")
    item_difficulty = models.IntegerField(null=True, blank=True, help_text="d(Q): extra.difficulty, else metadata's")
    # Copied from the prediction's own ``extra`` when stored (runs.item_facets.kba_correct), so that the
    # ReComSBench windows read KBA from an index rather than every prediction's JSON.
    kba_correct = models.BooleanField(
        null=True, blank=True, help_text="ReComSBench: the answer given the hints right (extra.kba.correct)"
    )

    class Meta:
        ordering = ["run", "position"]
        constraints = [
            models.UniqueConstraint(
                fields=["run", "question"],
                condition=models.Q(question__isnull=False),
                name="prediction_unique_question",
            ),
            models.UniqueConstraint(
                fields=["run", "statement"],
                condition=models.Q(statement__isnull=False),
                name="prediction_unique_statement",
            ),
        ]
        indexes = [  # covering indexes of the error views' GROUP BYs (explorer.selectors.errors), each in group order
            models.Index(fields=["run", "item_relation", "correct"], name="prediction_by_relation"),
            models.Index(fields=["run", "item_kind", "correct"], name="prediction_by_kind"),
            models.Index(fields=["run", "item_perturbation", "correct"], name="prediction_by_perturbation"),
            models.Index(fields=["run", "item_answer", "chosen", "item_options"], name="prediction_by_position"),
            models.Index(fields=["run", "item_group", "item_role", "correct", "question"], name="prediction_coco_sets"),
            models.Index(fields=["run", "item_difficulty", "position", "correct"], name="prediction_difficulty"),
            # a run's predictions in order (the sample viewer's pages, the default ordering): read from the
            # index rather than every prediction of the run sorted (183 ms for a 58,200-prediction run)
            models.Index(fields=["run", "position"], name="prediction_run_order"),
            # every run's answer to an item (the drawer's "other runs" of 500 items: 7,000 rows at 15 runs) read
            # from the index alone; they serve as the item's foreign key index too (a delete's cascade)
            models.Index(fields=["question", "run", "correct"], name="prediction_question_runs"),
            models.Index(fields=["statement", "run", "correct"], name="prediction_statement_runs"),
            # the items of the ReComSBench windows (explorer.selectors.difficulty.core_windows), in window order;
            # the filter's columns are in it too, so that SQLite reads the index alone
            models.Index(
                fields=["run", "item_difficulty", "position", "correct", "kba_correct", "item_answer", "error"],
                condition=models.Q(item_difficulty__isnull=False, item_answer__isnull=False, error=""),
                name="prediction_core_windows",
            ),
        ]

    def __str__(self) -> str:
        return f"prediction run={self.run_id} #{self.position}"


class RunMetric(models.Model):
    """One metric of a run within one scope: ``overall``, ``structure=2p``, ``relation=xWant``,
    ``feature:behavior=1``, ``category=…``; ``data`` keeps the full JSON the metric core returned."""

    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="metrics")
    name = models.CharField(max_length=64)
    scope = models.CharField(max_length=255, default="overall")
    value = models.FloatField(null=True, blank=True)
    ci_low = models.FloatField(null=True, blank=True)
    ci_high = models.FloatField(null=True, blank=True)
    n = models.PositiveIntegerField(default=0)
    data = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["run", "scope", "name"]
        constraints = [models.UniqueConstraint(fields=["run", "name", "scope"], name="runmetric_unique")]

    def __str__(self) -> str:
        return f"{self.name}[{self.scope}]={self.value}"


class FineTune(LeasedJob):
    """LoRA fine-tuning of a local causal LM on a question set in a curriculum's order (ReComSBench
    §3.3, Table 3), held by a worker under the shared lease (runs/finetune.py); the merged model
    lands in ``output_dir`` and is evaluated by ordinary runs (``--backend hf --model output_dir``)."""

    class Strategy(models.TextChoices):
        RANDOM = "random", "RandSample"
        SCORE_CL = "score-cl", "Score-CL"
        REASON_CL = "reason-cl", "Reason-CL"

    class State(models.TextChoices):
        QUEUED = "queued", "Queued"
        TRAINING = "training", "Training"
        DONE = "done", "Done"
        FAILED = "failed", "Failed"

    HELD_STATES = (State.TRAINING,)
    STALE_SETTING = "COCOWEB_FINETUNE_STALE_SECONDS"
    HEARTBEAT_SETTING = "COCOWEB_FINETUNE_HEARTBEAT_SECONDS"

    name = models.SlugField(max_length=100, unique=True)
    question_set = models.ForeignKey(QuestionSet, on_delete=models.CASCADE, related_name="finetunes")
    difficulty_run = models.ForeignKey(
        Run, null=True, blank=True, on_delete=models.SET_NULL, related_name="+", help_text="Reason-CL: its d(Q)"
    )
    base_model = models.CharField(max_length=500, help_text="local causal LM folder")
    strategy = models.CharField(max_length=16, choices=Strategy.choices)
    seed = models.BigIntegerField(default=0)
    params = models.JSONField(default=dict, blank=True, help_text="LoRA settings, limit")
    state = models.CharField(max_length=16, choices=State.choices, default=State.QUEUED, db_index=True)
    steps_done = models.PositiveIntegerField(default=0)
    steps_total = models.PositiveIntegerField(default=0)
    resumed_from = models.PositiveIntegerField(default=0, help_text="step of the checkpoint the last attempt took")
    losses = models.JSONField(default=list, blank=True, help_text="training loss per step")
    curriculum = models.JSONField(default=dict, blank=True, help_text="levels and counts the order was built from")
    output_dir = models.CharField(max_length=500, blank=True, help_text="the merged model folder")
    error = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)

    def __str__(self) -> str:
        return f"fine-tune {self.name} ({self.strategy})"
