"""Ratings import: a bad file is refused as a whole, with located reasons, and nothing is stored."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from annotation.models import Assignment, Item, Membership, Response
from annotation.services.campaigns import campaign_create
from annotation.services.ratings_import import RatingsImportRefused, ratings_import

pytestmark = pytest.mark.django_db


@pytest.fixture
def survey(statement_set):  # type: ignore[no-untyped-def]
    c = campaign_create(name="imp", title="imp", kind="survey", statement_set=statement_set, redundancy=5)
    keys = [i.key for i in Item.objects.filter(campaign=c).order_by("position")[:2]]
    return c, keys


def _nothing_stored(campaign, n_users_before: int) -> None:  # type: ignore[no-untyped-def]
    assert not Response.objects.exists()
    assert not Assignment.objects.exists()
    assert not Membership.objects.exists()
    assert get_user_model().objects.count() == n_users_before
    assert not Item.objects.filter(campaign=campaign).exclude(slots_taken=0, answer_count=0).exists()


def test_unknown_raters_are_refused(survey, people) -> None:  # type: ignore[no-untyped-def]
    c, (k1, k2) = survey
    people("annotator", "alice")
    body = f"rater,{k1}:a,{k1}:b\nalice,yes,no\nmallory,no,no\n"
    with pytest.raises(RatingsImportRefused, match="unknown raters.*mallory") as exc:
        ratings_import(c, body)
    assert "alice" not in str(exc.value)
    _nothing_stored(c, 1)


def test_ragged_rows_are_refused_with_their_row(survey, people) -> None:  # type: ignore[no-untyped-def]
    c, (k1, k2) = survey
    people("annotator", "alice", "bob")
    body = f"rater,{k1}:a,{k1}:b,{k2}:a,{k2}:b\nalice,yes,no,yes,yes\nbob,yes,no\n"
    with pytest.raises(RatingsImportRefused, match=r"row 3: 3 cells, the header has 5 \(ragged row\)"):
        ratings_import(c, body)
    _nothing_stored(c, 2)


@pytest.mark.parametrize("value", ["maybe", "2", "0.5", "Y?"])
def test_non_binary_values_are_refused_with_row_and_column(survey, people, value: str) -> None:  # type: ignore[no-untyped-def]
    c, (k1, _k2) = survey
    people("annotator", "alice", "bob")
    body = f"rater,{k1}:a,{k1}:b\nalice,yes,no\nbob,{value},yes\n"
    with pytest.raises(RatingsImportRefused, match=re.escape(f"row 3, column 2 ('{k1}:a'): '{value}' is not yes/no")):
        ratings_import(c, body, create_raters=True)
    _nothing_stored(c, 2)


def test_other_mistakes_are_named(survey, people) -> None:  # type: ignore[no-untyped-def]
    c, (k1, _k2) = survey
    people("annotator", "alice")
    cases = {
        "no item with key 'nope'": "rater,nope:a,nope:b\nalice,yes,no\n",
        "unknown question 'z'": f"rater,{k1}:z\nalice,yes\n",
        "partly answered": f"rater,{k1}:a,{k1}:b\nalice,yes,\n",
        "first column must be 'rater'": f"who,{k1}:a\nalice,yes\n",
        "is empty or repeated": f"rater,{k1}:a,{k1}:b\nalice,yes,no\nalice,no,no\n",
        "over the campaign's redundancy": f"rater,{k1}:a,{k1}:b\n" + "".join(f"u{i},yes,no\n" for i in range(6)),
    }
    for needle, body in cases.items():
        with pytest.raises(RatingsImportRefused, match=needle):
            ratings_import(c, body, create_raters=True)
    _nothing_stored(c, 1)


def test_good_import_then_same_rater_again_is_refused(survey, people) -> None:  # type: ignore[no-untyped-def]
    c, (k1, k2) = survey
    people("annotator", "alice")
    res = ratings_import(
        c, f"rater,{k1}:a,{k1}:b,{k2}:a,{k2}:b\nalice,yes,no,,\nbob,no,no,yes,yes\n", create_raters=True
    )
    assert (res.raters, res.responses, res.created_raters) == (2, 3, 1)
    assert not get_user_model().objects.get(username="bob").has_usable_password()
    assert Item.objects.get(campaign=c, key=k1).answer_count == 2
    assert Response.objects.get(user__username="alice").answer == {"agree": 1, "predict": 0}
    with pytest.raises(RatingsImportRefused, match="already answered"):
        ratings_import(c, f"rater,{k1}:a,{k1}:b\nalice,yes,no\n")
    assert Response.objects.count() == 3


def test_import_page_shows_the_reasons(survey, researcher) -> None:  # type: ignore[no-untyped-def]
    c, (k1, _k2) = survey
    f = SimpleUploadedFile("r.csv", f"rater,{k1}:a,{k1}:b\nghost,yes,maybe\n".encode())
    r = researcher.post(reverse("annotation:import", args=[c.name]), {"file": f})
    body = r.content.decode()
    assert r.status_code == 400
    assert "is not yes/no" in body
    assert "Nothing was stored." in body
    assert not Response.objects.exists()
