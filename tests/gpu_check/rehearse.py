#!/usr/bin/env python3
"""Rehearse scripts/gpu_check.py on a machine without a GPU (ctest gpu_check_rehearsal).

Every GPU check must report itself skipped with the reason, each hcp-plan command must give the
exit status the man page promises without a GPU (3 for bench, probe --require-gpu and
plan --confirm), the checks that need no GPU must have run (preflight's NO-GO with CP001), and the
script must succeed, so that the one real run on a GPU machine is not its first.
Usage: rehearse.py HCP_PLAN. Exit 77 (skipped) where a GPU is present: run scripts/gpu_check.sh.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "..", "..", "scripts", "gpu_check.py")


def main():
    hcp = os.path.abspath(sys.argv[1])
    if shutil.which("nvidia-smi"):
        print("SKIPPED: this machine has nvidia-smi; run scripts/gpu_check.sh for the real check")
        return 77
    problems = []
    with tempfile.TemporaryDirectory() as out:
        env = dict(os.environ, HCP_GPU_BENCH_LIB="/nonexistent/libhcp_gpu_bench.so")
        p = subprocess.run([sys.executable, SCRIPT, "--hcp-plan", hcp, "--out", out, "--quick"],
                           capture_output=True, text=True, env=env, timeout=600)
        if p.returncode != 0:
            problems.append(f"gpu_check.py exited {p.returncode}: {p.stderr.strip()[-400:]}")
        with open(os.path.join(out, "results.json"), encoding="utf-8") as f:
            result = json.load(f)
    if result["gpu"] or not result["no_gpu_reason"]:
        problems.append("results.json does not say why there is no GPU")
    for name, check in result["checks"].items():
        if name == "preflight":
            continue
        if not check["verdict"].startswith("skipped: "):
            problems.append(f"{name}: verdict {check['verdict']!r}, expected 'skipped: <why>'")
    for row in result["checks"]["attention"]["rows"]:
        if row["hcp_plan"]["exit"] != 3:
            problems.append(f"bench at {row['seq_length']} tokens exited {row['hcp_plan']['exit']}, "
                            "expected 3 (no GPU)")
    probe = result["checks"]["probe"]["runs"][0]
    if probe["exit"] != 3:
        problems.append(f"probe --require-gpu exited {probe['exit']}, expected 3")
    confirm = result["checks"]["plan_confirm"]["runs"][0]
    if confirm["exit"] != 3 or "--confirm needs a GPU node" not in confirm["stderr"]:
        problems.append(f"plan --confirm exited {confirm['exit']}: {confirm['stderr']}")
    preflight = result["checks"]["preflight"]
    first = preflight["runs"][0]
    ids = {d["id"] for d in (first.get("json") or {}).get("diagnostics", [])}
    if first["exit"] != 1 or "CP001" not in ids:
        problems.append(f"preflight of the CP-8 recipe on one GPU: exit {first['exit']}, ids {ids}")
    if preflight["verdict"] != "skipped: no GPU":
        problems.append(f"preflight verdict {preflight['verdict']!r}")
    for p in problems:
        print("gpu_check rehearsal: " + p)
    if not problems:
        print(f"gpu_check rehearsal: {len(result['checks'])} checks, each skipped or run as "
              "expected without a GPU")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
