"""Signals of the knowledge app, for the apps above it (which knowledge must not import): the one
way a lower app tells the ones above it (docs/ARCHITECTURE.md, "Layers")."""

from __future__ import annotations

from django.dispatch import Signal

# Sent with ``question_set`` while its quality report is computed (knowledge/services/set_quality.py);
# a receiver (annotation: its latest MCQA validation campaign's figures) returns the mapping stored
# under the report's ``human`` key, or None when it has nothing to say.
question_set_human_quality_wanted = Signal()

# Sent with ``question_set`` while it is written as a publication (knowledge/services/publication.py);
# a receiver (annotation: its validation campaign's answers and votes) returns a ``HumanPart``, or None.
question_set_human_part_wanted = Signal()

# Sent with ``question_set``, ``user`` and ``fmt`` (an export format, or "api" for the REST API's
# question list) before a set's questions leave in a file or a response; a receiver (annotation: a
# verified set carries its campaign's labels and votes, a Hugging Face publication its campaign's
# answers) returns the reason this user may not have them, or None.
question_set_export_refused = Signal()
