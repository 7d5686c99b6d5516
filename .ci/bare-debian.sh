#!/usr/bin/env bash
# The newcomer's first ten minutes, in CI: a bare Debian 12 root made with debootstrap (minbase,
# as a reader of the README might start from), a copy of the checkout, and the README's two
# commands run in it as root. A missing install step in ./dev then fails CI, not a newcomer.
#   .ci/bare-debian.sh              ./dev app (no display: one line, exit 1), ./dev app --version,
#                                   ./dev test on a few tests that load Qt offscreen and run offline,
#                                   packaging/build.sh --system (it installs binutils, libpython3.11)
#   .ci/bare-debian.sh --bundle     builds the whole bundle in it instead (minutes more)
# Needs root (debootstrap, chroot, mounts); elsewhere it says why and skips. apt's and uv's
# downloads and debootstrap's root are kept between runs in $CACHE.
set -euo pipefail
cd "$(dirname "$0")/.."
CACHE=${SAGE_DESK_CI_CACHE:-/var/cache/sage-desk-ci}
MIRROR=${SAGE_DESK_CI_MIRROR:-http://deb.debian.org/debian}
TESTS=${SAGE_DESK_BARE_TESTS:-tests/cli/test_conversations.py tests/gui/test_leaderboard.py tests/packaging}
start=$(date +%s)
step() { echo "bare-debian [$(( $(date +%s) - start ))s]: $*"; }

if [ "$(id -u)" != 0 ]; then
  echo "bare-debian: skipped: debootstrap and chroot need root"
  exit 0
fi
# debootstrap makes the root; git lists the checkout's tracked files to copy into it
missing=""
command -v debootstrap >/dev/null || missing="$missing debootstrap"
command -v git >/dev/null || missing="$missing git"
if [ -n "$missing" ]; then
  step "installing$missing"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi

UV_CACHE=${UV_CACHE_DIR:-$HOME/.cache/uv}  # the host's: its ./dev has just filled it
mkdir -p "$CACHE/debootstrap" "$CACHE/archives/partial" "$UV_CACHE"
root=$(mktemp -d /var/tmp/sage-desk-bare.XXXXXX)
# Whatever is still mounted under the root (deepest first) goes before the root is removed.
unmount_root() { awk -v r="$root/" 'index($2, r) == 1 { print $2 }' /proc/mounts | sort -r | while read -r m; do umount -l "$m" 2>/dev/null || true; done; }
trap 'unmount_root; rm -rf --one-file-system "$root"' EXIT
trap 'exit 143' TERM INT  # a timeout or Ctrl-C still removes the root

# Everything runs in a mount namespace of its own (debootstrap mounts /proc in the root too), so
# every mount goes when it ends, whatever happens. Where `unshare --propagation private` is not
# possible (`/` is not a mount point, as in some containers and chroots), the mounts are made here
# and the exit trap unmounts them.
if unshare --mount --propagation private -- true 2>/dev/null; then
  in_namespace() { unshare --mount --propagation private -- "$@"; }
else
  step "no private mount namespace here (unshare --propagation private failed): mounting in place, unmounted on exit"
  in_namespace() { "$@"; }
fi

# debootstrap spends minutes unpacking and configuring: its fresh root is kept as a tarball for a
# week (a new one after that, with that week's security updates), and a run starts from a copy.
pristine="$CACHE/bookworm-minbase.tar"
if [ -f "$pristine" ] && [ -n "$(find "$pristine" -mtime -7)" ]; then
  step "a bare root from $pristine (made by debootstrap $(date -r "$pristine" +%F))"
  tar -xf "$pristine" -C "$root"
else
  step "debootstrap --variant=minbase bookworm"
  in_namespace debootstrap --variant=minbase --cache-dir="$CACHE/debootstrap" bookworm "$root" "$MIRROR" > "$root.log" 2>&1 \
    || { tail -20 "$root.log"; rm -f "$root.log"; exit 1; }
  rm -f "$root.log"
  tar -cf "$pristine.part" -C "$root" . && mv "$pristine.part" "$pristine"
fi
# The checkout as it is (in CI, the commit under test): tracked files only, no .venv, no build/;
# without git's metadata (a source tarball), everything but what ./dev and the builds make.
mkdir "$root/src"
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  git ls-files -z | tar --null --ignore-failed-read -T - -cf - 2>/dev/null | tar -x -C "$root/src"
else
  tar --exclude=./.venv --exclude=./build --exclude=./dist --exclude=./.git --exclude='__pycache__' \
      --exclude=./sample_runs/sample.db -cf - . | tar -x -C "$root/src"
fi
cp /etc/resolv.conf "$root/etc/resolv.conf"

# What the machine gives every process (a CA bundle for its HTTPS) goes in; nothing of ours does.
certs=${SSL_CERT_FILE:-/etc/ssl/certs/ca-certificates.crt}
inside_env=(HOME=/root LANG=C.UTF-8 TERM=dumb CI="${CI:-}" PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
            UV_LINK_MODE=copy)  # the cache is a bind mount: uv would try hard links, fail and say so
[ -f "$certs" ] && inside_env+=(SSL_CERT_FILE=/etc/sage-desk-ci-ca.crt PIP_CERT=/etc/sage-desk-ci-ca.crt
                                REQUESTS_CA_BUNDLE=/etc/sage-desk-ci-ca.crt)
[ -f "$certs" ] && cp "$certs" "$root/etc/sage-desk-ci-ca.crt"

# The README's commands, in the root.
cat > "$root/newcomer.sh" <<EOF
set -eu
cd /src
echo '\$ ./dev app'
if ./dev app; then echo "./dev app opened a window without a display"; exit 1; fi
echo '\$ ./dev app --version'
./dev app --version
echo '\$ ./dev test $TESTS'
QT_QPA_PLATFORM=offscreen ./dev test -x -p no:cacheprovider $TESTS
if [ "\${1:-}" = --bundle ]; then
  echo '\$ packaging/build.sh --smoke'; packaging/build.sh --smoke
else
  echo '\$ packaging/build.sh --system'; packaging/build.sh --system
  command -v objdump >/dev/null && /sbin/ldconfig -p | grep -q libpython3 || { echo "the bundle's system needs are missing"; exit 1; }
fi
EOF

step "./dev in the bare root"
in_namespace bash -euo pipefail -c '
  root=$1 cache=$2 uv=$3; shift 3
  mount -t proc proc "$root/proc"
  mount --rbind /dev "$root/dev"
  mount -t tmpfs tmpfs "$root/tmp"
  mkdir -p "$root/root/.cache/uv"
  mount --bind "$cache/archives" "$root/var/cache/apt/archives"
  mount --bind "$uv" "$root/root/.cache/uv"
  exec chroot "$root" /usr/bin/env -i "$@"
' bash "$root" "$CACHE" "$UV_CACHE" "${inside_env[@]}" /bin/bash /newcomer.sh "${1:-}"
step "passed"
