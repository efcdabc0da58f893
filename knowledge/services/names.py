"""The one rule for a name that appears in links (graphs, question and statement sets, campaigns):
a slug of ASCII letters, digits, hyphens and underscores, at most 100 characters. Every way in that
creates or renames one checks it here before anything is stored: the forms (``SlugField``), the
services the commands and buttons call, and the commands' ``--name`` (``name_arg``). Pages link to
whatever is stored through ``cocoweb.converters`` all the same, so a name stored before the rule
(or by a shell) still opens and can be renamed from the browser."""

from __future__ import annotations

import argparse

from django.core.exceptions import ValidationError
from django.core.validators import validate_slug

MAX_NAME = 100


def name_check(name: str) -> str:
    """``name`` stripped of surrounding spaces, or ValidationError saying what is wrong with it."""
    name = name.strip()
    try:
        validate_slug(name)
    except ValidationError:
        raise ValidationError(f"{name!r} is not a valid name: use letters, digits, hyphens and underscores") from None
    if len(name) > MAX_NAME:
        raise ValidationError(f"{name[:20]!r}… is not a valid name: at most {MAX_NAME} characters")
    return name


def name_arg(value: str) -> str:
    """``name_check`` as an argparse ``type``: the command stops with the message, nothing stored."""
    try:
        return name_check(value)
    except ValidationError as exc:
        raise argparse.ArgumentTypeError(exc.messages[0]) from None
