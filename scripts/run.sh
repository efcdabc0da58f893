#!/usr/bin/env bash
# Start the web server and a Celery worker (embedded SQLite broker by default); Ctrl-C stops both.
set -euo pipefail
PY=${PY:-.venv/bin/python}
HOST=${HOST:-127.0.0.1}
PORT=${PORT:-8000}
CELERY="$(dirname "$PY")/celery"

"$CELERY" -A cocoweb worker --loglevel=INFO --concurrency=1 -Q default,eval,housekeeping &
WORKER=$!
"$PY" manage.py runserver "$HOST:$PORT" &
WEB=$!
stop() { kill "$WEB" "$WORKER" 2>/dev/null || true; wait "$WEB" "$WORKER" 2>/dev/null || true; }
trap stop INT TERM EXIT
echo "cocoweb on http://$HOST:$PORT/ (worker pid $WORKER); Ctrl-C stops both."
wait -n "$WEB" "$WORKER"
