"""Issue 29, crowd participants: the completion code after the campaign closes (item 1), a
screen-out code and link for who the qualification screens out (item 2), progress through the
qualification counted as consent states it (item 3), and no staff chrome for participants (item 4).
Everything through the study link and the participant's pages, as a browser drives them."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client

from annotation.models import Campaign, Item, Participant
from tests.annotation.crowd_helpers import answer, crowd_campaign, current, gold_answer, join, prolific, to_items

pytestmark = pytest.mark.django_db


def _qualify(b: Client, c: Campaign, right: bool) -> Any:
    for _ in range(2):
        _r, item = current(b, c)
        assert item is not None
        assert item.role == Item.Role.QUALIFICATION
        a = gold_answer(item)
        answer(b, c, item, a if right else 1 - a)
    return b.get(f"/join/{c.name}/items/", follow=True)


def _finish(c: Campaign, pid: str) -> tuple[Client, Participant]:
    b = to_items(Client(), c, pid)
    _qualify(b, c, right=True)
    for _ in range(2):
        _r, item = current(b, c)
        assert item is not None
        answer(b, c, item, 1)
    current(b, c)  # the page after the last item finishes the study
    p = Participant.objects.get(campaign=c, external_id=pid)
    assert p.stage == "finished"
    return b, p


def test_a_finished_participant_keeps_the_code_after_the_campaign_closes(statement_set) -> None:
    """Item 1: Prolific participants come back through the study link to copy their code; after the
    campaign closed the link said "Study not open" (410) and nothing else."""
    c = crowd_campaign("closing", "--qualification", "0,18", "--pass-mark", "1.0", "--budget", "2")
    b, p = _finish(c, "f1")
    other = to_items(Client(), c, "f2")  # still in the qualification when the campaign closes
    Campaign.objects.filter(pk=c.pk).update(status=Campaign.Status.CLOSED)
    r = join(b, c, prolific("f1"))
    assert r.status_code == 302, r.content
    assert r["Location"] == "/join/closing/done/"
    page = b.get(r["Location"]).content.decode()
    assert p.completion_code in page
    assert "https://app.prolific.com/submissions/complete?cc=" + p.completion_code in page
    # Nobody else reads the code through the closed link: another browser with the same id, and a
    # participant who had not finished, still get "Study not open".
    for client, pid in ((Client(), "f1"), (other, "f2")):
        r = join(client, c, prolific(pid))
        assert r.status_code == 410
        assert "Study not open" in r.content.decode()
        assert p.completion_code not in r.content.decode()


SCREEN_URL = "https://app.prolific.com/submissions/complete?cc={code}"


def test_screened_out_participants_get_the_studys_screen_out_code_and_link(statement_set, researcher: Client) -> None:
    """Item 2: who failed both qualification attempts had nothing to submit. The study's screen-out
    code (Prolific: a completion code with the "screened out" status) and link, set with the command
    or on the participants page, are what their done page gives them; a finished participant still
    gets their own code and a declining one the return link."""
    c = crowd_campaign(
        "screen", "--qualification", "0,18", "--pass-mark", "1.0", "--budget", "2", "--screenout-code", "C1SCRN"
    )
    r = researcher.post(
        "/annotation/c/screen/study/",
        {
            "consent_text": "Research.",
            "qualification_attempts": 2,
            "completion_url": "https://app.prolific.com/submissions/complete?cc={code}",
            "return_url": "https://app.prolific.com/submissions/return",
            "screenout_code": "C2SCRN",
            "screenout_url": SCREEN_URL,
        },
    )
    assert r.status_code == 302, r.content.decode()[-1500:]
    b = to_items(Client(), c, "s1")
    _qualify(b, c, right=False)
    b.post("/join/screen/qualification/retry/")
    page = _qualify(b, c, right=False).content.decode()
    assert Participant.objects.get(external_id="s1").stage == "screened_out"
    assert "This study has ended for you" in page
    assert '<code id="screenout-code">C2SCRN</code>' in page
    assert f'href="{SCREEN_URL.format(code="C2SCRN")}"' in page
    assert "submissions/return" not in page
    finished, p = _finish(c, "s2")
    page = finished.get("/join/screen/done/").content.decode()
    assert p.completion_code in page
    assert "C2SCRN" not in page
    declined = Client()
    join(declined, c, prolific("s3"))
    declined.post("/join/screen/consent/", {"consent": "no"})
    page = declined.get("/join/screen/done/").content.decode()
    assert "submissions/return" in page
    assert "C2SCRN" not in page


def test_the_command_sets_the_screen_out_code(statement_set) -> None:
    c = crowd_campaign("screen2", "--screenout-code", "C1SCRN", "--screenout-url", SCREEN_URL)
    assert (c.crowd.screenout_code, c.crowd.screenout_url) == ("C1SCRN", SCREEN_URL)


LABEL = re.compile(r'class="progress-label">([^<]*)<')


def test_progress_through_the_qualification_and_one_count_everywhere(statement_set) -> None:
    """Item 3: the qualification showed no progress, and afterwards the bar said "0 / 5" while
    consent said "up to 4 items" (the attention check counts on the bar). Consent now states the
    qualification and the bar's own total; the bar counts the qualification, then that total."""
    c = crowd_campaign(
        "prog", "--qualification", "0,18", "--pass-mark", "1.0", "--attention", "5", "--attention-every", "2",
        "--budget", "4",
    )  # fmt: skip
    b = Client()
    consent = join(b, c, prolific("p1")).content.decode()
    assert "First comes a qualification of 2 questions" in consent
    assert "you answer up to 5 items" in consent
    assert "up to 4 items" not in consent
    b.post("/join/prog/consent/", {"consent": "yes"})
    labels = []
    for _ in range(2):
        r, item = current(b, c)
        assert item is not None
        assert item.role == Item.Role.QUALIFICATION
        labels.append(LABEL.findall(r.content.decode()))
        answer(b, c, item, gold_answer(item))
    r, item = current(b, c)
    labels.append(LABEL.findall(r.content.decode()))
    assert labels == [["Qualification 0 / 2"], ["Qualification 1 / 2"], ["Answered 0 / 5"]]


STAFF = re.compile(r'href="/annotation/"|API token|Log out|crowd-[0-9a-f]{20}|no role')


def test_participants_see_no_staff_chrome(statement_set, annotator: Client) -> None:
    """Item 4: the top bar showed participants their internal account name, "Annotate" and "API
    token" (both 403 for them). Every page of theirs, the 403 of a staff page included, shows none."""
    c = crowd_campaign("chrome", "--qualification", "0,18", "--pass-mark", "1.0", "--budget", "1")
    b = Client()
    pages = [join(b, c, prolific("c1"))]  # consent, answered by the study link itself
    p_user = Participant.objects.get(external_id="c1").user
    assert p_user.username.startswith("crowd-")
    b.post("/join/chrome/consent/", {"consent": "yes"})
    pages.append(current(b, c)[0])  # a qualification item
    pages.append(b.get("/annotation/"))  # a staff page: refused, and no staff links on the refusal
    assert pages[-1].status_code == 403
    _qualify(b, c, right=True)
    _r, item = current(b, c)
    assert item is not None
    answer(b, c, item, 1)
    pages.append(current(b, c)[0])  # the done page with the code
    assert Participant.objects.get(external_id="c1").stage == "finished"
    for r in pages:
        html = r.content.decode()
        assert "<header" in html
        assert not STAFF.findall(html), (r.request["PATH_INFO"], STAFF.findall(html))
    # The guard can fail: a lab member's page has them.
    assert STAFF.search(annotator.get("/annotation/").content.decode())


STAGE = re.compile(r'<tr data-user="(\d+)">\s*<td>[^\n]*?</td><td>[^<]*</td><td>([^<]*)<')


def test_the_participant_table_says_qualification_for_who_is_in_it(statement_set, researcher: Client) -> None:
    """Item 4: the participant table said "items" for someone still in the qualification."""
    c = crowd_campaign("table", "--qualification", "0,18", "--pass-mark", "1.0", "--budget", "2")
    b = to_items(Client(), c, "t1")
    current(b, c)  # the first qualification item: the membership is qualifying
    ahead = to_items(Client(), c, "t2")
    _qualify(ahead, c, right=True)
    users = {p.external_id: str(p.user_id) for p in Participant.objects.all()}
    page = researcher.get("/annotation/c/table/participants/").content.decode()
    stages = dict(STAGE.findall(page))
    assert stages[users["t1"]] == "qualification"
    assert stages[users["t2"]] == "items"


def test_participant_accounts_stay_out_of_the_admins_user_list(statement_set, people) -> None:
    """Item 4: participant accounts (crowd-<hex>) filled the admin's user list. It lists lab accounts
    by default; the "crowd participants" filter shows them."""
    from tests.conftest import login

    people("admin", "adm")
    people("annotator", "ann")
    c = crowd_campaign("adminlist")
    to_items(Client(), c, "u1")
    crowd_name = Participant.objects.get().user.username
    admin = login("adm")
    page = admin.get("/admin/auth/user/").content.decode()
    assert ">ann<" in page
    assert crowd_name not in page
    page = admin.get("/admin/auth/user/?crowd=yes").content.decode()
    assert crowd_name in page
    assert ">ann<" not in page
    page = admin.get("/admin/auth/user/?crowd=all").content.decode()
    assert crowd_name in page
    assert ">ann<" in page


def test_dashboards_name_participants_by_platform_id_not_internal_account(statement_set, people) -> None:
    """Item 4: the dashboard's latest answers and an item's adjudication page named participants by
    their internal account (crowd-<hex>). Who may export the campaign (issue 31 item 8) reads the
    platform and its id; any other researcher a participant number."""
    from tests.conftest import login

    people("admin", "adm")
    people("researcher", "res")
    c = crowd_campaign("names")
    b = to_items(Client(), c, "PID-77")
    _r, item = current(b, c)
    assert item is not None
    answer(b, c, item, 1)
    p = Participant.objects.get()
    pages = {
        who: [login(who).get(f"/annotation/c/names/{path}/").content.decode() for path in ("dashboard", f"adjudication/{item.pk}")]
        for who in ("adm", "res")
    }  # fmt: skip
    for who, html in pages.items():
        for page in html:
            assert p.user.username not in page
            if who == "adm":
                assert "Prolific PID-77" in page
            else:
                assert "PID-77" not in page
                assert f"participant {p.pk}" in page


def test_without_a_screen_out_code_the_screened_out_keep_the_return_link(statement_set) -> None:
    c = crowd_campaign("screen3", "--qualification", "0,18", "--pass-mark", "1.0", "--attempts", "1")
    b = to_items(Client(), c, "s9")
    page = _qualify(b, c, right=False).content.decode()
    assert Participant.objects.get().stage == "screened_out"
    assert 'href="https://app.prolific.com/submissions/return"' in page
    assert "screenout-code" not in page
