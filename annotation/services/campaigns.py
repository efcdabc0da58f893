"""Writes: campaign creation (items copied from their source), opening/closing, adjudication
decisions and the final labels with provenance. The assignment queue lives in ``queue.py``,
ratings import in ``imports.py``."""

from __future__ import annotations

import random
from collections.abc import Iterable
from typing import Any

from django.core.exceptions import ValidationError
from django.db import connection, transaction

from accounts.people import User
from annotation.models import Adjudication, Campaign, Item
from annotation.services.labels import final_labels_refresh
from annotation.services.qualification import qualification_pool, screening_check
from annotation.services.reviews import review_stage_create
from commonsense.io.questions import MASK
from commonsense.validation import MCQA_INSTRUCTIONS, answer_normalise
from knowledge.models import Question, QuestionSet, Statement, StatementSet
from knowledge.services.names import name_check
from runs.models import Prediction, Run

RICA_SETS = (QuestionSet.Kind.RICA_PROBES, QuestionSet.Kind.RICA_AXIOMS)


def _statement_item(st: Statement) -> tuple[str, dict[str, Any], dict[str, Any] | None]:
    gold = {"agree": int(st.human_majority)} if st.human_majority is not None else None
    return st.external_id or str(st.position), {"text": st.text}, gold


def _mcqa_item(q: Question) -> tuple[str, dict[str, Any], dict[str, Any] | None]:
    payload = {"context": q.context, "stem": q.stem, "options": [str(o) for o in q.options]}
    gold = {"plausible": [q.answer_index]} if q.answer_index is not None else None
    return q.external_id or str(q.position), payload, gold


def rica_pair(q: Question, seed: int) -> dict[str, Any]:
    """The original statement (answer word in place) and its flip (the other option), shown in a
    seeded order; ``original`` says which of the two is the original."""
    if q.answer_index is None or len(q.options) < 2:
        raise ValidationError(f"RICA probe {q.external_id or q.position} has no answer or fewer than two options")
    answer = str(q.options[q.answer_index])
    other = next(str(o) for i, o in enumerate(q.options) if i != q.answer_index)
    if MASK not in q.stem:
        raise ValidationError(f"RICA probe {q.external_id or q.position} has no {MASK} in its statement")
    pair = [q.stem.replace(MASK, answer, 1), q.stem.replace(MASK, other, 1)]
    original = random.Random(f"{seed}:{q.position}").randrange(2)
    if original == 1:
        pair.reverse()
    return {"statements": pair, "original": original, "answer": answer, "flipped": other}


def generation_run_check(run: Run | None) -> Run:
    """A generation campaign judges the answers of a finished ``generate-answer`` run."""
    if run is None:
        raise ValidationError("a generation campaign needs a finished generate-answer run")
    if run.scoring != "generate-answer":
        raise ValidationError(f"run #{run.pk} scored with {run.scoring!r}: only a generate-answer run has generations")
    if run.state != Run.State.DONE:
        raise ValidationError(f"run #{run.pk} is {run.state}: judge its generations once it has finished")
    return run


def _generation_items(
    run: Run, seed: int, per_kind: int | None
) -> list[tuple[int, Any, tuple[str, dict[str, Any], dict[str, Any] | None]]]:
    """One item per prediction with a generated answer (COM2 §6.3: the query, its context and the
    model's answer, never the reference answers). ``per_kind``: a seeded sample of that many per
    query kind (the paper judged 60 queries, 10 of each of its 6 kinds)."""
    preds: list[Any] = [  # question is not null (filtered)
        p
        for p in Prediction.objects.filter(run=run, question__isnull=False)
        .select_related("question")
        .order_by("position")
        if str((p.extra or {}).get("generation") or "").strip()
    ]
    if not preds:
        raise ValidationError(f"run #{run.pk} has no generated answer to judge")
    if per_kind is not None:
        if per_kind < 1:
            raise ValidationError("per query kind: at least 1")
        by_kind: dict[str, list[Any]] = {}
        for p in preds:
            by_kind.setdefault(p.question.structure, []).append(p)
        rng = random.Random(f"{seed}:generation:{run.pk}")
        keep = {p.pk for group in by_kind.values() for p in rng.sample(group, min(per_kind, len(group)))}
        preds = [p for p in preds if p.pk in keep]
    out: list[tuple[int, Any, tuple[str, dict[str, Any], dict[str, Any] | None]]] = []
    for p in preds:
        q = p.question
        payload = {
            "context": q.context,
            "stem": q.stem,
            "generation": str(p.extra["generation"]).strip(),
            "structure": q.structure,
            "prediction": p.pk,
        }
        out.append((p.position, q, (q.external_id or str(q.position), payload, None)))
    return out


def _sources(
    kind: str,
    statement_set: StatementSet | None,
    question_set: QuestionSet | None,
    seed: int,
    run: Run | None = None,
    per_kind: int | None = None,
) -> list[tuple[int, Any, tuple[str, dict[str, Any], dict[str, Any] | None]]]:
    if kind == Campaign.Kind.GENERATION:
        return _generation_items(generation_run_check(run), seed, per_kind)
    if kind == Campaign.Kind.SURVEY:
        if statement_set is None:
            raise ValidationError("a survey campaign needs a statement set")
        return [(s.position, s, _statement_item(s)) for s in statement_set.statements.order_by("position")]
    if question_set is None:
        raise ValidationError("this campaign needs a question set")
    qs = question_set.questions.order_by("position")
    if kind == Campaign.Kind.RICA:
        if question_set.kind not in RICA_SETS:
            raise ValidationError(f"{question_set.name} is not a RICA probe set")
        return [(q.position, q, (q.external_id or str(q.position), rica_pair(q, seed), {"valid": 1})) for q in qs]
    if question_set.kind in RICA_SETS:
        raise ValidationError(f"{question_set.name} is a RICA set: choose the RICA campaign type")
    return [(q.position, q, _mcqa_item(q)) for q in qs]


@transaction.atomic
def campaign_create(
    *,
    name: str,
    title: str,
    kind: str,
    statement_set: StatementSet | None = None,
    question_set: QuestionSet | None = None,
    run: Run | None = None,
    per_kind: int | None = None,
    qualification_positions: Iterable[int] = (),
    attention_positions: Iterable[int] = (),
    qualification_set: QuestionSet | None = None,
    qualification_file: Any = None,
    user: User | None = None,
    **options: Any,
) -> Campaign:
    """Create a campaign and copy its items. An MCQA campaign's qualification items come from a
    verified set or a gold file (``qualification_set`` / ``qualification_file``, a path or an upload;
    ``qualification_positions`` then picks among them, all by default); a survey's or a RICA
    campaign's from its own source, at ``qualification_positions`` (gold: the human majority of a
    statement, the original of a RICA pair). A test a respondent who does not read would pass is
    refused (:mod:`.qualification`). Positions listed as attention items become gold items (gold
    from the source) and leave the regular pool. A generation campaign takes its items from ``run``
    (a finished generate-answer run; ``per_kind``: a seeded sample per query kind) and has no gold."""
    name = name_check(name)  # its pages link to it by name
    if Campaign.objects.filter(name=name).exists():
        raise ValidationError(f"a campaign named {name!r} exists already")
    if kind not in Campaign.Kind.values:
        raise ValidationError(f"unknown campaign type {kind!r}")
    if kind == Campaign.Kind.REVIEW:
        raise ValidationError("a review campaign comes with its MCQA validation campaign: give that one reviews > 0")
    if options.get("redundancy") is None:
        options["redundancy"] = 20 if kind == Campaign.Kind.SURVEY else 3
    for key in ("settle_threshold", "label_rule", "settlement_rule", "serve_disagreements_first", "item_order"):
        if options.get(key) in (None, ""):
            options.pop(key, None)  # the model's default
    if kind == Campaign.Kind.MCQA and not options.get("instructions"):
        options["instructions"] = MCQA_INSTRUCTIONS  # what each check box means, 'Not well formed' too
    if kind == Campaign.Kind.MCQA and options.get("max_answers") is None:
        options["max_answers"] = max(5, options["redundancy"])  # adaptive redundancy: 3 to 5 answers by default
    if options.get("reviews") is None or kind != Campaign.Kind.MCQA:
        options.pop("reviews", None)  # a review stage follows MCQA validation only (the model's default: none)
    if kind != Campaign.Kind.MCQA:
        options.pop("max_answers", None)  # the confidence rule reads MCQA verdicts only
        options.pop("require_agreement", None)  # so does the agreement rule: the model's default
    elif options.get("max_answers") is not None and options["max_answers"] < options["redundancy"]:
        raise ValidationError(
            f"the maximum of answers per item ({options['max_answers']}) is below the minimum ({options['redundancy']})"
        )
    campaign = Campaign(
        name=name,
        title=title,
        kind=kind,
        statement_set=statement_set if kind == Campaign.Kind.SURVEY else None,
        question_set=(run.question_set if run is not None else None)
        if kind == Campaign.Kind.GENERATION
        else (question_set if kind != Campaign.Kind.SURVEY else None),
        run=generation_run_check(run) if kind == Campaign.Kind.GENERATION else None,
        created_by=user,
        **options,
    )
    qual, att = list(dict.fromkeys(qualification_positions)), list(dict.fromkeys(attention_positions))
    pool = qualification_pool(kind, qualification_set, qualification_file, qual)
    if pool is not None:
        campaign.qualification_source, qual = pool.source, []
    elif qual:
        campaign.qualification_source = f"{len(qual)} items of the campaign's own source"
    campaign.full_clean()
    campaign.save()
    sources = _sources(kind, campaign.statement_set, campaign.question_set, campaign.seed, campaign.run, per_kind)
    by_pos = {pos: (obj, data) for pos, obj, data in sources}
    if set(qual) & set(att):
        raise ValidationError(f"positions {sorted(set(qual) & set(att))} are both qualification and attention items")
    items: list[Item] = []
    if pool is not None:
        items += [
            Item(campaign=campaign, role=Item.Role.QUALIFICATION, position=i, key=k, payload=p, gold=g, question=q)
            for i, (k, p, g, q) in enumerate(pool.items)
        ]
    special = set(qual) | set(att)
    for role, positions in ((Item.Role.QUALIFICATION, qual), (Item.Role.ATTENTION, att)):
        for order, pos in enumerate(positions):
            if pos not in by_pos:
                raise ValidationError(f"{role} item {pos}: no such position in the source set (0..{len(sources) - 1})")
            obj, (key, payload, gold) = by_pos[pos]
            if gold is None:
                raise ValidationError(f"{role} item {pos} has no known answer to serve as gold")
            items.append(_item(campaign, role, order, obj, key, payload, gold))
    for pos, obj, (key, payload, _gold) in sources:
        if pos not in special:
            items.append(_item(campaign, Item.Role.REGULAR, pos, obj, key, payload, None))
    if not any(i.role == Item.Role.REGULAR for i in items):
        raise ValidationError("the campaign has no regular item left to annotate")
    golds = [(i.gold or {}, i.n_options) for i in items if i.role == Item.Role.QUALIFICATION]
    if golds:
        screening_check(kind, golds, campaign.qualification_pass_mark, campaign.qualification_size)
    elif campaign.qualification_size:
        raise ValidationError("a qualification size without qualification items")
    Item.objects.bulk_create(items, batch_size=2000)
    review_stage_create(campaign)  # its items come as the validation's items settle
    if connection.vendor == "postgresql":
        transaction.on_commit(_items_analyze)
    return campaign


def _items_analyze() -> None:
    """Refresh PostgreSQL's statistics of the item table after a campaign's bulk insert. On
    statistics that predate these rows the planner takes the campaign for one row and answers the
    queue's "next free item" query by sorting every item of the campaign (150 ms at 3,000 items,
    measured) instead of reading the first entry of the ``item_queue_desc`` index (0.2 ms)."""
    with connection.cursor() as cur:
        cur.execute(f"ANALYZE {Item._meta.db_table}")


def _item(
    campaign: Campaign,
    role: str,
    position: int,
    obj: Any,
    key: str,
    payload: dict[str, Any],
    gold: dict[str, Any] | None,
) -> Item:
    fk = {"statement": obj} if isinstance(obj, Statement) else {"question": obj}
    return Item(
        campaign=campaign,
        role=role,
        position=position,
        key=key,
        payload=payload,
        gold=gold,
        answers_wanted=campaign.redundancy,
        **fk,
    )


def campaign_status_set(campaign: Campaign, status: str) -> Campaign:
    if status not in Campaign.Status.values:
        raise ValidationError(f"unknown status {status!r}")
    Campaign.objects.filter(pk=campaign.pk).update(status=status)
    if status == Campaign.Status.OPEN:  # opening a validation campaign opens its review stage too
        Campaign.objects.filter(review_of=campaign).update(status=status)
    campaign.status = status
    return campaign


def adjudication_record(item: Item, *, label: dict[str, Any], reason: str, user: User) -> Adjudication:
    """Record who decided what, when and why; the item's final label becomes this decision."""
    reason = (reason or "").strip()
    if not reason:
        raise ValidationError("say why: the reason is kept with the decision")
    if item.role != Item.Role.REGULAR:
        raise ValidationError("only regular items are adjudicated")
    campaign = item.campaign
    try:
        clean = answer_normalise(campaign.kind, label, n_options=item.n_options)
    except ValueError as exc:
        raise ValidationError(str(exc)) from None
    if campaign.kind == Campaign.Kind.SURVEY:
        clean = {"agree": clean["agree"]}
    with transaction.atomic():
        decision = Adjudication.objects.create(item=item, label=clean, reason=reason, decided_by=user)
        final_labels_refresh(campaign, item_ids=[item.pk])
    return decision
