"""Idioms of one's own and clipped idioms (issue 27): the display text repairs them
(:mod:`commonsense.questions.idioms`), the text rules refuse what is left, and no default CKBP node
shows one. Split from ``test_wellformed.py`` (issue 30 item 6)."""

from __future__ import annotations

import pytest

from commonsense.questions import fluent, wellformed
from commonsense.questions.wellformed import display_reason, unreadable
from tests.commonsense.test_wellformed_builds import _ckbp


# Idioms of one's own and clipped idioms (fluent.OWN_POSSESSIVE_IDIOMS, fluent.CLIPPED_IDIOMS). Read
# from default CSKB builds: "Alicia forces Sean's way" (ATOMIC's head "PersonX forces PersonY's way")
# and "Molly pulls out the stop" (ASER's lemma of "PersonX pulls out all the stops").
@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("PersonX force PersonY 's way", "PersonX forces PersonX's way"),  # CSKB's own text
        ("PersonX forces PersonY's way", "PersonX forces PersonX's way"),  # ATOMIC's
        ("PersonX makes PersonY's way home", "PersonX makes PersonX's way home"),
        ("PersonX make PersonY 's way", "PersonX makes PersonX's way"),
        ("PersonX work PersonY way up", "PersonX works PersonX's way up"),
        ("PersonX lose PersonY 's temper", "PersonX loses PersonX's temper"),
        ("PersonY loses PersonX's temper", "PersonY loses PersonY's temper"),  # the subject is PersonY
        ("PersonX find PersonY way", "PersonX finds PersonX's way"),  # ASER dropped the "'s"
        ("PersonY lose PersonY mind", "PersonY loses PersonY's mind"),
        ("PersonX need to make up PersonX mind", "PersonX needs to make up PersonX's mind"),
        ("PersonX be try PersonX best", "PersonX is trying PersonX's best"),
        ("PersonX do PeopleX best", "PersonX does PersonX's best"),
        ("PersonX will hold PersonX tongue", "PersonX will hold PersonX's tongue"),
        ("PersonX holds PersonY's breath", "PersonX holds PersonX's breath"),
        ("PersonX shrug PersonY 's shoulder", "PersonX shrugs PersonX's shoulders"),  # and the idiom's number
        ("PersonX turns PersonY's backs", "PersonX turns PersonX's back"),
        ("PersonX gets to PersonY's feet", "PersonX gets to PersonX's feet"),
        ("PersonX forces PersonX's way", "PersonX forces PersonX's way"),  # right already
        ("PersonX pull out the stop", "PersonX pulls out all the stops"),
        ("PersonX turn the table", "PersonX turns the tables"),
        ("PersonX be still learn the rope", "PersonX is still learning the ropes"),
        ("PersonX get to foot", "PersonX gets to PersonX's feet"),
        ("PersonX take matter into hand", "PersonX takes matters into PersonX's own hands"),
        ("PersonX play PersonX card right", "PersonX plays PersonX's cards right"),
        ("PersonY have butterfly", "PersonY has butterflies"),
    ],
)
def test_idioms_of_ones_own_and_clipped_idioms_are_repaired(raw: str, shown: str) -> None:
    assert fluent.display(raw) == shown
    assert unreadable(shown) is None, unreadable(shown)


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("PersonX changes PersonY's mind", "PersonX changes PersonY's mind"),  # persuades PersonY
        ("PersonX catch PersonY eye", "PersonX catches PersonY's eye"),
        ("PersonX takes PersonY's word", "PersonX takes PersonY's word"),
        ("PersonX looks PersonY's way", "PersonX looks PersonY's way"),  # in PersonY's direction
        ("PersonX does PersonY's best friend a favor", "PersonX does PersonY's best friend a favor"),
        ("PersonX keep PersonY cool", "PersonX keeps PersonY cool"),  # PersonY is the object
        ("PersonX pay PersonY respect", "PersonX pays PersonY respect"),  # respect paid to PersonY
        ("PersonX finds PersonY's way of life strange", "PersonX finds PersonY's way of life strange"),
        ("PersonX helps PersonY find PersonY's way", "PersonX helps PersonY find PersonY's way"),
        ("PersonX turns the table over", "PersonX turns the table over"),  # a table, no tables turned
        ("PersonX pulls out all the stops", "PersonX pulls out all the stops"),
        ("PersonX turns PersonY's life around", "PersonX turns PersonY's life around"),
    ],
)
def test_idioms_that_may_be_someone_elses_are_left_alone(raw: str, shown: str) -> None:
    assert fluent.display(raw) == shown
    assert fluent.idiom_fault(shown) is None


def test_names_read_the_repaired_idiom() -> None:
    from commonsense.questions.names import apply

    names = {"PersonX": "Alicia", "PersonY": "Sean"}
    assert apply(fluent.display("PersonX force PersonY 's way"), names) == "Alicia forces Alicia's way"
    assert apply(fluent.display("PersonX pull out the stop"), {"PersonX": "Molly"}) == "Molly pulls out all the stops"


@pytest.mark.parametrize(
    "text",
    [
        "someone loses PersonY's temper",  # no person to own the temper
        "PersonX's friend loses PersonX's temper",  # the friend's own
        "PersonX helps PersonY find PersonZ's way",  # PersonY's (or PersonX's), not PersonZ's
        "people get to foot",  # clipped, and "people's feet" is no English
        "PersonX's dog gets to foot",
        "PersonX turns PersonY's life",  # "around" or "upside down": CLIPPED_UNREPAIRABLE
    ],
)
def test_an_idiom_the_display_cannot_repair_is_rejected(text: str) -> None:
    assert fluent.display(text) == text
    why = unreadable(text)
    assert why is not None, why
    assert "idiom" in why, why


def test_the_graph_text_of_a_repaired_idiom_is_kept_and_its_triple_passes() -> None:
    assert display_reason("PersonX force PersonY 's way", "xReact", "PersonX be powerful") is None
    assert display_reason("PersonX pull out the stop", "xAttr", "PersonX be determine") is None
    assert wellformed.display_form("PersonX force PersonY 's way") == "PersonX forces PersonX's way"


@pytest.mark.slow  # the CKBP evaluation graph (~30 s)
def test_ckbp_default_graph_shows_no_idiom_with_anothers_possessive_or_clipped() -> None:
    from commonsense.questions.display import Display

    idx = _ckbp(False)
    show = Display(idx)
    shown = {idx.names[n]: show(n) for n in range(len(idx.names))}
    assert shown["PersonX force PersonY 's way"] == "PersonX forces PersonX's way"
    assert shown["PersonX pull out the stop"] == "PersonX pulls out all the stops"
    assert all(fluent.idiom_fault(t) is None for t in shown.values())
    assert not [t for t in shown.values() if " forces PersonY's way" in t or t.endswith(" out the stop")]


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        # ATOMIC's inflected text after a possessive subject: a later word was conjugated instead
        ("PersonX's spouse is still getting ready", "PersonX's spouse is still getting ready"),  # "is stills"
        ("PersonY's dog is too mean", "PersonY's dog is too mean"),  # "is too means"
        ("PersonX's friend loses PersonX's temper", "PersonX's friend loses PersonX's temper"),  # "tempers"
        ("PersonX's cat refuses to play", "PersonX's cat refuses to play"),  # "to plays"
        ("PersonX husband ask", "PersonX's husband asks"),  # ASER's lemma is still conjugated
    ],
)
def test_inflected_text_after_a_possessive_subject_is_left_as_it_is(raw: str, shown: str) -> None:
    assert fluent.display(raw) == shown
