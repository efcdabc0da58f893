"""Issue 31 item 10: a crowd participant (signed in by a study link, no role) read ``/api/docs/``
and ``/api/schema/``. Both need the annotator role now, in a browser and with a token."""

from __future__ import annotations

import pytest

from accounts.services import api_token_renew
from tests.security.conftest import World

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("url", ["/api/docs/", "/api/schema/"])
def test_a_participant_cannot_read_the_api_description(world: World, url: str) -> None:
    assert world.client("participant").get(url).status_code == 403
    token = api_token_renew(world.participant.user)
    assert world.client("anonymous").get(url, headers={"Authorization": f"Token {token}"}).status_code == 403
    assert world.client("annotator").get(url).status_code == 200
    ann = world.tokens["annotator"]
    assert world.client("anonymous").get(url, headers={"Authorization": f"Token {ann}"}).status_code == 200
