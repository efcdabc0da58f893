"""What this installation can run, as the operator configured it (``cocoweb/settings.py``):

- ``COCOWEB_MODELS_DIRS``: folders whose ``.gguf`` files and model folders runs may load (plus the
  packaged SmolLM2-135M-Instruct and all-MiniLM-L6-v2);
- ``COCOWEB_RUN_FILES_DIRS``: folders whose files runs may replay (prediction files, ReComSBench
  paths files);
- ``COCOWEB_MODEL_ENDPOINTS``: OpenAI-compatible servers by name, each with its URL, the NAME of
  the environment variable holding its API key, and how many requests a run may have in flight
  there (``concurrency``, default what a vLLM server batches).

Runs name a model, a file or an endpoint; :func:`run_spec_check` refuses anything else before the
run is stored, and :func:`run_scorer_args` resolves the names again on the worker (folders and
endpoints may have changed since). A key goes only to its own endpoint's URL.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured, ValidationError

from cocoweb.secrets import secret_is_set
from commonsense.scoring.openai_backend import DEFAULT_CONCURRENCY
from commonsense.scoring.registry import (
    LocalModel,
    Refused,
    folder_models,
    packaged_models,
    resolve_file,
    resolve_model,
)

_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_ENDPOINT_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
MAX_CONCURRENCY = 1024


@dataclass(frozen=True)
class Endpoint:
    name: str
    url: str
    api_key_env: str  # "" = the server needs no key
    models: tuple[str, ...]  # models offered in the picker (the server may serve more)
    concurrency: int = DEFAULT_CONCURRENCY  # requests one run has in flight there at most

    @property
    def key_configured(self) -> bool:
        return secret_is_set(self.api_key_env)


def models_dirs() -> list[Path]:
    return [Path(p) for p in settings.COCOWEB_MODELS_DIRS]


def run_files_dirs() -> list[Path]:
    return [Path(p) for p in settings.COCOWEB_RUN_FILES_DIRS]


def endpoints() -> dict[str, Endpoint]:
    """The configured endpoints; a malformed entry is an operator error, said plainly."""
    raw = settings.COCOWEB_MODEL_ENDPOINTS or {}
    if not isinstance(raw, dict):
        raise ImproperlyConfigured(
            "COCOWEB_MODEL_ENDPOINTS must be a JSON object {name: {url, api_key_env, models, concurrency}}"
        )
    out = {}
    for name, spec in raw.items():
        if not _ENDPOINT_NAME.match(str(name)) or not isinstance(spec, dict):
            raise ImproperlyConfigured(f"COCOWEB_MODEL_ENDPOINTS: bad entry {name!r}")
        url = str(spec.get("url") or "")
        key_env = str(spec.get("api_key_env") or "")
        if not url.startswith(("http://", "https://")):
            raise ImproperlyConfigured(f"COCOWEB_MODEL_ENDPOINTS[{name!r}]: url must be http(s)://…")
        if key_env and not _ENV_NAME.match(key_env):
            raise ImproperlyConfigured(f"COCOWEB_MODEL_ENDPOINTS[{name!r}]: api_key_env must name a variable")
        models = tuple(str(m) for m in spec.get("models") or ())
        out[str(name)] = Endpoint(str(name), url, key_env, models, _concurrency(name, spec))
    return out


def _concurrency(name: str, spec: dict[str, Any]) -> int:
    raw = spec.get("concurrency", DEFAULT_CONCURRENCY)
    if isinstance(raw, bool) or not isinstance(raw, int) or not 1 <= raw <= MAX_CONCURRENCY:
        raise ImproperlyConfigured(
            f"COCOWEB_MODEL_ENDPOINTS[{name!r}]: concurrency must be a whole number from 1 to {MAX_CONCURRENCY}"
            f" (requests in flight), not {raw!r}"
        )
    return raw


def local_models() -> list[LocalModel]:
    return packaged_models() + folder_models(models_dirs())


def catalog() -> dict[str, Any]:
    """Everything the Models page shows."""
    return {
        "local": local_models(),
        "endpoints": list(endpoints().values()),
        "models_dirs": models_dirs(),
        "run_files_dirs": run_files_dirs(),
    }


def _endpoint(name: str) -> Endpoint:
    ep = endpoints().get(name)
    if ep is None:
        raise ValidationError(
            f"{name[:80]!r} is not a configured model endpoint; the Models page lists them"
            if name
            else "the openai backend needs a configured endpoint (the Models page lists them)"
        )
    return ep


def _file(name: str) -> Path:
    try:
        return resolve_file(name, run_files_dirs())
    except Refused as exc:
        raise ValidationError(str(exc)) from None


def run_spec_check(
    *, backend: str, model: str, endpoint: str, source: str | None, statement_replay: bool, scoring: str
) -> None:
    """Refuse, before a run is queued, a model / endpoint / file this installation does not run."""
    if backend in ("hf", "embedding"):
        try:
            resolve_model(model, models_dirs(), backend)
        except Refused as exc:
            raise ValidationError(str(exc)) from None
    if backend == "openai":
        _endpoint(endpoint)
        if not model:
            raise ValidationError("the openai backend needs the server's model name")
    elif endpoint:
        raise ValidationError("an endpoint is only for the openai backend")
    if source:
        _file(source)
    if backend == "replay" and not statement_replay and not source:
        _file(model)  # the model field names the prediction file


def run_scorer_args(run: Any) -> dict[str, Any]:
    """Keyword arguments for ``commonsense.scoring.build_scorer`` with every name resolved to the
    configured path / URL / key variable (raises ValidationError when that is no longer possible)."""
    params = run.params or {}
    backend_options = dict(params.get("backend_options") or {})
    backend_options.pop("api_key_env", None)  # the endpoint decides which key, never the run
    source = params.get("source")
    model = run.model or None
    url = None
    if run.backend in ("hf", "embedding"):
        try:
            model = str(resolve_model(run.model, models_dirs(), run.backend).path)
        except Refused as exc:
            raise ValidationError(str(exc)) from None
    elif run.backend == "openai":
        ep = _endpoint(run_endpoint(run))
        url = ep.url
        backend_options["api_key_env"] = ep.api_key_env  # "" reads no variable: no key is sent
        asked = backend_options.get("concurrency")  # a run may ask for fewer requests in flight, never more
        backend_options["concurrency"] = (
            min(int(asked), ep.concurrency) if isinstance(asked, int) and asked >= 1 else ep.concurrency
        )
    if source:
        source = str(_file(source))
    elif run.backend == "replay" and not run.is_statement_run:
        source, model = str(_file(run.model)), None
    return {"model": model, "url": url, "source": source, "backend_options": backend_options}


def run_endpoint(run: Any) -> str:
    """The endpoint name of an openai run (``params["endpoint"]``)."""
    return str((run.params or {}).get("endpoint") or "")
