"""A small world for the security tests: one account per role (and a second annotator), real
knowledge rows, a model run with predictions, and annotation campaigns in every state — one with
qualification and attention (gold) items, one where the second annotator has answered already."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.cache import cache
from django.test import Client

from accounts.services import api_token_renew, role_groups_sync, user_create_with_role
from annotation.crowd.services import crowd_study_enable, identity_from_query, participant_join
from annotation.crowd.views.participant import CLAIM
from annotation.models import Campaign, Item, Participant
from annotation.queue import operations as queue
from annotation.services.campaigns import campaign_create, campaign_status_set
from commonsense.io.questions import MASK
from knowledge.models import BuildJob, Graph, Node, Question, QuestionSet, Statement, StatementSet, Triple
from runs.models import Prediction, Run
from tests.conftest import GOLD_FILE
from tests.knowledge.factories import (
    GraphFactory,
    QuestionFactory,
    QuestionSetFactory,
    StatementFactory,
    StatementSetFactory,
    TripleFactory,
)
from tests.runs.factories import make_run, predict

PASSWORD = "pw-long-enough-123"
ROLES = ("anonymous", "annotator", "researcher", "admin", "participant")  # participant: a crowd study link's


@dataclass
class World:
    users: dict[str, Any]  # role -> user (no "anonymous"); "annotator2" is a second annotator
    tokens: dict[str, str]  # role -> API token key
    spare_user: Any  # no role; deleted by the CSRF test
    spare_group: Group
    graph: Graph
    node: Node
    triple: Triple
    qset: QuestionSet
    question: Question
    sset: StatementSet
    statement: Statement
    build_job: BuildJob
    run: Run
    run2: Run
    prediction: Prediction
    plain: Campaign  # open MCQA, one answer per item, no gold items; annotator2 has answered one item
    plain_item: Item  # the item annotator2 answered
    gold: Campaign  # open MCQA with two qualification items and one attention item after every answer
    rica: Campaign  # open RICA campaign (which statement is the original is gold)
    survey: Campaign  # open NWW survey; annotator2 has answered two statements
    draft: Campaign
    closed: Campaign
    participant: Participant  # a crowd participant of ``survey`` (open to a study link), at the items
    participant_item: Item  # the item reserved for them

    def client(self, role: str, **kwargs: Any) -> Client:
        c = Client(**kwargs)
        if role == "participant":
            c.force_login(self.participant.user)
            session = c.session
            session[CLAIM] = self.participant.claim  # the browser the study link signed in
            session.save()
        elif role != "anonymous":
            c.force_login(self.users[role])
        return c


def _questions(qset: QuestionSet, n: int) -> list[Question]:
    return [
        QuestionFactory(
            question_set=qset, position=i, options=[f"option {i}.{k}" for k in range(5)], answer_index=(i * 2) % 5
        )
        for i in range(n)
    ]


def world_build() -> World:
    role_groups_sync()
    users = {
        role: user_create_with_role(f"sec-{role}", role, PASSWORD) for role in ("annotator", "researcher", "admin")
    }
    users["annotator2"] = user_create_with_role("sec-annotator2", "annotator", PASSWORD)
    tokens = {role: api_token_renew(u) for role, u in users.items()}
    # Disposable rows for the admin's delete pages (a POST with a CSRF token really deletes).
    spare_user = get_user_model().objects.create_user("sec-spare", password=PASSWORD)
    spare_group = Group.objects.create(name="sec-spare")

    graph = GraphFactory(name="sec-graph")
    triple = TripleFactory(graph=graph)
    qset = QuestionSetFactory(name="sec-questions", kind=QuestionSet.Kind.COM2)
    questions = _questions(qset, 8)
    sset = StatementSetFactory(name="sec-statements")
    statement = StatementFactory(statement_set=sset, position=0)
    for i in range(1, 4):
        StatementFactory(statement_set=sset, position=i, human_majority=i % 2)
    build_job = BuildJob.objects.create(
        kind=BuildJob.Kind.COM2,
        graph=graph,
        name="sec-built",
        seed=0,
        params={"kind": "1p", "count": 5},
        state=BuildJob.State.FAILED,
        error="no path",
    )
    run = make_run(question_set=qset, model="sec-model-a")
    run2 = make_run(question_set=qset, model="sec-model-b")
    prediction = predict(run, questions[0], 1)
    for q in questions[1:]:
        predict(run, q, q.answer_index)
        predict(run2, q, 0)

    rica_set = QuestionSet.objects.create(name="sec-rica", kind=QuestionSet.Kind.RICA_PROBES)
    for i in range(3):
        Question.objects.create(
            question_set=rica_set,
            position=i,
            stem=f"A stone {i} is {MASK} likely to sink than a cork.",
            options=["more", "less"],
            answer_index=0,
        )

    def mcqa(name: str, status: str, **kw: Any) -> Campaign:
        return campaign_status_set(
            campaign_create(
                name=name,
                title=name.title(),
                kind="mcqa",
                question_set=qset,
                user=users["researcher"],
                **{"redundancy": 3, **kw},
            ),
            status,
        )

    plain = mcqa("sec-plain", "open", redundancy=1, max_answers=1)  # a fixed redundancy of one
    gold = mcqa(
        "sec-gold",
        "open",
        qualification_file=GOLD_FILE,
        qualification_positions=[0, 1],
        attention_positions=[2],
        attention_every=1,
        attention_max_failures=5,
        qualification_pass_mark=0.0,
    )
    draft = mcqa("sec-draft", "draft")
    closed = mcqa("sec-closed", "closed")
    rica = campaign_status_set(
        campaign_create(name="sec-rica", title="RICA", kind="rica", question_set=rica_set, user=users["researcher"]),
        "open",
    )

    survey = campaign_status_set(
        campaign_create(
            name="sec-survey", title="Survey", kind="survey", statement_set=sset, redundancy=5, user=users["researcher"]
        ),
        "open",
    )
    other = users["annotator2"]
    for agree in (1, 0):  # two survey answers, so agreement and NWW scores have something to compute
        step = queue.next_step(survey, other)
        assert step.assignment is not None
        queue.response_submit(step.assignment.item, other, {"agree": agree, "predict": 1})
    step = queue.next_step(plain, other)
    assert step.assignment is not None
    plain_item = step.assignment.item
    queue.response_submit(
        plain_item,
        other,
        {"plausible": [3], "none_correct": False, "bad_context": False},
        idempotency_key="annotator2-secret-key",
    )
    crowd_study_enable(survey)
    joined = participant_join(survey, identity_from_query({"PROLIFIC_PID": "sec-prolific-pid"}), "")
    participant = joined.participant
    Participant.objects.filter(pk=participant.pk).update(stage=Participant.Stage.ITEMS)
    participant.stage = Participant.Stage.ITEMS
    step = queue.next_step(survey, participant.user)
    assert step.assignment is not None
    return World(
        participant=participant,
        participant_item=step.assignment.item,
        users=users,
        tokens=tokens,
        spare_user=spare_user,
        spare_group=spare_group,
        graph=graph,
        node=triple.head,
        triple=triple,
        qset=qset,
        question=questions[0],
        sset=sset,
        statement=statement,
        build_job=build_job,
        run=run,
        run2=run2,
        prediction=prediction,
        plain=plain,
        plain_item=plain_item,
        gold=gold,
        rica=rica,
        survey=survey,
        draft=draft,
        closed=closed,
    )


@pytest.fixture
def world(db: None) -> World:
    cache.clear()  # login-throttle counts and cached item counts from other tests
    w = world_build()
    assert get_user_model().objects.filter(username__startswith="sec-").count() == 5
    return w
