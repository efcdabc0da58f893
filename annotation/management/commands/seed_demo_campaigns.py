"""Demo campaigns, open at once, so the demo annotator has work on first log-in:

- a commonsensicality survey (NWW) on the demo statements, questions (a), (b) and (c), with
  attention items whose gold is the stored human majority;
- a COM2 multiple-choice validation on the built 2i demo set, with a qualification test of 6
  items drawn for each person from the gold file ``fixtures/qualification/com2_demo_gold.jsonl``
  (10 items written and read for this purpose, every plausible option marked; 5 of 6 exactly right
  pass);
- a RICA pair verification when a RICA probe set has been imported (the RICA files are not
  shipped in fixtures/: `import_questions ../shared/data/rica/... --format rica-probes`);
- a small crowd study on the demo statements (a study link a visitor opens as a participant would:
  consent, about you, 20 statements, completion code).

Idempotent: a campaign that exists already is left as it is."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand
from django.db import transaction
from django.urls import reverse

from annotation.crowd.services import crowd_study_enable
from annotation.models import Campaign
from annotation.services.campaigns import campaign_create
from commonsense import validation
from knowledge.models import QuestionSet, StatementSet

QUALIFICATION_GOLD = settings.BASE_DIR / "fixtures" / "qualification" / "com2_demo_gold.jsonl"
SURVEY_INSTRUCTIONS = (
    "Read each statement and answer from your own view. (a) Do you agree with it? "
    "(b) Do you think most people would agree with it? (c) Is it common sense? "
    "Keys: Y / N for each question, Enter to submit, S to skip, U to undo."
)
MCQA_INSTRUCTIONS = (  # the campaigns' default instructions, and the demo's qualification
    f"{validation.MCQA_INSTRUCTIONS} The first six questions are a qualification: "
    "you pass with at least five of them answered exactly right."
)


CROWD_STUDY: dict[str, Any] = {  # no platform to return to in the demo: the done page shows the code
    "demographics": ["age_band"],
    "qualification_attempts": 1,
}
# a Prolific-style link with made-up ids (each new PROLIFIC_PID is a new participant)
DEMO_STUDY_QUERY = "PROLIFIC_PID=demo-visitor-1&STUDY_ID=demo-study&SESSION_ID=demo-session-1"


class Command(BaseCommand):
    help = "Open demo annotation campaigns on the demo sets (survey, COM2 validation, RICA when imported, crowd study)."

    def handle(self, *args: Any, **o: Any) -> None:
        specs: list[dict[str, Any]] = []
        sset = StatementSet.objects.filter(name="statements-demo").first()
        if sset is not None:
            specs.append(
                {
                    "name": "survey-demo",
                    "title": "Is it common sense? (demo survey)",
                    "kind": Campaign.Kind.SURVEY,
                    "statement_set": sset,
                    "redundancy": 20,
                    "ask_common_sense": True,
                    "attention_positions": [0, 1, 2],
                    "attention_every": 15,
                    "attention_max_failures": 1,
                    "instructions": SURVEY_INSTRUCTIONS,
                }
            )
            specs.append(
                {
                    "name": "crowd-demo",
                    "title": "Is it common sense? (demo crowd study)",
                    "kind": Campaign.Kind.SURVEY,
                    "statement_set": sset,
                    "redundancy": 3,
                    "ask_common_sense": True,  # the survey's three questions (its instructions)
                    "max_items_per_annotator": 20,  # NWW's budget: statements per participant
                    "attention_positions": [3, 4],
                    "attention_every": 10,
                    "attention_max_failures": 1,
                    "instructions": SURVEY_INSTRUCTIONS,
                    "crowd": CROWD_STUDY,
                }
            )
        qset = QuestionSet.objects.filter(name="com2-2i-demo").first()
        if qset is not None:
            specs.append(
                {
                    "name": "com2-validation-demo",
                    "title": "Validate COM2 2i questions (demo)",
                    "kind": Campaign.Kind.MCQA,
                    "question_set": qset,
                    "redundancy": 3,
                    "qualification_file": QUALIFICATION_GOLD,
                    "qualification_size": 6,
                    "qualification_pass_mark": 0.8,
                    "instructions": MCQA_INSTRUCTIONS,
                }
            )
        rica = QuestionSet.objects.filter(kind=QuestionSet.Kind.RICA_PROBES).order_by("pk").first()
        if rica is not None:
            specs.append(
                {
                    "name": "rica-demo",
                    "title": "RICA statement pairs (demo)",
                    "kind": Campaign.Kind.RICA,
                    "question_set": rica,
                    "redundancy": 3,
                }
            )
        for spec in specs:
            if Campaign.objects.filter(name=spec["name"]).exists():
                continue
            crowd = spec.pop("crowd", None)
            with transaction.atomic():  # no half-made study
                campaign = campaign_create(status=Campaign.Status.OPEN, **spec)
                if crowd is not None:
                    crowd_study_enable(campaign, **crowd)
            self.stdout.write(f"campaign {campaign.name}: {campaign.items.count()} items, open")
            if crowd is not None:
                link = reverse("crowd:join", kwargs={"slug": campaign.name})
                self.stdout.write(f"  study link: {link}?{DEMO_STUDY_QUERY}")
