"""The data layer: knowledge graphs (nodes, relations, triples with provenance), question sets
and questions, statement sets and statements.

``annotation`` and ``runs`` point at :class:`Question` and :class:`Statement` rows without
knowing where they came from (import, builder, or upload).
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import models
from django.db.models import F, Func, IntegerField
from django.db.models.functions import Coalesce

from cocoweb.leases import LeasedJob


class Graph(models.Model):
    name = models.SlugField(max_length=100, unique=True)
    description = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    # Denormalised sizes, refreshed by the importer (avoids COUNT(*) over millions of rows).
    node_count = models.PositiveIntegerField(default=0)
    triple_count = models.PositiveIntegerField(default=0)
    # Degree statistics kept by the importer (knowledge.db.graph_stats): triples per relation, degree
    # histogram, most connected nodes, stamped with the counts above.
    stats = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class Relation(models.Model):
    """A relation name from the registry in :mod:`commonsense.kg.relations`."""

    name = models.CharField(max_length=64, unique=True)

    def __str__(self) -> str:
        return self.name


class Node(models.Model):
    graph = models.ForeignKey(Graph, on_delete=models.CASCADE, related_name="nodes", db_index=False)
    text = models.TextField()  # (graph, text) is unique and indexed
    # Triples with this node as head / as tail, kept by the importer (knowledge.db.graph_stats).
    # Null: not counted (a node written outside the importer). Nullable without a default so that
    # SQLite adds the columns in place (a table rebuild would drop the search triggers).
    out_degree = models.PositiveIntegerField(null=True, blank=True)
    in_degree = models.PositiveIntegerField(null=True, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["graph", "text"], name="node_unique_text")]
        indexes = [  # the degree histogram and the most connected nodes, read from the index (graph_stats)
            models.Index(F("graph"), Coalesce("out_degree", 0) + Coalesce("in_degree", 0), name="node_degree"),
        ]

    def __str__(self) -> str:
        return self.text


class NodeText(models.Model):
    """A node of the graph as the query graph knows it (a head cleaned, a tail given its subject:
    COM2 Table 5), as questions show it and as the text rules judge it
    (:mod:`commonsense.questions.node_text`): computed once, on the first build under the current
    rules or by ``manage.py text_rules --recompute``, and read by builds and the explorer."""

    graph = models.ForeignKey(Graph, on_delete=models.CASCADE, related_name="node_texts", db_index=False)
    text = models.TextField()  # the node text of the query graph; (graph, text) is unique
    display = models.TextField()  # as a question shows it (present tense, "people")
    rule = models.CharField(max_length=64, blank=True)  # the rule that rejects it, "" when it reads as English
    reason = models.TextField(blank=True)  # the rule's words
    rules_version = models.CharField(max_length=32)  # the rules' version that computed it
    # the graph node it is the text of, or came from (a tail normalised): the explorer links to it
    node = models.ForeignKey(Node, null=True, blank=True, on_delete=models.CASCADE, related_name="shown_as")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["graph", "text"], name="nodetext_unique_text")]
        indexes = [models.Index(fields=["graph", "rule"], name="nodetext_rule")]

    def __str__(self) -> str:
        return self.display


class ImportSource(models.Model):
    """One imported file: the provenance every triple points to. A file is identified by its
    content hash, so re-importing the same file adds nothing."""

    graph = models.ForeignKey(Graph, on_delete=models.CASCADE, related_name="sources")
    filename = models.CharField(max_length=255)
    sha256 = models.CharField(max_length=64)
    format = models.CharField(max_length=32)
    rows = models.PositiveIntegerField(default=0)
    imported_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["graph", "sha256"], name="source_unique_file")]

    def __str__(self) -> str:
        return self.filename


class Triple(models.Model):
    # Single-column FK indexes are left out on purpose: each is the prefix of a composite index
    # below, and every extra index slows bulk imports of millions of rows.
    graph = models.ForeignKey(Graph, on_delete=models.CASCADE, related_name="triples", db_index=False)
    head = models.ForeignKey(Node, on_delete=models.CASCADE, related_name="out_triples", db_index=False)
    relation = models.ForeignKey(Relation, on_delete=models.PROTECT, related_name="triples", db_index=False)
    tail = models.ForeignKey(Node, on_delete=models.CASCADE, related_name="in_triples", db_index=False)
    plausibility = models.FloatField(null=True, blank=True)
    source = models.ForeignKey(
        ImportSource, null=True, blank=True, on_delete=models.SET_NULL, related_name="triples", db_index=False
    )
    source_line = models.PositiveIntegerField(null=True, blank=True)
    extra = models.JSONField(default=dict, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["source", "source_line"], name="triple_unique_provenance"),
        ]
        # Also (head, relation, plausibility DESC NULLS LAST, id) and the same with tail: created by
        # migration 0003 in SQL per vendor (SQLite cannot spell NULLS LAST in an index, and its
        # DESC order already puts nulls last). A node page reads "the 15 most plausible edges of
        # one relation" straight from them, and (head, relation) / (tail, relation) are prefixes.
        indexes = [
            models.Index(fields=["graph", "relation"]),
        ]

    def __str__(self) -> str:
        return f"({self.head_id}, {self.relation_id}, {self.tail_id})"


class QuestionSet(models.Model):
    class Kind(models.TextChoices):
        MCQA = "mcqa", "Multiple-choice questions"
        COM2 = "com2", "COM2 logical queries"
        COCO = "coco", "CoCo question sets"
        RICA_PROBES = "rica-probes", "RICA probes"
        RICA_AXIOMS = "rica-axioms", "RICA axiom sets"

    name = models.SlugField(max_length=100, unique=True)
    kind = models.CharField(max_length=32, choices=Kind.choices)
    source = models.CharField(max_length=255, blank=True, help_text="file name or graph it was built from")
    graph = models.ForeignKey(Graph, null=True, blank=True, on_delete=models.SET_NULL, related_name="question_sets")
    params = models.JSONField(default=dict, blank=True, help_text="build parameters")
    quality = models.JSONField(
        default=dict, blank=True, help_text="quality report: build rejections and text checks (set_quality)"
    )
    seed = models.BigIntegerField(null=True, blank=True)
    source_sha256 = models.CharField(max_length=64, blank=True, help_text="content hash of the imported file")
    description = models.TextField(blank=True)
    question_count = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name

    @property
    def shortfall_note(self) -> str:
        """A CoCo build that could not fill every application kind says which and by how much."""
        short = (self.params or {}).get("shortfall") or {}
        if not short:
            return ""
        parts = "; ".join(f"{kind}: {built:,} of {asked:,}" for kind, (built, asked) in short.items())
        return f"Fewer application questions than requested could be built from this graph ({parts})."


class JsonArrayLength(Func):
    """Length of a JSON array column, in the database: SQLite's json_array_length (0 for a JSON
    value that is no array), PostgreSQL's jsonb_array_length guarded the same way (it raises on
    one). Immutable on both, so it can compute a stored generated column."""

    function = "JSON_ARRAY_LENGTH"
    output_field = IntegerField()

    def as_postgresql(self, compiler: Any, connection: Any, **extra: Any) -> Any:
        return self.as_sql(
            compiler,
            connection,
            template="(CASE WHEN JSONB_TYPEOF(%(expressions)s) = 'array' THEN JSONB_ARRAY_LENGTH(%(expressions)s) ELSE 0 END)",
            **extra,
        )


class Question(models.Model):
    question_set = models.ForeignKey(QuestionSet, on_delete=models.CASCADE, related_name="questions")
    position = models.PositiveIntegerField(help_text="order within the set")
    external_id = models.CharField(max_length=128, blank=True)
    context = models.TextField(blank=True)
    stem = models.TextField()
    options = models.JSONField(default=list)
    answer_index = models.SmallIntegerField(null=True, blank=True)
    answers = models.JSONField(default=list, blank=True, help_text="every correct answer text")
    structure = models.CharField(max_length=32, blank=True, help_text="query kind or item type (2p, 2i, csqa, …)")
    group = models.CharField(max_length=255, blank=True, db_index=True, help_text="set / axiom group id")
    role = models.CharField(max_length=32, blank=True, help_text="role in its group (memorization, reasoning, …)")
    triples = models.ManyToManyField(Triple, blank=True, related_name="questions")
    metadata = models.JSONField(default=dict, blank=True)
    # The number of correct answers, computed and stored by the database on every write (imports,
    # builds, bulk_create, update): the question list filters on it without parsing each row's JSON,
    # and the planner has statistics for it (it guessed 0.5 % of the rows for the JSON expression).
    answer_count = models.GeneratedField(
        expression=JsonArrayLength("answers"), output_field=models.IntegerField(), db_persist=True
    )

    class Meta:
        ordering = ["question_set", "position"]
        constraints = [
            models.UniqueConstraint(fields=["question_set", "position"], name="question_unique_position"),
        ]
        indexes = [
            models.Index(fields=["question_set", "structure"]),
            # the question list: a set's questions with n answers in position order (a page), and its
            # count per set from the index alone (with ``id`` for the validation filter's anti-join:
            # PostgreSQL's indexes do not hold it, SQLite's do)
            models.Index(fields=["question_set", "answer_count", "position", "id"], name="question_by_answer_count"),
        ]

    def __str__(self) -> str:
        return self.stem[:80]

    @property
    def answer_text(self) -> str | None:
        if self.answer_index is None or not 0 <= self.answer_index < len(self.options):
            return None
        return str(self.options[self.answer_index])


# The RICA sets a novel-entity build may start from (imported axioms, imported probes).
RICA_KINDS = (QuestionSet.Kind.RICA_AXIOMS, QuestionSet.Kind.RICA_PROBES)


class StatementSet(models.Model):
    name = models.SlugField(max_length=100, unique=True)
    source = models.CharField(max_length=255, blank=True)
    source_sha256 = models.CharField(max_length=64, blank=True, help_text="content hash of the imported file")
    description = models.TextField(blank=True)
    models_answered = models.JSONField(default=list, blank=True, help_text="model names with stored answers")
    statement_count = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class Statement(models.Model):
    statement_set = models.ForeignKey(StatementSet, on_delete=models.CASCADE, related_name="statements")
    position = models.PositiveIntegerField()
    external_id = models.CharField(max_length=64, blank=True)
    text = models.TextField()
    features = models.JSONField(default=dict, blank=True)  # behavior, everyday, … -> 0/1
    category = models.CharField(max_length=128, blank=True)
    elicitation = models.CharField(max_length=128, blank=True)
    human_majority = models.SmallIntegerField(null=True, blank=True, help_text="1 if most raters agreed")
    model_answers = models.JSONField(default=dict, blank=True, help_text="model -> {q1: 0/1, q2: 0/1}")

    class Meta:
        ordering = ["statement_set", "position"]
        constraints = [
            models.UniqueConstraint(fields=["statement_set", "position"], name="statement_unique_position"),
        ]

    def __str__(self) -> str:
        return self.text[:80]


class BuildJob(LeasedJob):
    """A question-set build requested from the browser and run by a Celery worker.

    Lifecycle ``queued -> running -> done`` or ``failed``. A worker holds the job through a lease
    (a token plus a heartbeat); every write of an attempt is conditioned on its token, and the
    question set is stored in the same transaction that marks the job done, so a retried or
    duplicated attempt can never store a set twice.
    """

    class Kind(models.TextChoices):
        COM2 = "com2", "COM2 logical queries"
        COCO = "coco", "CoCo question sets"

    class State(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        DONE = "done", "Done"
        FAILED = "failed", "Failed"

    ACTIVE = (State.QUEUED, State.RUNNING)
    TERMINAL = (State.DONE, State.FAILED)
    HELD_STATES = (State.RUNNING,)
    STALE_SETTING = "COCOWEB_BUILD_STALE_SECONDS"
    HEARTBEAT_SETTING = "COCOWEB_BUILD_HEARTBEAT_SECONDS"

    kind = models.CharField(max_length=16, choices=Kind.choices)
    graph = models.ForeignKey(Graph, on_delete=models.CASCADE, related_name="build_jobs")
    name = models.SlugField(max_length=100, help_text="name of the question set to build")
    seed = models.BigIntegerField()
    params = models.JSONField(default=dict, blank=True, help_text="builder keyword arguments")
    state = models.CharField(max_length=16, choices=State.choices, default=State.QUEUED, db_index=True)
    stage = models.CharField(max_length=64, blank=True, help_text="the step being worked on")
    stage_index = models.PositiveSmallIntegerField(default=0, help_text="1-based number of the current step")
    stage_count = models.PositiveSmallIntegerField(default=0)
    progress_done = models.PositiveIntegerField(default=0)
    progress_total = models.PositiveIntegerField(null=True, blank=True, help_text="None: the step has no count")
    error = models.TextField(blank=True, help_text="why the build failed")
    error_detail = models.TextField(blank=True, help_text="traceback of an unexpected failure")
    question_set = models.ForeignKey(
        QuestionSet, null=True, blank=True, on_delete=models.SET_NULL, related_name="build_jobs"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            # At most one queued or running job per set name (the form checks first; this closes the race).
            models.UniqueConstraint(
                fields=["name"],
                condition=models.Q(state__in=["queued", "running"]),
                name="build_job_unique_active_name",
            ),
        ]

    def __str__(self) -> str:
        return f"build job {self.pk}: {self.kind} {self.name!r} from {self.graph_id}"

    @property
    def is_finished(self) -> bool:
        return self.state in self.TERMINAL

    @property
    def percent(self) -> int | None:
        if not self.progress_total:
            return None
        return min(100, round(100 * self.progress_done / self.progress_total))


class TriplePlausibility(models.Model):
    """A plausibility model's P(yes) for one (head, relation, tail) of a graph (issue 11 item 3),
    computed once per (graph, model) and reused by every build. ``key`` is a hash of the three
    texts, so distractor statements that are not graph triples are cached too (``triple`` is
    then null)."""

    graph = models.ForeignKey(Graph, on_delete=models.CASCADE, related_name="+", db_index=False)
    model = models.CharField(max_length=255, help_text="backend, model and prompt version")
    key = models.CharField(max_length=64, help_text="sha256 of head, relation and tail")
    triple = models.ForeignKey(
        Triple, null=True, blank=True, on_delete=models.CASCADE, related_name="model_plausibility"
    )
    head = models.TextField()
    relation = models.CharField(max_length=64)
    tail = models.TextField()
    p_yes = models.FloatField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["graph", "model", "key"], name="plausibility_unique_key")]

    def __str__(self) -> str:
        return f"{self.head} | {self.relation} | {self.tail}: {self.p_yes:.3f}"
