# A run's predictions in order, its summary kept, and its items searched by trigram (issue 32 item 3).

from django.db import migrations, models

# The sample viewer's text filter (runs.selectors.samples.SampleFilters) searches a run's items with
# Django's icontains, UPPER(column) LIKE UPPER('%text%'): on PostgreSQL, GIN trigram indexes on those
# expressions answer it without reading every item of the set (58,200 questions: 350 ms -> a few ms).
# pg_trgm is a trusted extension (PostgreSQL 13+: the database's owner may create it); where it cannot
# be created the indexes are left out and the search still works, by reading the items.
# The external ids get a plain index: an OR of conditions is answered from indexes only when every
# one of them has one.
TRIGRAM_INDEXES = (
    ("question_stem_trgm", "knowledge_question", "gin ((upper(stem)) gin_trgm_ops)"),
    ("question_context_trgm", "knowledge_question", "gin ((upper(context)) gin_trgm_ops)"),
    ("question_options_trgm", "knowledge_question", "gin ((upper(options::text)) gin_trgm_ops)"),
    ("question_external_id", "knowledge_question", "btree (external_id)"),
    ("statement_text_trgm", "knowledge_statement", "gin ((upper(text)) gin_trgm_ops)"),
    ("statement_external_id", "knowledge_statement", "btree (external_id)"),
)


def trigram_indexes(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    from django.db import DatabaseError, transaction

    try:
        with transaction.atomic(using=schema_editor.connection.alias):
            schema_editor.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm")
    except DatabaseError:
        return
    for name, table, method in TRIGRAM_INDEXES:
        schema_editor.execute(f"CREATE INDEX IF NOT EXISTS {name} ON {table} USING {method}")


def trigram_indexes_drop(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    for name, _, _ in TRIGRAM_INDEXES:
        schema_editor.execute(f"DROP INDEX IF EXISTS {name}")


class Migration(migrations.Migration):
    dependencies = [
        ("knowledge", "0009_node_text_display_and_verdict"),
        ("runs", "0008_run_shard"),
    ]

    operations = [
        migrations.AddField(
            model_name="run",
            name="sample_summary",
            field=models.JSONField(
                blank=True,
                editable=False,
                help_text="a finished run's prediction counts per relation and kind, under its state (runs.selectors.samples)",
                null=True,
            ),
        ),
        migrations.AddIndex(
            model_name="prediction",
            index=models.Index(fields=["run", "position"], name="prediction_run_order"),
        ),
        migrations.RunPython(trigram_indexes, trigram_indexes_drop),
    ]
