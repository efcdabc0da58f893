#!/usr/bin/env bash
# The whole test suite. Pass 1: embedded defaults (SQLite, SQLite broker). Pass 2, when
# PostgreSQL and Redis are installed: the database and task tests again against real servers on
# 127.0.0.1. Browser tests need Debian's Chromium (/usr/bin/chromium). What cannot run here is
# said plainly at the end.
#
# The two passes run at the same time, one pytest process each (they share nothing: pass 1 has its
# SQLite files and embedded broker under $COCOWEB_VAR_DIR, pass 2 its own folder, PostgreSQL
# database and Redis), so that a 2-core machine is busy with both instead of one pass after the
# other (perf/RESULTS.md, "The test suite's wall time"). Pass 1 prints as it goes; pass 2's output
# is kept in a file and printed when pass 1 is done. TEST_PASSES=serial runs them one after the other.
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

SERVER_VARS=(DATABASE_URL CELERY_BROKER_URL COCOWEB_PG_BIN COCOWEB_PG_DATA COCOWEB_REDIS_PORT COCOWEB_SERVICES_DIR)

pass1() {  # in a subshell: pass 2's servers stay out of it
  (
    unset "${SERVER_VARS[@]}"
    echo "== pass 1: SQLite + embedded broker"
    "$PY" -m pytest --durations=15 "$@"
  )
}

pass2() {  # in a subshell, with a var folder of its own (SQLite files, caches, media)
  (
    export COCOWEB_VAR_DIR="$COCOWEB_VAR_DIR/pass2"
    mkdir -p "$COCOWEB_VAR_DIR"
    echo "== pass 2: PostgreSQL ($DATABASE_URL) + Redis ($CELERY_BROKER_URL)"
    "$PY" -m pytest -m "not browser" --ignore=tests/commonsense -p no:cacheprovider --durations=15 "$@"
  )
}

outcome=()
pass1_status() {
  local rc=$1
  [ "$rc" -ne 0 ] && status=$rc
  outcome+=("pass 1 (SQLite + embedded broker): $([ "$rc" -eq 0 ] && echo passed || echo "FAILED (pytest exit $rc)")")
}

pass2_status() {  # pytest's 5 = nothing collected (e.g. a run of Django-free tests only)
  local rc=$1
  [ "$rc" -ne 0 ] && [ "$rc" -ne 5 ] && status=$rc
  outcome+=("pass 2 (PostgreSQL + Redis): $([ "$rc" -eq 0 ] || [ "$rc" -eq 5 ] && echo passed || echo "FAILED (pytest exit $rc)")")
}

source scripts/services.sh
have_pass2=0
pass2_pid=
stop_all() {
  if [ -n "$pass2_pid" ]; then pkill -TERM -P "$pass2_pid" 2>/dev/null; wait "$pass2_pid" 2>/dev/null; fi
  services_stop
}
if services_available; then
  svc_dir=$(mktemp -d /tmp/cocoweb-services.XXXXXX)
  if services_start "$svc_dir"; then
    trap stop_all EXIT
    have_pass2=1
  else
    notes+=("pass 2 not run: PostgreSQL or Redis failed to start (logs in $svc_dir)")
    status=1
  fi
else
  notes+=("pass 2 (PostgreSQL + Redis) not run: install postgresql and redis-server (apt-get) to run it")
fi

if [ $have_pass2 = 1 ] && [ "${TEST_PASSES:-parallel}" != serial ]; then
  pass2_log="$COCOWEB_VAR_DIR/pass2.log"
  pass2 "$@" >"$pass2_log" 2>&1 &
  pass2_pid=$!
  pass1 "$@"
  pass1_status $?
  wait "$pass2_pid"
  rc=$?
  pass2_pid=
  echo
  cat "$pass2_log"
  pass2_status $rc
else
  pass1 "$@"
  pass1_status $?
  if [ $have_pass2 = 1 ]; then
    pass2 "$@"
    pass2_status $?
  fi
fi
if [ $have_pass2 = 1 ]; then stop_all; trap - EXIT; fi

echo; printf '%s\n' "${outcome[@]}"
if [ ${#notes[@]} -gt 0 ]; then
  echo; echo "Not run on this machine:"; printf '  - %s\n' "${notes[@]}"
fi
exit $status
