#!/usr/bin/env bash
# The pre-commit hook of .pre-commit-hooks.yaml (language: script): `hcp-plan validate ARGS FILES`.
# It works from a clean clone of this repository (what pre-commit checks out):
# scripts/hcp-plan-locate.sh finds the binary ($HCP_PLAN_BIN, PATH, build/hcp-plan) or builds it
# once. Exit: validate's (0 clean, 1 findings, 2 bad input); 2 when there is no binary.
set -euo pipefail
binary=$("$(dirname "${BASH_SOURCE[0]}")/hcp-plan-locate.sh") || exit 2
exec "$binary" validate "$@"
