#!/usr/bin/env bash
# ctest python_package: install ./python offline into a scratch directory (pip with no package
# index, once with build isolation as a user's plain `pip install ./python` runs it, once with
# --no-build-isolation), then run the pytest suite against the built binary.
# Usage: tests/python/run_pytest.sh HCP_PLAN_BINARY SOURCE_DIR
# Exit 77 (ctest SKIP_RETURN_CODE) when no python3 with pip and pytest is installed (Debian:
# python3-pip python3-pytest).
set -euo pipefail
binary=$1
source_dir=$2

python=""
for candidate in "${HCP_PYTHON:-}" /usr/bin/python3 python3; do
  [ -n "$candidate" ] || continue
  if "$candidate" -c 'import pip, pytest' >/dev/null 2>&1; then
    python=$candidate
    break
  fi
done
if [ -z "$python" ]; then
  echo "SKIP: no python3 with pip and pytest (apt-get install python3-pip python3-pytest)"
  exit 77
fi

scratch=$(mktemp -d "${TMPDIR:-/tmp}/hcp_python_XXXXXX")
trap 'rm -rf "$scratch"' EXIT
# pip builds in the source tree: keep its build output out of the checkout.
export PIP_NO_INDEX=1 PIP_ROOT_USER_ACTION=ignore PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_CACHE_DIR=1 PYTHONDONTWRITEBYTECODE=1
"$python" -m pip install --quiet --target "$scratch/isolated" "$source_dir/python"
"$python" -m pip install --quiet --no-build-isolation --target "$scratch/site" "$source_dir/python"
test -f "$scratch/isolated/hcp_plan/_api.py"

cd "$scratch"
HCP_PLAN_TEST_BIN="$binary" HCP_PLAN_SOURCE_DIR="$source_dir" PYTHONPATH="$scratch/site" \
  "$python" -m pytest -q -p no:cacheprovider "$source_dir/tests/python"
