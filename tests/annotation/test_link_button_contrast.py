"""Link-style buttons (the participant table's block / unblock / reset qualification, 'Refit
annotator models now') are readable on the white cards they sit on (#29 item 5: they were white on
white); only the top bar's Log out, on the dark bar, stays white. Checked on app.css's rules with
WCAG's contrast ratio."""

from __future__ import annotations

import re
from pathlib import Path

from django.conf import settings

CSS = Path(settings.BASE_DIR) / "static" / "cocoweb" / "app.css"


def _rules() -> list[tuple[list[str], dict[str, str]]]:
    text = re.sub(r"/\*.*?\*/", "", CSS.read_text(), flags=re.S)
    out = []
    for sel, body in re.findall(r"([^{}]+)\{([^{}]*)\}", text):
        decls = dict(
            (k.strip(), v.strip()) for k, _, v in (d.partition(":") for d in body.split(";")) if k.strip() and v
        )
        out.append(([s.strip() for s in sel.split(",")], decls))
    return out


def _colour(selector: str) -> str:
    """The last `color` given for exactly this selector, var(--x) resolved from :root."""
    rules = _rules()
    root = next(d for sels, d in rules if ":root" in sels)
    colour = [d["color"] for sels, d in rules if selector in sels and "color" in d][-1]
    m = re.fullmatch(r"var\((--[\w-]+)\)", colour)
    return root[m[1]] if m else colour


def _luminance(hex_colour: str) -> float:
    h = hex_colour.lstrip("#")
    if len(h) == 3:
        h = "".join(c * 2 for c in h)
    channels = [int(h[i : i + 2], 16) / 255 for i in (0, 2, 4)]
    lin = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def _contrast(a: str, b: str) -> float:
    la, lb = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def test_link_buttons_readable_on_white_cards() -> None:
    assert _contrast(_colour("button.link"), "#fff") >= 4.5
    assert _contrast(_colour("button.link:disabled"), "#fff") >= 4.5


def test_top_bar_link_button_stays_white_on_the_dark_bar() -> None:
    assert _contrast(_colour(".topbar button.link"), "#1d2330") >= 4.5
