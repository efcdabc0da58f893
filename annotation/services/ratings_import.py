"""Import existing ratings (a rater × item CSV) into a campaign, so published human data is
analysed with the same statistics. All or nothing: every problem is reported with its row and
column, and nothing is stored unless the whole file is valid.

Format: a header ``rater,<key>:<question>,…`` then one row per rater; ``<key>`` is the item's
source id (the statement's or question's external id). Questions: surveys ``a``/``agree``,
``b``/``predict`` (and ``c``/``common`` when the campaign asks it); RICA ``valid`` (or the bare
key); MCQA the option number ``1``…``5`` (ticked as plausible) and optionally ``bad``. Cells are
yes/no (also y/n, 1/0, true/false); an empty cell means the rater did not see the item, and an
item's questions are either all answered or all empty.
"""

from __future__ import annotations

import csv
import io
import re
import unicodedata
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from annotation.models import Assignment, Campaign, Item, Membership, Response
from annotation.services.labels import final_labels_refresh

YES, NO = {"yes", "y", "1", "true"}, {"no", "n", "0", "false"}
SURVEY_Q = {"a": "agree", "agree": "agree", "b": "predict", "predict": "predict", "c": "common", "common": "common"}
MAX_ERRORS = 20


class RatingsImportRefused(ValueError):
    def __init__(self, errors: list[str]) -> None:
        self.errors = errors
        more = f" (and more; first {MAX_ERRORS} shown)" if len(errors) >= MAX_ERRORS else ""
        super().__init__("Import refused, nothing was stored: " + "; ".join(errors) + more)


@dataclass(frozen=True, slots=True)
class ImportResult:
    raters: int
    responses: int
    created_raters: int


def _parse_header(
    campaign: Campaign, header: list[str], items: dict[str, Item], errors: list[str]
) -> list[tuple[Item, str] | None]:
    cols: list[tuple[Item, str] | None] = []
    for i, h in enumerate(header[1:], start=2):
        key, sep, q = h.strip().rpartition(":")
        if not sep:
            key, q = h.strip(), ""
        item = items.get(key)
        if item is None:
            errors.append(f"column {i} ({h!r}): no item with key {key!r} in this campaign")
            cols.append(None)
            continue
        q = q.strip().lower()
        if campaign.kind == Campaign.Kind.SURVEY:
            name = SURVEY_Q.get(q)
            ok = name is not None and (name != "common" or campaign.ask_common_sense)
        elif campaign.kind == Campaign.Kind.RICA:
            name, ok = "valid", q in ("", "valid")
        else:
            name = "bad" if q == "bad" else q
            ok = q == "bad" or (re.fullmatch(r"[0-9]{1,3}", q) is not None and 1 <= int(q) <= item.n_options)
        if not ok:
            errors.append(f"column {i} ({h!r}): unknown question {q!r} for a {campaign.kind} item")
            cols.append(None)
            continue
        cols.append((item, str(name)))
    return cols


def _answer(campaign: Campaign, values: dict[str, int]) -> dict[str, Any]:
    if campaign.kind == Campaign.Kind.SURVEY:
        return dict(values)
    if campaign.kind == Campaign.Kind.RICA:
        return {"valid": values["valid"]}
    plausible = sorted(int(k) - 1 for k, v in values.items() if k != "bad" and v == 1)
    bad = bool(values.get("bad", 0))
    return {"plausible": plausible, "none_correct": not plausible and not bad, "bad_context": bad}


def _rows(data: bytes | str) -> list[list[str]]:
    """The CSV rows, or a refusal naming where the file stops being UTF-8 text or CSV."""
    try:
        text = data.decode("utf-8-sig") if isinstance(data, bytes) else data
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1 if isinstance(data, bytes) else 0
        raise RatingsImportRefused([f"line {line}: the file is not UTF-8 text (byte {exc.start})"]) from None
    reader = csv.reader(io.StringIO(text))
    try:
        return list(reader)
    except csv.Error as exc:
        raise RatingsImportRefused([f"line {reader.line_num}: not a CSV file ({exc})"]) from None


def ratings_import(campaign: Campaign, data: bytes | str, *, create_raters: bool = False) -> ImportResult:
    if campaign.kind == Campaign.Kind.GENERATION:
        raise RatingsImportRefused(
            ["ratings files hold 0/1 answers (surveys, MCQA, RICA): judge generations in the app or through the API"]
        )
    rows = _rows(data)
    if not rows or not rows[0]:
        raise RatingsImportRefused(["the file is empty"])
    header = rows[0]
    if header[0].strip().lower() != "rater":
        raise RatingsImportRefused([f"the first column must be 'rater', found {header[0]!r}"])
    errors: list[str] = []
    items = {i.key: i for i in Item.objects.filter(campaign=campaign, role=Item.Role.REGULAR)}
    cols = _parse_header(campaign, header, items, errors)
    expected: dict[int, set[str]] = {}  # a survey item's questions in the file's columns
    if campaign.kind == Campaign.Kind.SURVEY:
        for c in cols:
            if c:
                expected.setdefault(c[0].pk, set()).add(c[1])
    User = get_user_model()
    parsed: list[tuple[str, dict[int, dict[str, int]]]] = []
    seen: set[str] = set()
    for n, row in enumerate(rows[1:], start=2):
        if not any(c.strip() for c in row):
            continue
        if len(row) != len(header):
            errors.append(f"row {n}: {len(row)} cells, the header has {len(header)} (ragged row)")
            continue
        raw = row[0].strip()
        rater = User.normalize_username(raw)  # NFKC, as Django folds names at log-in
        problem = _rater_name_problem(rater, User)
        if raw and problem:
            errors.append(f"row {n}, column 1: rater {raw[:60]!r}{'…' if len(raw) > 60 else ''} {problem}")
        if not rater or rater in seen:
            errors.append(f"row {n}: rater {rater!r} is empty or repeated")
        seen.add(rater)
        by_item: dict[int, dict[str, int]] = {}
        bad_items: set[int] = set()
        for j, (cell, col) in enumerate(zip(row[1:], cols, strict=True), start=2):
            v = cell.strip().lower()
            if col is None or v == "":
                continue
            if v not in YES | NO:
                errors.append(f"row {n}, column {j} ({header[j - 1]!r}): {cell!r} is not yes/no")
                bad_items.add(col[0].pk)
                continue
            by_item.setdefault(col[0].pk, {})[col[1]] = int(v in YES)
        if campaign.kind == Campaign.Kind.SURVEY:
            for item_id, vals in by_item.items():
                want = expected[item_id]
                if set(vals) != want and item_id not in bad_items:
                    errors.append(
                        f"row {n}: item {items_by_pk(items)[item_id].key!r} is partly answered "
                        f"({', '.join(sorted(want - set(vals)))} missing)"
                    )
        parsed.append((rater, by_item))
        if len(errors) >= MAX_ERRORS:
            break
    # A rater row with no rating at all adds nothing (no account, no membership).
    parsed = [(rater, by_item) for rater, by_item in parsed if by_item]
    users = {u.username: u for u in User.objects.filter(username__in=[r for r, _ in parsed])}
    unknown = [r for r, _ in parsed if r and r not in users]
    if unknown and create_raters:  # a new account must not pass for an existing one ("Res2" next to "res2")
        same_but_case = Q()
        for r in unknown[: MAX_ERRORS * 10]:
            same_but_case |= Q(username__iexact=r)
        errors.extend(
            f"rater {u!r}: an account of that name exists with different letter case; use its exact name"
            for u in User.objects.filter(same_but_case).values_list("username", flat=True)[:5]
        )
    if unknown and not create_raters:
        errors.append(
            f"unknown raters (no account with that name): {', '.join(unknown[:10])}{' …' if len(unknown) > 10 else ''}"
        )
    if users:
        done = Response.objects.filter(campaign=campaign, user__in=users.values()).values_list(
            "user__username", "item__key"
        )[:5]
        errors.extend(f"rater {u!r} already answered item {k!r} in this campaign" for u, k in done)
    counts: dict[int, int] = {}
    for _r, by_item in parsed:
        for item_id in by_item:
            counts[item_id] = counts.get(item_id, 0) + 1
    by_pk = items_by_pk(items)
    for item_id, k in counts.items():
        item = by_pk[item_id]
        if item.slots_taken + k > campaign.answers_max:
            errors.append(
                f"item {item.key!r} would get {item.slots_taken + k} answers, over the campaign's "
                f"{'maximum' if campaign.answers_max > campaign.redundancy else 'redundancy'} "
                f"of {campaign.answers_max} (raise it first)"
            )
            if len(errors) >= MAX_ERRORS:
                break
    if errors:
        raise RatingsImportRefused(errors[:MAX_ERRORS])
    if not parsed:
        raise RatingsImportRefused(["no ratings found below the header"])
    return _store(campaign, parsed, users, unknown, by_pk, counts)


def _rater_name_problem(name: str, user_model: Any) -> str:
    """Why ``name`` cannot be an account name, or "" (Django's user-name rule: letters, digits and
    ``@.+-_``, at most the field's length; so no invisible or zero-width characters)."""
    field = user_model._meta.get_field(user_model.USERNAME_FIELD)
    if field.max_length and len(name) > field.max_length:
        return f"is {len(name)} characters long; account names have at most {field.max_length}"
    if any(unicodedata.category(ch) in ("Cf", "Cc", "Co", "Cn", "Zl", "Zp") for ch in name):
        return "contains invisible (zero-width or control) characters"
    for validate in field.validators:
        try:
            validate(name)
        except DjangoValidationError:
            return "is not a valid account name (letters, digits and @ . + - _ only)"
    return ""


def items_by_pk(items: dict[str, Item]) -> dict[int, Item]:
    return {i.pk: i for i in items.values()}


@transaction.atomic
def _store(
    campaign: Campaign,
    parsed: list[tuple[str, dict[int, dict[str, int]]]],
    users: dict[str, Any],
    unknown: list[str],
    by_pk: dict[int, Item],
    counts: dict[int, int],
) -> ImportResult:
    User = get_user_model()
    for name in unknown:
        u = User(username=name, is_active=False)
        u.set_unusable_password()
        u.save()
        users[name] = u
    now = timezone.now()
    total = 0
    for rater, by_item in parsed:
        user = users[rater]
        # A person already in the campaign keeps their state (an import never unblocks anyone).
        m, created = Membership.objects.get_or_create(
            campaign=campaign, user=user, defaults={"state": Membership.State.ACTIVE, "imported": True}
        )
        if not created and not m.imported:
            Membership.objects.filter(pk=m.pk).update(imported=True)
        assignments = Assignment.objects.bulk_create(
            [
                Assignment(
                    campaign=campaign,
                    item=by_pk[i],
                    user=user,
                    state=Assignment.State.ANSWERED,
                    reserved_at=now,
                    expires_at=now + timedelta(seconds=1),
                    finished_at=now,
                )
                for i in by_item
            ]
        )
        Response.objects.bulk_create(
            [
                Response(
                    campaign=campaign,
                    item=a.item,
                    user=user,
                    assignment=a,
                    answer=_answer(campaign, by_item[a.item_id]),
                    idempotency_key=f"import-{campaign.pk}-{a.item_id}-{user.pk}",
                    source=Response.Source.IMPORT,
                )
                for a in assignments
            ]
        )
        Membership.objects.filter(campaign=campaign, user=user).update(
            regular_answered=F("regular_answered") + len(by_item)
        )
        total += len(by_item)
    for item_id, k in counts.items():
        Item.objects.filter(pk=item_id).update(slots_taken=F("slots_taken") + k, answer_count=F("answer_count") + k)
    final_labels_refresh(campaign, item_ids=list(counts))
    return ImportResult(len(parsed), total, len(unknown))
