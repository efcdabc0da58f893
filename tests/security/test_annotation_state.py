"""Issue 17, items 10 and 11. A blocked annotator (or one who failed the qualification) cannot
submit to an old reservation; a ratings import keeps a membership's state and refuses look-alike,
invisible or over-long rater names. GETs change no labels: the writes that change votes keep the
final labels current, and the campaign page's reservation is idempotent and cheap."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from accounts.services import role_groups_sync, user_create_with_role
from annotation.models import Assignment, Campaign, FinalLabel, Item, Membership, Response
from annotation.queue import operations as queue
from annotation.services.campaigns import campaign_create, campaign_status_set
from annotation.services.ratings_import import RatingsImportRefused, ratings_import
from knowledge.models import QuestionSet
from knowledge.services.imports import questions_import
from tests.conftest import FIXTURES

pytestmark = pytest.mark.django_db
PASSWORD = "pw-long-enough-123"
WRITES = ("INSERT", "UPDATE", "DELETE")


@pytest.fixture
def csqa(db: None) -> QuestionSet:
    questions_import(FIXTURES / "csqa_demo.jsonl", name="csqa-demo", fmt="csqa")
    return QuestionSet.objects.get(name="csqa-demo")


def _person(name: str, role: str = "annotator") -> Client:
    role_groups_sync()
    user_create_with_role(name, role, PASSWORD)
    c = Client()
    assert c.login(username=name, password=PASSWORD)
    return c


def _blocked_with_an_old_reservation(csqa: QuestionSet) -> tuple[Campaign, object, Item]:
    """Through the queue: an item reserved and left to expire, then an attention check failed."""
    c = campaign_status_set(
        campaign_create(
            name="att",
            title="t",
            kind="mcqa",
            question_set=csqa,
            attention_positions=[0],
            attention_every=1,
            attention_max_failures=0,
        ),
        "open",
    )
    _person("ann")
    user = get_user_model().objects.get(username="ann")
    old = queue.next_step(c, user).assignment.item
    later = timezone.now() + timedelta(seconds=c.reservation_ttl_seconds + 1)
    assert queue.reservations_reclaim(c, later) == 1  # its reservation expired
    step = queue.next_step(c, user, later)
    queue.response_submit(step.assignment.item, user, {"plausible": [0]}, now=later)
    check = queue.next_step(c, user, later).assignment.item
    assert check.role == Item.Role.ATTENTION
    wrong = [(check.gold["plausible"][0] + 1) % 5]
    queue.response_submit(check, user, {"plausible": wrong}, now=later)
    assert Membership.objects.get(user=user).state == Membership.State.BLOCKED
    assert Assignment.objects.get(user=user, item=old).state == Assignment.State.EXPIRED
    return c, user, old


def test_a_blocked_annotator_cannot_submit_to_an_old_reservation(csqa) -> None:  # type: ignore[no-untyped-def]
    c, user, old = _blocked_with_an_old_reservation(csqa)
    web = Client()
    web.force_login(user)
    before = Response.objects.count()
    r = web.post(
        reverse("annotation:submit", args=[c.name, old.uid]), {"plausible": ["1"]}, headers={"HX-Request": "true"}
    )
    assert r.status_code < 300
    assert Response.objects.count() == before
    assert "ended for you" in r.content.decode()


def test_a_ratings_import_keeps_a_blocked_membership_blocked(csqa) -> None:  # type: ignore[no-untyped-def]
    c = campaign_status_set(campaign_create(name="imp", title="t", kind="mcqa", question_set=csqa), "open")
    _person("ann")
    user = get_user_model().objects.get(username="ann")
    m = queue.membership_get(c, user)  # as when the page was opened; then blocked by an admin, no answers yet
    Membership.objects.filter(pk=m.pk).update(state=Membership.State.BLOCKED)
    key = Item.objects.filter(campaign=c, role=Item.Role.REGULAR).first().key
    ratings_import(c, f"rater,{key}:1\nann,yes\n")
    m.refresh_from_db()
    assert m.state == Membership.State.BLOCKED
    assert m.imported


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("res\u200b2", "invisible"),  # zero-width space: looks like res2
        ("x" * 151, "at most 150"),
        ("Res2", "letter case"),  # next to the existing res2
        ("res 2", "not a valid account name"),
    ],
)
def test_a_ratings_import_refuses_look_alike_and_over_long_names(csqa, name: str, why: str) -> None:  # type: ignore[no-untyped-def]
    _person("res2")
    c = campaign_status_set(campaign_create(name="imp", title="t", kind="mcqa", question_set=csqa), "open")
    key = Item.objects.filter(campaign=c).first().key
    users = get_user_model().objects.count()
    with pytest.raises(RatingsImportRefused) as refused:
        ratings_import(c, f"rater,{key}:1\n{name},yes\n", create_raters=True)
    assert why in str(refused.value)
    assert get_user_model().objects.count() == users
    # A fullwidth spelling folds (NFKC, as at log-in) to the existing account instead of a new one.
    ratings_import(c, f"rater,{key}:1\n\uff52\uff45\uff53\uff12,yes\n", create_raters=True)
    assert get_user_model().objects.count() == users
    assert Response.objects.get(campaign=c).user.username == "res2"


def _writes(ctx: CaptureQueriesContext) -> list[str]:
    return [q["sql"] for q in ctx.captured_queries if q["sql"].lstrip().upper().startswith(WRITES)]


def test_adjudication_dashboard_and_export_gets_write_nothing(csqa) -> None:  # type: ignore[no-untyped-def]
    c = campaign_status_set(campaign_create(name="g", title="t", kind="mcqa", question_set=csqa, redundancy=2), "open")
    people = []
    for name in ("a1", "a2"):
        _person(name)
        people.append(get_user_model().objects.get(username=name))
    item = queue.next_step(c, people[0]).assignment.item
    queue.response_submit(item, people[0], {"plausible": [4]})
    assert queue.next_step(c, people[1]).assignment.item_id == item.pk
    queue.response_submit(item, people[1], {"plausible": [1]})
    # The submits stored the label: tied, so it waits for adjudication - no page was opened.
    fl = FinalLabel.objects.get(item=item)
    assert fl.below_threshold
    assert fl.n_answers == 2

    _person("adm", "admin")
    admin = Client()
    admin.login(username="adm", password=PASSWORD)
    for url in (
        reverse("annotation:adjudication", args=[c.name]),
        reverse("annotation:dashboard", args=[c.name]),
        reverse("annotation:export", args=[c.name, "jsonl"]),
        reverse("annotation:export", args=[c.name, "csv"]),
    ):
        with CaptureQueriesContext(connection) as ctx:
            r = admin.get(url)
            body = b"".join(r.streaming_content) if r.streaming else r.content
        assert r.status_code == 200, url
        assert not [w for w in _writes(ctx) if "session" not in w], (url, _writes(ctx))
        if "adjudication" in url:
            assert f"/adjudication/{item.pk}/" in body.decode()

    queue.response_undo(c, people[1])  # the undo changes the votes: the label follows at once
    fl.refresh_from_db()
    assert fl.n_answers == 1
    assert not fl.below_threshold


def test_the_campaign_page_reserves_once_however_often_it_is_opened(csqa) -> None:  # type: ignore[no-untyped-def]
    c = campaign_status_set(campaign_create(name="w", title="t", kind="mcqa", question_set=csqa), "open")
    web = _person("ann")
    url = reverse("annotation:work", args=[c.name])
    first = web.get(url).context["item"].pk
    with CaptureQueriesContext(connection) as ctx:
        again = web.get(url)
    assert again.context["item"].pk == first
    assert Membership.objects.filter(campaign=c).count() == 1
    assert Assignment.objects.filter(campaign=c, state="reserved").count() == 1
    assert not [w for w in _writes(ctx) if "session" not in w]  # a second look is a read
    assert len(ctx.captured_queries) <= 12
