#!/usr/bin/env bash
# Smoke-test a built bundle the way a user would meet it: no virtualenv, no network.
#   packaging/smoke.sh [BUNDLE_DIR]        (default dist/sage-desk; run from the checkout)
# Checks: --version; every screen renders to PNG offscreen (and under Xvfb when it is installed);
# doctor; validate and an offline baseline run + report on the bundled data; and one run whose
# agent is an OpenAI-compatible model talking to the local fake OpenAI server in tests/fakes.
set -euo pipefail
cd "$(dirname "$0")/.."
BUNDLE=$(cd "${1:-dist/sage-desk}" && pwd)
EXE="$BUNDLE/sage-desk"
PY=${SAGE_DESK_VENV:-.venv}/bin/python
[ -x "$EXE" ] || { echo "no bundle at $BUNDLE: run packaging/build.sh first"; exit 1; }
start=$(date +%s)
work=$(mktemp -d /tmp/sage-desk-smoke.XXXXXX)
server_pid=""
cleanup() { [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT

# The bundle runs with a bare environment: nothing from this shell's Python or virtualenv.
bare() { env -i HOME="$work/home" PATH=/usr/bin:/bin LANG=C.UTF-8 SAGE_DESK_HOME="$work/data" "$@"; }
# Without a network namespace to cut it off, the offline checks still run, just unproven offline.
offline() { if unshare -rn true 2>/dev/null; then bare unshare -rn "$@"; else bare "$@"; fi; }
step() { printf '%-58s' "$1"; }
ok() { echo "ok${1:+ ($1)}"; }
pngs() { find "$1" -name '*.png' -size +10k | wc -l; }

step "--version"
version=$(bare "$EXE" --version)
[[ "$version" == "sage-desk "* ]] || { echo "FAIL: $version"; exit 1; }
ok "$version"

step "screenshots, offscreen, no network"
offline env QT_QPA_PLATFORM=offscreen "$EXE" --screenshot "$work/shots" >"$work/shots.log" 2>&1 \
  || { echo "FAIL"; cat "$work/shots.log"; exit 1; }
count=$(pngs "$work/shots")
[ "$count" -ge 5 ] || { echo "FAIL: $count PNGs"; cat "$work/shots.log"; exit 1; }
ok "$count PNGs"

if command -v xvfb-run >/dev/null; then
  step "screenshots on an X server (Xvfb, the xcb plugin)"
  bare xvfb-run -a -s "-screen 0 1440x900x24" "$EXE" --screenshot "$work/shots-x11" >"$work/x11.log" 2>&1 \
    || { echo "FAIL"; cat "$work/x11.log"; exit 1; }
  count=$(pngs "$work/shots-x11")
  [ "$count" -ge 5 ] || { echo "FAIL: $count PNGs"; exit 1; }
  ok "$count PNGs"
fi

step "doctor, no network"
offline env QT_QPA_PLATFORM=offscreen "$EXE" doctor >"$work/doctor.log" 2>&1 || { echo "FAIL"; cat "$work/doctor.log"; exit 1; }
ok "$(grep -c '^ok' "$work/doctor.log") ok, $(grep -c '^warn' "$work/doctor.log") warn"

step "validate the bundled northline domain"
offline "$EXE" validate "$BUNDLE/_internal/sops/northline" >/dev/null
ok

step "offline baseline run and report"
offline "$EXE" run --domain northline --agent baseline:oracle --agent baseline:complier \
  --judge baseline:heuristic --cases nl-001,nl-121,nl-145 --quiet >/dev/null 2>"$work/run.log" \
  || { echo "FAIL"; cat "$work/run.log"; exit 1; }
offline "$EXE" report --format json >"$work/report.json"
grep -q '"agent": "baseline:oracle"' "$work/report.json" || { echo "FAIL: no oracle row"; exit 1; }
ok

step "an OpenAI-compatible model through the fake OpenAI server"
port_file="$work/port"
PYTHONPATH=tests "$PY" -c "
import sys, threading
from fakes import FakeOpenAIServer
with FakeOpenAIServer() as server:
    open(sys.argv[1], 'w').write(server.base_url)
    threading.Event().wait()
" "$port_file" &
server_pid=$!
for _ in $(seq 50); do [ -s "$port_file" ] && break; sleep 0.1; done
[ -s "$port_file" ] || { echo "FAIL: the fake server did not start"; exit 1; }
bare "$EXE" run --domain northline --agent openai/fake-agent --api-base "$(cat "$port_file")" \
  --judge none --cases nl-001 --quiet >/dev/null 2>"$work/llm.log" || { echo "FAIL"; cat "$work/llm.log"; exit 1; }
ok "$(tail -1 "$work/llm.log")"

echo "smoke passed in $(( $(date +%s) - start )) s ($(du -sh "$BUNDLE" | cut -f1) bundle)"
