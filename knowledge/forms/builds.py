"""Forms of the browser builds: a COM2 question set and a CoCo set, with the options of
``build_questions`` / ``build_coco``. ``params()`` returns the builder's keyword arguments."""

from __future__ import annotations

from typing import Any, cast

from django import forms
from django.conf import settings

from commonsense.queries import KINDS
from commonsense.queries.rules import DEFAULT_RULES_MODE
from knowledge import selectors
from knowledge.models import Graph
from knowledge.services.abstract_files import SUFFIXES, abstract_file_list
from knowledge.services.build_jobs import build_job_name_clash

MAX_COUNT = 100_000
MAX_SEED = 2**63 - 1
KIND_LABELS = {
    "1p": "one hop",
    "2p": "two-hop chain",
    "3p": "three-hop chain",
    "2i": "intersection of two",
    "3i": "intersection of three",
    "ip": "intersection, then a hop",
    "pi": "chain and hop, intersected",
    "2in": "2i with one HinderedBy branch (COM2 2i-neg)",
}


RULES_CHOICES = [
    ("curated", "curated: the papers' chains, less those read blind as nonsense"),
    ("paper", "paper: every query pattern the papers print (CoCo Table 12, COM2 Appendix D)"),
    ("any", "any: no rule, every composition of the graph's hops"),
]


class _BuildForm(forms.Form):
    graph = forms.ModelChoiceField(queryset=Graph.objects.all(), to_field_name="name", empty_label="choose a graph")
    seed = forms.IntegerField(
        min_value=0,
        max_value=MAX_SEED,
        initial=0,
        help_text="the same graph, parameters and seed give the same questions",
    )
    name = forms.SlugField(max_length=100, label="Set name", help_text="letters, digits, - and _")
    max_degree = forms.IntegerField(
        min_value=1,
        max_value=1000,
        initial=10,
        label="Max degree T",
        help_text="COM2's top-T neighbours per (node, relation)",
    )
    min_plausibility = forms.FloatField(
        required=False, min_value=0.0, max_value=1.0, help_text="keep only triples with at least this plausibility"
    )
    include_implausible = forms.BooleanField(
        required=False,
        label="Include implausible triples",
        help_text="also use triples the graph labels implausible (CSKB label 0) as edges; off: only plausible ones",
    )
    include_malformed = forms.BooleanField(
        required=False,
        label="Include malformed triples",
        help_text="also use triples whose text does not read as English or whose tail does not answer the "
        "relation's question (e.g. a 'feeling' that is no feeling); off: only well-formed ones",
    )
    include_populated = forms.BooleanField(
        required=False,
        label="Include populated candidates",
        help_text="also use CSKB-Population's candidate triples mined from ASER (class cs_head / all_head) as "
        "edges; off: only the knowledge base's own triples (COM2 samples from ATOMIC)",
    )
    rules = forms.ChoiceField(
        required=False,  # not posted: the default
        choices=RULES_CHOICES,
        initial=DEFAULT_RULES_MODE,
        label="Composition rules",
        help_text="which hops may be chained and intersected (stored with the set)",
    )
    diverse = forms.BooleanField(
        required=False,
        label="Diverse (vote-k)",
        help_text="CoCo's vote-k selection (k=150, ρ=10) on all-MiniLM-L6-v2 embeddings, cached per graph",
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.graph_name = str((self.data if self.is_bound else self.initial).get("graph") or "")

    def clean_name(self) -> str:
        name: str = self.cleaned_data["name"]
        clash = build_job_name_clash(name)
        if clash:
            raise forms.ValidationError(f"{clash}; choose another name")
        return name


class QuestionBuildForm(_BuildForm):
    """``build_questions``: COM2 logical queries of one kind."""

    kind = forms.ChoiceField(choices=[(k, f"{k} — {KIND_LABELS[k]}") for k in KINDS])
    count = forms.IntegerField(min_value=1, max_value=MAX_COUNT, initial=100, help_text=f"1 to {MAX_COUNT:,}")
    relations = forms.MultipleChoiceField(
        required=False,
        widget=forms.SelectMultiple(attrs={"size": 10}),
        help_text="restrict every hop to these relations (none selected: COM2's twelve, HinderedBy only in 2in)",
    )
    keep_placeholders = forms.BooleanField(required=False, help_text="keep PersonX/Y/Z instead of person names")
    random_negatives = forms.ChoiceField(
        required=False,
        choices=[
            ("", "the rules' own (COM2's whole graph with paper rules, the asked relation's tails otherwise)"),
            ("relation", "relation: tails of the asked relation elsewhere in the graph"),
            ("shared", "shared: tails several heads share"),
            ("whole-graph", "whole-graph: any tail of the graph (COM2)"),
        ],
        label="Random distractors",
        help_text="where the two random distractors come from (stored with the set)",
    )
    merge_nodes = forms.FloatField(
        required=False,
        min_value=0.5,
        max_value=0.9999,
        label="Merge nodes above cosine",
        help_text="COM2's node merging: one node for texts whose all-MiniLM-L6-v2 cosine is above this (COM2: "
        "0.95; empty: off)",
    )
    near_duplicate = forms.FloatField(
        required=False,
        min_value=0.01,
        max_value=1.0,
        initial=0.9,
        label="Near-duplicate threshold",
        help_text="reject a distractor whose all-MiniLM-L6-v2 cosine with an answer or another option is at "
        "least this (empty: no check)",
    )
    near_synonym = forms.FloatField(
        required=False,
        min_value=0.01,
        max_value=1.0,
        initial=0.5,
        label="Near-synonym threshold",
        help_text="reject a distractor whose predicate has MiniLM cosine at least this with an answer's, or shares "
        "its WordNet adjective cluster (empty: no check; needs the near-duplicate check)",
    )

    field_order = [
        "graph",
        "kind",
        "count",
        "seed",
        "name",
        "relations",
        "rules",
        "max_degree",
        "diverse",
        "min_plausibility",
        "include_implausible",
        "include_malformed",
        "include_populated",
        "near_duplicate",
        "near_synonym",
        "random_negatives",
        "merge_nodes",
        "keep_placeholders",
    ]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        graph = Graph.objects.filter(name=self.graph_name).first() if self.graph_name else None
        rel = cast(forms.MultipleChoiceField, self.fields["relations"])
        if graph is None:
            rel.choices = []
            rel.help_text = "choose a graph first to list its relations"
        else:
            rel.choices = [
                (r["relation__name"], f"{r['relation__name']} ({r['n']:,} triples)")
                for r in selectors.graph_relation_counts(graph)
            ]
        rel.error_messages["invalid_choice"] = (
            f"unknown relation %(value)s: graph {graph.name} has no triple with it"
            if graph is not None
            else "unknown relation %(value)s: choose a graph first"
        )

    def params(self) -> dict[str, Any]:
        d = self.cleaned_data
        return {
            "kind": d["kind"],
            "count": d["count"],
            "relations": list(d["relations"]) or None,
            "rules": d["rules"] or DEFAULT_RULES_MODE,
            "max_degree": d["max_degree"],
            "diverse": d["diverse"],
            "min_plausibility": d["min_plausibility"],
            "include_implausible": d["include_implausible"],
            "include_malformed": d["include_malformed"],
            "include_populated": d["include_populated"],
            "near_duplicate": d["near_duplicate"],
            "near_synonym": d["near_synonym"],
            "person_names": not d["keep_placeholders"],
            "merge_nodes": d["merge_nodes"],
            "random_negatives": d["random_negatives"] or "",
        }


class CocoBuildForm(_BuildForm):
    """``build_coco``: memorization, comprehension and application families."""

    abstract = forms.ChoiceField(
        required=False,
        label="Abstract triples file",
        help_text="conceptualisations for the comprehension family (none: no comprehension questions)",
    )
    abstract_upload = forms.FileField(
        required=False,
        label="… or upload one",
        help_text="one line per abstract triple: head<TAB>concept<TAB>abstract head",
    )
    per_relation = forms.IntegerField(
        min_value=1, max_value=MAX_COUNT, initial=2000, help_text="memorization questions per relation"
    )
    per_kind = forms.IntegerField(
        min_value=1, max_value=MAX_COUNT, initial=3000, help_text="application questions per kind (2i, 2p, ip, pi)"
    )

    field_order = [
        "graph",
        "seed",
        "name",
        "abstract",
        "abstract_upload",
        "per_relation",
        "per_kind",
        "rules",
        "max_degree",
        "diverse",
        "min_plausibility",
        "include_implausible",
        "include_malformed",
        "include_populated",
    ]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["abstract"].choices = [("", "none"), *((f.rel, f.label) for f in abstract_file_list())]  # type: ignore[attr-defined]

    def clean_abstract_upload(self) -> Any:
        f = self.cleaned_data.get("abstract_upload")
        if not f:
            return None
        limit = settings.COCOWEB_MAX_UPLOAD_BYTES
        if f.size > limit:
            raise forms.ValidationError(f"the file is {f.size:,} bytes; the limit is {limit:,} bytes")
        suffix = "." + f.name.rsplit(".", 1)[-1].lower() if "." in f.name else ""
        if suffix not in SUFFIXES:
            raise forms.ValidationError(f"unsupported file type {suffix or '(none)'}; use one of {', '.join(SUFFIXES)}")
        return f

    def clean(self) -> dict[str, Any]:
        d = super().clean() or {}
        if d.get("abstract") and d.get("abstract_upload"):
            self.add_error("abstract_upload", "choose a stored file or upload one, not both")
        return d

    def params(self, abstract: str | None) -> dict[str, Any]:
        d = self.cleaned_data
        return {
            "abstract": abstract,
            "per_relation": d["per_relation"],
            "per_kind": d["per_kind"],
            "rules": d["rules"] or DEFAULT_RULES_MODE,
            "max_degree": d["max_degree"],
            "diverse": d["diverse"],
            "min_plausibility": d["min_plausibility"],
            "include_implausible": d["include_implausible"],
            "include_malformed": d["include_malformed"],
            "include_populated": d["include_populated"],
        }
