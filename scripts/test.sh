#!/usr/bin/env bash
# The whole test suite. Pass 1: embedded defaults (SQLite, SQLite broker). Pass 2, when
# PostgreSQL and Redis are installed: the database and task tests again against real servers on
# 127.0.0.1. Browser tests need Debian's Chromium (/usr/bin/chromium). What cannot run here is
# said plainly at the end.
set -uo pipefail
cd "$(dirname "$0")/.."
PY=${PY:-.venv/bin/python}
export COCOWEB_VAR_DIR=${COCOWEB_VAR_DIR:-$(mktemp -d /tmp/cocoweb-test.XXXXXX)}
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 TOKENIZERS_PARALLELISM=false
notes=()
status=0

[ -x /usr/bin/chromium ] || notes+=("browser tests skipped: Debian's chromium is not installed (apt-get install chromium)")
[ -f /usr/share/wordnet/data.adj ] || notes+=("RICA generation without WordNet (antonym/paraphrase variants not made): apt-get install wordnet-base")
[ -d /usr/lib/python3/dist-packages/linkgrammar ] || notes+=("Link Grammar parse-check tests skipped, builds unparsed: apt-get install link-grammar python3-link-grammar link-grammar-dictionaries-en")
[ -d ../shared/data ] || notes+=("tests on ../shared/data skipped: the folder is absent (they use fixtures/ where they can)")

echo "== pass 1: SQLite + embedded broker"
"$PY" -m pytest --durations=15 "$@"
rc=$?; [ $rc -ne 0 ] && status=$rc

source scripts/services.sh
if services_available; then
  svc_dir=$(mktemp -d /tmp/cocoweb-services.XXXXXX)
  if services_start "$svc_dir"; then
    trap services_stop EXIT
    echo "== pass 2: PostgreSQL ($DATABASE_URL) + Redis ($CELERY_BROKER_URL)"
    "$PY" -m pytest -m "not browser" --ignore=tests/commonsense -p no:cacheprovider --durations=15 "$@"
    rc=$?; [ $rc -ne 0 ] && [ $rc -ne 5 ] && status=$rc
    services_stop; trap - EXIT
  else
    notes+=("pass 2 not run: PostgreSQL or Redis failed to start (logs in $svc_dir)")
    status=1
  fi
else
  notes+=("pass 2 (PostgreSQL + Redis) not run: install postgresql and redis-server (apt-get) to run it")
fi

if [ ${#notes[@]} -gt 0 ]; then
  echo; echo "Not run on this machine:"; printf '  - %s\n' "${notes[@]}"
fi
exit $status
