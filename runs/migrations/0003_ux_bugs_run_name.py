"""Runs get a name, shown wherever runs are listed (issue 14 bug 9). Existing runs are named
after their model's own name (the GGUF file, the model's folder or package, the server model)."""

from django.db import migrations, models

from commonsense.scoring.naming import model_display_name


def name_existing_runs(apps, schema_editor):
    Run = apps.get_model("runs", "Run")
    for run in Run.objects.filter(name="").only("pk", "backend", "model").iterator():
        Run.objects.filter(pk=run.pk).update(name=model_display_name(run.backend, run.model))


class Migration(migrations.Migration):
    dependencies = [
        ("runs", "0002_prediction_item_facets"),
    ]

    operations = [
        migrations.AddField(
            model_name="run",
            name="name",
            field=models.CharField(
                blank=True, help_text="shown wherever runs are listed; default: the model's own name", max_length=200
            ),
        ),
        migrations.RunPython(name_existing_runs, migrations.RunPython.noop),
    ]
