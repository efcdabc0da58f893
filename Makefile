# cocoweb: two commands do all set-up on a fresh machine.
#   make run   - venv + pinned requirements, migrate SQLite, load demo data, demo accounts,
#                web server on 127.0.0.1:8000 and a Celery worker on the embedded broker.
#   make test  - the same set-up plus the development tools, then the whole test suite (scripts/test.sh).
#   make test-fast - the Django-free core and unit tests (tests/commonsense, tests/project; no database).
#   make lint  - ruff check, ruff format --check, mypy, import-linter's layer contracts (CI runs it before make test).
PYTHON ?= python3.11
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.requirements-installed
DEV_STAMP := $(VENV)/.requirements-dev-installed
HOST   ?= 127.0.0.1
PORT   ?= 8000

.PHONY: run test test-fast setup setup-dev migrate demo lint prod-check clean

$(PY):
	@command -v $(PYTHON) >/dev/null 2>&1 || { echo "Python 3.11 is required ($(PYTHON) not found); set PYTHON=..." >&2; exit 1; }
	$(PYTHON) -m venv $(VENV)

# Reinstall only when the requirement files change. torch==2.13.0 is pinned: pip takes the CPU
# build that lies on this machine's disk and never a CUDA build.
$(STAMP): requirements.txt requirements-nodeps.txt | $(PY)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements.txt
	$(PY) -m pip install --quiet --no-deps -r requirements-nodeps.txt
	@touch $(STAMP)

setup: $(STAMP)

# Development tools (pytest, playwright, ruff, mypy, stubs, schemathesis, lm-eval): make test and
# make lint need them, make run does not.
$(DEV_STAMP): requirements-dev.txt $(STAMP)
	$(PY) -m pip install --quiet -r requirements-dev.txt
	@touch $(DEV_STAMP)

setup-dev: $(DEV_STAMP)

migrate: setup
	DJANGO_DEBUG=true $(PY) manage.py migrate --noinput -v0

demo: migrate
	DJANGO_DEBUG=true $(PY) manage.py seed_demo
	DJANGO_DEBUG=true $(PY) manage.py seed_demo_runs
	DJANGO_DEBUG=true $(PY) manage.py seed_demo_campaigns

run: demo
	@DJANGO_DEBUG=true PY=$(PY) HOST=$(HOST) PORT=$(PORT) bash scripts/run.sh

test: setup-dev
	@PY=$(PY) bash scripts/test.sh

# No database, no Django test plugin: the pure core and the repository guards.
test-fast: setup-dev
	@COCOWEB_VAR_DIR=$${COCOWEB_VAR_DIR:-$$(mktemp -d /tmp/cocoweb-test.XXXXXX)} HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 \
	  TOKENIZERS_PARALLELISM=false $(PY) -m pytest tests/commonsense tests/project -m "not slow" -p no:django -q

lint: setup-dev
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	COCOWEB_VAR_DIR=$${COCOWEB_VAR_DIR:-$$(mktemp -d /tmp/cocoweb-lint.XXXXXX)} $(VENV)/bin/mypy
	PYTHONPATH=. $(VENV)/bin/lint-imports --no-cache

# Production topology on 127.0.0.1 (PostgreSQL, Redis, gunicorn, 2 Celery workers) + HTTP smoke test.
prod-check: setup
	@PY=$(PY) bash scripts/prod_check.sh

clean:
	rm -rf var/cocoweb.sqlite3 var/celery-broker.sqlite
