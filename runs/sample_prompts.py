"""The prompt a prediction's model saw, rebuilt for the log viewer from the item and the run's
scoring settings with the same template functions the scorers call (``commonsense.scoring``):
nothing is guessed, and a method whose prompt depends on earlier model output (the second turn
of CoT / KnowCoT) shows its first turn, labelled so. Backends that prompt no model (random,
embedding, replay) have no prompt."""

from __future__ import annotations

from typing import Any

from commonsense.scoring import prompts as P

from .models import Prediction, Run
from .scorers import question_item, statement_item

NO_PROMPT_BACKENDS = {
    "random": "the random baseline prompts no model",
    "embedding": "the embedding baseline compares sentence embeddings; no prompt",
    "replay": "replayed answers: the prompt was the original run's",
}


def rebuilt_prompt(run: Run, p: Prediction) -> dict[str, Any]:
    """``{"text": str | None, "note": str}``: the prompt text, or None with the reason."""
    if run.backend in NO_PROMPT_BACKENDS:
        return {"text": None, "note": NO_PROMPT_BACKENDS[run.backend]}
    if run.is_statement_run:
        assert p.statement is not None
        s = statement_item(p.statement).question
        questions = (run.scorer_settings or {}).get("questions") or ["q1", "q2"]
        parts = [f"[{q}] {P.nww_prompt(s, q)}" for q in questions if q in ("q1", "q2", "q3")]
        return {"text": "\n\n".join(parts), "note": "one prompt per NWW question"}
    assert p.question is not None
    item = question_item(p.question)
    settings = run.scorer_settings or {}
    if run.scoring == "loglik":
        from commonsense.scoring.loglik import LoglikScorer

        scorer = LoglikScorer(None, template=settings.get("template") or P.CLOZE)  # type: ignore[arg-type]
        delim = settings.get("delimiter", " ")
        conts = "\n".join(f"  {chr(65 + i)}: {delim}{o!s}" for i, o in enumerate(item.options))
        return {"text": f"{scorer.context(item)}\n\ncontinuations scored:\n{conts}", "note": "context + each option"}
    if run.scoring == "generate":
        return {"text": P.coco_prompt(item), "note": "CoCo Figure 9"}
    if run.scoring == "cot":
        return {"text": P.cot_prompt(item), "note": "first turn; the second adds the model's reasoning"}
    if run.scoring == "knowcot":
        return {"text": P.knowcot_first(item), "note": "first turn; the second adds the model's reasoning"}
    return {"text": None, "note": f"the {run.scoring} scoring builds several prompts per item; see the raw output"}
