#!/usr/bin/env bash
# Build the one-folder Linux desktop bundle of SAGE Desk into dist/sage-desk/.
#   packaging/build.sh           build (PyInstaller, from the project's virtualenv)
#   packaging/build.sh --smoke   build, then run packaging/smoke.sh against the bundle
#   packaging/build.sh --system  only install the system packages the build needs, then stop
# The bundle needs no Python on the user's machine: copy or tar dist/sage-desk/ anywhere and
# run ./sage-desk inside it; ./install-desktop-entry.sh adds it to the application menu.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${SAGE_DESK_VENV:-.venv}
PY="$VENV/bin/python"
start=$(date +%s)

[ -x "$PY" ] || { echo "no virtualenv at $VENV: run ./dev setup first"; exit 1; }

# PyInstaller reads every binary it bundles with objdump, and bundles libpython, the shared
# library of the Python it runs on: a bare Debian has neither (binutils, libpython3.X).
need=""
command -v objdump >/dev/null || need="binutils"
version=$("$PY" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
read -r soname libdir < <("$PY" -c 'import sysconfig as s; print(s.get_config_var("INSTSONAME") or "-", s.get_config_var("LIBDIR") or "-")')
case "$soname" in  # a Python of its own keeps it in its LIBDIR; Debian's, in the libpython3.X package
  *.so*) [ -e "$libdir/$soname" ] || /sbin/ldconfig -p 2>/dev/null | grep -qF "$soname" || need="$need libpython$version" ;;
esac
if [ -n "$need" ]; then
  ./dev system-packages "PyInstaller needs them to build the bundle" $need \
    || { echo "install$need first: PyInstaller cannot build the bundle without them"; exit 1; }
fi
[ "${1:-}" = "--system" ] && exit 0
if ! "$PY" -m PyInstaller --version >/dev/null 2>&1; then
  echo "installing PyInstaller (the [bundle] extra)"
  if "$PY" -m uv --version >/dev/null 2>&1; then "$PY" -m uv pip install -q --python "$PY" -e ".[bundle]"
  elif python3 -m uv --version >/dev/null 2>&1; then python3 -m uv pip install -q --python "$PY" -e ".[bundle]"
  else "$PY" -m pip install -q -e ".[bundle]"; fi
fi

# the bundle carries the sample runs, which setup builds (they are not kept in git)
./dev sample-runs
mkdir -p build/bundle-assets
"$PY" packaging/render_icon.py build/bundle-assets/sage-desk.png 256

"$PY" -m PyInstaller --noconfirm --log-level WARN \
  --distpath dist --workpath build/pyinstaller packaging/sage-desk.spec

cp packaging/sage-desk.desktop packaging/install-desktop-entry.sh dist/sage-desk/

echo "built dist/sage-desk ($(du -sh dist/sage-desk | cut -f1), $(( $(date +%s) - start )) s)"
if [ "${1:-}" = "--smoke" ]; then
  exec packaging/smoke.sh dist/sage-desk
fi
