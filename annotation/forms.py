"""Forms: the researcher's campaign form, adjudication, ratings import. Reading an annotator's
answer out of a submitted item form is :mod:`annotation.submissions`."""

from __future__ import annotations

from typing import Any

from django import forms
from django.conf import settings
from django.core.exceptions import ValidationError

from cocoweb.params import MAX_COUNT, MAX_INT32, MAX_SEED
from knowledge.models import QuestionSet, StatementSet
from runs.models import Run

from .models import Campaign


def _positions(text: str) -> list[int]:
    out: list[int] = []
    for part in (text or "").replace(";", ",").split(","):
        part = part.strip()
        if not part:
            continue
        if "-" in part:
            lo, _, hi = part.partition("-")
            if not (lo.strip().isdigit() and hi.strip().isdigit()) or int(lo) > int(hi):
                raise ValidationError(f"{part!r} is not a range like 0-5")
            out.extend(range(int(lo), int(hi) + 1))
        elif part.isdigit():
            out.append(int(part))
        else:
            raise ValidationError(f"{part!r} is not an item position")
    return out


def source_choices() -> list[tuple[str, str]]:
    choices = [(f"ss:{s.name}", f"Statements · {s.name} ({s.statement_count})") for s in StatementSet.objects.all()]
    choices += [
        (f"qs:{q.name}", f"Questions · {q.name} ({q.get_kind_display()}, {q.question_count})")
        for q in QuestionSet.objects.all()
    ]
    choices += [
        (f"run:{r.pk}", f"Generations · run #{r.pk} {r.name or r.model} on {r.set_name}")
        for r in Run.objects.filter(scoring="generate-answer", state=Run.State.DONE, question_set__isnull=False)
        .select_related("question_set")
        .order_by("-pk")
    ]
    return choices


GOLD_DIR = settings.BASE_DIR / "fixtures" / "qualification"  # the shipped gold files


def qualification_choices() -> list[tuple[str, str]]:
    choices = [("", "none (or the upload below)")]
    choices += [
        (f"qs:{q.name}", f"Verified set · {q.name} ({q.question_count})")
        for q in QuestionSet.objects.filter(verified_from__isnull=False).order_by("name")
    ]
    choices += [(f"file:{p.name}", f"Gold file · {p.name}") for p in sorted(GOLD_DIR.glob("*.jsonl"))]
    return choices


class CampaignForm(forms.Form):
    name = forms.SlugField(max_length=100, help_text="short id used in links")
    title = forms.CharField(max_length=200)
    kind = forms.ChoiceField(  # a review campaign comes with its validation campaign (field "reviews")
        choices=[c for c in Campaign.Kind.choices if c[0] != Campaign.Kind.REVIEW], label="Type"
    )
    source = forms.ChoiceField(
        choices=(),
        help_text="a statement set for surveys, a finished generate-answer run to judge generations, "
        "a question set otherwise",
    )
    instructions = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 4}),
        required=False,
        help_text="empty for an MCQA validation: the standard instructions (every plausible option, 'No answers are "
        "correct', 'Not well formed')",
    )
    redundancy = forms.IntegerField(
        min_value=1,
        max_value=500,
        required=False,
        label="Minimum answers per item",
        help_text="answers every item gets; empty = 3 for MCQA and RICA, 20 for surveys (a fixed redundancy there)",
    )
    max_answers = forms.IntegerField(
        min_value=1,
        max_value=500,
        required=False,
        label="MCQA: maximum answers per item",
        help_text="adaptive redundancy: an item the confidence rule has not settled gets more answers, one at a "
        "time, up to this; empty = 5 (or the minimum when higher); the minimum = a fixed redundancy",
    )
    settle_threshold = forms.FloatField(
        min_value=0.5,
        max_value=1,
        required=False,
        initial=0.95,
        label="MCQA: confidence to settle",
        help_text="needs: the probability that its verified item is right (Dawid-Skene); every verdict: the posterior "
        "each verdict of its label needs, unless all answers agree",
    )
    label_rule = forms.ChoiceField(
        choices=Campaign._meta.get_field("label_rule").choices,  # type: ignore[arg-type]
        required=False,
        initial="majority",
        label="MCQA: final labels",
        help_text="the majority of the answers, or weighted by the annotators' estimated quality",
    )
    settlement_rule = forms.ChoiceField(
        choices=Campaign._meta.get_field("settlement_rule").choices,  # type: ignore[arg-type]
        required=False,
        initial="needs",
        label="MCQA: when an item is settled",
        help_text="what its verified item needs (the default: the item well formed, the gold and the three negatives "
        "it keeps), or every verdict of its label confident",
    )
    require_agreement = forms.BooleanField(
        required=False,
        initial=True,
        label="MCQA: agreement required",
        help_text="on by default: an item settles only when every answer agrees on what it publishes; one dissent "
        "(a 'Not well formed' flag, 'none', another gold) closes it as disputed and it stays out of verified sets. "
        "In a measured loop, items with a dissent were 23 % sound for a blind reader, those without 79 %. "
        "Verified sets leave out items short of negatives unless you ask for COM2's top-up.",
    )
    serve_disagreements_first = forms.BooleanField(
        required=False, label="MCQA: serve first the items where a model's vote and the build disagree"
    )
    reviews = forms.IntegerField(
        min_value=0,
        max_value=10,
        required=False,
        initial=2,
        label="MCQA: blind reviews per settled item",
        help_text="a review stage (campaign NAME-review): each settled item, as it will be published, goes to this "
        "many further people who did not annotate the campaign, asked for the one answer they would defend (or "
        "several, none, not clear English), without the gold or any answer; a verified set keeps an item only when "
        "every review names its gold. 0 = no review stage",
    )
    max_items_per_annotator = forms.IntegerField(min_value=1, max_value=MAX_INT32, required=False)
    per_kind = forms.IntegerField(
        min_value=1,
        max_value=MAX_COUNT,
        required=False,
        label="Generations: items per query kind",
        help_text="a seeded sample of this many generations per query kind (COM2: 10); empty = all",
    )
    ask_common_sense = forms.BooleanField(
        required=False, label='Survey: also ask (c) "Is this statement common sense?"'
    )
    item_order = forms.ChoiceField(
        choices=Campaign._meta.get_field("item_order").choices,  # type: ignore[arg-type]
        required=False,
        initial="rater",
        label="Survey: statement order",
        help_text="each rater sees the statements in a random order of their own (NWW's design), the same in every "
        "session of theirs: a shuffle seeded by the campaign's seed and the rater; or the set's order for everyone",
    )
    qualification_source = forms.ChoiceField(
        choices=(),
        required=False,
        label="Qualification items from",
        help_text="MCQA: a verified set or a gold file (every plausible option marked); or upload a gold file below",
    )
    qualification_file = forms.FileField(
        required=False,
        label="…or upload a gold file",
        help_text="JSONL, one item a line: question, context, options, gold (plausible option indices; [] = none)",
    )
    qualification_positions = forms.CharField(
        required=False,
        help_text="positions in the qualification source, e.g. 0-9 (empty = all of it); surveys and RICA: "
        "positions of the campaign's own source",
    )
    qualification_size = forms.IntegerField(
        min_value=1,
        max_value=1000,
        required=False,
        help_text="items each person answers, drawn for them from those (COM2: 6); empty = all",
    )
    qualification_pass_mark = forms.FloatField(
        min_value=0, max_value=1, initial=0.85, help_text="share of the test's items answered exactly right"
    )
    attention_positions = forms.CharField(required=False, help_text="source positions used as attention checks")
    attention_every = forms.IntegerField(
        min_value=0, max_value=1000, initial=0, help_text="one check after every N items"
    )
    attention_max_failures = forms.IntegerField(min_value=0, max_value=1000, initial=1)
    agreement_threshold = forms.FloatField(min_value=0, max_value=1, initial=0.6)
    reservation_ttl_seconds = forms.IntegerField(
        min_value=30, max_value=7 * 86400, initial=600, label="Reservation time-to-live (s)"
    )
    seed = forms.IntegerField(min_value=0, max_value=MAX_SEED, initial=0)
    open_now = forms.BooleanField(required=False, initial=True, label="Open the campaign now")

    # The form's field groups and the campaign types each is for (issue 29 item 15): the page shows a
    # group only for its types (static/cocoweb/forms.js hides the others; without JavaScript every
    # group shows, its legend saying which type it is for).
    GROUPS: tuple[tuple[str, str, str], ...] = (  # (legend, types, fields), space-separated; "" = every type
        ("", "", "name title kind source instructions"),
        ("Answers", "", "redundancy max_items_per_annotator agreement_threshold reservation_ttl_seconds"),
        ("Multiple-choice validation: adaptive redundancy and final labels", "mcqa", "max_answers settle_threshold "
         "label_rule settlement_rule require_agreement serve_disagreements_first reviews"),
        ("Survey", "survey", "item_order ask_common_sense"),
        ("Judging generations", "generation", "per_kind"),
        ("Multiple-choice validation: where the qualification items come from", "mcqa",
         "qualification_source qualification_file"),
        ("Qualification and attention checks (not for judging generations: they have no gold)", "survey mcqa rica",
         "qualification_positions qualification_size qualification_pass_mark attention_positions attention_every "
         "attention_max_failures"),
        ("", "", "seed open_now"),
    )  # fmt: skip
    # which sources each type takes (the source select's options are limited to them with JavaScript)
    SOURCE_PREFIX = {Campaign.Kind.SURVEY: "ss:", Campaign.Kind.GENERATION: "run:", "*": "qs:"}

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["source"].choices = source_choices()  # type: ignore[attr-defined]
        self.fields["qualification_source"].choices = qualification_choices()  # type: ignore[attr-defined]
        self.fields["kind"].widget.attrs["data-shows-groups"] = ""
        self.fields["source"].widget.attrs["data-for-prefix"] = " ".join(
            f"{k}={v}" for k, v in self.SOURCE_PREFIX.items()
        )

    def groups(self) -> list[tuple[str, str, list[forms.BoundField]]]:
        """(legend, the types it is for as a space-separated list or "" for every type, its fields)."""
        return [(legend, kinds, [self[name] for name in names.split()]) for legend, kinds, names in self.GROUPS]

    def clean(self) -> dict[str, Any]:
        d = super().clean() or {}
        source, kind = str(d.get("source") or ""), d.get("kind")
        if source.startswith("run:") != (kind == Campaign.Kind.GENERATION):
            self.add_error(
                "source",
                "judging generations takes a generate-answer run as its source (and a run is judged only there)",
            )
        return d

    def clean_max_answers(self) -> int | None:
        hi, lo = self.cleaned_data.get("max_answers"), self.cleaned_data.get("redundancy")
        if hi is not None and hi < (lo or 3):
            raise forms.ValidationError(f"the maximum ({hi}) is below the minimum ({lo})")
        return hi

    def clean_qualification_positions(self) -> list[int]:
        return _positions(self.cleaned_data.get("qualification_positions", ""))

    def clean_attention_positions(self) -> list[int]:
        return _positions(self.cleaned_data.get("attention_positions", ""))

    def clean_qualification_file(self) -> Any:
        f = self.cleaned_data.get("qualification_file")
        if f is not None and f.size > settings.COCOWEB_MAX_RATINGS_BYTES:
            raise ValidationError(f"the file is {f.size:,} bytes; the limit is {settings.COCOWEB_MAX_RATINGS_BYTES:,}")
        return f

    def _qualification_source(self) -> dict[str, Any]:
        d = self.cleaned_data
        choice = str(d.get("qualification_source") or "")
        if d.get("qualification_file") is not None:
            return {"qualification_file": d["qualification_file"]}
        if choice.startswith("qs:"):
            return {"qualification_set": QuestionSet.objects.get(name=choice[3:])}
        if choice.startswith("file:"):
            return {"qualification_file": GOLD_DIR / choice[5:]}
        return {}

    def service_kwargs(self) -> dict[str, Any]:
        d = self.cleaned_data
        prefix, _, name = d["source"].partition(":")
        src: dict[str, Any] = {}
        if prefix == "ss":
            src["statement_set"] = StatementSet.objects.get(name=name)
        elif prefix == "run":
            src["run"] = Run.objects.select_related("question_set").get(pk=int(name))
            src["per_kind"] = d.get("per_kind")
        else:
            src["question_set"] = QuestionSet.objects.get(name=name)
        keys = (
            "instructions",
            "redundancy",
            "max_answers",
            "settle_threshold",
            "label_rule",
            "settlement_rule",
            "require_agreement",
            "serve_disagreements_first",
            "reviews",
            "max_items_per_annotator",
            "ask_common_sense",
            "item_order",
            "qualification_pass_mark",
            "attention_every",
            "attention_max_failures",
            "agreement_threshold",
            "reservation_ttl_seconds",
            "seed",
        )
        return {
            "name": d["name"],
            "title": d["title"],
            "kind": d["kind"],
            **src,
            "qualification_positions": d["qualification_positions"],
            "qualification_size": d.get("qualification_size"),
            **self._qualification_source(),
            "attention_positions": d["attention_positions"],
            **{k: d[k] for k in keys},
        }


class AdjudicationForm(forms.Form):
    reason = forms.CharField(widget=forms.Textarea(attrs={"rows": 3}), help_text="kept with the decision")


RATINGS_SUFFIXES = (".csv", ".txt")


class RatingsImportForm(forms.Form):
    file = forms.FileField(help_text="CSV, one row per rater: rater, then one column per item and question")
    create_raters = forms.BooleanField(required=False, label="Create accounts for raters not known yet (no log-in)")

    def clean_file(self) -> Any:
        f = self.cleaned_data["file"]
        # The smaller of the ratings cap and the upload cap (past which the upload handler kept nothing).
        limit = min(settings.COCOWEB_MAX_RATINGS_BYTES, settings.COCOWEB_MAX_UPLOAD_BYTES)
        if f.size > limit:
            raise ValidationError(f"the file is {f.size:,} bytes; the limit is {limit:,} bytes")
        name = f.name or ""
        if not name.lower().endswith(RATINGS_SUFFIXES):
            raise ValidationError(f"{name!r} is not a CSV file; use one of {', '.join(RATINGS_SUFFIXES)}")
        return f
