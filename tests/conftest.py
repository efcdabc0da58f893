"""Shared fixtures. ``SHARED_DATA`` is ``../shared/data`` beside the clone; tests that need it
skip with a visible reason when it is absent (a fresh clone without ``../shared``).

The demo sets (``statement_set``, ``csqa_set``) are imported through the production import
services; ``people`` makes accounts with a role, ``researcher`` / ``annotator`` are signed-in
clients. Per-app factories live in ``tests/<app>/factories.py``."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from collections.abc import Callable

    from django.test import Client

    from knowledge.models import QuestionSet, StatementSet

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
GOLD_FILE = FIXTURES / "qualification" / "com2_demo_gold.jsonl"  # the demo qualification's gold items
SHARED_DATA = Path(os.environ.get("COCOWEB_SHARED_DATA", ROOT.parent / "shared" / "data"))


def operator_folders(base: Path) -> dict[str, Any]:
    """The settings of ``_operator_folders`` (for module-scoped set-ups, which run before it)."""
    from django.conf import settings

    return {
        "COCOWEB_MODELS_DIRS": [*settings.COCOWEB_MODELS_DIRS, base],
        "COCOWEB_RUN_FILES_DIRS": [*settings.COCOWEB_RUN_FILES_DIRS, base],
        # Every test browser joins from 127.0.0.1 and the counts outlive a test: the study links' join
        # limits are tested on their own (tests/security/test_crowd_keys.py), out of the others' way.
        "COCOWEB_JOIN_PER_ADDRESS": 10**9,
        "COCOWEB_JOIN_PER_STUDY": 10**9,
    }


@pytest.fixture(autouse=True)
def _operator_folders(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> None:
    """The operator's models and run-files folders (runs/catalog.py) include this session's
    temporary folder, where the tests build tiny models and write paths files; the crowd join
    limits are out of the way. (Not for the Django-free core tests, which run without
    pytest-django.)"""
    if not request.config.pluginmanager.hasplugin("django"):
        return
    settings = request.getfixturevalue("settings")
    for name, value in operator_folders(tmp_path_factory.getbasetemp()).items():
        setattr(settings, name, value)


@pytest.fixture(scope="module")
def module_db(
    django_db_setup: None, django_db_blocker: Any, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Callable[[], Any]]:
    """Rows that a module's tests share, written once (Django's ``setUpTestData``, per module): an
    outer transaction around the module, rolled back after its last test. Each test still runs in
    its own savepoint (pytest-django's ``db``), so no test sees another's writes; only what was
    written under ``with module_db():`` (in a module-scoped fixture) is seen by every test of the
    module, including those that do not ask for it - keep such a module's tests all about that
    data. Not for modules with ``transaction=True`` tests (they would end the outer transaction).
    Per-test fixtures should re-read the shared rows (``Model.objects.get(pk=...)``), so that no
    test sees another's in-memory changes, and clear the cache when the code under test caches."""
    from django.db import transaction
    from django.test import override_settings

    @contextmanager
    def writing() -> Iterator[None]:
        with django_db_blocker.unblock(), override_settings(**operator_folders(tmp_path_factory.getbasetemp())):
            yield

    with django_db_blocker.unblock():
        outer = transaction.atomic()
        outer.__enter__()
    try:
        yield writing
    finally:
        with django_db_blocker.unblock():
            transaction.set_rollback(True)
            outer.__exit__(None, None, None)


def _folder_state(folder: Path) -> list[tuple[str, int, int]]:
    return sorted((str(p.relative_to(folder)), p.stat().st_size, p.stat().st_mtime_ns) for p in folder.rglob("*"))


@pytest.fixture(scope="session")
def tiny_gpt2(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The tiny GPT-2 of tests/commonsense/tiny_lm.py, built once per test run and shared by every
    test that loads one (its tokenizer training and save took ~2 s of CPU per test or module). It
    lies alone in a folder (``tiny_gpt2.parent`` is a models folder where it is named ``tiny``),
    under the session's temporary folder, which ``_operator_folders`` adds to the operator's models
    folders. Read only: a test that writes into it (a fine-tune's output, a conversion) must write
    elsewhere; the run fails at its end if the folder changed."""
    from tests.commonsense.tiny_lm import build_tiny_gpt2

    folder = build_tiny_gpt2(tmp_path_factory.getbasetemp() / "shared-models" / "tiny")
    before = _folder_state(folder)
    yield folder
    assert _folder_state(folder) == before, f"a test wrote into the shared tiny GPT-2 folder {folder}"


def shared_file(rel: str) -> Path:
    p = SHARED_DATA / rel
    if not p.exists():
        pytest.skip(f"../shared/data/{rel} is absent (fresh clone without ../shared)")
    return p


@pytest.fixture
def shared() -> type:
    class _S:
        path = staticmethod(shared_file)

    return _S


PASSWORD = "pw-long-enough-123"


@pytest.fixture
def statement_set(db: None) -> StatementSet:
    from knowledge.models import StatementSet
    from knowledge.services.imports import statements_import

    statements_import(FIXTURES / "statements_demo.csv", name="statements-demo")
    return StatementSet.objects.get(name="statements-demo")


@pytest.fixture
def csqa_set(db: None) -> QuestionSet:
    from knowledge.models import QuestionSet
    from knowledge.services.imports import questions_import

    questions_import(FIXTURES / "csqa_demo.jsonl", name="csqa-demo", fmt="csqa")
    return QuestionSet.objects.get(name="csqa-demo")


@pytest.fixture
def people(db: None) -> Callable[..., list[Any]]:
    """``people("annotator", "ann1", "ann2")`` creates accounts with that role."""
    from accounts.services import role_groups_sync, user_create_with_role

    role_groups_sync()

    def make(role: str, *names: str) -> list[Any]:
        return [user_create_with_role(n, role, PASSWORD) for n in names]

    return make


def login(username: str) -> Client:
    from django.test import Client

    c = Client()
    assert c.login(username=username, password=PASSWORD)
    return c


@pytest.fixture
def researcher(people: Callable[..., list[Any]]) -> Client:
    people("researcher", "res")
    return login("res")


@pytest.fixture
def annotator(people: Callable[..., list[Any]]) -> Client:
    people("annotator", "ann")
    return login("ann")


def _db_vendor() -> str:
    url = os.environ.get("DATABASE_URL", "")
    return "postgresql" if url.startswith(("postgres://", "postgresql://")) else "sqlite"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    on_pg = _db_vendor() == "postgresql"
    on_redis = os.environ.get("CELERY_BROKER_URL", "").startswith("redis://")
    chromium = Path("/usr/bin/chromium").exists()
    for item in items:
        if "postgres" in item.keywords and not on_pg:
            item.add_marker(
                pytest.mark.skip(reason="needs PostgreSQL: set DATABASE_URL=postgres://… (pass 2 of make test)")
            )
        if "redis" in item.keywords and not on_redis:
            item.add_marker(
                pytest.mark.skip(reason="needs Redis: set CELERY_BROKER_URL=redis://… (pass 2 of make test)")
            )
        if "once" in item.keywords and on_pg:
            item.add_marker(
                pytest.mark.skip(
                    reason="run once, in pass 1 (SQLite): nothing it checks depends on the database server"
                )
            )
        if "browser" in item.keywords and not chromium:
            item.add_marker(pytest.mark.skip(reason="needs Debian's chromium at /usr/bin/chromium"))


@pytest.fixture(scope="session")
def chromium_session() -> Any:
    """One headless Chromium for the whole test run (launched by the first browser test)."""
    from tests.browser import chromium

    yield from chromium()


@pytest.fixture
def browser(chromium_session: Any) -> Any:
    """The run's Chromium; the contexts (and pages) a test opened are closed after it, so that no
    cookie, storage or page leaks into the next test."""
    yield chromium_session
    for context in list(chromium_session.contexts):
        context.close()
