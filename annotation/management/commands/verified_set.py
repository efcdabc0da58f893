"""``python manage.py verified_set CAMPAIGN --name SET``: the accepted items of a finished MCQA
validation campaign as a new question set, rewritten with COM2's post-processing (issue 11)."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from annotation.models import Campaign
from annotation.services.verified import preview_text, verified_set_create, verified_set_preview


class Command(BaseCommand):
    help = (
        "Make a verified question set from a finished MCQA validation campaign, or from a RICA pair "
        "campaign by RICA's two rounds (gold flipped where the raters overturn it)."
    )

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("campaign", help="the campaign's name")
        parser.add_argument("--name", required=True, help="name of the new question set")
        parser.add_argument(
            "--include-unsettled",
            action="store_true",
            help="also keep items the confidence rule did not settle (stored on the set and shown on its page); "
            "items below the minimum of answers are never kept",
        )
        parser.add_argument(
            "--top-up",
            action="store_true",
            help="fill an item short of negatives from its distractor pool (COM2 A.4's top-up: negatives no "
            "annotator saw); by default such an item is left out (too_few_negatives)",
        )
        parser.add_argument(
            "--any-gold",
            action="store_true",
            help="also keep items whose answers did not all tick the built answer (their gold rewritten to another "
            "option or to 'None of the answers are correct.'); by default they are left out (built_answer_rejected)",
        )
        parser.add_argument("--dry-run", action="store_true", help="only say what would be kept and left out")

    def handle(self, *args: Any, **o: Any) -> None:
        try:
            campaign = Campaign.objects.get(name=o["campaign"])
        except Campaign.DoesNotExist:
            raise CommandError(f"no campaign named {o['campaign']!r}") from None
        if campaign.kind == Campaign.Kind.RICA:  # RICA's two rounds (annotation/services/rica_verified.py)
            from annotation.services.rica_verified import rica_verified_set_create

            try:
                r = rica_verified_set_create(campaign, name=o["name"])
            except ValidationError as exc:
                raise CommandError("; ".join(exc.messages)) from None
            c = r.counts
            self.stdout.write(
                f"{r.question_set.name}: {c['kept']} of {c['items']} pairs settled ({c['round_1']} in round 1, "
                f"{c['round_2']} in round 2), {c['flipped']} flipped; kappa {c['kappa_round_1']} / {c['kappa_round_2']}"
            )
            return
        preview = verified_set_preview(
            campaign, include_unsettled=o["include_unsettled"], require_built_answer=not o["any_gold"]
        )
        self.stdout.write(preview_text(campaign, preview))
        if o["dry_run"]:
            return
        try:
            v = verified_set_create(
                campaign,
                name=o["name"],
                include_unsettled=o["include_unsettled"],
                top_up=o["top_up"],
                require_built_answer=not o["any_gold"],
            )
        except ValidationError as exc:
            raise CommandError("; ".join(exc.messages)) from None
        c = v.counts
        left = {
            k: n
            for k, n in c.items()
            if k not in ("items", "kept", "none_correct", "needs_manual_negatives", "topped_up")
        }
        self.stdout.write(
            f"{v.question_set.name}: {c['kept']} of {c['items']} items kept"
            f" ({c['none_correct']} answered 'None of the answers are correct.', {c.get('topped_up', 0)} topped up"
            f" from their distractor pool{'; UNSETTLED ITEMS INCLUDED' if v.include_unsettled else ''})"
            + (f"; left out: {', '.join(f'{k} {n}' for k, n in left.items())}" if left else "")
        )
