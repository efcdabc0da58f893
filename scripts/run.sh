#!/usr/bin/env bash
# Start the web server and two Celery workers on the embedded broker (SQLite file, no server):
# one for model evaluations (queue eval), one for everything else (default, housekeeping), as
# in production, so a long model run never holds up a question build. Ctrl-C stops all three.
# Single-slot workers run the solo pool (the task runs in the worker process): a prefork child
# killed while idle could leave its replacement blocked on the pool's lock, and the worker took
# nothing more until a restart (tests/production/test_idle_child_kill.py).
set -euo pipefail
PY=${PY:-.venv/bin/python}
HOST=${HOST:-127.0.0.1}
PORT=${PORT:-8000}
CELERY="$(dirname "$PY")/celery"

"$CELERY" -A cocoweb worker --loglevel=INFO --pool=solo --concurrency=1 -Q eval -n eval@%h &
EVAL=$!
"$CELERY" -A cocoweb worker --loglevel=INFO --pool=solo --concurrency=1 -Q default,housekeeping -n default@%h &
DEFAULT=$!
# Static files as production serves them: collected gzip-compressed under hashed names, served by
# WhiteNoise (COCOWEB_STATIC_COMPRESSED=false serves static/ as it lies, for editing it).
export COCOWEB_STATIC_COMPRESSED=${COCOWEB_STATIC_COMPRESSED:-true}
STATIC_FLAG=""
if [ "$COCOWEB_STATIC_COMPRESSED" = "true" ]; then
  "$PY" manage.py collectstatic --noinput -v0
  STATIC_FLAG="--nostatic"
fi
"$PY" manage.py runserver $STATIC_FLAG "$HOST:$PORT" &
WEB=$!
stop() { kill "$WEB" "$EVAL" "$DEFAULT" 2>/dev/null || true; wait "$WEB" "$EVAL" "$DEFAULT" 2>/dev/null || true; }
trap stop INT TERM EXIT
echo "cocoweb on http://$HOST:$PORT/ (workers: eval pid $EVAL, default pid $DEFAULT); Ctrl-C stops all."
wait -n "$WEB" "$EVAL" "$DEFAULT"
