"""Browser tests sign in through ``tests/browser.py``'s ``signed_in`` (one place for the log-in
steps, the viewport and the timeout), on the run's one Chromium (the ``browser`` fixture of
tests/conftest.py): no test fills the log-in form by hand or launches a browser of its own
(session 18 found test_build_browser.py signing in by hand)."""

from __future__ import annotations

import re
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
BY_HAND = re.compile(r"""\.fill\(\s*["']input\[name=password\]|\.launch\(\s*executable_path""")
# a sign-in that is itself the behaviour under test, with why
FLOWS = {"accounts/test_browser_people.py": "the invited person's first sign-in after setting a password"}


def signs_in_by_hand(files: dict[str, str]) -> list[str]:
    return [
        f"{name}:{text[: m.start()].count(chr(10)) + 1}"
        for name, text in sorted(files.items())
        if name not in FLOWS
        for m in BY_HAND.finditer(text)
    ]


def test_no_browser_test_signs_in_by_hand_or_launches_chromium() -> None:
    files = {str(p.relative_to(TESTS)): p.read_text() for p in TESTS.rglob("*.py") if p.name != "browser.py"}
    files.pop("project/test_browser_sign_in.py")
    assert signs_in_by_hand(files) == []
    assert all((TESTS / name).exists() for name in FLOWS)
    planted = {  # session 18's test_build_browser.py
        "knowledge/test_build_browser.py": 'page.fill("input[name=username]", "builder")\n'
        'page.fill("input[name=password]", PASSWORD)\n',
        "runs/x.py": 'b = p.chromium.launch(executable_path="/usr/bin/chromium", headless=True)\n',
    }
    assert signs_in_by_hand(planted) == ["knowledge/test_build_browser.py:2", "runs/x.py:1"]
