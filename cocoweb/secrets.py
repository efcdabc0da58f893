"""Secrets the operator keeps in the environment under names the configuration gives (a model
endpoint's ``api_key_env``, cocoweb/settings.py ``COCOWEB_MODEL_ENDPOINTS``). The names are data,
so these reads cannot be settings; this is the one module outside the settings that reads the
environment for them."""

from __future__ import annotations

import os


def secret_is_set(variable: str) -> bool:
    """Whether the environment variable ``variable`` holds a non-empty value (never the value)."""
    return bool(variable and os.environ.get(variable))
