#!/usr/bin/env bash
# The Debian package end to end, in two CTest steps (see tests/package/CMakeLists.txt):
#   deb_test.sh build CPACK BUILD_DIR WORK_DIR   cpack -G DEB into WORK_DIR
#   deb_test.sh install WORK_DIR                 check the control fields, dpkg -x into a temporary
#                                                root, run the installed binary from /
# Exit 0 pass, 1 fail, 77 skipped (the Debian packaging tools are missing).
set -uo pipefail

SKIP=77
fail() {
  echo "FAIL: $*" >&2
  exit 1
}
need_tools() {
  local tool
  for tool in "$@"; do
    if ! command -v "$tool" >/dev/null 2>&1; then
      echo "SKIP: $tool is not installed (apt-get install dpkg-dev file)"
      exit "$SKIP"
    fi
  done
}

# ---- build: cpack -G DEB ------------------------------------------------------------------------
build_packages() {
  local cpack=$1 build_dir=$2 work=$3
  need_tools "$cpack" dpkg-deb dpkg-shlibdeps file
  rm -rf "$work" && mkdir -p "$work" || fail "cannot create $work"
  if ! "$cpack" -G DEB --config "$build_dir/CPackConfig.cmake" -B "$work" >"$work/cpack.log" 2>&1; then
    cat "$work/cpack.log" >&2
    fail "cpack -G DEB failed"
  fi
  ls "$work"/*.deb >/dev/null 2>&1 || fail "cpack wrote no .deb into $work"
  echo "built: $(cd "$work" && echo *.deb)"
}

# ---- install: control fields, dpkg -x, run from / -----------------------------------------------
field() { dpkg-deb -f "$1" "$2"; }

# Every package a Depends line names (alternatives split, version constraints dropped).
depends_names() { tr ',|' '\n\n' <<<"$1" | sed -e 's/(.*)//' -e 's/[[:space:]]//g' | grep -v '^$'; }

check_depends_are_debian() {
  local deb=$1 depends name
  depends=$(field "$deb" Depends)
  echo "$(basename "$deb") Depends: $depends"
  [ -n "$depends" ] || fail "$deb has no Depends (dpkg-shlibdeps did not run)"
  if grep -Eiq 'cuda|nccl|nvidia|cublas|cudnn' <<<"$depends"; then
    fail "$deb depends on NVIDIA packages: $depends"
  fi
  for name in $(depends_names "$depends"); do
    [[ $name == hcp-plan* ]] && continue
    dpkg-query -W -f='${Status}' "$name" 2>/dev/null | grep -q "install ok installed" ||
      fail "$deb depends on '$name', which is no installed Debian package here"
  done
}

# Run the installed binary from / with nothing pointing it at the source tree.
run_installed() {
  (cd / && env -u HCP_PLAN_DATA_DIR -u HCP_GPU_BENCH_LIB "$ROOT/usr/bin/hcp-plan" "$@")
}

check_cli_package() {
  local deb=$1 version out rc
  [ "$(field "$deb" Package)" = hcp-plan ] || fail "$deb is not the hcp-plan package"
  check_depends_are_debian "$deb"
  depends_names "$(field "$deb" Depends)" | grep -qx libc6 || fail "Depends lacks libc6"
  # hwloc is the one library hcp-plan links shared besides glibc (yaml-cpp, pugixml, zlib and
  # libstdc++ are linked in where their archives are installed: HCP_STATIC_DEPS).
  depends_names "$(field "$deb" Depends)" | grep -q '^libhwloc' || fail "Depends lacks libhwloc"
  version=$(field "$deb" Version)
  dpkg -x "$deb" "$ROOT" || fail "dpkg -x $deb"

  out=$(run_installed --version) || fail "--version exited $?"
  grep -q "^hcp-plan $version (commit " <<<"$out" || fail "--version printed: $out"
  echo "--version: $(head -1 <<<"$out")"

  # validate names the file it checked: it must be the installed copy, not the source tree's.
  out=$(run_installed validate llama3_8b_128k 2>&1) || fail "validate exited $?: $out"
  grep -q "^$ROOT/usr/share/hcp-plan/recipes/llama3_8b_128k.yaml: 0 errors" <<<"$out" ||
    fail "validate did not use $ROOT/usr/share/hcp-plan/recipes: $(tail -1 <<<"$out")"
  echo "validate: $(tail -1 <<<"$out")"

  out=$(run_installed plan llama3_8b_128k --nodes 4 --gpus-per-node 8 --cluster dgx-h100 2>&1)
  rc=$?
  [ $rc -eq 0 ] || fail "plan exited $rc: $out"
  grep -q "^hcp-plan plan: llama3_8b_128k on 4 x 8 .* (dgx-h100), 32 GPUs" <<<"$out" ||
    fail "plan header: $(head -1 <<<"$out")"
  grep -q "^recommended: " <<<"$out" || fail "plan printed no recommendation"
  echo "plan: $(head -1 <<<"$out")"

  run_installed plan llama3_8b_128k --nodes 4 --gpus-per-node 8 --cluster no-such-cluster \
    >/dev/null 2>&1
  [ $? -eq 2 ] || fail "plan with an unknown cluster did not exit 2"

  local man
  man=$(ls "$ROOT"/usr/share/man/man1/hcp-plan.1* 2>/dev/null | head -1)
  [ -s "$man" ] || fail "man page missing under $ROOT/usr/share/man/man1"
  if command -v man >/dev/null 2>&1; then
    MANWIDTH=80 man -l "$man" 2>/dev/null | grep -q "hcp-plan" || fail "man -l $man rendered nothing"
  fi
  local bash_completion="$ROOT/usr/share/bash-completion/completions/hcp-plan"
  [ -s "$bash_completion" ] || fail "bash completion missing"
  bash -c "source '$bash_completion' && complete -p hcp-plan" >/dev/null ||
    fail "the bash completion registers no completion for hcp-plan"
  [ -s "$ROOT/usr/share/zsh/vendor-completions/_hcp-plan" ] || fail "zsh completion missing"
  [ -s "$ROOT/usr/share/fish/vendor_completions.d/hcp-plan.fish" ] || fail "fish completion missing"
  [ -s "$ROOT/usr/share/hcp-plan/recipes/clusters/dgx-h100.yaml" ] || fail "cluster profiles missing"
}

# The optional CUDA benchmark package: its own Depends, and `bench` finds the installed library.
check_gpu_bench_package() {
  local deb=$1 cli_deb=$2 out
  check_depends_are_debian "$deb"
  field "$deb" Depends | grep -q "hcp-plan (= $(field "$cli_deb" Version))" ||
    fail "$deb does not depend on the same hcp-plan version"
  field "$cli_deb" Suggests | grep -q hcp-plan-gpu-bench || fail "hcp-plan does not suggest $deb"
  dpkg -x "$deb" "$ROOT" || fail "dpkg -x $deb"
  [ -s "$ROOT/usr/lib/hcp-plan/libhcp_gpu_bench.so" ] || fail "libhcp_gpu_bench.so not installed"
  out=$(run_installed bench llama3_8b_128k --option "tp=1,cp=8,cp_comm_type=p2p" --warmup 0 \
    --iterations 1 --save "$ROOT/calibration.json" 2>&1)
  if grep -q "GPU benchmark library (" <<<"$out"; then
    fail "bench did not find the installed library: $out"
  fi
  echo "bench: $(head -1 <<<"$out")"
}

install_packages() {
  local work=$1 cli_deb gpu_deb
  need_tools dpkg-deb dpkg-shlibdeps file dpkg dpkg-query
  cli_deb=$(ls "$work"/hcp-plan_*.deb 2>/dev/null | head -1)
  [ -n "$cli_deb" ] || fail "no hcp-plan_*.deb in $work (did package_deb_build run?)"
  ROOT=$(mktemp -d) || fail "mktemp"
  ROOT=$(cd "$ROOT" && pwd -P)
  trap 'rm -rf "$ROOT"' EXIT
  check_cli_package "$cli_deb"
  gpu_deb=$(ls "$work"/hcp-plan-gpu-bench_*.deb 2>/dev/null | head -1)
  if [ -n "$gpu_deb" ]; then
    check_gpu_bench_package "$gpu_deb" "$cli_deb"
  else
    echo "no hcp-plan-gpu-bench package (built without the CUDA kernels)"
  fi
  echo "PASS"
}

case "${1:-}" in
  build) [ $# -eq 4 ] || fail "usage: $0 build CPACK BUILD_DIR WORK_DIR"; build_packages "$2" "$3" "$4" ;;
  install) [ $# -eq 2 ] || fail "usage: $0 install WORK_DIR"; install_packages "$2" ;;
  *) fail "usage: $0 build CPACK BUILD_DIR WORK_DIR | install WORK_DIR" ;;
esac
