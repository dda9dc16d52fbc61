#!/usr/bin/env bash
# Golden outputs: run every command in tests/golden/commands.txt with the given hcp-plan binary
# and compare stdout, stderr and exit code with tests/golden/expected/ byte for byte.
#   tests/golden/golden.sh BUILD/hcp-plan            check (exit 1 and a diff on any change)
#   tests/golden/golden.sh BUILD/hcp-plan --update   rewrite expected/ from this binary
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
bin="$(realpath "$1")"
mode="${2:-check}"
cd "$root" || exit 2
# A relative data dir keeps the checkout's path (and the line wrapping it would shift) out of the outputs.
export COLUMNS=100 NO_COLOR=1 HCP_PLAN_DATA_DIR=recipes LC_ALL=C
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
n=0
run_one() {  # run one command line (words in "$@") into $out/NNN.out
  n=$((n + 1))
  local f
  f="$(printf '%s/%03d.out' "$out" "$n")"
  { printf '$ hcp-plan %s\n' "$*"; } > "$f"
  "$bin" "$@" < /dev/null > "$f.stdout" 2> "$f.stderr"
  local rc=$?
  { cat "$f.stdout"; printf -- '--- stderr\n'; cat "$f.stderr"; printf -- '--- exit %d\n' "$rc"; } >> "$f"
  rm -f "$f.stdout" "$f.stderr"
}
while IFS= read -r line; do
  [[ -z "$line" || "$line" == \#* ]] && continue
  read -r -a words <<< "$line"
  glob_at=-1
  for i in "${!words[@]}"; do [[ "${words[$i]}" == GLOB:* ]] && glob_at=$i; done
  if (( glob_at < 0 )); then
    run_one "${words[@]}"
    continue
  fi
  pattern="${words[$glob_at]#GLOB:}"
  for file in $(compgen -G "$pattern" | sort); do
    w=("${words[@]}")
    w[$glob_at]="$file"
    # the file goes last so an option taking it (--nvidia-smi-topo FILE) reads it
    if [[ "${w[0]}" == probe ]]; then
      unset 'w[glob_at]'
      w+=("$file")
    fi
    run_one "${w[@]}"
  done
done < "$here/commands.txt"
if [[ "$mode" == --update ]]; then
  rm -rf "$here/expected"
  mkdir -p "$here/expected"
  cp "$out"/*.out "$here/expected/"
  echo "golden: wrote $n outputs to tests/golden/expected"
  exit 0
fi
if diff -ru "$here/expected" "$out" > "$out.diff" 2>&1; then
  echo "golden: $n outputs identical"
  rm -f "$out.diff"
  exit 0
fi
head -c 20000 "$out.diff"
echo "golden: outputs differ from tests/golden/expected (full diff above, first 20 kB)"
rm -f "$out.diff"
exit 1
