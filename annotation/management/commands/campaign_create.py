"""Create an annotation campaign from the command line, exactly as the "New campaign" form does
(the same form validates the values and the same service creates it), optionally opened to a
crowd platform through a study link:

    python manage.py campaign_create --set nww-statements --type survey --name nww-crowd \\
        --redundancy 23 --budget 50 --study-link --completion-url "https://app.prolific.com/submissions/complete?cc={code}"

Judging a generate-answer run's generations (COM2 Table 4: Plausible / 1-hop / False), 10 per
query kind:

    python manage.py campaign_create --run 12 --type generation --name com2-judge --per-kind 10
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import transaction
from django.urls import reverse

from annotation.crowd.services import crowd_study_enable
from annotation.forms import CampaignForm
from annotation.models import DEMOGRAPHIC_FIELDS, Campaign
from annotation.services.campaigns import campaign_create, campaign_status_set, generation_run_check
from knowledge.models import QuestionSet, StatementSet
from runs.models import Run


class Command(BaseCommand):
    help = (
        "Create an annotation campaign (survey, mcqa, rica, or generation from a generate-answer --run) as the "
        "campaign form does; --study-link opens it to a crowd."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--set", help="statement set (survey) or question set (mcqa, rica)")
        parser.add_argument("--run", type=int, help="generation: the finished generate-answer run to judge")
        parser.add_argument("--per-kind", type=int, help="generation: a seeded sample of N per query kind")
        parser.add_argument(
            "--type", required=True, choices=[k for k in Campaign.Kind.values if k != Campaign.Kind.REVIEW]
        )
        parser.add_argument("--name", required=True, help="the campaign's slug (used in links)")
        parser.add_argument("--title", default="", help="default: the name")
        parser.add_argument(
            "--redundancy", type=int, help="the minimum of answers per item (default 20 for surveys, 3 otherwise)"
        )
        parser.add_argument(
            "--max-answers",
            type=int,
            help="MCQA: answers an unsettled item may get at most (adaptive redundancy; default 5, = --redundancy: fixed)",
        )
        parser.add_argument("--settle-threshold", type=float, help="MCQA: posterior each verdict needs (default 0.95)")
        parser.add_argument(
            "--label-rule", choices=["majority", "dawid_skene", "mace"], help="MCQA: final labels (default majority)"
        )
        parser.add_argument(
            "--settlement-rule",
            choices=["all_verdicts", "needs"],
            help="MCQA: when an item is settled: what its verified item needs (needs, the default: the item well "
            "formed, the gold, three negatives) or every verdict of its label (all_verdicts)",
        )
        parser.add_argument(
            "--no-agreement",
            action="store_true",
            help="MCQA: let the confidence rule settle an item some answer dissents on (by default an item settles "
            "only when every answer agrees on what it publishes, and a dissent closes it as disputed)",
        )
        parser.add_argument(
            "--serve-disagreements-first",
            action="store_true",
            help="MCQA: items where a model's vote and the build disagree are served first",
        )
        parser.add_argument(
            "--reviews",
            type=int,
            help="MCQA: blind reviews per settled item before it is published (default 2; 0: no review stage). "
            "The review campaign NAME-review serves them (annotation/services/reviews.py)",
        )
        parser.add_argument("--budget", type=int, help="items per person (NWW: 50)")
        parser.add_argument(
            "--instructions",
            default="",
            help="shown to annotators (MCQA default: how to answer, 'Not well formed' too)",
        )
        parser.add_argument(
            "--qualification", default="", help="positions in the qualification source, e.g. 0-9 (default: all)"
        )
        parser.add_argument("--qualification-set", default="", help="MCQA: a verified set whose items are the test")
        parser.add_argument(
            "--qualification-file", default="", help="MCQA: a gold file (JSONL) whose items are the test"
        )
        parser.add_argument("--qualification-size", type=int, default=None, help="items each person answers (COM2: 6)")
        parser.add_argument("--pass-mark", type=float, default=None)
        parser.add_argument("--attention", default="", help="source positions used as attention checks")
        parser.add_argument("--attention-every", type=int, default=None)
        parser.add_argument("--attention-max-failures", type=int, default=None)
        parser.add_argument("--ask-common-sense", action="store_true")
        parser.add_argument(
            "--item-order",
            choices=[v for v, _ in Campaign._meta.get_field("item_order").choices],  # type: ignore[union-attr]
            default=None,
            help="surveys: rater (each rater's own seeded random order, the default; NWW) or fixed (the set's order)",
        )
        parser.add_argument("--seed", type=int, default=None)
        parser.add_argument("--draft", action="store_true", help="leave the campaign closed to annotators (draft)")
        parser.add_argument("--study-link", action="store_true", help="open the campaign to a crowd platform")
        parser.add_argument("--completion-url", default="", help="{code} is replaced by the participant's code")
        parser.add_argument("--return-url", default="", help="where a participant who declines consent goes")
        parser.add_argument("--screenout-code", default="", help="the platform's code for screened-out participants")
        parser.add_argument(
            "--screenout-url", default="", help="where a screened-out participant goes; {code}: that code"
        )
        parser.add_argument("--attempts", type=int, default=2, help="qualification attempts allowed (Prolific: 2)")
        parser.add_argument("--demographics", default="", help=f"comma-separated, of {', '.join(DEMOGRAPHIC_FIELDS)}")
        parser.add_argument("--consent-file", default="", help="a text file with the consent text")

    def handle(self, *args: Any, **o: Any) -> None:
        if (o["type"] == Campaign.Kind.GENERATION) != (o["run"] is not None):
            raise CommandError("--run goes with --type generation, and a generation campaign needs --run")
        if o["type"] != Campaign.Kind.GENERATION and not o["set"]:
            raise CommandError("--set is required")
        if o["type"] == Campaign.Kind.GENERATION:
            try:
                generation_run_check(Run.objects.filter(pk=o["run"]).first())
            except ValidationError as exc:
                raise CommandError(f"--run {o['run']}: " + " ".join(exc.messages)) from None
            source = f"run:{o['run']}"
        elif o["type"] == Campaign.Kind.SURVEY:
            if not StatementSet.objects.filter(name=o["set"]).exists():
                raise CommandError(f"--set: no statement set named {o['set']!r} (a survey rates statements)")
            source = f"ss:{o['set']}"
        else:
            if not QuestionSet.objects.filter(name=o["set"]).exists():
                raise CommandError(f"--set: no question set named {o['set']!r}")
            source = f"qs:{o['set']}"
        if (
            o["qualification_set"]
            and not QuestionSet.objects.filter(name=o["qualification_set"], verified_from__isnull=False).exists()
        ):
            raise CommandError(
                f"--qualification-set: {o['qualification_set']!r} is not a verified set (make one with verified_set)"
            )
        data = {
            "name": o["name"],
            "title": o["title"] or o["name"],
            "kind": o["type"],
            "source": source,
            "instructions": o["instructions"],
            "redundancy": "" if o["redundancy"] is None else o["redundancy"],
            "max_answers": o["max_answers"],
            "settle_threshold": o["settle_threshold"],
            "label_rule": o["label_rule"],
            "settlement_rule": o["settlement_rule"],
            "require_agreement": not o["no_agreement"],
            "serve_disagreements_first": o["serve_disagreements_first"],
            "reviews": o["reviews"],
            "max_items_per_annotator": "" if o["budget"] is None else o["budget"],
            "per_kind": "" if o["per_kind"] is None else o["per_kind"],
            "ask_common_sense": o["ask_common_sense"],
            "item_order": o["item_order"],
            "qualification_positions": o["qualification"],
            "qualification_source": f"qs:{o['qualification_set']}" if o["qualification_set"] else "",
            "qualification_size": "" if o["qualification_size"] is None else o["qualification_size"],
            "attention_positions": o["attention"],
            "qualification_pass_mark": o["pass_mark"],
            "attention_every": o["attention_every"],
            "attention_max_failures": o["attention_max_failures"],
            "seed": o["seed"],
            "open_now": not o["draft"],
        }
        form = CampaignForm()
        for name, field in form.fields.items():  # what the form shows pre-filled
            if data.get(name) is None and field.initial is not None:
                data[name] = field.initial
        form = CampaignForm(data)
        if not form.is_valid():
            raise CommandError("; ".join(f"{k}: {' '.join(map(str, v))}" for k, v in form.errors.items()))
        settings: dict[str, Any] = {}
        if o["study_link"]:
            settings = {
                "completion_url": o["completion_url"],
                "return_url": o["return_url"],
                "screenout_code": o["screenout_code"],
                "screenout_url": o["screenout_url"],
                "qualification_attempts": o["attempts"],
                "demographics": [d.strip() for d in o["demographics"].split(",") if d.strip()],
            }
            if o["consent_file"]:
                with open(o["consent_file"], encoding="utf-8") as f:
                    settings["consent_text"] = f.read()
        try:
            with transaction.atomic():  # no half-made campaign
                kwargs = form.service_kwargs()
                if o["qualification_file"]:
                    kwargs["qualification_file"] = Path(o["qualification_file"])
                campaign = campaign_create(**kwargs)
                if form.cleaned_data["open_now"]:
                    campaign_status_set(campaign, Campaign.Status.OPEN)
                if o["study_link"]:
                    crowd_study_enable(campaign, **settings)
        except ValidationError as exc:
            raise CommandError(" ".join(exc.messages)) from None
        self.stdout.write(f"campaign {campaign.name}: {campaign.items.count()} items, {campaign.status}")
        if o["study_link"]:
            link = reverse("crowd:join", kwargs={"slug": campaign.name})
            self.stdout.write(
                f"study link: {link}?PROLIFIC_PID={{{{%PROLIFIC_PID%}}}}&STUDY_ID={{{{%STUDY_ID%}}}}&SESSION_ID={{{{%SESSION_ID%}}}}"
            )
