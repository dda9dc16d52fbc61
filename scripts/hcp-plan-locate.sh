#!/usr/bin/env bash
# Print the path of an hcp-plan binary, building one in this repository when there is none: used
# by the pre-commit hook (scripts/hcp-plan-hook.sh) and the GitHub Action (action.yml), so that
# both work from a clean clone. The binary is
#   $HCP_PLAN_BIN, else hcp-plan on PATH, else build/hcp-plan of this repository, else it is built
#   there once (cmake, only the hcp-plan target: a few minutes; later runs reuse it).
# Building needs cmake, g++ and the libraries of `make deps` (Debian); $HCP_PLAN_CMAKE replaces the
# cmake command. Exit 1, saying what is missing, when there is no binary and none can be built.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build="$root/build"
cmake_cmd=${HCP_PLAN_CMAKE:-cmake}

say() { echo "hcp-plan: $*" >&2; }

build_binary() {
  if ! command -v "$cmake_cmd" >/dev/null 2>&1; then
    say "no hcp-plan binary and no cmake to build one: set HCP_PLAN_BIN, put hcp-plan on PATH," \
      "or install cmake, g++ and the libraries (\`make deps\` in $root lists them)"
    return 1
  fi
  say "building hcp-plan once in $build (a few minutes; set HCP_PLAN_BIN to use another binary)"
  local log="$build/hook-build.log"
  if ! { "$cmake_cmd" -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DHCP_BUILD_TESTS=OFF \
    -DHCP_BUILD_BENCHMARKS=OFF -DHCP_CUDA=OFF &&
    "$cmake_cmd" --build "$build" --target hcp-plan -j "$(nproc 2>/dev/null || echo 2)"; } \
    >"$log" 2>&1; then
    tail -n 20 "$log" >&2
    say "the build failed (log: $log); \`make deps\` in $root installs what it needs"
    return 1
  fi
}

# Print the binary to run, building it when none is found.
locate_binary() {
  if [ -n "${HCP_PLAN_BIN:-}" ]; then
    [ -x "$HCP_PLAN_BIN" ] || { say "HCP_PLAN_BIN=$HCP_PLAN_BIN is not an executable file"; return 1; }
    echo "$HCP_PLAN_BIN"
    return 0
  fi
  if command -v hcp-plan >/dev/null 2>&1; then
    command -v hcp-plan
    return 0
  fi
  if [ ! -x "$build/hcp-plan" ]; then
    # One build at a time when pre-commit runs several hook processes at once.
    mkdir -p "$build"
    if command -v flock >/dev/null 2>&1; then
      exec 9>"$build/hook-build.lock"
      flock 9
    fi
    [ -x "$build/hcp-plan" ] || build_binary || return 1
  fi
  echo "$build/hcp-plan"
}

locate_binary
