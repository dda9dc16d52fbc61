#!/usr/bin/env python3
"""Read Megatron-Bridge's performance workload presets at each release tag and attach the
settings of the matching preset to every performance-summary row of the corpus.

Usage: extract_bridge_settings.py BRIDGE_GIT_DIR IN_CORPUS.json OUT_CORPUS.json

The presets live in scripts/performance/configs/<model>/*workload_base_configs.py (v0.2.0 to
v0.5.1). Each file only builds `WorkloadBaseConfig` objects with dataclasses.replace, so it is
evaluated here against a stand-in class that records keyword arguments (no Bridge import).
Rows are matched to presets of the same model family, GPU and precision whose parallel sizes
(TP, PP, CP, VP, EP, MBS) agree with the row; the tag tried first is the release whose
performance summary first lists the row's container.
"""
import json
import re
import subprocess
import sys
import types
from dataclasses import dataclass, field, replace

TAGS = ["v0.2.0", "v0.2.1", "v0.2.2", "v0.3.0", "v0.3.1", "v0.4.0", "v0.4.1", "v0.4.2",
        "v0.5.0", "v0.5.1"]
# Container -> the Bridge tags whose docs/performance-summary.md first list it as newest.
CONTAINER_TAGS = {
    "25.09": ["v0.2.0"], "25.11": ["v0.2.1", "v0.2.2"], "26.02": ["v0.3.0", "v0.3.1"],
    "26.02.01": ["v0.4.0", "v0.4.1"], "26.04": ["v0.4.1", "v0.4.2"], "26.04.01": ["v0.4.2"],
    "26.06": ["v0.5.0", "v0.5.1"], "26.06.01": ["v0.5.1"], "26.08": [],
}
SETTINGS = ["micro_batch_size", "global_batch_size", "num_gpus", "use_megatron_fsdp",
            "cpu_offloading_num_layers", "recompute_num_layers", "recompute_modules",
            "cuda_graph_impl", "cuda_graph_scope", "nccl_ub", "moe_flex_dispatcher_backend",
            "moe_a2a_overlap", "fp8_dot_product_attention", "pp_layout",
            "expert_tensor_parallel_size", "cutedsl_fused_grouped_mlp"]


@dataclass
class WorkloadBaseConfig:
    fields_: dict = field(default_factory=dict)

    def __init__(self, **kw):
        self.fields_ = dict(kw)


def _replace(base, **kw):
    out = WorkloadBaseConfig(**base.fields_)
    out.fields_.update(kw)
    return out


def git(repo, *args):
    return subprocess.run(["git", "-C", repo, *args], check=True, capture_output=True,
                          text=True).stdout


def presets(repo, tag):
    out = {}
    for path in git(repo, "ls-tree", "-r", "--name-only", tag).splitlines():
        if not re.search(r"scripts/performance/configs/.*workload_base_configs\.py$", path):
            continue
        src = git(repo, "show", f"{tag}:{path}")
        src = re.sub(r"^from dataclasses import replace\s*$", "", src, flags=re.M)
        src = re.sub(r"^from utils\.utils import .*$", "", src, flags=re.M)
        ns = {"WorkloadBaseConfig": WorkloadBaseConfig, "replace": _replace}
        try:
            exec(compile(src, path, "exec"), ns)  # noqa: S102 (upstream data file, read-only)
        except Exception as e:  # a file needing more than the stand-in: skip it, say so
            print(f"skip {tag}:{path}: {e}", file=sys.stderr)
            continue
        for name, value in ns.items():
            if isinstance(value, WorkloadBaseConfig) and not name.startswith("BASE"):
                out[name] = (path, value.fields_)
    return out


FAMILY = {  # corpus model -> preset name prefix
    "LLAMA3_70B": "LLAMA3_70B", "LLAMA3_8B": "LLAMA3_8B", "Qwen3_30B_a3B": "QWEN3_30B_A3B",
    "Qwen3_30B_a3B (tokendrop)": "QWEN3_30B_A3B", "GPT OSS 120B": "GPT_OSS_120B",
    "DeepSeekV3": "DEEPSEEK_V3", "DeepSeekV3 (w/o MTP)": "DEEPSEEK_V3",
    "DeepSeekV3 (tokendrop)": "DEEPSEEK_V3", "DeepSeekV3 (dropless)": "DEEPSEEK_V3",
    "DeepSeekV3 (w/ MTP)": "DEEPSEEK_V3", "Nemotron_3_Nano": "NEMOTRON_3_NANO",
    "Nemotron_3_Super": "NEMOTRON_3_SUPER", "Nemotron_3_Ultra": "NEMOTRON_3_ULTRA",
    "Nemotron_3_5_Lightning": "NEMOTRON_3_5_LIGHTNING", "DeepSeekV4 Flash": "DEEPSEEK_V4_FLASH",
}
PRECISION = {"BF16": ["BF16"], "FP8": ["FP8_CS", "FP8_DS", "FP8"], "FP8-CS": ["FP8_CS"],
             "FP8-DS": ["FP8_DS"], "FP8-MX": ["FP8_MX"], "MXFP8": ["FP8_MX", "MXFP8"],
             "FP8-Block": ["FP8_SC", "FP8_BLOCK"], "NVFP4": ["NVFP4"], "FP8-SC": ["FP8_SC"]}
TASK = {"Pre-Training Performance": "PRETRAIN", "SFT Performance": "SFT",
        "LoRA Performance": "LORA"}


def vp_of(row):
    try:
        return int(row.get("vp"))
    except (TypeError, ValueError):
        return None


def matches(row, f):
    checks = [("tensor_model_parallel_size", row.get("tp"), 1),
              ("pipeline_model_parallel_size", row.get("pp"), 1),
              ("context_parallel_size", row.get("cp"), 1),
              ("expert_model_parallel_size", row.get("ep"), 1),
              ("micro_batch_size", row.get("mbs"), 1)]
    for key, want, default in checks:
        if want is None:
            continue
        if f.get(key, default) != want:
            return False
    want_vp = vp_of(row)
    got_vp = f.get("virtual_pipeline_model_parallel_size")
    return (want_vp or None) == (got_vp if got_vp and got_vp > 1 else None) or (
        want_vp in (None, 1) and got_vp in (None, 1))


def name_ok(name, row):
    fam = FAMILY.get(row["model"])
    gpu = row["system"].replace("DGX-", "")
    task = TASK.get(row["section"], "PRETRAIN")
    if not fam or not name.startswith(fam + "_"):
        return False
    if f"_{gpu}_" not in name or f"_{task}" not in name and task not in name:
        return False
    prec = row.get("precision") or ""
    if not prec or "(" in prec:  # archive rows that merge precisions ("FP8-CS (FP8-MX)")
        return True
    precs = PRECISION.get(prec, [prec.replace("-", "_")])
    return any(re.search(rf"_{p}(_|$)", name) for p in precs)


# Rows whose published layout contradicts every preset of their release (read at the tags named)
# and, for the first, the memory arithmetic: why no preset matches, beyond "none found".
PUBLISHED_LAYOUT_CONFLICTS = {
    ("26.02.01", "LLAMA3_70B", "DGX-GB300", "NVFP4"):
        "published TP1 PP1 FSDP 0 MBS 2 GBS 256 matches no preset: the GB300 NVFP4 presets of "
        "v0.3.0 (21b02e0c), v0.3.1 and v0.4.0 (0fbfe7d3) llama3_workload_base_configs.py are PP4 "
        "VP5 MBS 1 (V1 GBS 128, V2 GBS 256), and TP1 PP1 MBS 2 is the FP8-CS preset, which sets "
        "use_megatron_fsdp=True. Without FSDP each GPU would hold all 70.6B parameters: BF16 "
        "weights and BF16 gradients alone take 282 GB (FP32 gradients: 423 GB) of the GB300's "
        "288 GB, leaving 6 GB for the NVFP4 weight copies (~35 GB), the optimizer shard and the "
        "activations, so the published layout cannot be the one that ran as written",
    ("26.02.01", "LLAMA3_70B", "DGX-GB300", "MXFP8"):
        "published PP4 without VP, MBS 2, GBS 256 matches no preset: the GB300 FP8-MX presets of "
        "v0.3.0 (21b02e0c), v0.3.1 and v0.4.0 (0fbfe7d3) llama3_workload_base_configs.py are PP4 "
        "VP5 MBS 1; with MBS 2 and no VP the first stage keeps 4 micro-batches of 20 layers, which "
        "fits only with a recompute or offload setting the table does not give",
    ("25.11", "GPT OSS 120B", "DGX-H100", "BF16"):
        "published MBS 4 (GA 2) matches no preset: the H100 BF16 preset of v0.2.0 (7af9601c, the "
        "25.11 release) gpt_oss/workload_base_configs.py is PP4 EP8 MBS 1 GBS 512 with "
        "recompute_modules layernorm,moe_act; GBS 512 on DP 16 with MBS 4 gives 8 micro-batches "
        "per step, not the 2 the table prints",
}


def main():
    repo, src, dst = sys.argv[1:4]
    corpus = json.load(open(src))
    cache = {}
    tag_commit = {t: git(repo, "rev-list", "-n1", t).strip() for t in TAGS}
    found = 0
    for row in corpus["megatron_bridge_performance_summary"]:
        tried = CONTAINER_TAGS.get(row["container"], [])
        order = tried + [t for t in reversed(TAGS) if t not in tried]
        hit = None
        for tag in order:
            if tag not in cache:
                cache[tag] = presets(repo, tag)
            cands = [(n, p, f) for n, (p, f) in cache[tag].items()
                     if name_ok(n, row) and matches(row, f)]
            if cands:
                cands.sort(key=lambda c: (not c[0].endswith("_V1"), c[0]))
                hit = (tag, *cands[0], tag in tried, [c[0] for c in cands])
                break
        if hit is None:
            why = ("container 26.08 = Bridge v0.6.0, whose presets moved to "
                   "src/megatron/bridge/perf_recipes/ (Python recipes, not read here)"
                   if row["container"] == "26.08" else
                   "no preset of this model, GPU and precision with the row's TP/PP/CP/VP/EP/MBS "
                   "in Bridge v0.2.0-v0.5.1")
            conflict = PUBLISHED_LAYOUT_CONFLICTS.get(
                (row["container"], row["model"], row["system"], row["precision"]))
            if conflict:
                why += "; " + conflict
            row["settings_source"] = {"found": False, "why": why}
            continue
        tag, name, path, f, same_release, all_names = hit
        found += 1
        row["settings_source"] = {
            "found": True, "repo": "NVIDIA-NeMo/Megatron-Bridge", "tag": tag,
            "commit": tag_commit[tag], "path": path, "preset": name,
            "release_of_container": same_release,
            "note": ("preset of the release that published this container" if same_release
                     else "nearest release with a preset matching the row's parallel sizes"),
        }
        if len(all_names) > 1:
            row["settings_source"]["other_matching_presets"] = all_names[1:]
        row["settings"] = {k: f[k] for k in SETTINGS if k in f and f[k] is not None}
        row["settings"]["recompute"] = ("recompute_modules " + ",".join(f["recompute_modules"])
                                        if f.get("recompute_modules") else
                                        "recipe default (preset does not override)")
    print(f"settings found for {found} of "
          f"{len(corpus['megatron_bridge_performance_summary'])} rows", file=sys.stderr)
    json.dump(corpus, open(dst, "w"), indent=1)


if __name__ == "__main__":
    main()
