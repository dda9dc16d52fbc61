#!/usr/bin/env bash
# Run scripts/gpu_check.py on a GPU node with a carried build: hcp-plan, libhcp_gpu_bench.so and
# libhwloc.so.15 in one folder (the node has none of the project's Debian libraries). cuBLAS and
# NCCL are the node's own (the CUDA toolkit's, or PyTorch's wheels), found here and put on
# LD_LIBRARY_PATH.
# Usage: scripts/gpu_check.sh CARRIED_DIR OUT_DIR [--quick]
set -uo pipefail
carried=$(cd "${1:?usage: gpu_check.sh CARRIED_DIR OUT_DIR [--quick]}" && pwd)
out=${2:?usage: gpu_check.sh CARRIED_DIR OUT_DIR [--quick]}
shift 2
here=$(cd "$(dirname "$0")" && pwd)

# The folder of the first of these libraries found under the usual prefixes, one per line.
library_dirs() {
  local name dir
  for name in libcublas.so.13 libcublasLt.so.13 libnccl.so.2; do
    dir=$(find /usr/local/cuda/lib64 /usr/local/cuda/lib /usr/local /opt /usr/lib -name "$name" \
      -print -quit 2>/dev/null | xargs -r dirname)
    [ -n "$dir" ] && echo "$dir"
  done
}
paths=$(library_dirs | sort -u | paste -sd:)
export LD_LIBRARY_PATH="$carried${paths:+:$paths}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export HCP_GPU_BENCH_LIB="$carried/libhcp_gpu_bench.so"
export PYTHONUNBUFFERED=1
echo "gpu_check: LD_LIBRARY_PATH=$LD_LIBRARY_PATH"
exec python3 "$here/gpu_check.py" --hcp-plan "$carried/hcp-plan" \
  --gpu-bench-lib "$carried/libhcp_gpu_bench.so" --out "$out" "$@"
