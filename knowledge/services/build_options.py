"""The options of a COM2 and a CoCo build, declared once (issue 30 item 4). Each :class:`BuildOption`
makes the command's argument (``build_questions`` / ``build_coco``: :func:`add_build_arguments`),
the browser form's field (``knowledge/forms/builds.py``: :func:`form_fields`, :func:`form_params`)
and the build job's arguments (``knowledge/services/build_jobs.py``: :func:`job_command_args`;
``knowledge/services/build_execution.py``: :func:`builder_keys`). An option the browser must not
offer says why (``shell_only``); ``tests/knowledge/test_build_options.py`` fails when the command,
the form or the job takes an option this table does not declare, or misses one it does."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from django import forms
from django.conf import settings

from cocoweb.params import MAX_COUNT, MAX_SEED
from commonsense.queries import KINDS
from commonsense.queries.rules import DEFAULT_RULES_MODE
from commonsense.questions.chain_phrasing import DEFAULT_CHAIN_PHRASING
from commonsense.questions.negatives import ADVERSARIAL_MODES
from knowledge.models import Graph
from knowledge.services.names import MAX_NAME, name_arg

COM2, COCO = "com2", "coco"  # the values of BuildJob.Kind
BOTH = (COM2, COCO)
JOB_COLUMNS = ("graph", "seed", "name")  # a build job's own columns, not in its params
Kind = Literal["graph", "name", "int", "float", "bool", "choice", "relations", "abstract", "upload", "text"]
MODEL = "a model a worker would load: the operator runs such builds from the shell"

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


@dataclass(frozen=True)
class BuildOption:
    """One option. ``name`` is the form field and the command's ``--name-with-dashes`` (its dest);
    ``builder`` the keyword of ``question_set_build`` / ``coco_build`` it sets (None: the option
    makes a model object the command builds itself); ``invert``: the builder gets ``not value``."""

    name: str
    kind: Kind
    help: str
    builds: tuple[str, ...] = BOTH
    default: Any = None  # the command's default, the form's initial value; a callable is read late (settings)
    required: bool = False  # on the command line
    label: str = ""
    min_value: float | None = None  # the form's bounds
    max_value: float | None = None
    choices: tuple[tuple[str, str], ...] = ()  # (value, the form's label); "" = the builder's own default
    zero_is_off: bool = False  # the command's 0 and the form's empty field: the check is off (None)
    builder: str | None = ""  # "" = the same as name
    invert: bool = False
    shell_only: str = ""  # why the browser does not offer it
    browser_only: str = ""  # why the command does not take it
    group: str = ""  # the command's argument group (the model options)
    initial: Any = None  # the form's initial value when the command has no default

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")

    @property
    def key(self) -> str | None:
        """The builder's keyword, also the key of a job's stored params."""
        return self.name if self.builder == "" else self.builder

    def default_value(self) -> Any:
        return self.default() if callable(self.default) else self.default


_GROUPS = {
    "plausibility": "plausibility model (Vera-style P(yes) of the ATOMIC statement)",
    "fluent": "fluent contexts (COM2 Table 6: a model rewrites 2i/ip/pi/2in contexts, NA drops)",
    "conceptualize": "generated conceptualisations (CoCo A.2: 5 candidates per head, plausibility-filtered, 3 valid kept)",
}
_BACKENDS = (("hf", "hf"), ("openai", "openai"))


def _model_options(group: str, builds: tuple[str, ...], what: str) -> list[BuildOption]:
    common: dict[str, Any] = {"builds": builds, "builder": None, "shell_only": MODEL, "group": group}
    return [
        BuildOption(f"{group}_backend", "choice", f"enables {what}", choices=_BACKENDS, **common),
        BuildOption(
            f"{group}_model", "text", "hf: a transformers folder or .gguf file; openai: the model name", **common
        ),
        BuildOption(f"{group}_url", "text", "openai: the server's base URL (vLLM, llama.cpp server …)", **common),
    ]


OPTIONS: tuple[BuildOption, ...] = (
    BuildOption("graph", "graph", "the imported graph to build from", required=True),
    BuildOption("kind", "choice", "the query structure", builds=(COM2,), required=True,
                choices=tuple((k, f"{k} — {KIND_LABELS[k]}") for k in KINDS)),
    BuildOption("count", "int", f"questions to build (1 to {MAX_COUNT:,})", builds=(COM2,), required=True,
                min_value=1, max_value=MAX_COUNT, initial=100),
    BuildOption("seed", "int", "the same graph, parameters and seed give the same questions", required=True,
                min_value=0, max_value=MAX_SEED, initial=0),
    BuildOption("name", "name", "the new set's name: letters, digits, - and _", required=True, label="Set name"),
    BuildOption("relations", "relations", "restrict every hop to these relations (none: COM2's twelve, "
                "HinderedBy only in 2in; the command takes them comma-separated)", builds=(COM2,)),
    BuildOption("abstract", "abstract", "conceptualisations for the comprehension family, one abstract triple a line: "
                "head<TAB>concept<TAB>abstract head (none: no comprehension questions)", builds=(COCO,),
                label="Abstract triples file"),
    BuildOption("abstract_upload", "upload", "one line per abstract triple: head<TAB>concept<TAB>abstract head",
                builds=(COCO,), label="… or upload one", builder=None,
                browser_only="the browser uploads the conceptualisation file; the shell names its path (--abstract)"),
    BuildOption("per_relation", "int", "memorization questions per relation", builds=(COCO,), default=2000,
                min_value=1, max_value=MAX_COUNT),
    BuildOption("per_kind", "int", "application questions per kind (2i, 2p, ip, pi)", builds=(COCO,), default=3000,
                min_value=1, max_value=MAX_COUNT),
    BuildOption("rules", "choice", "which hops may be chained and intersected (stored with the set)",
                default=DEFAULT_RULES_MODE, label="Composition rules", choices=(
                    ("curated", "curated: the papers' chains, less those read blind as nonsense"),
                    ("paper", "paper: every query pattern the papers print (CoCo Table 12, COM2 Appendix D)"),
                    ("any", "any: no rule, every composition of the graph's hops"))),
    BuildOption("chain_phrasing", "choice", "how a 2p chain is worded (stored with the set)", builds=(COM2,),
                default=DEFAULT_CHAIN_PHRASING, label="2p wording", choices=(
                    ("step", "step: the context tells that a middle step happened, one question about it"),
                    ("named", "named: the context names the middle event, one question about it"),
                    ("stacked", "stacked: the papers' prompts one inside the other (COM2 Appendix D, CoCo Table 12)"))),
    BuildOption("max_degree", "int", "COM2's top-T neighbours per (node, relation)", default=10, min_value=1,
                max_value=1000, label="Max degree T"),
    BuildOption("diverse", "bool", "CoCo's vote-k selection (k=150, ρ=10) on all-MiniLM-L6-v2 embeddings, cached "
                "per graph", default=False, label="Diverse (vote-k)"),
    BuildOption("min_plausibility", "float", "keep only triples with at least this plausibility", min_value=0.0,
                max_value=1.0),
    BuildOption("include_implausible", "bool", "also use triples the graph labels implausible (CSKB label 0) as "
                "edges; off: only plausible ones", default=False, label="Include implausible triples"),
    BuildOption("include_malformed", "bool", "also use triples whose text does not read as English or whose tail "
                "does not answer the relation's question (e.g. a 'feeling' that is no feeling); off: only "
                "well-formed ones", default=False, label="Include malformed triples"),
    BuildOption("include_populated", "bool", "also use CSKB-Population's candidate triples mined from ASER (class "
                "cs_head / all_head) as edges; off: only the knowledge base's own triples (COM2 samples from "
                "ATOMIC)", default=False, label="Include populated candidates"),
    BuildOption("near_duplicate", "float", "reject a distractor whose all-MiniLM-L6-v2 cosine with an answer or "
                "another option is at least this (empty, on the command line 0: no check)", builds=(COM2,), default=0.9,
                min_value=0.01, max_value=1.0, zero_is_off=True, label="Near-duplicate threshold"),
    BuildOption("near_synonym", "float", "reject a distractor whose predicate has MiniLM cosine at least this with "
                "an answer's, or shares its WordNet adjective cluster ('devious' / 'mischievous'; empty, on the "
                "command line 0: no check; needs the near-duplicate check)", builds=(COM2,), default=0.5, min_value=0.01,
                max_value=1.0, zero_is_off=True, label="Near-synonym threshold"),
    BuildOption("random_negatives", "choice", "where the two random distractors come from (stored with the set)",
                builds=(COM2,), default="", label="Random distractors", choices=(
                    ("", "the rules' own (COM2's whole graph with paper rules, the asked relation's tails otherwise)"),
                    ("relation", "relation: tails of the asked relation elsewhere in the graph"),
                    ("shared", "shared: tails several heads share"),
                    ("whole-graph", "whole-graph: any tail of the graph (COM2)"))),
    BuildOption("merge_nodes", "float", "COM2's node merging: one node for texts whose all-MiniLM-L6-v2 cosine is "
                "above this (COM2 section 3.1: 0.95; empty: off)", builds=(COM2,), min_value=0.5,
                max_value=0.9999, label="Merge nodes above cosine"),
    BuildOption("keep_placeholders", "bool", "keep PersonX/Y/Z instead of person names", builds=(COM2,),
                default=False, builder="person_names", invert=True),
    BuildOption("adversarial_negatives", "choice", "where two of the four distractors come from: branch (COM2: "
                "answers of one branch of the query but not of the whole query), neighbours (any neighbour of an "
                "anchor)", builds=(COM2,), default="branch", choices=tuple((m, m) for m in ADVERSARIAL_MODES),
                shell_only="the negatives of the bare procedure, for comparisons (#25): the browser builds the default"),
    BuildOption("same_type_veto", "bool", "no feeling or attribute as a distractor where one can answer, and (with "
                "--adversarial-negatives neighbours) no adversarial distractor of the gold's kind: the veto of "
                "sessions 11-15, which lets option shape answer most items (issue 25)", builds=(COM2,),
                default=False,
                shell_only="the negatives of the bare procedure, for comparisons (#25): the browser builds the default"),
    *_model_options("plausibility", BOTH, "the model check"),
    BuildOption("plausibility_threshold", "float", "P(yes) a triple needs", builder=None, shell_only=MODEL,
                group="plausibility", default=lambda: settings.COCOWEB_PLAUSIBILITY_THRESHOLD),
    BuildOption("no_plausibility_edges", "bool", "do not filter edges, check distractors only", default=False,
                builder=None, shell_only=MODEL, group="plausibility"),
    BuildOption("no_plausibility_distractors", "bool", "filter edges only", default=False, builder=None,
                shell_only=MODEL, group="plausibility"),
    *_model_options("fluent", (COM2,), "the rewrite"),
    *_model_options("conceptualize", (COCO,), "generated conceptualisations (instead of --abstract)"),
    BuildOption("conceptualize_heads", "int", "head events to conceptualise", builds=(COCO,), default=50,
                builder=None, shell_only=MODEL, group="conceptualize"),
)  # fmt: skip


def options(build: str, *, where: Literal["cli", "form", "builder"] | None = None) -> list[BuildOption]:
    """The options of one build (``com2`` / ``coco``), those the command, the form or the builder takes."""
    out = [o for o in OPTIONS if build in o.builds]
    if where == "cli":
        return [o for o in out if not o.browser_only]
    if where == "form":
        return [o for o in out if not o.shell_only]
    if where == "builder":
        return [o for o in out if o.key is not None]
    return out


# --- the command line ---------------------------------------------------------------------------


def _help(o: BuildOption) -> str:
    d = o.default_value()
    return o.help if d in (None, False, "") else f"{o.help} (default {d})"


def add_build_arguments(parser: Any, build: str, *, group: str | None = None) -> None:
    """Add the build's options to ``parser`` (only those of one model ``group`` when given)."""
    groups: dict[str, Any] = {}
    for o in options(build, where="cli"):
        if group is not None and o.group != group:
            continue
        target = parser
        if o.group:
            target = groups.get(o.group) or groups.setdefault(o.group, parser.add_argument_group(_GROUPS[o.group]))
        kw: dict[str, Any] = {"help": _help(o)}
        if o.kind == "bool":
            target.add_argument(o.flag, action="store_true", **kw)
            continue
        if o.required:
            kw["required"] = True
        else:
            kw["default"] = o.default_value()
        if o.kind == "int":
            kw["type"] = int
        elif o.kind == "float":
            kw["type"] = float
        elif o.kind == "name":
            kw["type"] = name_arg
        elif o.kind == "choice":
            kw["choices"] = [v for v, _ in o.choices if v]  # "" (the default) is not typed
        target.add_argument(o.flag, **kw)


def builder_kwargs_from_cli(build: str, parsed: Mapping[str, Any]) -> dict[str, Any]:
    """The builder's keyword arguments from the command's parsed options."""
    out: dict[str, Any] = {}
    for o in options(build, where="cli"):
        if o.key is None:
            continue
        v = parsed[o.name]
        if o.kind == "relations":
            v = [r.strip() for r in v.split(",") if r.strip()] or None if v else None
        elif o.zero_is_off:
            v = v or None
        if o.invert:
            v = not v
        out[o.key] = v
    return out


def job_command_args(build: str, params: Mapping[str, Any]) -> list[str]:
    """The command-line arguments that give the builder ``params`` (a job's stored params; the
    graph, seed and name are the job's columns, the abstract file its stored name)."""
    args: list[str] = []
    for o in options(build, where="cli"):
        if o.key is None or o.key not in params or o.name in JOB_COLUMNS or o.kind == "abstract":
            continue
        v = params[o.key]
        if o.invert:
            v = not v
        if o.kind == "bool":
            args += [o.flag] if v else []
        elif o.zero_is_off:
            args += [o.flag, str(v or 0)]
        elif o.kind == "relations":
            args += [o.flag, ",".join(v)] if v else []
        elif v is not None and v != "":
            args += [o.flag, str(v)]
    return args


def builder_keys(build: str) -> tuple[str, ...]:
    """The job params a worker passes to the builder as they are (the abstract file is resolved)."""
    return tuple(
        o.key for o in options(build, where="builder") if o.key and o.name not in JOB_COLUMNS and o.kind != "abstract"
    )


# --- the browser form ---------------------------------------------------------------------------


def _form_field(o: BuildOption) -> forms.Field:
    common: dict[str, Any] = {"help_text": o.help}
    if o.label:
        common["label"] = o.label
    initial = o.initial if o.initial is not None else o.default_value()
    if o.kind == "graph":
        return forms.ModelChoiceField(
            queryset=Graph.objects.all(), to_field_name="name", empty_label="choose a graph", **common
        )
    if o.kind == "name":
        return forms.SlugField(max_length=MAX_NAME, **common)
    if o.kind == "int":
        lo, hi = (None if b is None else int(b) for b in (o.min_value, o.max_value))
        return forms.IntegerField(min_value=lo, max_value=hi, initial=initial, **common)
    if o.kind == "float":
        return forms.FloatField(required=False, min_value=o.min_value, max_value=o.max_value, initial=initial, **common)
    if o.kind == "bool":
        return forms.BooleanField(required=False, **common)
    if o.kind == "choice":
        return forms.ChoiceField(required=o.required, choices=list(o.choices), initial=initial, **common)
    if o.kind == "relations":
        return forms.MultipleChoiceField(required=False, widget=forms.SelectMultiple(attrs={"size": 10}), **common)
    if o.kind == "abstract":  # the stored files, listed when the form is made
        return forms.ChoiceField(required=False, **common)
    if o.kind == "upload":
        return forms.FileField(required=False, **common)
    raise ValueError(f"build option {o.name}: no form field for kind {o.kind!r}")


def form_fields(build: str) -> dict[str, forms.Field]:
    """The form fields of a build, in the declaration's order."""
    return {o.name: _form_field(o) for o in options(build, where="form")}


def form_params(build: str, cleaned: Mapping[str, Any], **given: Any) -> dict[str, Any]:
    """A valid form's values as the builder's keyword arguments (a job's params): the graph, seed
    and name are the job's columns; ``given`` sets what the view resolves (the abstract file)."""
    out: dict[str, Any] = {}
    for o in options(build, where="form"):
        if o.key is None or o.name in JOB_COLUMNS or o.key in given:
            continue
        v = cleaned[o.name]
        if o.kind == "relations":
            v = list(v) or None
        elif o.kind == "choice":
            v = v or o.default_value()
        elif o.kind == "abstract":
            v = v or None
        if o.invert:
            v = not v
        out[o.key] = v
    return {**out, **given}


def option(name: str) -> BuildOption:
    return next(o for o in OPTIONS if o.name == name)
