"""hf backend on a tiny GPT-2 (config + locally trained tokenizer) loaded from a folder."""

from __future__ import annotations

from pathlib import Path

import pytest

from commonsense.scoring.types import Item, LoglikRequest

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def backend(tiny_gpt2: Path):  # type: ignore[no-untyped-def]
    from commonsense.scoring.hf import HFBackend

    return HFBackend(tiny_gpt2, dtype="float32", batch_rows=7, pack_width=8)


REQUESTS = [
    LoglikRequest(
        "Question: Where would you find magazines?\nAnswer:", (" bookstore", " doctor", " train station", " market")
    ),
    LoglikRequest("Question: What do people aim to do at work?\nAnswer:", (" complete job", " wear hats")),
    LoglikRequest("Question: Where?\nAnswer:", (" a", " mortuary of the living dead", " b")),
    LoglikRequest(
        "Question: What do people aim to do at work?\nAnswer: ", ("complete job", "wear hats")
    ),  # trailing space
    LoglikRequest("", ("axih is smaller than exdvxr", "the ball")),  # empty context: prefix token
]


def naive(backend, context: str, continuation: str) -> float:  # type: ignore[no-untyped-def]
    """One full forward pass per option, no cache, no padding."""
    import torch

    ctx, cont = backend.encode_pair(context, continuation)
    with torch.inference_mode():
        logits = backend.model(input_ids=torch.tensor([ctx + cont])).logits[0].float()
    lp = torch.log_softmax(logits, dim=-1)
    return sum(float(lp[len(ctx) - 1 + k, t]) for k, t in enumerate(cont))


def test_shared_kv_loglik_equals_naive_per_option(backend) -> None:  # type: ignore[no-untyped-def]
    got = backend.loglikelihood(REQUESTS)
    assert [len(g) for g in got] == [len(r.continuations) for r in REQUESTS]
    for r, scores in zip(REQUESTS, got, strict=True):
        for c, s in zip(r.continuations, scores, strict=True):
            assert s.logprob == pytest.approx(naive(backend, r.context, c), abs=1e-4)
            assert s.n_tokens == len(backend.encode_pair(r.context, c)[1])


def test_padding_settings_do_not_change_scores(tiny_gpt2: Path, backend) -> None:  # type: ignore[no-untyped-def]
    from commonsense.scoring.hf import HFBackend

    exact = HFBackend(tiny_gpt2, dtype="float32", batch_rows=1000, pack_width=1)  # one question per row
    small = HFBackend(tiny_gpt2, dtype="float32", batch_tokens=1)  # one question per pass
    assert len(small._chunks(small.encode_requests(REQUESTS))) == len(REQUESTS)
    for x, y in zip(small.loglikelihood(REQUESTS), exact.loglikelihood(REQUESTS), strict=True):
        assert [s.logprob for s in x] == pytest.approx([s.logprob for s in y], abs=1e-4)
    a = backend.loglikelihood(REQUESTS)
    b = exact.loglikelihood(REQUESTS)
    for x, y in zip(a, b, strict=True):
        assert [s.logprob for s in x] == pytest.approx([s.logprob for s in y], abs=1e-4)


def test_head_only_where_read_equals_head_everywhere(tiny_gpt2: Path, backend) -> None:  # type: ignore[no-untyped-def]
    """The vocabulary projection at the read positions only (production) gives the log-probabilities
    and greedy flags of the projection over every position fed (``head="all"``)."""
    from commonsense.scoring.hf import HFBackend

    full = HFBackend(tiny_gpt2, dtype="float32", batch_rows=7, pack_width=8, head="all")
    assert backend.head == "scored"
    a = backend.loglikelihood(REQUESTS)
    b = full.loglikelihood(REQUESTS)
    for x, y in zip(a, b, strict=True):
        assert [s.logprob for s in x] == pytest.approx([s.logprob for s in y], abs=1e-5)
        assert [(s.n_tokens, s.is_greedy) for s in x] == [(s.n_tokens, s.is_greedy) for s in y]
    with pytest.raises(ValueError, match="head"):
        HFBackend(tiny_gpt2, dtype="float32", head="some")


@pytest.mark.parametrize("attn", ["sdpa", "eager"])
def test_questions_packed_in_one_row_do_not_see_each_other(tiny_gpt2: Path, attn: str) -> None:
    """Several questions in one row (and one pass): each option still scores as if run alone."""
    from commonsense.scoring.hf import HFBackend

    one_row = HFBackend(tiny_gpt2, dtype="float32", batch_rows=1000, pack_width=10_000)
    one_row.model.set_attn_implementation(attn)
    enc = [
        (
            one_row.encode_pair(r.context, r.continuations[0])[0],
            [one_row.encode_pair(r.context, c)[1] for c in r.continuations],
        )
        for r in REQUESTS
    ]
    assert len(one_row._chunks(enc)) == 1
    assert max(len(row) for row in one_row._pack(enc)) >= 3  # the mask, not the batch, separates them
    got = one_row.loglikelihood(REQUESTS)
    for r, scores in zip(REQUESTS, got, strict=True):
        for c, s in zip(r.continuations, scores, strict=True):
            assert s.logprob == pytest.approx(naive(one_row, r.context, c), abs=1e-4)


def test_empty_continuation_scores_zero(backend) -> None:  # type: ignore[no-untyped-def]
    ctx = "Question: Where?\nAnswer:"
    assert backend.encode_pair(ctx, "")[1] == []
    got = backend.loglikelihood([LoglikRequest(ctx, ("", " a", " mortuary of the living dead"))])[0]
    assert (got[0].logprob, got[0].n_tokens) == (0.0, 0)
    assert got[2].logprob == pytest.approx(naive(backend, ctx, " mortuary of the living dead"), abs=1e-4)


def test_lmeval_tokenisation_rules(backend) -> None:  # type: ignore[no-untyped-def]
    ctx, cont = backend.encode_pair("Answer: ", "wear hats")
    ctx2, cont2 = backend.encode_pair("Answer:", " wear hats")
    assert (ctx, cont) == (ctx2, cont2)  # trailing context space moves to the continuation
    assert ctx == backend.tok.encode("Answer:")  # no BOS added
    assert backend.encode_pair("", "ball")[0] == [backend.prefix_id]


def test_loglik_scorer_acc_and_acc_norm(backend) -> None:  # type: ignore[no-untyped-def]
    from commonsense.scoring.loglik import LoglikScorer

    items = [
        Item(id="q1", question="Where would you find magazines?", options=("bookstore", "doctor", "train station")),
        Item(id="q2", question="What do people aim to do at work?", options=("complete job", "complete job")),
    ]
    res = LoglikScorer(backend).score_batch(items)
    for it, r in zip(items, res, strict=True):
        direct = [naive(backend, f"Question: {it.question}\nAnswer:", " " + o) for o in it.options]
        assert r.scores == pytest.approx(direct, abs=1e-4)
        assert r.chosen == max(range(len(direct)), key=lambda i: (r.scores[i], -i))
        assert r.norm_scores == pytest.approx([d / len(o) for d, o in zip(direct, it.options, strict=True)], abs=1e-4)
    assert res[1].chosen == 0
    assert res[1].chosen_norm == 0


def test_rica_sentence_probability(backend) -> None:  # type: ignore[no-untyped-def]
    from commonsense.scoring.loglik import RicaScorer

    it = Item(
        id="r1",
        question="axih is smaller than exdvxr, so axih is [MASK] to put into a box than exdvxr",
        options=("easier", "harder"),
    )
    r = RicaScorer(backend).score_batch([it])[0]
    full = [naive(backend, "", it.question.replace("[MASK]", o)) for o in it.options]
    assert r.scores == pytest.approx(full, abs=1e-4)
    assert r.chosen == (0 if full[0] >= full[1] else 1)
    with pytest.raises(ValueError):
        RicaScorer(backend).score_batch([Item(id="x", question="no mask here", options=("a", "b"))])


def test_generate_and_word_probs(backend) -> None:  # type: ignore[no-untyped-def]
    import torch

    g = backend.generate(["Question: Where?\nAnswer:"], max_new_tokens=5)[0]
    assert g.completion_tokens <= 5
    assert g.prompt_tokens > 0
    assert isinstance(g.text, str)
    again = backend.generate(["Question: Where?\nAnswer:"], max_new_tokens=5)[0]
    assert again.text == g.text  # greedy
    prompt = [{"role": "user", "content": 'Do you agree? Start your answer with a "yes" or "no".'}]
    p = backend.word_probs([prompt], ["yes", "no"])[0]
    assert set(p) == {"yes", "no", "other"}
    assert p["yes"] > 0
    assert p["no"] > 0
    assert p["yes"] + p["no"] + p["other"] == pytest.approx(1.0)
    # the variants really are summed: recompute from the full softmax
    text, _ = backend.render(prompt)
    with torch.inference_mode():
        probs = torch.softmax(backend.model(input_ids=torch.tensor([backend.tok.encode(text)])).logits[0, -1], -1)
    ids = backend.word_token_ids("yes")
    assert len(ids) >= 2  # e.g. "yes", "Yes", "Ġyes" …
    assert p["yes"] == pytest.approx(float(probs[ids].sum()), rel=1e-5)
    assert all(backend.tok.decode([i]).strip().lower().strip('"') == "yes" for i in ids)


def test_yesno_scorer_renormalises(backend) -> None:  # type: ignore[no-untyped-def]
    from commonsense.scoring.yesno import YesNoScorer

    r = YesNoScorer(backend).score_batch([Item(id="s1", question="A ball is round.", options=("no", "yes"))])[0]
    q1, q2 = r.extra["q1"], r.extra["q2"]
    for q in (q1, q2):
        assert q["p_yes"] == pytest.approx(q["yes"] / (q["yes"] + q["no"]))
        assert q["chosen"] == int(q["p_yes"] >= 0.5)
    assert r.chosen == q1["chosen"]
    assert r.scores == pytest.approx([1 - q1["p_yes"], q1["p_yes"]])
    assert q1["yes"] != q2["yes"]  # (a) and (b) are different prompts


def test_yesno_role_clarification_system_prompt(backend) -> None:  # type: ignore[no-untyped-def]
    """NWW SI E.3 as an option: the system turn holds the paper's text verbatim and changes P(yes)."""
    from commonsense.scoring.prompts import NWW_ROLE_CLARIFICATION
    from commonsense.scoring.yesno import YesNoScorer

    item = Item(id="s1", question="A ball is round.", options=("no", "yes"))
    role = YesNoScorer(backend, system="role-clarification")
    prompt = role.prompt("A ball is round.", "q1")
    assert isinstance(prompt, list)
    assert prompt[0] == {"role": "system", "content": NWW_ROLE_CLARIFICATION}
    assert NWW_ROLE_CLARIFICATION.startswith("You are an independent participant in a survey")
    assert role.describe()["system_prompt"] == "role-clarification"
    plain = YesNoScorer(backend, chat=False, system="role-clarification").prompt("A ball is round.", "q1")
    assert isinstance(plain, str)
    assert plain.startswith(NWW_ROLE_CLARIFICATION + "\n\n")
    a = YesNoScorer(backend).score_batch([item])[0].extra["q1"]["yes"]
    b = role.score_batch([item])[0].extra["q1"]["yes"]
    assert a != b
    with pytest.raises(ValueError, match="system must be one of"):
        YesNoScorer(backend, system="friendly")


@pytest.mark.parametrize("method", ["generate", "cot", "knowcot"])
@pytest.mark.parametrize("chat", [True, False])
def test_generative_scorers_run_two_turns(backend, method: str, chat: bool) -> None:  # type: ignore[no-untyped-def]
    from commonsense.scoring.extract import extract_letter
    from commonsense.scoring.factory import scorer_for

    it = Item(
        id="g",
        question="Where would you find magazines?",
        options=("bookstore", "doctor", "market", "train", "mortuary"),
    )
    s = scorer_for(backend, method, chat=chat, max_new_tokens=4, reasoning_tokens=6)
    r = s.score_batch([it])[0]
    assert r.chosen == extract_letter(r.raw_output, 5, it.options)
    assert r.completion_tokens <= (4 if method == "generate" else 10)
    assert ("reasoning" in r.extra) == (method != "generate")
    assert s.describe()["method"] == method
    assert s.describe()["temperature"] == 0


def test_factory_rejects_what_a_backend_cannot_do(backend) -> None:  # type: ignore[no-untyped-def]
    from commonsense.scoring.factory import build_scorer, scorer_for

    with pytest.raises(ValueError, match="unknown scoring"):
        scorer_for(backend, "telepathy")
    with pytest.raises(ValueError, match="needs --model"):
        build_scorer("hf", "loglik")
    with pytest.raises(ValueError, match="unknown backend"):
        build_scorer("gpt-9", "loglik")
