"""Predictions of intersection questions (2i, 3i) stored their relations in branch order, so
``xAttr+xReact`` and ``xReact+xAttr`` were two groups in the error views (issue 14): sort them, as
``commonsense.questions.record.question_relation`` now does. One UPDATE per distinct value."""

from django.db import migrations

from commonsense.questions.record import UNORDERED_STRUCTURES


def sort_pairs(apps, schema_editor):
    Prediction = apps.get_model("runs", "Prediction")
    rows = Prediction.objects.filter(item_kind__in=UNORDERED_STRUCTURES, item_relation__contains="+")
    for old in rows.values_list("item_relation", flat=True).distinct().order_by():
        new = "+".join(sorted(old.split("+")))
        if new != old:
            rows.filter(item_relation=old).update(item_relation=new)


class Migration(migrations.Migration):
    dependencies = [("runs", "0002_prediction_item_facets")]

    operations = [migrations.RunPython(sort_pairs, migrations.RunPython.noop)]
