"""The runs tests use the shared fixtures of tests/conftest.py (demo sets, a researcher client)."""

from typing import Any

import pytest


@pytest.fixture(autouse=True)
def _operator_folders(settings: Any, tmp_path_factory: pytest.TempPathFactory) -> None:
    """The operator's models and run-files folders (runs/catalog.py): this session's temporary
    folders, where the tests build tiny models and write paths files."""
    base = tmp_path_factory.getbasetemp()
    settings.COCOWEB_MODELS_DIRS = [base]
    settings.COCOWEB_RUN_FILES_DIRS = [*settings.COCOWEB_RUN_FILES_DIRS, base]
