"""ReComSBench (spec §3.2–3.4) as a scorer: per question, reasoning paths, their knowledge
triples, K_prior, d(Q), the direct answer, the KBA answer and each path's KCR.

For each item:

1. **Paths.** ``k`` chain-of-thought answers to the paper's CoT prompt: path 0 greedy (the paper's
   first sample; ``first_greedy=False`` samples it too), the others at ``temperature`` (0.7),
   seeded from (``seed``, item id) so that a resumed run samples exactly what an uninterrupted one
   would. Or, with ``paths=`` a :class:`~.recoms_replay.PathsFile`, paths made elsewhere.
2. **Judging.** Each path's answer is the option after its last "The correct answer is";
   ``correct`` compares it with the item's gold option (``Item.gold``).
3. **Triples.** The paper's extraction prompt on each path's text (greedy), parsed by
   :func:`~.triples.parse_triples` (bad output: no triples, the status is stored); K(Q) the same
   way from the question (its stem, after any context; ``question_knowledge="question+options"``
   adds the options line).
4. **K_prior, d(Q)** by :func:`commonsense.metrics.recoms.select_prior_knowledge` (Eq. 1–2;
   triples the same when MiniLM cosine ≥ ``threshold``): S* is the correct path with the fewest
   (deduplicated) triples; K_prior its triples not in K(Q); d(Q) = |K_prior|, ``None`` when no
   path is correct.
5. **Direct answer** (the paper's direct prompt, greedy): the item's ``chosen``, the basis of the
   Easy → Hard sliding-window accuracy. With a model *and* a paths file, the model answers over
   the file's paths and K_prior (the paper derives d(Q) and K_prior from one model, Llama3.1, "the
   sole basis", and evaluates others against them: export that model's recoms run and pass it as
   the paths file); pass@k, MSG and KCR then describe the file's paths. **KBA**: the knowledge-hints
   prompt with ``{HINT}`` = all knowledge generated (``kba_hints="all"``, the default and the paper's
   experiments: "to mitigate variance from stochastic knowledge selection, all knowledge generated
   as standard snippets was incorporated into prompts", §4.3): the new triples (not in K(Q)) of
   every correct path, deduplicated — the knowledge S* is chosen from, so the hints no longer hang
   on which correct path was the shortest. ``kba_hints="prior"`` is Eq. 3 as written, K_prior
   alone (the named variant ``K_prior``). Asked for every item (no correct path: empty hints).
6. **KCR** (Eq. 5) and the derived redundancy ratio per path, against K_prior.

Everything lands in ``ItemResult.extra`` (see :func:`RecomsScorer.score_item`); ``scores`` are
the shares of paths that chose each option.
"""

from __future__ import annotations

import time
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from commonsense.metrics.recoms import (
    THRESHOLD,
    Embed,
    ReasoningPath,
    deduplicate,
    fuzzy_difference,
    knowledge_coverage_ratio,
    knowledge_redundancy_ratio,
    select_prior_knowledge,
    triple_text,
)

from . import prompts as P
from .extract import extract_final_option
from .triples import Triple, TripleParse, hint_text, parse_triples
from .types import LETTERS, Backend, Generation, Item, ItemResult, Prompt

MISSING = "missing from the paths file"


@dataclass(slots=True)
class Path:
    """One reasoning path. ``answer``: chosen option index (None: none readable)."""

    text: str
    answer: int | None
    correct: bool | None
    greedy: bool = False
    temperature: float | None = None
    seed: int | None = None
    triples: list[Triple] | None = None  # None: not extracted yet
    extraction: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {
            "text": self.text,
            "answer": self.answer,
            "answer_letter": None if self.answer is None else LETTERS[self.answer],
            "correct": self.correct,
            "greedy": self.greedy,
            "temperature": self.temperature,
            "seed": self.seed,
            "triples": [list(t) for t in self.triples or []],
            "extraction": self.extraction,
        }


class PathSource:
    """Where paths come from when no model samples them (see :mod:`.recoms_replay`)."""

    source: str

    def record(self, item: Item) -> dict[str, Any] | None:
        raise NotImplementedError


def item_seed(seed: int, item_id: str) -> int:
    """A per-item seed, stable across processes (crc32, not Python's salted hash)."""
    return zlib.crc32(f"{seed}:{item_id}".encode()) & 0x7FFFFFFF


class _Calls:
    """Counts tokens and time of the model calls made for one item."""

    def __init__(self, lm: Backend | None, chat: bool) -> None:
        self.lm, self.chat = lm, chat
        self.prompt_tokens = self.completion_tokens = 0

    def __call__(
        self, texts: Sequence[str], max_new_tokens: int, temperature: float = 0.0, seed: int | None = None
    ) -> list[Generation]:
        if self.lm is None:
            raise RuntimeError("no model configured")
        if not texts:
            return []
        prompts: list[Prompt] = [P.user(t) if self.chat else t for t in texts]
        gens = self.lm.generate(prompts, max_new_tokens=max_new_tokens, temperature=temperature, seed=seed)
        for g in gens:
            self.prompt_tokens += g.prompt_tokens
            self.completion_tokens += g.completion_tokens
        return gens


class RecomsScorer:
    method = "recoms"

    def __init__(
        self,
        lm: Backend | None,
        embed: Embed,
        *,
        k: int = 5,
        temperature: float = 0.7,
        first_greedy: bool = True,
        seed: int = 0,
        chat: bool = True,
        reasoning_tokens: int = 256,
        extract_tokens: int = 256,
        answer_tokens: int = 32,
        threshold: float = THRESHOLD,
        minimise: Literal["all", "new"] = "all",
        kba_hints: Literal["prior", "all"] = "all",
        question_knowledge: Literal["question", "question+options"] = "question",
        paths: PathSource | None = None,
    ) -> None:
        if lm is None and paths is None:
            raise ValueError("ReComSBench needs a model to sample paths or a paths file to replay")
        if k < 1:
            raise ValueError(f"k (paths per question) must be at least 1, got {k}")
        if temperature <= 0 and k > int(first_greedy):
            raise ValueError(f"sampled paths need a temperature > 0, got {temperature}")
        if kba_hints not in ("prior", "all"):
            raise ValueError(f"kba_hints must be 'prior' or 'all', got {kba_hints!r}")
        if question_knowledge not in ("question", "question+options"):
            raise ValueError(f"question_knowledge must be 'question' or 'question+options', got {question_knowledge!r}")
        self.lm, self.embed, self.paths = lm, embed, paths
        self.k, self.temperature, self.first_greedy, self.seed = k, temperature, first_greedy, seed
        self.chat = chat
        self.reasoning_tokens, self.extract_tokens, self.answer_tokens = reasoning_tokens, extract_tokens, answer_tokens
        self.threshold, self.minimise, self.kba_hints = threshold, minimise, kba_hints
        self.question_knowledge = question_knowledge

    # ------------------------------------------------------------------ steps
    def sample_paths(self, item: Item, call: _Calls) -> list[Path]:
        prompt = P.rcs_cot(item)
        base = item_seed(self.seed, item.id)
        paths: list[Path] = []
        if self.first_greedy:
            g = call([prompt], self.reasoning_tokens)[0]
            paths.append(Path(g.text, None, None, greedy=True, temperature=0.0))
        n = self.k - len(paths)
        for i, g in enumerate(call([prompt] * n, self.reasoning_tokens, self.temperature, base)):
            paths.append(Path(g.text, None, None, temperature=self.temperature, seed=base + i))
        for p in paths:
            p.answer = extract_final_option(p.text, item.options)
            p.correct = None if item.gold is None else p.answer == item.gold
        return paths

    def extract(self, texts: Sequence[str], call: _Calls) -> list[tuple[TripleParse, str]]:
        gens = call([P.rcs_extract(t) for t in texts], self.extract_tokens)
        return [(parse_triples(g.text), g.text) for g in gens]

    def question_text(self, item: Item) -> str:
        q = f"{item.context} {item.question}".strip() if item.context else item.question
        if self.question_knowledge == "question+options":
            q = f"{q} {P.options_line(item.options)}"
        return q

    def answer(self, prompt: str, item: Item, call: _Calls) -> dict[str, Any]:
        g = call([prompt], self.answer_tokens)[0]
        chosen = extract_final_option(g.text, item.options)
        return {"chosen": chosen, "correct": None if item.gold is None else chosen == item.gold, "raw": g.text}

    # ------------------------------------------------------------------ one item
    def score_item(self, item: Item) -> ItemResult:
        """``extra``: ``difficulty`` (d(Q) or None), ``k_prior``, ``s_star`` (index of S*),
        ``question_triples`` and ``question_extraction``, ``paths`` (text, answer, correct, greedy,
        temperature, seed, triples, extraction status and raw answer, ``kcr``, ``krr``), ``direct``
        and ``kba`` ({chosen, correct, raw}; KBA also ``hints``), ``chosen_from`` (``direct``,
        ``replay`` or ``path0``), ``errors`` (steps that could not be done)."""
        t0 = time.perf_counter()
        call = _Calls(self.lm, self.chat)
        rec: dict[str, Any] = {}
        if self.paths is not None:
            found = self.paths.record(item)
            if found is None:
                return ItemResult(item_id=item.id, chosen=None, error=MISSING)
            rec = found
            paths = [_replayed_path(p, item) for p in rec["paths"]]
        else:
            paths = self.sample_paths(item, call)
        errors: list[str] = []

        todo = [p for p in paths if p.triples is None]
        if todo and self.lm is None:
            errors.append(f"{len(todo)} path(s) without triples and no model to extract them: counted as no triples")
        elif todo:
            for p, (parsed, raw) in zip(todo, self.extract([p.text for p in todo], call), strict=True):
                p.triples, p.extraction = parsed.triples, {**parsed.as_dict(), "raw": raw}
        for p in paths:
            if p.triples is None:
                p.triples, p.extraction = [], {"status": "not_extracted", "n": 0, "skipped": 0}

        q_extraction: dict[str, Any]
        if rec.get("question_triples") is not None:
            k_q = list(rec["question_triples"])
            q_extraction = {"status": "given", "n": len(k_q), "skipped": 0}
        elif self.lm is not None:
            parsed, raw = self.extract([self.question_text(item)], call)[0]
            k_q, q_extraction = parsed.triples, {**parsed.as_dict(), "raw": raw}
        else:
            k_q, q_extraction = [], {"status": "not_given", "n": 0, "skipped": 0}

        self.embed([triple_text(t) for t in [*k_q, *(t for p in paths for t in p.triples or [])]])  # one batch
        prior = select_prior_knowledge(
            [ReasoningPath(p.correct is True, tuple(p.triples or ())) for p in paths],
            k_q,
            self.embed,
            threshold=self.threshold,
            minimise=self.minimise,
        )
        path_dicts = []
        for p in paths:
            d = p.as_dict()
            d["kcr"] = knowledge_coverage_ratio(p.triples or [], prior.k_prior, self.embed, self.threshold)
            d["krr"] = knowledge_redundancy_ratio(p.triples or [], prior.k_prior, self.embed, self.threshold)
            path_dicts.append(d)

        hints = prior.k_prior if self.kba_hints == "prior" else self._all_new(paths, k_q)
        direct, kba, chosen_from = self._answers(item, rec, hints, call, errors)
        chosen = direct["chosen"] if direct is not None else paths[0].answer if paths else None
        n_opt = len(item.options)
        votes = [sum(p.answer == i for p in paths) / len(paths) if paths else 0.0 for i in range(n_opt)]
        extra = {
            "difficulty": prior.difficulty,
            "k_prior": [list(t) for t in prior.k_prior],
            "s_star": prior.path_index,
            "question_triples": [list(t) for t in k_q],
            "question_extraction": q_extraction,
            "paths": path_dicts,
            "direct": direct,
            "kba": None if kba is None else {**kba, "hints": [list(t) for t in hints]},
            "chosen_from": chosen_from,
            "errors": errors,
        }
        return ItemResult(
            item_id=item.id,
            chosen=chosen,
            scores=votes,
            raw_output="" if direct is None else str(direct.get("raw", "")),
            latency_s=time.perf_counter() - t0,
            prompt_tokens=call.prompt_tokens,
            completion_tokens=call.completion_tokens,
            extra=extra,
        )

    def _all_new(self, paths: Sequence[Path], k_q: Sequence[Triple]) -> list[Triple]:
        pool = [t for p in paths if p.correct for t in p.triples or []]
        return fuzzy_difference(deduplicate(pool, self.embed, self.threshold), k_q, self.embed, self.threshold)

    def _answers(
        self, item: Item, rec: dict[str, Any], hints: Sequence[Triple], call: _Calls, errors: list[str]
    ) -> tuple[dict[str, Any] | None, dict[str, Any] | None, str]:
        """The configured model answers (so another model's paths can serve as the "sole basis" of
        d(Q) and K_prior, as in the paper); without one, the paths file's answers, if any."""
        direct = kba = None
        chosen_from = "path0"
        if self.lm is not None:
            direct, chosen_from = self.answer(P.rcs_direct(item), item, call), "direct"
            kba = self.answer(P.rcs_hints(item, hint_text(hints)), item, call)
            return direct, kba, chosen_from
        if rec.get("direct") is not None:
            direct, chosen_from = _replayed_answer(rec["direct"], item), "replay"
        if rec.get("kba") is not None:
            kba = _replayed_answer(rec["kba"], item)
        else:
            errors.append("no KBA answer: the paths file has none and no model is configured")
        return direct, kba, chosen_from

    # ------------------------------------------------------------------ Scorer protocol
    def score_batch(self, items: Sequence[Item]) -> list[ItemResult]:
        return [self.score_item(it) for it in items]

    def describe(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "method": self.method,
            "k": self.k,
            "temperature": self.temperature,
            "first_greedy": self.first_greedy,
            "seed": self.seed,
            "chat": self.chat,
            "reasoning_tokens": self.reasoning_tokens,
            "extract_tokens": self.extract_tokens,
            "answer_tokens": self.answer_tokens,
            "threshold": self.threshold,
            "minimise": self.minimise,
            "kba_hints": self.kba_hints,
            "question_knowledge": self.question_knowledge,
            "prompt_version": P.RCS_PROMPT_VERSION,
        }
        for part in (self.lm, self.embed):
            fn: Callable[[], dict[str, Any]] | None = getattr(part, "describe", None)
            if callable(fn):
                d.update(fn())
        if self.lm is not None and "backend" not in d:
            d["backend"] = self.lm.name
        if self.paths is not None:
            d["paths_file"] = self.paths.source
            d.setdefault("backend", "replay")
        return d


def option_index(value: Any, item: Item) -> int | None:
    """An answer given as an index, a letter (``"B"``, ``"(B)"``), an option text or a sentence
    ("The correct answer is B")."""
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if 0 <= value < len(item.options) else None
    s = str(value).strip()
    bare = s.strip("()[]. ").upper()
    if len(bare) == 1 and bare in LETTERS[: len(item.options)]:
        return LETTERS.index(bare)
    low = [o.strip().lower() for o in item.options]
    if s.lower().rstrip(".") in low:
        return low.index(s.lower().rstrip("."))
    return extract_final_option(s, item.options)


def _replayed_path(p: dict[str, Any], item: Item) -> Path:
    text = str(p.get("text", ""))
    answer = (
        option_index(p["answer"], item) if p.get("answer") is not None else extract_final_option(text, item.options)
    )
    if isinstance(p.get("correct"), bool):
        correct: bool | None = p["correct"]
    else:
        correct = None if item.gold is None else answer == item.gold
    path = Path(
        text, answer, correct, greedy=bool(p.get("greedy", False)), temperature=p.get("temperature"), seed=p.get("seed")
    )
    if p.get("triples") is not None:
        path.triples = list(p["triples"])
        path.extraction = {"status": "given", "n": len(path.triples), "skipped": 0}
    return path


def _replayed_answer(value: Any, item: Item) -> dict[str, Any]:
    raw = value.get("answer", value.get("text")) if isinstance(value, dict) else value
    chosen = option_index(raw, item)
    return {"chosen": chosen, "correct": None if item.gold is None else chosen == item.gold, "raw": str(raw)}
