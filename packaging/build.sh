#!/usr/bin/env bash
# Build the one-folder Linux desktop bundle of SAGE Desk into dist/sage-desk/.
#   packaging/build.sh           build (PyInstaller, from the project's virtualenv)
#   packaging/build.sh --smoke   build, then run packaging/smoke.sh against the bundle
# The bundle needs no Python on the user's machine: copy or tar dist/sage-desk/ anywhere and
# run ./sage-desk inside it; ./install-desktop-entry.sh adds it to the application menu.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${SAGE_DESK_VENV:-.venv}
PY="$VENV/bin/python"
start=$(date +%s)

[ -x "$PY" ] || { echo "no virtualenv at $VENV: run ./dev setup first"; exit 1; }
if ! "$PY" -m PyInstaller --version >/dev/null 2>&1; then
  echo "installing PyInstaller (the [bundle] extra)"
  if "$PY" -m uv --version >/dev/null 2>&1; then "$PY" -m uv pip install -q --python "$PY" -e ".[bundle]"
  elif python3 -m uv --version >/dev/null 2>&1; then python3 -m uv pip install -q --python "$PY" -e ".[bundle]"
  else "$PY" -m pip install -q -e ".[bundle]"; fi
fi

mkdir -p build/bundle-assets
"$PY" packaging/render_icon.py build/bundle-assets/sage-desk.png 256

"$PY" -m PyInstaller --noconfirm --log-level WARN \
  --distpath dist --workpath build/pyinstaller packaging/sage-desk.spec

cp packaging/sage-desk.desktop packaging/install-desktop-entry.sh dist/sage-desk/

echo "built dist/sage-desk ($(du -sh dist/sage-desk | cut -f1), $(( $(date +%s) - start )) s)"
if [ "${1:-}" = "--smoke" ]; then
  exec packaging/smoke.sh dist/sage-desk
fi
