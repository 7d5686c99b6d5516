#!/usr/bin/env bash
# Add SAGE Desk to your desktop's application menu (for you only; nothing outside ~/.local).
# Run it from inside the unpacked bundle: ./install-desktop-entry.sh   (--remove to undo)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
apps=${XDG_DATA_HOME:-$HOME/.local/share}/applications
icons=${XDG_DATA_HOME:-$HOME/.local/share}/icons/hicolor/256x256/apps
if [ "${1:-}" = "--remove" ]; then
  rm -f "$apps/sage-desk.desktop" "$icons/sage-desk.png"
  echo "removed the SAGE Desk menu entry"
  exit 0
fi
mkdir -p "$apps" "$icons"
cp "$here/_internal/sage-desk.png" "$icons/sage-desk.png"
sed "s#^Exec=.*#Exec=\"$here/sage-desk\"#; s#^Icon=.*#Icon=$icons/sage-desk.png#" \
  "$here/sage-desk.desktop" > "$apps/sage-desk.desktop"
echo "installed $apps/sage-desk.desktop (Exec: $here/sage-desk)"
