#!/usr/bin/env python3
"""Check recipes/corpus/validation_runs.json against the row schema of measured_runs.json.

Checks: required fields and their types; unique ids; every row names a `framework`; every source
cites a repository + path + commit or a URL, and a location; each model is in this file's `models`
or in measured_runs.json's; each cluster has a profile in recipes/clusters/; GPUs divisible by
TP x PP x CP; GBS divisible by MBS x DP where both are printed; a measured figure; a row measured
only in TFLOP/s says how its publication counted attention (measured.attention_flops); a
Megatron-family row's settings use only keys hcp-plan reads or knows to be informational (a key it
does not read is a setting silently not priced), and every key listed as read is named in the
reader's source; and no row id or source that measured_runs.json already has. Exit 1 with one line
per problem.

Usage: scripts/corpus/check_validation_runs.py [VALIDATION_JSON [MEASURED_JSON]]
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
FRAMEWORKS = {"megatron", "nemo", "bridge", "torchtitan", "mosaic", "deepspeed", "other"}
INT_FIELDS = ("num_gpus", "global_batch", "micro_batch", "seq_length", "tp", "pp", "cp", "vp",
              "ep", "fsdp")
MEASURED = ("tokens_per_s_per_gpu", "model_tflops_per_gpu", "mfu")
MEGATRON_FAMILY = {"megatron", "nemo", "bridge"}
# Settings keys the corpus reader prices (src/accuracy/accuracy_corpus.cpp, row_of and the
# read_* helpers beside it) and keys kept only as a record of the publication.
SETTINGS_READ = {"optimizer", "optimizer_dtype", "grad_sync_dtype", "recompute", "recompute_modules",
                 "recompute_num_layers", "cpu_offloading_num_layers", "fine_grained_activation_offloading",
                 "fp8_dot_product_attention", "use_megatron_fsdp", "cuda_graph_impl", "cuda_graph_scope",
                 "moe_a2a_overlap", "moe_token_dispatcher_type", "moe_flex_dispatcher_backend",
                 "moe_expert_capacity_factor", "moe_pad_expert_input_to_capacity",
                 "moe_router_force_load_balancing",
                 "expert_tensor_parallel_size"}
SETTINGS_RECORD = {"grad_accum", "code"}
ATTENTION_FLOPS = {"full", "causal"}


def source_problems(src):
    if not isinstance(src, dict):
        return ["source is not an object"]
    out = []
    cited = src.get("url") or (src.get("repo") and src.get("path") and src.get("commit"))
    if not cited:
        out.append("source cites neither a URL nor repo+path+commit")
    if not src.get("location"):
        out.append("source has no location (table / section)")
    return out


def layout_problems(r):
    out = []
    for key in INT_FIELDS:
        if key not in r:
            out.append(f"missing field {key} (null when not published)")
        elif r[key] is not None and (not isinstance(r[key], int) or r[key] < 0):
            out.append(f"{key} is not a non-negative integer: {r[key]!r}")
    if out or r.get("excluded"):
        return out
    gpus, tp, pp, cp = (r[k] for k in ("num_gpus", "tp", "pp", "cp"))
    if not gpus:
        return ["num_gpus not published: exclude the row"]
    model_parallel = (tp or 1) * (pp or 1) * (cp or 1)
    if gpus % model_parallel:
        return [f"{gpus} GPUs not divisible by TP x PP x CP = {model_parallel}"]
    dp = gpus // model_parallel
    gbs, mbs = r["global_batch"], r["micro_batch"]
    if gbs and mbs and gbs % (mbs * dp):
        out.append(f"GBS {gbs} not divisible by MBS {mbs} x DP {dp}")
    return out


def row_problems(r, models, clusters):
    out = []
    for key in ("id", "kind", "framework", "source", "system", "cluster", "precision", "measured"):
        if key not in r:
            out.append(f"missing field {key}")
    if r.get("framework") not in FRAMEWORKS:
        out.append(f"framework {r.get('framework')!r} not one of {sorted(FRAMEWORKS)}")
    out += source_problems(r.get("source"))
    if r.get("model") is None:
        if not r.get("excluded"):
            out.append("no model and not excluded")
    elif r["model"] not in models:
        out.append(f"model {r['model']} in neither models block")
    if r.get("cluster") is not None and r["cluster"] not in clusters:
        out.append(f"cluster {r['cluster']} has no recipes/clusters/{r['cluster']}.yaml")
    measured = r.get("measured") or {}
    if not any(isinstance(measured.get(k), (int, float)) and measured[k] > 0 for k in MEASURED):
        out.append("no positive measured figure")
    if "model_tflops_per_gpu" in measured and "tokens_per_s_per_gpu" not in measured:
        if measured.get("attention_flops") not in ATTENTION_FLOPS:
            out.append("measured only in TFLOP/s: measured.attention_flops must say how the "
                       f"publication counted attention ({' or '.join(sorted(ATTENTION_FLOPS))})")
    if r.get("framework") in MEGATRON_FAMILY:
        for key in sorted(set(r.get("settings") or {}) - SETTINGS_READ - SETTINGS_RECORD):
            out.append(f"settings.{key} is neither read by hcp-plan's corpus reader nor a record-only key")
    return out + layout_problems(r) + published_problems(r)


def published_problems(r):
    """Where a row keeps the published step time and job tokens/s, they must agree with
    seq x GBS / step (the publication's own formula) to 1%: a check on the transcription."""
    pub = (r.get("measured") or {}).get("published") or {}
    step, tokens = pub.get("step_time_s"), pub.get("tokens_per_s")
    if not (step and tokens and r.get("seq_length") and r.get("global_batch")):
        return []
    expect = r["seq_length"] * r["global_batch"] / step
    if abs(expect - tokens) > 0.01 * tokens:
        return [f"published tokens/s {tokens} but seq x GBS / step = {expect:.0f}"]
    return []


def reader_problems():
    """SETTINGS_READ keys that the corpus reader's source never names: the list would claim a
    setting is priced that is not."""
    reader = open(os.path.join(ROOT, "src/accuracy/accuracy_corpus.cpp")).read()
    return [f"SETTINGS_READ lists {key}, which src/accuracy/accuracy_corpus.cpp never names"
            for key in sorted(SETTINGS_READ) if f'"{key}"' not in reader]


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "recipes/corpus/validation_runs.json")
    measured_path = sys.argv[2] if len(sys.argv) > 2 else os.path.join(ROOT, "recipes/corpus/measured_runs.json")
    doc = json.load(open(path))
    corpus = json.load(open(measured_path))
    models = dict(corpus.get("models", {}))
    clash = sorted(set(doc.get("models", {})) & set(models))
    models.update(doc.get("models", {}))
    clusters = {f[:-5] for f in os.listdir(os.path.join(ROOT, "recipes/clusters")) if f.endswith(".yaml")}
    problems = [f"models: {k} is already in measured_runs.json (each fact in one place)" for k in clash]
    problems += reader_problems()
    for key in ("what", "sources", "models", "rows"):
        if key not in doc:
            problems.append(f"top level: missing {key}")
    if "NEVER" not in doc.get("what", ""):
        problems.append("top level: `what` must say the rows are NEVER fitted")
    corpus_ids = {r["id"] for r in corpus.get("rows", [])}
    corpus_paths = {(r["source"].get("repo"), r["source"].get("path")) for r in corpus.get("rows", [])}
    seen = set()
    for r in doc.get("rows", []):
        rid = r.get("id", "?")
        errs = row_problems(r, models, clusters)
        if rid in seen or rid in corpus_ids:
            errs.append("duplicate id")
        seen.add(rid)
        src = r.get("source") or {}
        if src.get("repo") and (src.get("repo"), src.get("path")) in corpus_paths:
            errs.append("source already used by measured_runs.json")
        problems += [f"{rid}: {e}" for e in errs]
    for p in problems:
        print(p)
    n = len(doc.get("rows", []))
    kept = sum(1 for r in doc.get("rows", []) if not r.get("excluded"))
    print(f"{path}: {n} rows ({kept} not excluded), {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
