#!/usr/bin/env python3
"""Build hcp-plan's validation corpus (recipes/corpus/measured_runs.json).

Usage: build_corpus.py MEASURED_WITH_SETTINGS.json MODEL_DIMS.json OUT.json

Inputs: the published measurements (Megatron-Bridge performance summary rows, NeMo long-sequence
tables, Megatron-Bridge MoE long-context card) with the Bridge preset settings attached by
extract_bridge_settings.py, and the model dimensions table (Bridge recipe providers / HF configs).
Every output row keeps its source; every model names where its dimensions come from.
"""
import json
import sys

DIMS_FIELDS = ["num_layers", "hidden_size", "ffn_hidden_size", "num_attention_heads",
               "num_query_groups", "kv_channels", "vocab_size", "tie_embeddings",
               "gated_linear_unit", "activation", "num_moe_experts", "moe_router_topk",
               "moe_ffn_hidden_size", "moe_shared_expert_intermediate_size", "moe_layer_freq",
               "mtp_num_layers", "multi_latent_attention", "q_lora_rank", "kv_lora_rank",
               "qk_head_dim", "qk_pos_emb_head_dim", "v_head_dim", "hybrid_layer_pattern",
               "mamba_num_heads", "mamba_head_dim", "mamba_state_dim", "mamba_num_groups",
               "attention_variant"]
# corpus model key -> (recipe function in model_dims.json, extra facts)
MODELS = {
    "LLAMA3_70B": ("llama3_70b_pretrain_32gpu_h100_bf16_config", {}),
    "LLAMA3_8B": ("llama3_8b_pretrain_2gpu_h100_bf16_config", {}),
    "LLAMA2_7B": ("llama2_7b_pretrain_2gpu_h100_bf16_config", {}),
    "Qwen3_30B_a3B": ("qwen3_30b_a3b_pretrain_8gpu_h100_bf16_config", {}),
    "GPT_OSS_120B": ("gpt_oss_120b_pretrain_64gpu_h100_bf16_config",
                     {"window_size": 128, "window_attn_skip_freq": 2}),
    "DeepSeekV3": ("deepseek_v3_pretrain_1024gpu_h100_bf16_config", {"moe_first_dense_layers": 3}),
    "Nemotron_3_Nano": ("nemotron_3_nano_pretrain_8gpu_gb200_bf16_config", {}),
    "Qwen3_235B_A22B": ("qwen3_235b_a22b_pretrain_256gpu_h100_bf16_config", {}),
    "Qwen3_Next_80B_A3B": ("qwen3_next_80b_a3b_pretrain_32gpu_h100_bf16_config", {}),
}
# Bridge summary model names -> (model key, variant note)
SUMMARY_MODEL = {
    "LLAMA3_70B": ("LLAMA3_70B", None), "LLAMA3_8B": ("LLAMA3_8B", None),
    "Qwen3_30B_a3B": ("Qwen3_30B_a3B", None),
    "Qwen3_30B_a3B (tokendrop)": ("Qwen3_30B_a3B", "token drop"),
    "GPT OSS 120B": ("GPT_OSS_120B", None), "DeepSeekV3": ("DeepSeekV3", None),
    "DeepSeekV3 (w/o MTP)": ("DeepSeekV3", "without MTP"),
    "DeepSeekV3 (w/ MTP)": ("DeepSeekV3", "with MTP"),
    "DeepSeekV3 (tokendrop)": ("DeepSeekV3", "token drop"),
    "DeepSeekV3 (dropless)": ("DeepSeekV3", "dropless"),
    "Nemotron_3_Nano": ("Nemotron_3_Nano", None),
    "Nemotron_3_5_Lightning": ("Nemotron_3_Nano", "Nemotron 3.5 Lightning: Bridge builds it on the "
                               "Nemotron-3-Nano-30B-A3B provider (model_dims.json)"),
    "Nemotron_3_Super": (None, None), "Nemotron_3_Ultra": (None, None),
    "DeepSeekV4 Flash": (None, None),
}
NO_DIMS = ("dimensions not available offline: Bridge builds the model from its Hugging Face "
           "config (AutoBridge.from_hf_pretrained), which is not in any mirrored source")
SYSTEM = {  # corpus system -> shipped cluster profile
    "DGX-H100": "dgx-h100", "DGX-B200": "dgx-b200", "DGX-B300": "dgx-b300",
    "DGX-GB200": "gb200-nvl72", "DGX-GB300": "gb300-nvl72",
}


def as_int(v, default=None):
    try:
        return int(str(v).split()[0])
    except (TypeError, ValueError):
        return default


# Summary rows whose printed layout cannot be the one that ran (checked by hand against the
# presets and the memory arithmetic; see each reason): kept, excluded from pricing and fitting.
LAYOUT_AS_PRINTED_CANNOT_RUN = {
    "bridge-26.02.01-LLAMA3_70B-DGX-GB300-NVFP4-64g-126":
        ("TP1 PP1 without FSDP holds all 70.6B parameters on every GPU: BF16 weights and "
         "gradients alone take 282 GB of the GB300's 288 GB; the only Bridge preset with this "
         "layout (FP8-CS) sets use_megatron_fsdp=True, which the table does not print"),
    "bridge-26.02.01-LLAMA3_70B-DGX-GB300-MXFP8-64g-128":
        ("PP4 without VP at MBS 2 keeps 4 micro-batches of 20 Llama-3-70B layers in flight on "
         "the first stage, whose activations without recompute exceed the GB300's 288 GB; the "
         "table gives no recompute or offload setting and this GPU's presets are PP4 VP5 MBS 1"),
    "bridge-25.11-GPT_OSS_120B-DGX-H100-BF16-64g-190":
        ("the table prints MBS 4 with GA 2, but GBS 512 on DP 16 at MBS 4 is 8 micro-batches per"
         " step; the H100 BF16 preset of that release is MBS 1 with recompute of layernorm and "
         "moe_act"),
}


def main():
    measured, dims_path, out_path = sys.argv[1:4]
    src = json.load(open(measured))
    dims_rows = {r["recipe_function"]: r for r in json.load(open(dims_path)) if r["recipe_function"]}
    models = {}
    for key, (fn, extra) in MODELS.items():
        d = dims_rows[fn]
        m = {k: d.get(k) for k in DIMS_FIELDS}
        m.update(extra)
        if d.get("cp_comm_type"):  # the recipe's cp_comm_type (used when a row does not say)
            m["recipe_cp_comm_type"] = d["cp_comm_type"]
        m["dims_source"] = {"recipe_function": fn, "repo": "NVIDIA-NeMo/Megatron-Bridge",
                            "path": d["repo_path"], "provider": d["dims_source"]}
        models[key] = m
    rows = []
    for i, r in enumerate(src["megatron_bridge_performance_summary"]):
        key, variant = SUMMARY_MODEL[r["model"]]
        ga = r.get("ga")
        row = {
            "id": f"bridge-{r['container']}-{r['model']}-{r['system']}-{r.get('precision')}-"
                  f"{r['num_gpus']}g-{i}".replace(" ", "_"),
            "kind": "bridge_summary",
            "source": {"repo": "NVIDIA-NeMo/Megatron-Bridge", "path": r["source"].split()[-1],
                       "container": r["container"], "section": r["section"],
                       "table_model": r["model"]},
            "model": key, "system": r["system"], "cluster": SYSTEM[r["system"]],
            "precision": r.get("precision"), "task": r["section"].split()[0].lower(),
            "num_gpus": r["num_gpus"], "global_batch": r["gbs"], "micro_batch": r["mbs"],
            "seq_length": r["seq_length"], "tp": r["tp"], "pp": r["pp"], "cp": r["cp"],
            "vp": as_int(r.get("vp")), "ep": r.get("ep") or 1,
            "fsdp": as_int(r.get("fsdp"), 0) or 0,
            "measured": {"tokens_per_s_per_gpu": r["tokens_per_sec_per_gpu"],
                         "model_tflops_per_gpu": r.get("model_tflops_per_gpu")},
        }
        if variant:
            row["variant"] = variant
        excluded = []
        if key is None:
            excluded.append(NO_DIMS)
        if r.get("precision") is None or "(" in str(r.get("precision")):
            excluded.append("archive row merges several runs (values in parentheses); "
                            "precision or layout ambiguous")
        if r.get("has_parenthesized_alternates"):
            if not any("parentheses" in e for e in excluded):
                excluded.append("archive row merges several runs (values in parentheses)")
        if r["section"] != "Pre-Training Performance":
            excluded.append(f"{r['section']}: fine-tuning step (frozen weights / sequence packing) "
                            "is not what the planner models")
        if row["id"] in LAYOUT_AS_PRINTED_CANNOT_RUN:
            excluded.append("published layout cannot have run as printed: " +
                            LAYOUT_AS_PRINTED_CANNOT_RUN[row["id"]])
        if excluded:
            row["excluded"] = "; ".join(excluded)
        row["settings_source"] = r.get("settings_source")
        if r.get("settings"):
            row["settings"] = r["settings"]
        rows.append(row)
    for t in src["long_sequence_tables"]:
        if t["id"] == "mbridge_moe_long_context_card":
            continue  # the card is taken from the structured copy below
        key = "LLAMA2_7B" if "llama2" in t["id"] else "LLAMA3_8B"
        system = "DGX-H100" if "h100" in t["id"] else "DGX-B200"
        for r in t["rows"]:
            dp = r.get("dp", r.get("dp_as_listed"))
            gpus = r["num_gpus"]
            if r["tp"] * r["pp"] * r["cp"] * dp != gpus:
                # The B200 page's GPU column is 4x TP*PP*CP*DP in every row; the listed DP is
                # the one that divides the global batch, so the GPU count is derived from it.
                gpus = r["tp"] * r["pp"] * r["cp"] * dp
            row = {
                "id": f"{t['id']}-{r['seq_k']}k",
                "kind": "nemo_long_sequence",
                "source": dict(t["source"]),
                "model": key, "system": system, "cluster": SYSTEM[system],
                "precision": t["model"]["precision"], "task": "pre-training",
                "num_gpus": gpus, "global_batch": r["global_batch"], "micro_batch": 1,
                "seq_length": r["seq_tokens"], "tp": r["tp"], "pp": r["pp"], "cp": r["cp"],
                "vp": None, "ep": 1, "fsdp": 0, "cp_comm_type": "p2p",
                # NeMo's TFLOP/s count the whole attention score matrix (launcher
                # compare_throughput.py "4Bs^2h" at tag 24.07; nemo/utils/flops_formulas.py until
                # 6251117, 2025-08-09), and these tables come from containers 24.03 and 25.04.
                "measured": {"model_tflops_per_gpu": r["with_cp_tflops_per_gpu"],
                             "attention_flops": "full"},
                "settings_source": {"found": False, "why": t["software"]},
            }
            if gpus != r["num_gpus"]:
                row["note"] = (f"page lists {r['num_gpus']} GPUs with DP {dp}; TP*PP*CP*DP = "
                               f"{gpus} (the listed DP divides the global batch, the GPU count "
                               "does not match it); the metric is per GPU")
            rows.append(row)
    card = src["moe_long_context_cp_scaling"]
    card_models = {"DeepSeek-V3 685B w/ MTP": "DeepSeekV3", "Qwen3-Next 80B-A3B": "Qwen3_Next_80B_A3B",
                   "Qwen3 235B-A22B": "Qwen3_235B_A22B"}
    for s in card["series"]:
        key = card_models[s["model"]]
        for e in s["entries"]:
            gpus = e.get("gpus") or int(s["hardware"].split("x")[0])
            gpu = s["hardware"].split("x")[1].split()[0]
            system = "DGX-" + gpu
            row = {
                "id": f"mbridge_moe_card-{key}-{e['seq_length']}",
                "kind": "bridge_moe_card",
                "source": {"repo": "NVIDIA-NeMo/Megatron-Bridge",
                           "path": "skills/nemo-mbridge-perf-moe-long-context/card.yaml",
                           "commit": "067f987df03b8355b03192d88d70f1709fedf51a",
                           "note": "approximate ('~') values"},
                "model": key, "system": system, "cluster": SYSTEM.get(system),
                "precision": s["precision"], "task": "pre-training", "num_gpus": gpus,
                "seq_length": e["seq_length"], "cp": e["cp"], "tp": e.get("tp", 1),
                "measured": {"model_tflops_per_gpu": e["tflops_per_gpu"]},
                "settings_source": {"found": False,
                                    "why": "card gives " + s.get("recipe_hint", "no layout")},
                "excluded": ("approximate values and incomplete layout (PP/EP/VPP per row not "
                             "given); kept as an independent check, not fitted"),
            }
            rows.append(row)
    out = {
        "what": "hcp-plan's validation corpus: published end-to-end training throughput with "
                "the layout and settings behind each row. `hcp-plan accuracy` predicts every "
                "row that is not excluded and fits the model's named constants to them.",
        "built_by": "scripts/corpus/build_corpus.py from the measurement tables listed in "
                    "sources, Bridge presets read by scripts/corpus/extract_bridge_settings.py",
        "sources": src["sources"],
        "metric": "bridge_summary rows: tokens/s/GPU as published; nemo_long_sequence and "
                  "bridge_moe_card rows: model TFLOP/s/GPU as published (compared through the "
                  "model-FLOPs count of hcp::accuracy::model_flops_per_token)",
        "models": models,
        "rows": rows,
    }
    json.dump(out, open(out_path, "w"), indent=1)
    n = len(rows)
    usable = sum(1 for r in rows if "excluded" not in r)
    print(f"{n} rows, {usable} used for fitting", file=sys.stderr)


if __name__ == "__main__":
    main()
