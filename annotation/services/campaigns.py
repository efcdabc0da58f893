"""Writes: campaign creation (items copied from their source), opening/closing, adjudication
decisions and the final labels with provenance. The assignment queue lives in ``queue.py``,
ratings import in ``imports.py``."""

from __future__ import annotations

import json
import random
import threading
from collections.abc import Iterable
from functools import cache, partial
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import connection, transaction

from accounts.people import User
from annotation.models import Adjudication, Campaign, FinalLabel, Item
from annotation.selectors.agreement import campaign_item_labels, needs_adjudication
from annotation.selectors.quality import item_judge
from annotation.services.qualification import qualification_pool, screening_check
from commonsense.annotators import Judged
from commonsense.io.questions import MASK
from commonsense.validation import ItemLabel, answer_normalise, item_label
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
    if options.get("redundancy") is None:
        options["redundancy"] = 20 if kind == Campaign.Kind.SURVEY else 3
    for key in ("settle_threshold", "label_rule", "serve_disagreements_first"):
        if options.get(key) in (None, ""):
            options.pop(key, None)  # the model's default
    if kind == Campaign.Kind.MCQA and options.get("max_answers") is None:
        options["max_answers"] = max(5, options["redundancy"])  # adaptive redundancy: 3 to 5 answers by default
    if kind != Campaign.Kind.MCQA:
        options.pop("max_answers", None)  # the confidence rule reads MCQA verdicts only
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


def final_labels_refresh(campaign: Campaign, *, item_ids: list[int] | None = None) -> int:
    """Store every answered regular item's final label: the latest adjudication if any, else the
    majority (``unanimous`` when all of at least two answers agree). Idempotent. Called by the
    writes that change votes (submit, undo, ratings import, adjudication) for the items they touch,
    never by a page view: a GET does not rewrite labels. An item left with no answer loses its label."""
    rows = campaign_item_labels(campaign, item_ids=item_ids)
    latest: dict[int, Adjudication] = {}
    adjudications = Adjudication.objects.filter(item__campaign=campaign)
    if item_ids is not None:
        adjudications = adjudications.filter(item_id__in=item_ids)
        answered = {row.item_id for row in rows}
        FinalLabel.objects.filter(item_id__in=[i for i in item_ids if i not in answered]).delete()
    for adj in adjudications.order_by("decided_at", "id"):
        latest[adj.item_id] = adj
    labels = []
    wanted: dict[int, int] = {}
    if item_ids is not None and campaign.adaptive:
        wanted.update((i, campaign.redundancy) for i in item_ids)  # an item left with no answer wants the minimum
    for row in rows:
        last = latest.get(row.item_id)
        fl = _final_label(
            row.item_id,
            row.label,
            row.below_threshold,
            last.pk if last else None,
            last.label if last else None,
            row.judged,
        )
        labels.append(fl)
        w = _wanted(campaign, fl, row.judged)
        if w is not None:
            wanted[row.item_id] = w
    _final_labels_store(labels)
    _wanted_store(campaign, wanted)
    return len(labels)


def _wanted(campaign: Campaign, fl: FinalLabel, judged: Judged | None) -> int | None:
    """The answers an item wants after this label (None: not an adaptive campaign): an adjudicated
    item is settled by a person and closes at the answers it has."""
    if judged is None or not campaign.adaptive:
        return None
    if fl.adjudication_id is not None:
        return max(fl.n_answers, 1)
    return judged.settlement.wanted


def _wanted_store(campaign: Campaign, wanted: dict[int, int]) -> None:
    by_value: dict[int, list[int]] = {}
    for item_id, w in wanted.items():
        by_value.setdefault(w, []).append(item_id)
    for w, ids in by_value.items():
        for start in range(0, len(ids), 2000):
            Item.objects.filter(pk__in=ids[start : start + 2000]).exclude(answers_wanted=w).update(answers_wanted=w)


def _final_label(
    item_id: int,
    lab: ItemLabel,
    below: bool,
    adjudication_id: int | None,
    decided: dict[str, Any] | None,
    judged: Judged | None = None,
) -> FinalLabel:
    if adjudication_id is not None:
        provenance, label = FinalLabel.Provenance.ADJUDICATED, decided or {}
    elif lab.unanimous and lab.n >= 2:
        provenance, label = FinalLabel.Provenance.UNANIMOUS, lab.label
    else:
        provenance, label = FinalLabel.Provenance.MAJORITY, lab.label
    settled, settlement, confidence, posteriors = False, "", None, []
    if judged is not None:
        settlement, confidence, posteriors = judged.settlement.state, judged.settlement.confidence, judged.posteriors
        settled = judged.settlement.settled
    if adjudication_id is not None:
        settled, settlement = True, "adjudicated"
    return FinalLabel(
        item_id=item_id,
        label=label,
        provenance=provenance,
        agreement=lab.agreement,
        votes=lab.votes,
        n_answers=lab.n,
        below_threshold=below,
        adjudication_id=adjudication_id,
        settled=settled,
        settlement=settlement,
        confidence=confidence,
        posteriors=posteriors,
    )


@cache
def _item_votes_sql() -> str:
    latest = "FROM annotation_adjudication d WHERE d.item_id = r.item_id ORDER BY d.decided_at DESC, d.id DESC LIMIT 1"
    return (
        f"SELECT r.answer, (SELECT d.id {latest}), (SELECT d.label {latest}), r.user_id FROM annotation_response r "
        "WHERE r.item_id = %s ORDER BY r.id"
    )


@cache
def _final_label_upsert_sql() -> str:
    qn = connection.ops.quote_name
    cols = [qn(str(f.column)) for f in FinalLabel._meta.concrete_fields if not f.primary_key]
    updates = ", ".join(f"{c} = EXCLUDED.{c}" for c in cols if c != qn("item_id"))
    return (
        f"INSERT INTO {qn(FinalLabel._meta.db_table)} ({', '.join(cols)}) VALUES ({', '.join(['%s'] * len(cols))}) "
        f"ON CONFLICT ({qn('item_id')}) DO UPDATE SET {updates}"
    )


def _json(value: Any) -> Any:
    return json.loads(value) if isinstance(value, str) else value  # JSON columns come back as text


def final_label_refresh_item(campaign: Campaign, item: Item) -> None:
    """:func:`final_labels_refresh` of one regular item in two statements - its answers with the
    latest decision, then the upsert - for the submit and undo paths. Both are compiled once per
    process (this runs on every answer): the values are adapted by the model's fields, as the ORM
    would, and the upsert is the same ``INSERT … ON CONFLICT DO UPDATE`` as the bulk path's."""
    if item.role != Item.Role.REGULAR:
        return
    with connection.cursor() as cur:
        cur.execute(_item_votes_sql(), (item.pk,))
        rows = cur.fetchall()
    if not rows:
        FinalLabel.objects.filter(item=item).delete()
        if campaign.adaptive:
            _wanted_store(campaign, {item.pk: campaign.redundancy})
        return
    label, wanted = final_label_compute(campaign, item, [(_json(r[0]), r[1], _json(r[2]), r[3]) for r in rows])
    fields = [f for f in FinalLabel._meta.concrete_fields if not f.primary_key]
    params = [f.get_db_prep_save(f.pre_save(label, add=True), connection) for f in fields]
    with connection.cursor() as cur:
        cur.execute(_final_label_upsert_sql(), params)
    if wanted is not None and wanted != item.answers_wanted:
        Item.objects.filter(pk=item.pk).update(answers_wanted=wanted)
        item.answers_wanted = wanted


def final_label_compute(
    campaign: Campaign, item: Item, rows: list[tuple[Any, Any, Any, int]]
) -> tuple[FinalLabel, int | None]:
    """The final label (unsaved) of a regular item from its ``(answer, latest adjudication id,
    its label, user id)`` rows, oldest answer first, as :func:`final_labels_refresh` computes it,
    and the answers the item wants now (None: not an adaptive campaign). Counts the answer for
    the campaign's next refit of its annotator models (:func:`_refit_maybe`)."""
    judged = None
    if campaign.adaptive:
        judged = item_judge(campaign, item.n_options, [(r[3], r[0]) for r in rows])
        lab = judged.label
        _refit_maybe(campaign)
    else:
        lab = item_label(campaign.kind, [r[0] for r in rows], n_options=item.n_options)
    below = needs_adjudication(lab, campaign.agreement_threshold)
    fl = _final_label(item.pk, lab, below, rows[0][1], rows[0][2], judged)
    return fl, _wanted(campaign, fl, judged)


def _final_labels_store(labels: list[FinalLabel]) -> None:
    FinalLabel.objects.bulk_create(
        labels,
        batch_size=1000,
        update_conflicts=True,
        unique_fields=["item"],
        update_fields=[
            "label",
            "provenance",
            "agreement",
            "votes",
            "n_answers",
            "below_threshold",
            "adjudication",
            "settled",
            "settlement",
            "confidence",
            "posteriors",
            "computed_at",
        ],
    )


_refits_since: dict[int, int] = {}
_refits_lock = threading.Lock()


def _refit_maybe(campaign: Campaign) -> bool:
    """Count an answer this process stored; every ``COCOWEB_QUALITY_REFIT_EVERY`` of a campaign's
    answers, send a refit of its annotator models (:mod:`annotation.services.quality`) to the
    housekeeping queue once the answer commits. No query."""
    every = settings.COCOWEB_QUALITY_REFIT_EVERY
    if not campaign.adaptive or every <= 0:
        return False
    with _refits_lock:
        n = _refits_since.get(campaign.pk, 0) + 1
        _refits_since[campaign.pk] = 0 if n >= every else n
    if n < every:
        return False
    from annotation.tasks import annotator_quality_task

    transaction.on_commit(partial(annotator_quality_task.apply_async, (campaign.pk,), queue="housekeeping"))
    return True
