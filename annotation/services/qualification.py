"""A qualification that screens (issue 26 item 4) and checks placed where a forged participant
cannot find them (issue 31 item 2).

- The test's items come from a source the researcher chose: a **verified set** (items people
  settled; "None of the answers are correct." becomes the empty gold) or a **gold file**
  (:mod:`commonsense.io.gold`, every plausible option marked). An MCQA campaign's own, unverified
  items are not gold. Surveys and RICA keep their own gold (the human majority, the original).
- Each item is graded whole (:func:`commonsense.validation.gold_passed`: the ticked set is the gold
  set). A campaign whose test a respondent who does not read would pass - "none" everywhere, the same
  option everywhere - on some draw is refused, naming that answer
  (:func:`commonsense.validation.qualification_loopholes`).
- Each person gets ``qualification_size`` items of the pool, drawn and ordered for them alone;
  attention checks come from their pool in an order of their own, one in each block of
  ``attention_every`` regular answers at a position of their own. The draws are keyed HMACs of the
  person, the campaign and the server's secret: nobody can predict another's.
- What the test asks (items, how many must be right, attempts) is stated before it starts."""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.core.exceptions import ValidationError
from django.utils.crypto import salted_hmac

from annotation.models import Campaign, Item
from commonsense.io.errors import DataFormatError
from commonsense.io.gold import GoldItem, read_gold_items
from commonsense.validation import NONE_CORRECT, items_needed, qualification_loopholes
from knowledge.models import Question, QuestionSet


def _rank(purpose: str, campaign_id: int, user_id: int, key: str) -> str:
    return salted_hmac(f"annotation.{purpose}", f"{campaign_id}:{user_id}:{key}").hexdigest()


def person_order(purpose: str, campaign_id: int, user_id: int, keys: list[str]) -> list[str]:
    """``keys`` in this person's own order for ``purpose`` (qualification draw, attention pool)."""
    return sorted(keys, key=lambda k: _rank(purpose, campaign_id, user_id, k))


def attention_offset(campaign_id: int, user_id: int, block: int, every: int) -> int:
    """Where, 1 to ``every``, this person's check of block ``block`` falls among its regular answers."""
    return 1 + int(_rank("attention-slot", campaign_id, user_id, str(block))[:12], 16) % every


# --- the pool -------------------------------------------------------------------------------------


def _verified_gold(qset: QuestionSet) -> list[tuple[GoldItem, Question | None]]:
    if not hasattr(qset, "verified_from"):
        raise ValidationError(
            f"{qset.name} is not a verified set: a qualification's gold comes from a verified set or a gold file"
        )
    out: list[tuple[GoldItem, Question | None]] = []
    for q in qset.questions.order_by("position"):
        keep = [i for i, o in enumerate(q.options) if str(o) != NONE_CORRECT]
        gold = [keep.index(q.answer_index)] if q.answer_index in keep else []
        out.append(
            (GoldItem(q.external_id or str(q.position), q.context, q.stem, [str(q.options[i]) for i in keep], gold), q)
        )
    return out


def _file_gold(upload: Any) -> tuple[list[GoldItem], str]:
    """A gold file: a path (the command line, the demo) or an uploaded file (the campaign form)."""
    if isinstance(upload, (str, Path)):
        path = Path(upload)
        try:
            return read_gold_items(path), path.name
        except (DataFormatError, OSError) as exc:
            raise ValidationError(f"gold file {exc}") from None
    name = Path(getattr(upload, "name", "") or "gold.jsonl").name
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / name
        with path.open("wb") as fh:
            for chunk in upload.chunks():
                fh.write(chunk)
        try:
            return read_gold_items(path), name
        except DataFormatError as exc:
            raise ValidationError(f"gold file {exc}") from None


@dataclass(frozen=True, slots=True)
class Pool:
    items: list[tuple[str, dict[str, Any], dict[str, Any], Question | None]]  # key, payload, gold, question
    source: str  # what the campaign page says the test came from


def qualification_pool(
    kind: str, qualification_set: QuestionSet | None, qualification_file: Any, positions: list[int]
) -> Pool | None:
    """The MCQA qualification items of the chosen source, ``positions`` of it (all when empty); None
    when no source was chosen (the caller then takes its own positions, outside MCQA)."""
    if qualification_set is None and qualification_file is None:
        if kind == Campaign.Kind.MCQA and positions:
            raise ValidationError(
                "an MCQA campaign's qualification items come from a verified set or a gold file, not from the "
                "unverified items being validated: choose one"
            )
        return None
    if kind != Campaign.Kind.MCQA:
        raise ValidationError("a verified set or a gold file gives multiple-choice items: only MCQA campaigns use one")
    if qualification_set is not None and qualification_file is not None:
        raise ValidationError("choose a verified set or a gold file for the qualification, not both")
    pairs: list[tuple[GoldItem, Question | None]]
    if qualification_set is not None:
        pairs = _verified_gold(qualification_set)
        source = f"verified set {qualification_set.name}"
    else:
        gold, name = _file_gold(qualification_file)
        pairs = [(g, None) for g in gold]
        source = f"gold file {name}"
    if positions:
        bad = [p for p in positions if not 0 <= p < len(pairs)]
        if bad:
            raise ValidationError(f"qualification positions {bad} are not in the {source} (0..{len(pairs) - 1})")
        pairs = [pairs[p] for p in positions]
    items = [
        (
            f"gold:{g.key}",
            {"context": g.context, "stem": g.question, "options": g.options},
            {"plausible": g.plausible},
            q,
        )
        for g, q in pairs
    ]
    return Pool(items, source)


def screening_check(kind: str, golds: list[tuple[dict[str, Any], int]], pass_mark: float, size: int | None) -> int:
    """The test size (``size`` or the whole pool), after refusing a test that does not screen."""
    n = size or len(golds)
    if n > len(golds):
        raise ValidationError(f"the qualification asks {n} items of a pool of {len(golds)}")
    loopholes = qualification_loopholes(kind, golds, pass_mark, n)
    if loopholes:
        need = items_needed(pass_mark, n)
        what = "; ".join(f"{name} gets {right} of the pool's {len(golds)} items right" for name, right in loopholes)
        raise ValidationError(
            f"this qualification would pass someone who does not read ({what}; {need} of {n} pass): "
            "choose items whose gold differs, or raise the pass mark"
        )
    return n


# --- what the test says before it starts ------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Terms:
    items: int
    needed: int
    pass_mark: float
    attempts: int

    @property
    def text(self) -> str:
        if not self.needed:
            return (
                f"First come {self.items} practice question{'s' if self.items != 1 else ''}: everyone goes on after "
                "them. Undo and Skip are not available during them."
            )
        tries = "one attempt" if self.attempts == 1 else f"{self.attempts} attempts"
        return (
            f"First comes a qualification of {self.items} question{'s' if self.items != 1 else ''}. You pass with at "
            f"least {self.needed} of {self.items} answered exactly right: every plausible answer ticked and no "
            f"other. You have {tries}; Undo and Skip are not available during the qualification."
        )


def qualification_terms(campaign: Campaign, pool_size: int, attempts: int = 1) -> Terms | None:
    if not pool_size:
        return None
    n = min(campaign.qualification_size or pool_size, pool_size)
    return Terms(n, items_needed(campaign.qualification_pass_mark, n), campaign.qualification_pass_mark, attempts)


def qualification_item_ids(campaign: Campaign, user_id: int) -> list[int]:
    """This person's qualification items, in the order they get them."""
    rows = dict(Item.objects.filter(campaign=campaign, role=Item.Role.QUALIFICATION).values_list("uid", "pk"))
    order = person_order("qualification", campaign.pk, user_id, list(rows))
    return [rows[u] for u in order[: campaign.qualification_size or len(order)]]
