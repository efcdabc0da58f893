"""The factories make rows the app reads as it reads its own: a role the permission check sees,
answers the agreement selectors read as a rater × item matrix, predictions whose facets the
explorer groups by."""

from __future__ import annotations

import numpy as np
import pytest

from accounts.roles import ADMIN, RESEARCHER, has_role
from annotation.selectors.agreement import campaign_matrices
from tests.accounts.factories import UserFactory
from tests.annotation.factories import CampaignFactory, ItemFactory, ResponseFactory
from tests.knowledge.factories import QuestionFactory
from tests.runs.factories import make_run, predict

pytestmark = pytest.mark.django_db


def test_user_factory_gives_the_role_asked_for() -> None:
    researcher = UserFactory(role=RESEARCHER)
    assert has_role(researcher, RESEARCHER)
    assert not has_role(researcher, ADMIN)
    assert not has_role(UserFactory(), RESEARCHER)  # an annotator by default


def test_responses_read_back_as_the_campaign_matrix() -> None:
    campaign = CampaignFactory()
    first, second = ItemFactory(campaign=campaign), ItemFactory(campaign=campaign)
    people = UserFactory.create_batch(3)
    for person, agree in zip(people, (1, 1, 0), strict=True):
        ResponseFactory(item=first, user=person, answer={"agree": agree, "predict": 1})
    ResponseFactory(item=second, user=people[0], answer={"agree": 0, "predict": 0})
    m = campaign_matrices(campaign)
    assert m.items == [first.pk, second.pk]
    assert m.raters == [p.pk for p in people]
    assert m.primary.shape == (3, 2)
    assert m.primary[:, 0].tolist() == [1.0, 1.0, 0.0]
    assert m.primary[0, 1] == 0.0
    assert np.isnan(m.primary[1:, 1]).all()  # nobody else rated the second item


def test_predict_copies_the_question_facets_and_judges_the_choice() -> None:
    question = QuestionFactory(answer_index=2)
    other = QuestionFactory(question_set=question.question_set, answer_index=2)
    run = make_run(question_set=question.question_set)
    right, wrong = predict(run, question, 2), predict(run, other, 0)
    assert right.correct is True
    assert wrong.correct is False
    assert right.position == question.position
    assert right.item_kind == question.structure  # the query kind the error pages group by
    assert right.item_options == 5
