"""Used to install the full-text index on nodes. The index belongs to the node table's app and is
installed by ``knowledge/migrations/0005_house_node_search.py`` (see knowledge/db/node_search.py),
which also removes what this migration installed on databases that applied it. Kept, empty, so
that the migration history of those databases stays consistent."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [("knowledge", "0001_initial")]

    operations = []
