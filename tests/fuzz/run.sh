#!/usr/bin/env bash
# Run the libFuzzer harnesses built in BUILD (make fuzz), one at a time at the lowest CPU
# priority, each for SECONDS, over its seeds (tests/fuzz/seeds.txt and tests/fuzz/corpus/NAME)
# with its dictionary (tests/fuzz/dict/NAME.dict). New inputs go to BUILD/fuzz-corpus/NAME, logs to
# BUILD/fuzz-logs/NAME.log, crashing inputs to BUILD/fuzz-artifacts/. Prints one line per harness
# with libFuzzer's final execution count; exits 1 when any harness found something.
#   tests/fuzz/run.sh BUILD SECONDS [NAME...]      (no NAME: every harness)
set -uo pipefail
cd "$(dirname "$0")/../.."
build=${1:?usage: run.sh BUILD SECONDS [NAME...]}
seconds=${2:?usage: run.sh BUILD SECONDS [NAME...]}
shift 2
if ! [[ $seconds =~ ^[1-9][0-9]*$ ]]; then
  echo "run.sh: SECONDS must be a positive number, got '$seconds'" >&2
  exit 2
fi
names=("$@")
if [ ${#names[@]} -eq 0 ]; then
  for src in tests/fuzz/*_fuzz.cpp; do
    n=$(basename "$src" _fuzz.cpp)
    names+=("$n")
  done
fi
mkdir -p "$build/fuzz-corpus" "$build/fuzz-logs" "$build/fuzz-artifacts"
# Leaks inside hwloc's XML importer are hwloc's (tests/fuzz/lsan.supp says which).
export LSAN_OPTIONS="suppressions=$PWD/tests/fuzz/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
failed=()
for name in "${names[@]}"; do
  bin="$build/tests/fuzz/fuzz_$name"
  if [ ! -x "$bin" ]; then
    echo "fuzz $name: $bin not built (make fuzz)"
    failed+=("$name")
    continue
  fi
  seeds=()
  [ -d "tests/fuzz/corpus/$name" ] && seeds+=("tests/fuzz/corpus/$name")
  # libFuzzer reads directories only: single seed files are copied into BUILD/fuzz-seeds/NAME.
  files="$build/fuzz-seeds/$name"
  rm -rf "$files"
  line=$(grep -E "^$name:" tests/fuzz/seeds.txt | head -1 | cut -d: -f2-)
  for s in $line; do
    if [ -d "$s" ]; then
      seeds+=("$s")
    elif [ -f "$s" ]; then
      mkdir -p "$files"
      cp "$s" "$files/$(echo "$s" | tr / _)"
    fi
  done
  [ -d "$files" ] && seeds+=("$files")
  dict=()
  [ -f "tests/fuzz/dict/$name.dict" ] && dict=(-dict="tests/fuzz/dict/$name.dict")
  work="$build/fuzz-corpus/$name"
  mkdir -p "$work"
  log="$build/fuzz-logs/$name.log"
  # -timeout: an input that takes 10 s is a hang; -rss_limit_mb: 2 GiB is a memory bomb.
  nice -n 19 "$bin" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$build/fuzz-artifacts/$name-" "${dict[@]}" \
    "$work" "${seeds[@]}" > "$log" 2>&1
  rc=$?
  execs=$(grep -E '^stat::number_of_executed_units' "$log" | tail -1 | awk '{print $2}')
  speed=$(grep -E '^stat::average_exec_per_sec' "$log" | tail -1 | awk '{print $2}')
  if [ $rc -ne 0 ]; then
    echo "fuzz $name: FINDING (exit $rc) after ${execs:-?} executions; see $log"
    grep -E '^(==[0-9]+==ERROR|SUMMARY|fuzz property failed|.*runtime error)' "$log" | head -5
    # The report's end (stack, artifact name) for a CI log that keeps no files.
    tail -n 40 "$log" | sed 's/^/  | /'
    failed+=("$name")
  else
    echo "fuzz $name: ${execs:-?} executions in ${seconds} s (${speed:-?}/s), no finding"
  fi
done
if [ ${#failed[@]} -ne 0 ]; then
  echo "fuzz: findings or failures in: ${failed[*]}"
  exit 1
fi
