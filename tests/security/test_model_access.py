"""Issue 17 items 1 and 2, issue 14 "Models": runs use only what the operator configured.

1. The openai backend talks only to named endpoints; each endpoint's key goes only to its URL; a
   free URL is refused (form, service, re-run); run errors do not echo the server's response body.
2. Models and replay / paths files resolve only inside the configured folders, regular files only,
   with one generic message (no existence oracle); the hf backend never asks the Hub.
Plus the Models page and the run form's checks before a run is queued."""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from commonsense.io.errors import DataFormatError
from commonsense.scoring.recoms_replay import PathsFile
from runs.evaluation import run_execute
from runs.models import Run
from runs.services import run_create
from tests.security.conftest import World

pytestmark = pytest.mark.django_db
SECRET_BODY = "SECRET-BODY-of-some-internal-service"


class Listener:
    """An HTTP server on 127.0.0.1 that records what it was sent and answers 500 with a body."""

    def __init__(self) -> None:
        seen: list[dict[str, str]] = []
        self.seen = seen

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                seen.append({"path": self.path, "auth": self.headers.get("Authorization", "")})
                body = SECRET_BODY.encode()
                self.send_response(500)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *a: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def listener() -> Iterator[Listener]:
    srv = Listener()
    yield srv
    srv.close()


@pytest.fixture
def keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "worker-wide-secret")
    monkeypatch.setenv("LAB_KEY", "lab-secret")


def _form(world: World, **kw: Any) -> dict[str, Any]:
    return {"dataset": f"qs:{world.qset.name}", "scoring": "generate", "seed": 0, **kw}


# ------------------------------------------------------------------ item 1: endpoints, keys, bodies


def test_form_refuses_a_free_url(world: World, listener: Listener, keys: None) -> None:
    before = Run.objects.count()
    r = world.client("researcher").post(
        reverse("runs:new"), _form(world, backend="openai", model="m", url=listener.url)
    )
    assert r.status_code == 400
    assert "configured endpoint" in r.content.decode()
    assert Run.objects.count() == before
    assert listener.seen == []
    with pytest.raises(ValidationError, match="not a URL"):
        run_create(set_name=world.qset.name, backend="openai", scoring="generate", model="m", url=listener.url)


def test_key_goes_only_to_its_endpoint_and_bodies_are_not_shown(
    world: World, listener: Listener, keys: None, settings: Any
) -> None:
    settings.COCOWEB_MODEL_ENDPOINTS = {"lab": {"url": listener.url, "api_key_env": "LAB_KEY", "models": ["m"]}}
    c = world.client("researcher")
    r = c.post(reverse("runs:new"), _form(world, backend="openai", model="m", endpoint="lab", limit=1))
    assert r.status_code == 302
    run = Run.objects.latest("pk")
    assert run.params["endpoint"] == "lab"
    assert run.url == ""
    # The run may even ask for another key variable: the endpoint decides.
    Run.objects.filter(pk=run.pk).update(
        params={**run.params, "backend_options": {"max_retries": 0, "api_key_env": "OPENAI_API_KEY"}}
    )
    assert run_execute(run.pk, heartbeat=False) == Run.State.FAILED
    assert listener.seen
    assert {s["auth"] for s in listener.seen} == {"Bearer lab-secret"}
    run.refresh_from_db()
    assert "HTTP 500" in run.error
    assert SECRET_BODY not in run.error
    page = c.get(reverse("runs:detail", args=[run.pk])).content.decode()
    assert SECRET_BODY not in page
    assert "worker-wide-secret" not in page
    assert "lab-secret" not in page


def test_rerun_of_a_run_with_a_free_url_is_refused(world: World, listener: Listener, keys: None) -> None:
    old = Run.objects.create(
        question_set=world.qset, backend="openai", model="m", url=listener.url, scoring="generate", state="failed"
    )
    before = Run.objects.count()
    r = world.client("researcher").post(reverse("runs:rerun", args=[old.pk]), follow=True)
    assert r.status_code == 200
    assert "cannot be run again" in r.content.decode()
    assert Run.objects.count() == before
    assert listener.seen == []


def test_unknown_endpoint_is_refused(world: World) -> None:
    with pytest.raises(ValidationError, match="not a configured model endpoint"):
        run_create(set_name=world.qset.name, backend="openai", scoring="generate", model="m", endpoint="nope")


# ------------------------------------------------------------------ item 2: models and files


@pytest.fixture
def folders(settings: Any, tmp_path: Path) -> tuple[Path, Path]:
    models, files = tmp_path / "models", tmp_path / "run-files"
    models.mkdir()
    files.mkdir()
    settings.COCOWEB_MODELS_DIRS = [models]
    settings.COCOWEB_RUN_FILES_DIRS = [files]
    return models, files


def _refusal(world: World, **kw: Any) -> str:
    with pytest.raises(ValidationError) as exc:
        run_create(set_name=world.qset.name, scoring="loglik", enqueue=False, **kw)
    return " ".join(exc.value.messages)


def test_models_resolve_only_inside_the_models_folders(world: World, folders: tuple[Path, Path]) -> None:
    models, _ = folders
    (models / "outside.gguf").symlink_to("/dev/zero")
    (models / "passwd.gguf").symlink_to("/etc/passwd")
    before = Run.objects.count()
    msgs = {
        name: re.sub(r"^'.*?' ", "NAME ", _refusal(world, backend="hf", model=name))
        for name in (
            "/dev/zero",
            "/etc/passwd",
            "/etc/no-such-file",
            "../../etc/passwd",
            "outside.gguf",
            "passwd.gguf",
            "HuggingFaceTB/SmolLM2-135M",
            str(models / "missing.gguf"),
        )
    }
    assert len(set(msgs.values())) == 1, msgs  # one message: says nothing about what exists
    assert "is not a model this installation can run" in next(iter(msgs.values()))
    assert Run.objects.count() == before


def test_paths_and_replay_files_resolve_only_inside_run_files_folders(world: World, folders: tuple[Path, Path]) -> None:
    _, files = folders
    os.mkfifo(files / "fifo.jsonl")
    (files / "sub").mkdir()
    msgs = set()
    for name in ("/etc/passwd", "/dev/zero", "fifo.jsonl", "sub", "../models", "/no/such/file.jsonl"):
        msgs.add(re.sub(r"^'.*?' ", "NAME ", _refusal(world, backend="replay", model=name)))
        msgs.add(re.sub(r"^'.*?' ", "NAME ", _refusal(world, backend="replay", model="x", params={"source": name})))
    assert len(msgs) == 1
    assert "is not a file in a run-files folder" in msgs.pop()
    # A regular file inside is fine.
    (files / "paths.jsonl").write_text('{"id": "1", "paths": [{"text": "A", "answer": 0}]}\n')
    run = run_create(
        set_name=world.qset.name,
        backend="replay",
        scoring="recoms",
        params={"source": "paths.jsonl"},
        enqueue=False,
    )
    assert run.params["source"] == "paths.jsonl"


def test_paths_file_lines_are_bounded(tmp_path: Path) -> None:
    p = tmp_path / "long.jsonl"
    p.write_text('{"id": "1", "paths": [{"text": "' + "x" * 1_100_000 + '"}]}\n')
    with pytest.raises(DataFormatError, match="line longer than"):
        PathsFile(p)


def test_hf_backend_never_asks_the_hub(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import transformers

    calls: list[dict[str, Any]] = []

    def spy(*a: Any, **kw: Any) -> Any:
        calls.append(kw)
        raise OSError("stop here")

    monkeypatch.setattr(transformers.AutoConfig, "from_pretrained", spy)
    from commonsense.scoring.hf import HFBackend

    with pytest.raises(OSError, match="stop here"):
        HFBackend(tmp_path)
    assert calls
    assert all(kw.get("local_files_only") is True for kw in calls)


# ------------------------------------------------------------------ issue 14: Models page and run form


def test_models_page_lists_packaged_folder_models_and_endpoints(
    world: World, folders: tuple[Path, Path], settings: Any, keys: None
) -> None:
    models, _ = folders
    (models / "my-model").mkdir()
    (models / "my-model" / "config.json").write_text("{}")
    (models / "not-a-model").mkdir()
    settings.COCOWEB_MODEL_ENDPOINTS = {"lab": {"url": "http://10.0.0.5:8000/v1", "api_key_env": "LAB_KEY"}}
    page = world.client("researcher").get(reverse("runs:models")).content.decode()
    for text in ("smollm2-135m-instruct", "all-MiniLM-L6-v2", "my-model", "lab", "configured (LAB_KEY)"):
        assert text in page, text
    assert "not-a-model" not in page
    assert "lab-secret" not in page
    form = world.client("researcher").get(reverse("runs:new")).content.decode()
    assert '<datalist id="model-choices">' in form
    assert '<option value="my-model">' in form
    assert '<option value="lab">lab</option>' in form


def test_run_form_checks_the_model_before_queueing(world: World, folders: tuple[Path, Path]) -> None:
    c = world.client("researcher")
    before = Run.objects.count()
    r = c.post(reverse("runs:new"), _form(world, backend="hf", model="all-MiniLM-L6-v2", scoring="loglik"))
    assert r.status_code == 400
    assert "sentence-embedding model: use the embedding backend" in r.content.decode()
    r = c.post(reverse("runs:new"), _form(world, backend="hf", model="/srv/models/missing.gguf", scoring="loglik"))
    assert r.status_code == 400
    assert "is not a model this installation can run" in r.content.decode()
    assert Run.objects.count() == before
    # all-MiniLM-L6-v2 on the embedding backend is the packaged model.
    r = c.post(reverse("runs:new"), _form(world, backend="embedding", model="all-MiniLM-L6-v2", scoring="loglik"))
    assert r.status_code == 302
    from commonsense.scoring.locate import minilm_dir
    from runs.catalog import run_scorer_args

    assert Path(run_scorer_args(Run.objects.latest("pk"))["model"]).resolve() == minilm_dir().resolve()
