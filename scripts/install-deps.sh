#!/usr/bin/env bash
# Install the Debian packages hcp-plan needs, only those that are missing.
# Usage: scripts/install-deps.sh PACKAGE...
set -euo pipefail

missing=()
for pkg in "$@"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$pkg")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "hcp-plan: installing missing Debian packages: ${missing[*]}"
if [ "$(id -u)" -eq 0 ]; then
  sudo=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
  sudo=(sudo -n)
else
  echo "hcp-plan: cannot install ${missing[*]}: run as root or install them with apt-get" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
if ! "${sudo[@]}" apt-get install -y --no-install-recommends "${missing[@]}" >/tmp/hcp-apt.log 2>&1; then
  "${sudo[@]}" apt-get update >/tmp/hcp-apt-update.log 2>&1 || true
  if ! "${sudo[@]}" apt-get install -y --no-install-recommends "${missing[@]}" >/tmp/hcp-apt.log 2>&1; then
    echo "hcp-plan: apt-get could not install ${missing[*]} (see /tmp/hcp-apt.log)" >&2
    exit 1
  fi
fi
