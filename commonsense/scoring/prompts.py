"""Prompt templates of the seed papers, verbatim (see shared/spec/seeds-*.md).

Every builder is a pure function of an :class:`Item`; ``PROMPT_VERSION`` is stored on a run so a
change of wording shows up in the run's settings.
"""

from __future__ import annotations

from .types import LETTERS, Item, Message

PROMPT_VERSION = "2025-01-coco-fig9+kojima+knowcot-fig6+nww-repo"

# CoCo Figure 9 (instruction from Robinson et al. 2023); COM2 Table 10 adds "Context: [Context]".
COCO_INSTRUCTION = (
    "Answer this commonsense reasoning question, where you are supposed to handle a multiple-choice question "
    "answering task to select the correct answer. Select one correct answer from A to E."
)

# Kojima et al. 2022 zero-shot CoT, as CoCo uses it.
COT_TRIGGER = "Let's think step by step."
COT_ANSWER_TRIGGER = "Therefore, among A through E, the answer is"

# CoCo Figure 6 (KnowCoT), verbatim.
KNOWCOT_GUIDANCE = (
    "Guidance: Address the question by following the steps below:\n\n"
    "Step 1) Extract the core event: Identify the core event in the question. The event should simply consists "
    "of its subject, predicate, and object.\n\n"
    "Step 2) Recall the relevant knowledge: Recall the relevant knowledge triple of the core event implied by "
    "the question. The knowledge triple should simply consists of its head event, relation and tail event.\n\n"
    "Step 3) Deduce the final result: Given all the information above, deduce the final result and answer "
    "step by step."
)
KNOWCOT_FINAL = "Based on all the reasoning above, select the correct option to answer the initial question."

# NWW SI B, in the form of the authors' code and data ("Consider the statement," with the period
# inside the quotes) — the form that reproduces their numbers.
NWW_Q1 = (
    'Consider the statement, "{statement}" Do you agree with this statement? Start your answer with a "yes" or "no".'
)
NWW_Q2 = (
    'Consider the statement, "{statement}" Do you think most people would agree with this statement? '
    'Start your answer with a "yes" or "no".'
)
NWW_Q3 = (
    'Consider the statement, "{statement}" Do you think this statement is common sense? '
    'Start your answer with a "yes" or "no".'
)

# ReComSBench Appendix Table 4 (direct answer and CoT), verbatim.
RCS_DIRECT = (
    "Please read the multiple-choice question below carefully and select ONE of the listed options. "
    "Provide the final answer starting with 'The correct answer is OPTION'. {QA}."
)
RCS_COT = (
    "Please read the multiple-choice question below carefully and select ONE of the listed options. "
    "Let's think step by step. Each step should start with 'THOUGHT':. After all thoughts, provide the final "
    "answer starting with 'The correct answer is OPTION'. {QA}."
)

# ReComSBench Appendix Table 4: knowledge hints (KBA) and knowledge extraction, verbatim.
RCS_HINTS = (
    "Please read the multiple-choice question below carefully and select ONE of the listed options. "
    "Provide the final answer starting with 'The correct answer is OPTION'. Knowledge hints: {HINT}\n{QA}."
)
RCS_EXTRACT = (
    "You are an expert in knowledge extraction. Please extract knowledge from text in the form of triples "
    "(subject, predicate, object). Guidelines:\n"
    "1. Extract only knowledge explicitly stated in the text. Do not infer or derive information from context, "
    "common sense, or options unless explicitly mentioned.\n"
    "2. Avoid overgeneralization or assumptions. Stick strictly to what is directly expressed in the text.\n"
    "3. If no knowledge is extractable, return an empty list.\n"
    "Format: Return the extracted knowledge in JSON format under the key extracted_knowledge. Use an empty list "
    "if no knowledge is extractable.\n"
    "Examples: {FEW_SHOT}\n"
    "Now, extract knowledge from the following text: {TEXT}."
)
# The paper does not give its few-shot examples; these two are ours (one with knowledge, one
# without), in the output format the template asks for.
RCS_FEW_SHOT = (
    "\nText: THOUGHT: Magazines are printed works. THOUGHT: A bookstore sells many printed works. "
    "The correct answer is B.\n"
    'Output: {"extracted_knowledge": [["magazine", "is a", "printed work"], ["bookstore", "sells", "printed works"]]}\n'
    "Text: The correct answer is A.\n"
    'Output: {"extracted_knowledge": []}'
)
RCS_PROMPT_VERSION = "2025-rcs-table4+qa-lines+fewshot-v1"

CLOZE = "Question: {question}\nAnswer:"


def options_line(options: tuple[str, ...]) -> str:
    """``A: [Option A]. B: [Option B]. …`` as in CoCo Figure 9."""
    return " ".join(f"{LETTERS[i]}: {o}." for i, o in enumerate(options))


def coco_prompt(item: Item) -> str:
    """CoCo Figure 9; with a context, COM2 Table 10's ``Context: [Context]`` line before the question."""
    parts = [COCO_INSTRUCTION, ""]
    if item.context:
        parts += [f"Context: {item.context}", ""]
    parts += [f"Question: {item.question}", "", options_line(item.options), "", "Answer:"]
    return "\n".join(parts)


def cot_prompt(item: Item) -> str:
    return f"{coco_prompt(item)} {COT_TRIGGER}"


def cot_answer_prompt(item: Item, reasoning: str) -> str:
    """Kojima's second stage: the first prompt, the model's reasoning, then the answer trigger."""
    return f"{cot_prompt(item)}\n{reasoning.strip()}\n{COT_ANSWER_TRIGGER}"


def knowcot_first(item: Item) -> str:
    """First turn: ``Q: [question]`` (with the options, so the model can answer) and the guidance."""
    q = item.question if not item.options else f"{item.question}\n\n{options_line(item.options)}"
    if item.context:
        q = f"{item.context} {q}"
    return f"Q: {q}\n\n{KNOWCOT_GUIDANCE}"


def knowcot_messages(item: Item, previous: str) -> list[Message]:
    """The two-turn conversation of Figure 6: guidance, the model's reasoning, then the final question."""
    return [
        {"role": "user", "content": knowcot_first(item)},
        {"role": "assistant", "content": previous},
        {"role": "user", "content": f"Q: {KNOWCOT_FINAL}"},
    ]


def knowcot_text(item: Item, previous: str) -> str:
    """The same conversation as one completion prompt, in the figure's ``Q:``/``A:`` layout."""
    return f"{knowcot_first(item)}\n\nA: {previous.strip()}\n\nQ: {KNOWCOT_FINAL}\n\nA:"


def nww_prompt(statement: str, question: str = "q1") -> str:
    tpl = {"q1": NWW_Q1, "q2": NWW_Q2, "q3": NWW_Q3}[question]
    return tpl.format(statement=statement)


# NWW SI E.3, the role-clarification system prompt, verbatim (results in Table E.5).
NWW_ROLE_CLARIFICATION = (
    "You are an independent participant in a survey administered by academic researchers, who study "
    "commonsense beliefs. You will be presented with a statement, and asked a question about that statement. "
    "Answer the question independently, and please do not take into account what you think the researchers "
    "might want you to say."
)
NWW_SYSTEM = {"default": None, "role-clarification": NWW_ROLE_CLARIFICATION}


def user(content: str) -> list[Message]:
    return [{"role": "user", "content": content}]


def rcs_qa(item: Item) -> str:
    """ReComSBench's ``{QA}`` (its layout is not given): the question (after any context) and one
    ``A. option`` line per option."""
    q = f"{item.context} {item.question}".strip() if item.context else item.question
    return "\n".join([f"Question: {q}", *(f"{LETTERS[i]}. {o}" for i, o in enumerate(item.options))])


def rcs_direct(item: Item) -> str:
    return RCS_DIRECT.format(QA=rcs_qa(item))


def rcs_cot(item: Item) -> str:
    return RCS_COT.format(QA=rcs_qa(item))


def rcs_hints(item: Item, hint: str) -> str:
    return RCS_HINTS.format(HINT=hint, QA=rcs_qa(item))


def rcs_extract(text: str, few_shot: str = RCS_FEW_SHOT) -> str:
    return RCS_EXTRACT.format(FEW_SHOT=few_shot, TEXT=text.strip())
