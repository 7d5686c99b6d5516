#!/usr/bin/env bash
# A throwaway PostgreSQL for the store tests: prints SAGE_DESK_TEST_PG_URL's value, or nothing
# (with the reason on stderr) when no server can be had, in which case those tests skip.
# The cluster lives under DIR; `.ci/postgres.sh --stop DIR` stops it.
set -uo pipefail
stop=""
[ "${1:-}" = "--stop" ] && { stop=1; shift; }
dir=${1:?usage: .ci/postgres.sh [--stop] DIR}
port=${PGPORT_TEST:-54329}

find_bin() {
  command -v initdb 2>/dev/null && return 0
  ls -d /usr/lib/postgresql/*/bin/initdb 2>/dev/null | sort -V | tail -1
}

as_owner=()
[ "$(id -u)" = 0 ] && as_owner=(runuser -u postgres --)
if [ -n "$stop" ]; then
  initdb_bin=$(find_bin)
  [ -n "$initdb_bin" ] && [ -d "$dir/data" ] && "${as_owner[@]}" "$(dirname "$initdb_bin")/pg_ctl" -D "$dir/data" -m fast stop >/dev/null 2>&1
  exit 0
fi

initdb_bin=$(find_bin)
if [ -z "$initdb_bin" ] && command -v apt-get >/dev/null && [ "$(id -u)" = 0 ]; then
  echo "installing postgresql (for the PostgreSQL store tests)" >&2
  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends postgresql; } >/dev/null 2>&1
  initdb_bin=$(find_bin)
fi
[ -n "$initdb_bin" ] || { echo "no PostgreSQL: its store tests will skip" >&2; exit 0; }
bin=$(dirname "$initdb_bin")

if [ "$(id -u)" = 0 ]; then
  id postgres >/dev/null 2>&1 || { echo "no postgres user: its store tests will skip" >&2; exit 0; }
fi
mkdir -p "$dir" && chmod 755 "$(dirname "$dir")" && [ "$(id -u)" = 0 ] && chown postgres "$dir"
"${as_owner[@]}" "$bin/initdb" -D "$dir/data" -U app --auth=trust >"$dir/initdb.log" 2>&1 \
  || { echo "initdb failed ($dir/initdb.log): PostgreSQL store tests will skip" >&2; exit 0; }
"${as_owner[@]}" "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w \
  -o "-c listen_addresses=127.0.0.1 -p $port -k $dir -c fsync=off" start >/dev/null \
  || { echo "PostgreSQL did not start ($dir/server.log): its store tests will skip" >&2; exit 0; }
psql -h 127.0.0.1 -p "$port" -U app -d postgres -qc "CREATE DATABASE sage_test" >/dev/null 2>&1 \
  || "${as_owner[@]}" "$bin/psql" -h 127.0.0.1 -p "$port" -U app -d postgres -qc "CREATE DATABASE sage_test" >/dev/null \
  || { echo "could not create the test database: PostgreSQL store tests will skip" >&2; exit 0; }
echo "postgresql+psycopg://app@127.0.0.1:$port/sage_test"
