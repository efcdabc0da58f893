#!/usr/bin/env bash
# Start (or stop) PostgreSQL and Redis from Debian packages on 127.0.0.1 for the production-path
# tests. Usage: source scripts/services.sh; services_start DIR; ...; services_stop
# Exports DATABASE_URL and CELERY_BROKER_URL when both servers are up.

PG_PORT=${PG_PORT:-54329}
REDIS_PORT=${REDIS_PORT:-63799}

services_available() {
  local pgbin
  pgbin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n1)
  [ -n "$pgbin" ] && [ -x "$pgbin/initdb" ] && command -v redis-server >/dev/null 2>&1
}

_as_pg() {  # PostgreSQL refuses to run as root
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

services_start() {
  local dir=$1 pgbin
  pgbin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n1)
  mkdir -p "$dir"
  SERVICES_DIR=$dir
  if [ "$(id -u)" = 0 ]; then chown postgres "$dir"; fi
  _as_pg "$pgbin/initdb" -D "$dir/pg" -U cocoweb --auth=trust -E UTF8 >"$dir/initdb.log" 2>&1 || { cat "$dir/initdb.log"; return 1; }
  _as_pg "$pgbin/pg_ctl" -D "$dir/pg" -l "$dir/pg.log" -w \
    -o "-h 127.0.0.1 -p $PG_PORT -k $dir -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=300" start >/dev/null || { cat "$dir/pg.log"; return 1; }
  _as_pg "$pgbin/createdb" -h 127.0.0.1 -p "$PG_PORT" -U cocoweb cocoweb
  redis_start "$dir" || { cat "$dir/redis.log"; return 1; }
  export DATABASE_URL="postgres://cocoweb@127.0.0.1:$PG_PORT/cocoweb"
  export CELERY_BROKER_URL="redis://127.0.0.1:$REDIS_PORT/0"
  # For the fault tests (tests/production): they restart these servers in place.
  export COCOWEB_PG_BIN=$pgbin COCOWEB_PG_DATA="$dir/pg" COCOWEB_REDIS_PORT=$REDIS_PORT COCOWEB_SERVICES_DIR=$dir
}

redis_start() {  # redis_start DIR: Redis on 127.0.0.1:$REDIS_PORT without persistence (a restart loses every message)
  local dir=$1
  redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --save "" --appendonly no --daemonize yes \
    --pidfile "$dir/redis.pid" --logfile "$dir/redis.log"
  for _ in $(seq 50); do redis-cli -p "$REDIS_PORT" ping >/dev/null 2>&1 && return 0; sleep 0.1; done
  return 1
}

services_stop() {
  [ -n "${SERVICES_DIR:-}" ] || return 0
  local pgbin
  pgbin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n1)
  _as_pg "$pgbin/pg_ctl" -D "$SERVICES_DIR/pg" -m immediate stop >/dev/null 2>&1 || true
  redis-cli -p "$REDIS_PORT" shutdown nosave >/dev/null 2>&1 || true
}
