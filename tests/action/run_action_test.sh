#!/usr/bin/env bash
# ctest github_action: run tests/action/test_action.py (the composite action's run: steps in bash
# on a scratch repository, and the example workflow) with pytest against the built binary.
# Usage: tests/action/run_action_test.sh HCP_PLAN_BINARY SOURCE_DIR
# Exit 77 (ctest SKIP_RETURN_CODE) without a python3 that has pytest and yaml (Debian:
# python3-pytest python3-yaml).
set -euo pipefail
python=""
for candidate in "${HCP_PYTHON:-}" /usr/bin/python3 python3; do
  [ -n "$candidate" ] || continue
  if "$candidate" -c 'import pytest, yaml' >/dev/null 2>&1; then
    python=$candidate
    break
  fi
done
if [ -z "$python" ]; then
  echo "SKIP: no python3 with pytest and yaml (apt-get install python3-pytest python3-yaml)"
  exit 77
fi
cd "${TMPDIR:-/tmp}"
HCP_PLAN_TEST_BIN="$1" HCP_PLAN_SOURCE_DIR="$2" PYTHONDONTWRITEBYTECODE=1 \
  "$python" -m pytest -q -p no:cacheprovider "$2/tests/action"
