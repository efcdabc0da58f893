#!/usr/bin/env bash
# `make prod-check`: start the production topology on 127.0.0.1 from Debian packages —
# PostgreSQL, Redis, gunicorn, and two Celery workers (queue `eval` for model runs, queues
# `default,housekeeping` for the rest) — configured only through environment variables; run an
# HTTP smoke test through it; stop everything it started.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PY:-.venv/bin/python}
BIN=$(dirname "$PY")
PG_PORT=${PG_PORT:-54339} REDIS_PORT=${REDIS_PORT:-63789}  # before services.sh, which has its own defaults
source scripts/services.sh
WEB_PORT=${WEB_PORT:-8765}
services_available || { echo "prod-check needs postgresql and redis-server (apt-get install postgresql redis-server)" >&2; exit 2; }

dir=$(mktemp -d /tmp/cocoweb-prod.XXXXXX)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  services_stop
}
trap cleanup EXIT
services_start "$dir"

export DJANGO_DEBUG=false
export DJANGO_SECRET_KEY=$("$PY" -c "import secrets; print(secrets.token_urlsafe(50))")
export DJANGO_ALLOWED_HOSTS=127.0.0.1,localhost
export CACHE_URL="redis://127.0.0.1:$REDIS_PORT/1"
export COCOWEB_VAR_DIR="$dir/var"

"$PY" manage.py check --deploy --fail-level WARNING   # the real production settings, TLS included
# Plain HTTP on loopback for the smoke test only; behind TLS keep the defaults (true).
export DJANGO_SECURE_SSL_REDIRECT=false DJANGO_SECURE_COOKIES=false
"$PY" manage.py migrate --noinput -v0
"$PY" manage.py collectstatic --noinput -v0
"$PY" manage.py seed_demo --no-accounts >/dev/null

"$BIN/gunicorn" cocoweb.wsgi --preload -b "127.0.0.1:$WEB_PORT" -w 3 --access-logfile "$dir/access.log" --error-logfile "$dir/gunicorn.log" &
pids+=($!)
"$BIN/celery" -A cocoweb worker -Q eval -n "eval@%h" --pool=solo --concurrency=1 -l WARNING --logfile "$dir/worker-eval.log" &
pids+=($!)
"$BIN/celery" -A cocoweb worker -Q default,housekeeping -n "house@%h" --pool=solo --concurrency=1 -l WARNING --logfile "$dir/worker-house.log" &
pids+=($!)

if "$PY" scripts/smoke.py "http://127.0.0.1:$WEB_PORT"; then
  echo "prod-check: OK (PostgreSQL :$PG_PORT, Redis :$REDIS_PORT, gunicorn :$WEB_PORT, 2 workers)"
else
  echo "prod-check: FAILED; logs in $dir" >&2
  trap - EXIT; cleanup; exit 1
fi
trap - EXIT; cleanup   # stop everything before its directory goes (pg_ctl needs the data directory)
rm -rf "$dir"
