#!/usr/bin/env bash
# Install the Debian packages hcp-plan needs, only those that are missing.
# Usage: scripts/install-deps.sh PACKAGE... [--optional PACKAGE...]
# Packages after --optional (e.g. chromium, for the browser test) are installed when apt can: when
# one has no candidate for this architecture, or cannot be installed, or we are not root, a note
# says so and the script still succeeds; the tests that need it then report themselves skipped.
set -euo pipefail

required=()
optional=()
target=required
for arg in "$@"; do
  if [ "$arg" = "--optional" ]; then
    target=optional
  elif [ "$target" = required ]; then
    required+=("$arg")
  else
    optional+=("$arg")
  fi
done

is_installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }

missing_of() {
  local pkg
  for pkg in "$@"; do
    is_installed "$pkg" || echo "$pkg"
  done
}

mapfile -t missing_required < <(missing_of ${required[@]+"${required[@]}"})
mapfile -t missing_optional < <(missing_of ${optional[@]+"${optional[@]}"})
[ ${#missing_required[@]} -eq 0 ] && [ ${#missing_optional[@]} -eq 0 ] && exit 0

sudo=()
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    sudo=(sudo -n)
  elif [ ${#missing_required[@]} -gt 0 ]; then
    echo "hcp-plan: cannot install ${missing_required[*]}: run as root or install them with apt-get" >&2
    exit 1
  else
    echo "hcp-plan: not root, so not installing optional ${missing_optional[*]}" \
      "(the tests that need it are skipped)" >&2
    exit 0
  fi
fi
export DEBIAN_FRONTEND=noninteractive

updated=no
apt_update_once() {
  [ "$updated" = yes ] && return 0
  updated=yes
  "${sudo[@]}" apt-get update >/tmp/hcp-apt-update.log 2>&1 || true
}

# apt-get install PACKAGE...; on failure refresh the package lists once and try again.
apt_install() {
  "${sudo[@]}" apt-get install -y --no-install-recommends "$@" >/tmp/hcp-apt.log 2>&1 && return 0
  [ "$updated" = yes ] && return 1
  apt_update_once
  "${sudo[@]}" apt-get install -y --no-install-recommends "$@" >/tmp/hcp-apt.log 2>&1
}

has_candidate() { apt-cache policy "$1" 2>/dev/null | grep -q 'Candidate: [^(]'; }

if [ ${#missing_required[@]} -gt 0 ]; then
  echo "hcp-plan: installing missing Debian packages: ${missing_required[*]}"
  if ! apt_install "${missing_required[@]}"; then
    echo "hcp-plan: apt-get could not install ${missing_required[*]} (see /tmp/hcp-apt.log)" >&2
    exit 1
  fi
fi

for pkg in ${missing_optional[@]+"${missing_optional[@]}"}; do
  has_candidate "$pkg" || apt_update_once
  if ! has_candidate "$pkg"; then
    echo "hcp-plan: optional package $pkg is not available for $(dpkg --print-architecture);" \
      "the tests that need it are skipped" >&2
    continue
  fi
  echo "hcp-plan: installing optional Debian package: $pkg"
  start=$(date +%s)
  if apt_install "$pkg"; then
    echo "hcp-plan: installed $pkg in $(($(date +%s) - start)) s"
  else
    echo "hcp-plan: could not install optional $pkg (see /tmp/hcp-apt.log);" \
      "the tests that need it are skipped" >&2
  fi
done
