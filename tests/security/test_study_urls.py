"""Issue 31 item 11: ``campaign_create --completion-url`` saved the study before validating it (a
``javascript:`` URL was stored). The study's settings are validated before anything is written, by
the command and by the service every way in shares."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError
from django.core.management import CommandError, call_command

from annotation.crowd.services import crowd_study_enable
from annotation.models import Campaign, CrowdStudy
from tests.security.conftest import World

pytestmark = pytest.mark.django_db
BAD = ["javascript:alert(1)", "data:text/html,<script>x</script>", "//evil.example/{code}", "not a url"]


@pytest.mark.parametrize("url", BAD)
def test_the_command_refuses_a_bad_completion_url_and_stores_nothing(world: World, url: str) -> None:
    before = (Campaign.objects.count(), CrowdStudy.objects.count())
    with pytest.raises(CommandError, match="URL"):
        call_command(
            "campaign_create", "--type", "survey", "--set", world.sset.name, "--name", "url-study",
            "--study-link", "--completion-url", url,
        )  # fmt: skip
    assert (Campaign.objects.count(), CrowdStudy.objects.count()) == before


@pytest.mark.parametrize("field", ["completion_url", "return_url"])
@pytest.mark.parametrize("url", BAD)
def test_the_service_validates_before_it_writes(world: World, field: str, url: str) -> None:
    good = crowd_study_enable(world.plain, completion_url="https://app.prolific.com/submissions/complete?cc={code}")
    with pytest.raises(ValidationError):
        crowd_study_enable(world.plain, **{field: url})
    stored = CrowdStudy.objects.get(pk=good.pk)
    assert getattr(stored, field) in ("", good.completion_url)
    assert url not in (stored.completion_url, stored.return_url)
