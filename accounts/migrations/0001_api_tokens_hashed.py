"""API tokens stored hashed (issue 31 item 11). Every key DRF's ``authtoken`` table holds is copied
as its SHA-256, so existing tokens keep working, and the clear keys are deleted from that table.
The table itself is left for the operator to drop (``rest_framework.authtoken`` is no longer an
installed app, so no migration of ours may own it)."""

import hashlib

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

LEGACY_TABLE = "authtoken_token"


def tokens_from_authtoken(apps, schema_editor):  # noqa: ANN001, ANN201
    connection = schema_editor.connection
    if LEGACY_TABLE not in connection.introspection.table_names():
        return
    ApiToken = apps.get_model("accounts", "ApiToken")
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT key, user_id, created FROM {LEGACY_TABLE}")
        rows = cursor.fetchall()
        for key, user_id, created in rows:
            token = ApiToken.objects.create(
                user_id=user_id, digest=hashlib.sha256(key.encode()).hexdigest(), prefix=key[:6]
            )
            ApiToken.objects.filter(pk=token.pk).update(created=created)  # auto_now_add set it to now
        cursor.execute(f"DELETE FROM {LEGACY_TABLE}")


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="ApiToken",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                (
                    "digest",
                    models.CharField(editable=False, help_text="SHA-256 of the key, hex", max_length=64, unique=True),
                ),
                ("prefix", models.CharField(editable=False, help_text="the key's first characters", max_length=8)),
                ("created", models.DateTimeField(auto_now_add=True)),
                (
                    "user",
                    models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="api_token",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
            options={"verbose_name": "API token"},
        ),
        migrations.RunPython(tokens_from_authtoken, migrations.RunPython.noop),
    ]
