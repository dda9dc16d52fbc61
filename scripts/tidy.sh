#!/usr/bin/env bash
# clang-tidy with the checks in .clang-tidy over the C++ sources changed against the merge base
# (git merge-base HEAD $HCP_TIDY_BASE, default origin/main, else main; on that branch itself, the
# files of its last commit), or over every source with --all. Headers are checked through the
# sources that include them (HeaderFilterRegex). Every finding is an error.
# The compiler flags come from build-tidy/compile_commands.json, configured (nothing is built)
# without precompiled headers (GCC's .gch files are not clang's) and without unity batches (each
# source needs its own compile command).
# Usage: scripts/tidy.sh [--all]
set -euo pipefail
cd "$(dirname "$0")/.."

tidy=${CLANG_TIDY:-$(command -v clang-tidy-14 || command -v clang-tidy || true)}
[ -n "$tidy" ] || { echo "tidy.sh: clang-tidy not found (make lint-deps installs it)" >&2; exit 1; }
db=${HCP_TIDY_BUILD:-build-tidy}
jobs=${JOBS:-$(nproc 2>/dev/null || echo 2)}

cmake -S . -B "$db" -DCMAKE_BUILD_TYPE=Release -DCMAKE_DISABLE_PRECOMPILE_HEADERS=ON \
  -DHCP_UNITY_BUILD=OFF -DHCP_CUDA=OFF -DHCP_BUILD_BENCHMARKS=OFF > "$db.configure.log" 2>&1 \
  || { cat "$db.configure.log"; exit 1; }

# The sources clang-tidy can check: those with a compile command.
mapfile -t compiled < <(python3 -c '
import json, os, sys
for e in json.load(open(sys.argv[1])):
    print(os.path.relpath(e["file"]))' "$db/compile_commands.json" | sort -u)

if [ "${1:-}" = "--all" ]; then
  files=("${compiled[@]}")
else
  base_ref=${HCP_TIDY_BASE:-}
  if [ -z "$base_ref" ]; then
    if git rev-parse -q --verify origin/main >/dev/null; then base_ref=origin/main; else base_ref=main; fi
  fi
  base=$(git merge-base HEAD "$base_ref" 2>/dev/null || git rev-parse HEAD)
  if [ "$base" = "$(git rev-parse HEAD)" ]; then base=$(git rev-parse -q --verify HEAD~1 || echo "$base"); fi
  mapfile -t changed < <(git diff --name-only --diff-filter=d "$base" -- '*.cpp' | sort -u)
  mapfile -t files < <(comm -12 <(printf '%s\n' "${changed[@]}") <(printf '%s\n' "${compiled[@]}"))
fi
[ ${#files[@]} -gt 0 ] && [ -n "${files[0]}" ] || { echo "tidy.sh: no C++ source to check"; exit 0; }
echo "tidy.sh: clang-tidy on ${#files[@]} source(s)"
printf '%s\n' "${files[@]}" | xargs -P "$jobs" -n 1 "$tidy" -p "$db" --quiet \
  --extra-arg=-Wno-unknown-warning-option
