#!/usr/bin/env bash
# After ctest in a build directory: list the GoogleTest cases that skipped themselves (GTEST_SKIP)
# in the last run. Each unit-test executable runs as a few CTest shards (tests/CMakeLists.txt,
# HCP_TEST_SHARDS) that pass when their cases passed or skipped, so ctest's own summary names no
# skipped case; GoogleTest's summary line of each ("[  SKIPPED ] Suite.Case") is in the log.
# Usage: scripts/ctest_skipped.sh BUILD_DIR   (always exits 0)
log=${1:-build}/Testing/Temporary/LastTest.log
[ -r "$log" ] || exit 0
skipped=$(grep -E '^\[  SKIPPED \] [^ ]+$' "$log" | sed 's/^\[  SKIPPED \] //' | sort -u)
[ -n "$skipped" ] || exit 0
echo "GoogleTest cases skipped (their reasons are in $log):"
printf '  %s\n' $skipped
