#!/usr/bin/env python3
"""Run hcp-plan's GPU paths for real on one GPU node and write what they did as one JSON file.

Usage: scripts/gpu_check.py --hcp-plan BUILD/hcp-plan --out DIR [--quick]

Checks, each with its figures and a verdict ("pass", "fail" or "skipped: <why>"):
  environment  nvidia-smi, nvcc, PyTorch, cuDNN and NCCL versions
  attention    `hcp-plan bench` on causal hdim-128 shapes of 4K to 128K tokens, each of our
               kernels (wgmma-sm90a, mma-sm80) forced in turn, with PyTorch's
               scaled_dot_product_attention (cuDNN and flash backends) timed on the same shapes
               in the same run, and the default kernel's ratio to the faster of the two
  kernel_matrix  every attention kernel instantiation (bf16/fp16, head dim 64/128, causal or a
               ring step, grouped or plain multi-head; at head dim 128 each kernel) against the
               cuBLAS reference
  sass         cuobjdump of libhcp_gpu_bench.so: the wgmma kernel's warpgroup MMAs (HGMMA) are
               there, so it is not on the slower mma.sync path (HMMA counted beside them)
  sanitizer    compute-sanitizer memcheck and racecheck over one small bench
  nccl_smoke   libhcp_gpu_bench.so's collective path on one rank (all-to-all and send/recv),
               the data each rank received checked; no bandwidth figure comes from one GPU
  gemm         cuBLAS BF16 and FP8 GEMM rates through PyTorch (the component that the planner's
               FP8/BF16 GEMM-rate ratio stands for)
  probe        `hcp-plan probe` live (NVML dlopened), from `nvidia-smi topo -m`, and --save, with
               a `plan` on the profile it saved
  preflight    `hcp-plan preflight` of a shipped recipe on this node: NO-GO (CP001) as shipped on
               one GPU, and the node found with CP 1
  plan_confirm `hcp-plan plan --confirm 2` of the seed's decision, and `plan --calibration` with
               the file `bench` wrote

On a machine without a GPU every GPU check reports "skipped" and the script still succeeds: that
is the rehearsal (ctest gpu_check_rehearsal). It exits 1 when a check that ran failed.
"""

import argparse
import ctypes
import json
import os
import platform
import shutil
import subprocess
import sys
import time

# Our kernel's FLOP convention, shared with kernels/bench_api.cu and FlashAttention's benchmarks:
# 4 * b * h * sq * skv * d for the forward, halved for a causal square; the backward is 2.5x that.
BACKWARD_FLOP_FACTOR = 2.5
# The recipe whose shapes the attention check uses: Llama 3 8B (32 heads, 8 KV heads, hdim 128).
SEED_RECIPE = "llama3_8b_128k"
# a2a over 4 ranks: each rank attends over the whole sequence with 32/4 heads and 8/4 KV heads.
ATTENTION_OPTION = "tp=1,cp=4,cp_comm_type=a2a"
ATTENTION_LENGTHS = (4096, 16384, 65536, 131072)
# Largest |ours - cuBLAS reference| accepted for bf16 outputs of values in [-1, 1] (bf16 keeps
# 8 mantissa bits: a relative step of 2^-8 = 0.0039 near 1).
ATTENTION_TOLERANCE = 2e-2


# hcp-plan's two forward kernels (kernels/flash_attention.cuh); HCP_ATTENTION_KERNEL picks one.
KERNELS = ("wgmma-sm90a", "mma-sm80")


def kernel_env(kernel):
    """The environment that makes `bench` run `kernel` (None: the library's own choice)."""
    if kernel is None:
        return None
    env = dict(os.environ)
    env["HCP_ATTENTION_KERNEL"] = kernel
    return env


def run(cmd, timeout=300, env=None):
    """Run a command; return (exit code, stdout, stderr, seconds). Never raises on failure."""
    start = time.monotonic()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
        return p.returncode, p.stdout, p.stderr, time.monotonic() - start
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
        return 124, out, f"timed out after {timeout} s", time.monotonic() - start
    except OSError as e:
        return 127, "", str(e), time.monotonic() - start


def tail(text, lines=12):
    return "\n".join(text.strip().splitlines()[-lines:])


def command_record(cmd, code, out, err, seconds):
    return {"command": " ".join(cmd), "exit": code, "seconds": round(seconds, 2),
            "stderr": tail(err)}


def gpu_present():
    if shutil.which("nvidia-smi") is None:
        return False, "nvidia-smi not found"
    code, out, err, _ = run(["nvidia-smi", "-L"], timeout=30)
    if code != 0 or "GPU" not in out:
        return False, "nvidia-smi -L lists no GPU: " + tail(err or out, 1)
    return True, ""


def check_environment():
    env = {"host": platform.node(), "machine": platform.machine(), "python": sys.version.split()[0]}
    code, out, _, _ = run(["nvidia-smi", "--query-gpu=name,driver_version,memory.total,"
                           "clocks.max.sm,power.limit", "--format=csv,noheader"], timeout=30)
    if code == 0:
        env["nvidia_smi"] = [line.strip() for line in out.strip().splitlines()]
    code, out, _, _ = run(["nvcc", "--version"], timeout=30)
    if code == 0:
        env["nvcc"] = tail(out, 1)
    try:
        import torch  # noqa: PLC0415 (only on the GPU node)
        env["torch"] = torch.__version__
        env["torch_cuda"] = torch.version.cuda
        env["cudnn"] = torch.backends.cudnn.version()
        nccl = torch.cuda.nccl.version() if torch.cuda.is_available() else None
        env["torch_nccl"] = ".".join(map(str, nccl)) if isinstance(nccl, tuple) else nccl
    except ImportError as e:
        env["torch"] = f"not importable: {e}"
    return env


def torch_or_reason():
    try:
        import torch  # noqa: PLC0415
    except ImportError as e:
        return None, f"skipped: PyTorch not importable ({e})"
    if not torch.cuda.is_available():
        return None, "skipped: PyTorch sees no CUDA GPU"
    return torch, ""


def time_cuda(torch, fn, warmup, iterations):
    """Mean milliseconds per call of fn, by CUDA events, after warm-up."""
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    start = torch.cuda.Event(enable_timing=True)
    stop = torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(iterations):
        fn()
    stop.record()
    torch.cuda.synchronize()
    return start.elapsed_time(stop) / iterations


def sdpa_rates(torch, shape, warmup, iterations):
    """Forward and forward+backward TFLOP/s of PyTorch SDPA per backend on one causal shape.

    K and V are expanded to the query heads (the backends' common ground; the FLOPs are the
    same as grouped-query attention's)."""
    from torch.nn.attention import SDPBackend, sdpa_kernel  # noqa: PLC0415
    b, h, s, d = shape["batch"], shape["heads"], shape["seq_q"], shape["head_dim"]
    gen = torch.Generator(device="cuda").manual_seed(0)

    def tensor():
        return (torch.rand((b, h, s, d), device="cuda", dtype=torch.bfloat16, generator=gen) * 2 - 1)

    q, k, v = tensor(), tensor(), tensor()
    fwd_flops = 4.0 * b * h * s * s * d / 2
    out = {}
    reference = None
    for name, backend in (("cudnn", SDPBackend.CUDNN_ATTENTION),
                          ("flash", SDPBackend.FLASH_ATTENTION)):
        row = {}
        try:
            with sdpa_kernel([backend]):
                o = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
                if reference is None:
                    reference = o
                else:
                    row["max_abs_diff_vs_cudnn"] = float((o.float() - reference.float()).abs().max())
                ms = time_cuda(torch, lambda: torch.nn.functional.scaled_dot_product_attention(
                    q, k, v, is_causal=True), warmup, iterations)
                row["forward_ms"] = ms
                row["forward_tflops"] = fwd_flops / (ms * 1e-3) / 1e12
                qg, kg, vg = (t.detach().requires_grad_() for t in (q, k, v))
                grad = torch.ones_like(q)

                def step():
                    o = torch.nn.functional.scaled_dot_product_attention(qg, kg, vg, is_causal=True)
                    o.backward(grad)

                ms = time_cuda(torch, step, warmup, iterations)
                row["forward_backward_ms"] = ms
                bwd_ms = ms - row["forward_ms"]
                row["backward_ms"] = bwd_ms
                row["backward_tflops"] = BACKWARD_FLOP_FACTOR * fwd_flops / (bwd_ms * 1e-3) / 1e12
        except RuntimeError as e:  # a backend that refuses the shape says so
            row["error"] = tail(str(e), 2)
        out[name] = row
    return out


def bench_attention(hcp, out_dir, quick):
    """Our kernel through `hcp-plan bench`, and PyTorch SDPA on the same shapes."""
    torch, torch_reason = torch_or_reason()
    rows = []
    verdict = "pass"
    lengths = ATTENTION_LENGTHS[:2] if quick else ATTENTION_LENGTHS
    for length in lengths:
        iterations = 10 if length <= 16384 else 3
        # One calibration file comes back (plan --calibration reads it); the rest are in the JSON.
        save = os.path.join(out_dir, "calibration_16384.json") if length == 16384 else os.devnull
        cmd = [hcp, "bench", SEED_RECIPE, f"model.seq_length={length}",
               f"dataset.seq_length={length}", "--option", ATTENTION_OPTION, "--format", "json",
               "--warmup", "2", "--iterations", str(iterations)]
        code, out, err, secs = run(cmd + ["--save", save])
        row = {"seq_length": length, "hcp_plan": command_record(cmd, code, out, err, secs)}
        if code == 3:
            row["verdict"] = "skipped: " + tail(err, 1)
            rows.append(row)
            verdict = row["verdict"] if verdict == "pass" else verdict
            continue
        if code != 0:
            row["verdict"] = "fail"
            verdict = "fail"
            rows.append(row)
            continue
        calibration = json.loads(out)
        ours = calibration["attention"][0]
        row["shape"] = {k: ours[k] for k in ("batch", "heads", "kv_heads", "head_dim", "seq_q",
                                             "seq_kv", "causal")}
        row["ours"] = {"kernel": ours.get("kernel"), "forward_ms": ours["time_ms"],
                       "forward_tflops": ours["tflops"],
                       "max_abs_error_vs_cublas": ours.get("max_abs_error"),
                       "backward": "not implemented (the kernels are forward-only)"}
        error = ours.get("max_abs_error")
        row["verdict"] = "pass" if error is not None and error <= ATTENTION_TOLERANCE else "fail"
        # Every kernel that can run this shape, timed in the same run (the default is one of them).
        row["kernels"] = {}
        for kernel in KERNELS:
            code, out, err, secs = run(cmd + ["--save", os.devnull], env=kernel_env(kernel))
            record = {"exit": code, "stderr": tail(err, 2)}
            if code == 0:
                a = json.loads(out)["attention"][0]
                record.update({"forward_ms": a["time_ms"], "forward_tflops": a["tflops"],
                               "max_abs_error_vs_cublas": a.get("max_abs_error")})
                bad = a.get("max_abs_error") is None or a["max_abs_error"] > ATTENTION_TOLERANCE
                if bad:
                    row["verdict"] = "fail"
            row["kernels"][kernel] = record
        if torch is None:
            row["sdpa"] = torch_reason
        else:
            row["sdpa"] = sdpa_rates(torch, row["shape"], 2, iterations)
            best = max((r.get("forward_tflops", 0.0) for r in row["sdpa"].values()), default=0.0)
            if best > 0:
                row["ours_over_faster_sdpa_forward"] = ours["tflops"] / best
        if row["verdict"] == "fail":
            verdict = "fail"
        rows.append(row)
    return {"verdict": verdict, "tolerance": ATTENTION_TOLERANCE, "option": ATTENTION_OPTION,
            "recipe": SEED_RECIPE, "rows": rows}


def kernel_matrix(hcp):
    """Every instantiation of the attention kernels (bf16/fp16 x head dim 64/128 x causal or not)
    with grouped and plain multi-head attention, each checked against the cuBLAS reference. Head
    dim 128 runs each kernel; the wgmma kernel has no head dim 64."""
    rows = []
    verdict = "pass"
    layouts = (("causal", "tp=1,cp=4,cp_comm_type=a2a"), ("ring step", "tp=1,cp=2,cp_comm_type=p2p"))
    for dtype in ("bf16", "fp16"):
        for head_dim, heads, kernel in ((128, 32, KERNELS[0]), (128, 32, KERNELS[1]),
                                        (64, 64, KERNELS[1])):
            for groups in (8, heads):  # grouped-query, then one KV head per query head
                for mask, option in layouts:
                    # Two sequences a micro-batch: bench's cuBLAS check then covers the
                    # batch offsets too.
                    cmd = [hcp, "bench", SEED_RECIPE, "model.seq_length=8192",
                           "dataset.seq_length=8192", "train.micro_batch_size=2",
                           f"model.kv_channels={head_dim}",
                           f"model.num_attention_heads={heads}", f"model.num_query_groups={groups}",
                           "--option", option, "--dtype", dtype, "--warmup", "1",
                           "--iterations", "2", "--format", "json", "--save", os.devnull]
                    code, out, err, secs = run(cmd, env=kernel_env(kernel))
                    row = {"dtype": dtype, "head_dim": head_dim, "heads": heads,
                           "kv_heads": groups, "mask": mask, "kernel": kernel, "exit": code}
                    if code == 3:
                        row["verdict"] = "skipped: " + tail(err, 1)
                    elif code != 0:
                        row.update({"verdict": "fail", "stderr": tail(err, 3)})
                    else:
                        a = json.loads(out)["attention"][0]
                        error = a.get("max_abs_error")
                        row.update({"tflops": a["tflops"], "max_abs_error_vs_cublas": error,
                                    "seq_q": a["seq_q"], "seq_kv": a["seq_kv"]})
                        row["verdict"] = ("pass" if error is not None
                                          and error <= ATTENTION_TOLERANCE else "fail")
                    rows.append(row)
                    if row["verdict"] == "fail":
                        verdict = "fail"
                    elif row["verdict"].startswith("skipped") and verdict == "pass":
                        verdict = row["verdict"]
    return {"verdict": verdict, "tolerance": ATTENTION_TOLERANCE, "rows": rows}


class CollectiveRequest(ctypes.Structure):
    _fields_ = [("op", ctypes.c_int), ("bytes", ctypes.c_int64), ("ranks", ctypes.c_int),
                ("warmup", ctypes.c_int), ("iterations", ctypes.c_int)]


class CollectiveResult(ctypes.Structure):
    _fields_ = [("time_us", ctypes.c_double), ("algbw_gbps", ctypes.c_double),
                ("busbw_gbps", ctypes.c_double)]


def nccl_smoke(library):
    """One-rank all-to-all and send/recv through libhcp_gpu_bench.so, data checked."""
    if not os.path.exists(library):
        return {"verdict": f"skipped: {library} not built"}
    try:
        lib = ctypes.CDLL(library)
    except OSError as e:
        return {"verdict": f"skipped: cannot load {library}: {e}"}
    rows = []
    verdict = "pass"
    for op, name in ((0, "alltoall"), (1, "sendrecv")):
        request = CollectiveRequest(op, 64 << 20, 1, 2, 10)
        result = CollectiveResult()
        error = ctypes.create_string_buffer(512)
        code = lib.hcp_gpu_bench_collective(ctypes.byref(request), ctypes.byref(result), error,
                                            ctypes.c_size_t(512))
        row = {"op": name, "bytes": request.bytes, "ranks": 1}
        if code == 0:
            row.update({"verdict": "pass", "time_us": result.time_us,
                        "algbw_gbps": result.algbw_gbps})
        else:
            row.update({"verdict": "fail", "error": error.value.decode(errors="replace")})
            verdict = "fail"
        rows.append(row)
    return {"verdict": verdict, "rows": rows,
            "note": "one rank: NCCL's local path and our data check, no link bandwidth"}


def gemm_rates(quick):
    """cuBLAS BF16 and FP8 (E4M3, per-tensor scale) GEMM TFLOP/s through PyTorch."""
    torch, reason = torch_or_reason()
    if torch is None:
        return {"verdict": reason}
    sizes = ((4096, 4096, 4096), (8192, 8192, 8192)) if quick else (
        (2048, 2048, 2048), (4096, 4096, 4096), (8192, 8192, 8192), (16384, 8192, 8192),
        (8192, 28672, 4096), (8192, 4096, 14336))
    rows = []
    for m, n, k in sizes:
        a = torch.randn((m, k), device="cuda", dtype=torch.bfloat16)
        b = torch.randn((n, k), device="cuda", dtype=torch.bfloat16)
        flops = 2.0 * m * n * k
        ms = time_cuda(torch, lambda: a @ b.t(), 3, 20)
        row = {"m": m, "n": n, "k": k, "bf16_tflops": flops / (ms * 1e-3) / 1e12}
        try:
            a8 = a.to(torch.float8_e4m3fn)
            b8 = b.to(torch.float8_e4m3fn)
            one = torch.ones((), device="cuda", dtype=torch.float32)
            ms8 = time_cuda(torch, lambda: torch._scaled_mm(a8, b8.t(), scale_a=one, scale_b=one,
                                                            out_dtype=torch.bfloat16), 3, 20)
            row["fp8_tflops"] = flops / (ms8 * 1e-3) / 1e12
            row["fp8_over_bf16"] = row["fp8_tflops"] / row["bf16_tflops"]
        except (RuntimeError, AttributeError) as e:
            row["fp8_error"] = tail(str(e), 1)
        rows.append(row)
    return {"verdict": "pass", "rows": rows}


def hcp_json(hcp, args, timeout=120):
    cmd = [hcp] + args
    code, out, err, secs = run(cmd, timeout=timeout)
    record = command_record(cmd, code, out, err, secs)
    try:
        record["json"] = json.loads(out) if out.strip() else None
    except json.JSONDecodeError:
        record["stdout"] = tail(out, 40)
    return code, record


def check_probe(hcp, out_dir, have_gpu):
    records = []
    code, rec = hcp_json(hcp, ["probe", "--require-gpu", "--format", "json"])
    records.append(rec)
    verdict = "pass" if code == 0 else ("skipped: no GPU" if not have_gpu and code == 3 else "fail")
    code, rec = hcp_json(hcp, ["probe", "--nccl", "--format", "json"])
    records.append(rec)
    if have_gpu and code != 0:
        verdict = "fail"
    if have_gpu:
        smi_code, smi, _, _ = run(["nvidia-smi", "topo", "-m"], timeout=30)
        if smi_code == 0:
            path = os.path.join(out_dir, "nvidia-smi-topo.txt")
            with open(path, "w", encoding="utf-8") as f:
                f.write(smi)
            code, rec = hcp_json(hcp, ["probe", "--nvidia-smi-topo", path, "--format", "json"])
            rec["capture"] = smi
            records.append(rec)
            if code != 0:
                verdict = "fail"
        # The node as a cluster profile, and a plan on it: the tool must read what it wrote.
        profile = os.path.join(out_dir, "node-profile.yaml")
        code, rec = hcp_json(hcp, ["probe", "--save", profile, "--name", "gpu-check-node",
                                   "--format", "json"])
        records.append(rec)
        if code != 0 or not os.path.exists(profile):
            verdict = "fail"
        else:
            code, rec = hcp_json(hcp, ["plan", "llama32_1b_128k", "model.context_parallel_size=1",
                                       "--nodes", "1", "--cluster", profile, "--format", "json"])
            records.append(rec)
            if code not in (0, 1):  # 0: a layout fits, 1: none fits; anything else is a fault
                verdict = "fail"
    return {"verdict": verdict, "runs": records}


def check_preflight(hcp, have_gpu):
    """The shipped 1B recipe as it is (CP 8) on one GPU must be NO-GO with CP001; with CP 1, the
    GPU count taken from the probe and CUDA_DEVICE_MAX_CONNECTIONS set, the node itself is found."""
    runs = []
    code, rec = hcp_json(hcp, ["preflight", "llama32_1b_128k", "--nodes", "1", "--gpus-per-node",
                               "1", "--format", "json"])
    runs.append(rec)
    ids = {d["id"] for d in (rec.get("json") or {}).get("diagnostics", [])}
    verdict = "pass" if code == 1 and "CP001" in ids else "fail"
    code, rec = hcp_json(hcp, ["preflight", "llama32_1b_128k", "model.context_parallel_size=1",
                               "--nodes", "1", "--env", "CUDA_DEVICE_MAX_CONNECTIONS=1",
                               "--python", sys.executable, "--format", "json"])
    runs.append(rec)
    node = (rec.get("json") or {}).get("node", {})
    if not have_gpu:
        verdict = "skipped: no GPU" if verdict == "pass" else verdict
    elif code not in (0, 1) or node.get("gpus", 0) < 1:
        verdict = "fail"
    return {"verdict": verdict, "runs": runs}


def check_sass(library):
    """Count the tensor-core instructions in the library's machine code (cuobjdump --dump-sass)."""
    tool = shutil.which("cuobjdump") or "/usr/local/cuda/bin/cuobjdump"
    if not os.path.exists(tool):
        return {"verdict": "skipped: cuobjdump not found"}
    if not os.path.exists(library):
        return {"verdict": f"skipped: {library} not built"}
    code, out, err, _ = run([tool, "--dump-sass", library], timeout=120)
    if code != 0:
        return {"verdict": "fail", "stderr": tail(err, 3)}
    counts = {op: sum(1 for line in out.splitlines() if op + "." in line or op + " " in line)
              for op in ("HGMMA", "HMMA")}
    return {"verdict": "pass" if counts["HGMMA"] > 0 else "fail", "instructions": counts}


def find_sanitizer():
    for candidate in (shutil.which("compute-sanitizer"), "/usr/local/cuda/bin/compute-sanitizer"):
        if candidate and os.path.exists(candidate):
            return candidate
    return None


def check_sanitizer(hcp, have_gpu):
    """compute-sanitizer memcheck and racecheck over one small bench of the attention kernel."""
    if not have_gpu:
        return {"verdict": "skipped: no GPU"}
    tool = find_sanitizer()
    if tool is None:
        return {"verdict": "skipped: compute-sanitizer not found"}
    runs = []
    verdict = "pass"
    for mode in ("memcheck", "racecheck"):
        cmd = [tool, "--tool", mode, "--error-exitcode", "9", hcp, "bench", SEED_RECIPE,
               "model.seq_length=1024", "dataset.seq_length=1024", "--option", ATTENTION_OPTION,
               "--warmup", "0", "--iterations", "1", "--no-check", "--format", "json",
               "--save", os.devnull]
        code, out, err, secs = run(cmd, timeout=120)
        rec = command_record(cmd, code, out, err, secs)
        rec["report"] = tail(out + "\n" + err, 2)
        runs.append(rec)
        if code != 0:
            verdict = "fail"
    return {"verdict": verdict, "runs": runs}


def check_plan_confirm(hcp, out_dir, have_gpu):
    records = []
    seed = ["plan", SEED_RECIPE, "--nodes", "4", "--cluster", "dgx-h100"]
    code, rec = hcp_json(hcp, seed + ["--confirm", "2", "--format", "json"], timeout=300)
    records.append(rec)
    if code == 3 and not have_gpu:
        verdict = "skipped: no GPU"
    else:
        confirm = (rec.get("json") or {}).get("confirm", "")
        said = confirm.count("as estimated") + confirm.count("with the measured figures")
        verdict = "pass" if code == 0 and said == 2 else "fail"
    calibration = os.path.join(out_dir, "calibration_16384.json")
    if os.path.exists(calibration):
        code, rec = hcp_json(hcp, seed + ["--calibration", calibration, "--format", "json"])
        records.append(rec)
        if code != 0:
            verdict = "fail"
    return {"verdict": verdict, "runs": records}


def summary_lines(result):
    lines = []
    env = result["environment"]
    lines.append(f"device: {env.get('nvidia_smi', ['none'])[0]}; torch {env.get('torch')}, "
                 f"cuDNN {env.get('cudnn')}")
    for name, check in result["checks"].items():
        lines.append(f"{name}: {check['verdict']}")
    for row in result["checks"]["attention"]["rows"]:
        if "ours" not in row:
            continue
        sdpa = row.get("sdpa")
        rates = ""
        if isinstance(sdpa, dict):
            rates = ", ".join(f"{k} {v.get('forward_tflops', 0):.0f}/{v.get('backward_tflops', 0):.0f}"
                              for k, v in sdpa.items())
        ratio = row.get("ours_over_faster_sdpa_forward")
        each = ", ".join(f"{k} {v.get('forward_tflops', 0):.0f}"
                         for k, v in row.get("kernels", {}).items())
        lines.append(f"  {row['seq_length']:>6} tokens: ours fwd {row['ours']['forward_tflops']:.0f} "
                     f"TFLOP/s [{row['ours'].get('kernel')}; {each}] "
                     f"(err {row['ours']['max_abs_error_vs_cublas']:.2g})"
                     + (f"; SDPA fwd/bwd {rates}" if rates else "")
                     + (f"; ours/faster {ratio:.2f}" if ratio else ""))
    return lines


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--hcp-plan", required=True, help="the hcp-plan binary")
    parser.add_argument("--gpu-bench-lib", help="libhcp_gpu_bench.so (default: beside hcp-plan)")
    parser.add_argument("--out", required=True, help="folder for results.json and its files")
    parser.add_argument("--quick", action="store_true", help="two sizes of each measurement")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    hcp = os.path.abspath(args.hcp_plan)
    library = args.gpu_bench_lib or os.path.join(os.path.dirname(hcp), "libhcp_gpu_bench.so")
    have_gpu, why = gpu_present()
    started = time.monotonic()
    result = {"date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
              "gpu": have_gpu, "no_gpu_reason": why or None,
              "environment": check_environment(), "checks": {}}
    checks = result["checks"]
    checks["attention"] = bench_attention(hcp, args.out, args.quick)
    checks["kernel_matrix"] = kernel_matrix(hcp) if have_gpu else {"verdict": "skipped: " + why}
    checks["sass"] = check_sass(library) if have_gpu else {"verdict": "skipped: " + why}
    checks["sanitizer"] = check_sanitizer(hcp, have_gpu)
    checks["nccl_smoke"] = nccl_smoke(library) if have_gpu else {"verdict": "skipped: " + why}
    checks["gemm"] = gemm_rates(args.quick)
    checks["probe"] = check_probe(hcp, args.out, have_gpu)
    checks["preflight"] = check_preflight(hcp, have_gpu)
    checks["plan_confirm"] = check_plan_confirm(hcp, args.out, have_gpu)
    result["seconds"] = round(time.monotonic() - started, 1)
    with open(os.path.join(args.out, "results.json"), "w", encoding="utf-8") as f:
        json.dump(result, f, indent=2)
        f.write("\n")
    print("\n".join(summary_lines(result)))
    failed = [name for name, check in checks.items() if check["verdict"] == "fail"]
    if failed:
        print("failed: " + ", ".join(failed), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
