#!/usr/bin/env bash
# Start the web server and two Celery workers on the embedded broker (SQLite file, no server):
# one for model evaluations (queue eval; COCOWEB_EVAL_WORKERS=N for N, below), one for everything
# else (default, housekeeping), as in production, so a long model run never holds up a question
# build. Ctrl-C stops them all.
# Single-slot workers run the solo pool (the task runs in the worker process): a prefork child
# killed while idle could leave its replacement blocked on the pool's lock, and the worker took
# nothing more until a restart (tests/production/test_idle_child_kill.py).
set -euo pipefail
PY=${PY:-.venv/bin/python}
HOST=${HOST:-127.0.0.1}
PORT=${PORT:-8000}
CELERY="$(dirname "$PY")/celery"

# COCOWEB_EVAL_WORKERS=2 (or more) starts that many eval workers (one slot each, more on other
# machines: the same command with the same DATABASE_URL and CELERY_BROKER_URL); they share every run
# longer than COCOWEB_EVAL_SHARD_SIZE items (500 unless set), each claiming shards (runs/shards.py).
# Several workers sharing runs are tested on PostgreSQL; on the SQLite default their writes take turns.
EVAL_WORKERS=${COCOWEB_EVAL_WORKERS:-1}
if [ "$EVAL_WORKERS" -gt 1 ]; then export COCOWEB_EVAL_SHARD_SIZE=${COCOWEB_EVAL_SHARD_SIZE:-500}; fi
EVAL=()
for i in $(seq 1 "$EVAL_WORKERS"); do
  "$CELERY" -A cocoweb worker --loglevel=INFO --pool=solo --concurrency=1 -Q eval -n "eval$i@%h" &
  EVAL+=($!)
done
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
stop() { kill "$WEB" "${EVAL[@]}" "$DEFAULT" 2>/dev/null || true; wait "$WEB" "${EVAL[@]}" "$DEFAULT" 2>/dev/null || true; }
trap stop INT TERM EXIT
echo "cocoweb on http://$HOST:$PORT/ (workers: eval pid(s) ${EVAL[*]}, default pid $DEFAULT); Ctrl-C stops all."
wait -n "$WEB" "${EVAL[@]}" "$DEFAULT"
