"""The published tables behind recipes/corpus/validation_runs.json, transcribed as printed.

Each table names its source (repository + path + commit, or URL + section), the system and
precision its header states, and its rows in the publication's own column order. A column the
publication does not print is absent (the row gets null, or the table's `fixed` value where the
publication states it once for the whole table). See recipes/corpus/VALIDATION.md.
"""

NEMO_COMMIT = "8cfedd7203462cb251a914e700e5605444277561"  # NVIDIA/NeMo snapshot the dims are read at

DIMS_FIELDS = (
    "num_layers", "hidden_size", "ffn_hidden_size", "num_attention_heads", "num_query_groups",
    "kv_channels", "vocab_size", "tie_embeddings", "gated_linear_unit", "activation",
    "num_moe_experts", "moe_router_topk", "moe_ffn_hidden_size",
    "moe_shared_expert_intermediate_size", "moe_layer_freq",
)


def dims(source, **values):
    out = {k: values.get(k) for k in DIMS_FIELDS}
    out["dims_source"] = source
    return out


def nemo_dims(config, path, vocab_source):
    return {"repo": "NVIDIA/NeMo", "commit": NEMO_COMMIT, "path": path, "config_class": config,
            "vocab": vocab_source}


NEMO_PERF_VOCAB = "NullTokenizer vocab_size in NVIDIA/NeMo scripts/performance/llm/{} (the perf recipes' tokenizer)"
LLAMA2_VOCAB = "Llama 2 tokenizer: vocab_size 32000 (HF meta-llama/Llama-2-*-hf config.json; as LLAMA2_7B in measured_runs.json)"

GPT_BASE = "nemo/collections/llm/gpt/model/base.py"
LLAMA = "nemo/collections/llm/gpt/model/llama.py"
NEMOTRON = "nemo/collections/llm/gpt/model/nemotron.py"
MIXTRAL = "nemo/collections/llm/gpt/model/mixtral.py"

# GPTConfig: learned absolute positions, GeLU MLP, tied embeddings (share_embeddings_and_output_weights
# = True); NemotronConfig: squared ReLU, untied; LlamaConfig / MixtralConfig: SwiGLU, untied.
MODELS = {
    "GPT3_5B": dims(nemo_dims("GPTConfig5B", GPT_BASE, NEMO_PERF_VOCAB.format("pretrain_gpt3_175b.py")),
                    num_layers=24, hidden_size=4096, ffn_hidden_size=16384, num_attention_heads=32,
                    num_query_groups=32, kv_channels=128, vocab_size=51200, tie_embeddings=True,
                    gated_linear_unit=False, activation="gelu"),
    "GPT3_20B": dims(nemo_dims("GPTConfig20B", GPT_BASE, NEMO_PERF_VOCAB.format("pretrain_gpt3_175b.py")),
                     num_layers=44, hidden_size=6144, ffn_hidden_size=24576, num_attention_heads=48,
                     num_query_groups=48, kv_channels=128, vocab_size=51200, tie_embeddings=True,
                     gated_linear_unit=False, activation="gelu"),
    "GPT3_175B": dims(nemo_dims("GPTConfig175B", GPT_BASE, NEMO_PERF_VOCAB.format("pretrain_gpt3_175b.py")),
                      num_layers=96, hidden_size=12288, ffn_hidden_size=49152, num_attention_heads=96,
                      num_query_groups=96, kv_channels=128, vocab_size=51200, tie_embeddings=True,
                      gated_linear_unit=False, activation="gelu"),
    "LLAMA2_13B": dims(nemo_dims("Llama2Config13B", LLAMA, LLAMA2_VOCAB),
                       num_layers=40, hidden_size=5120, ffn_hidden_size=13824, num_attention_heads=40,
                       num_query_groups=40, kv_channels=128, vocab_size=32000, tie_embeddings=False,
                       gated_linear_unit=True, activation="silu"),
    "LLAMA2_70B": dims(nemo_dims("Llama2Config70B", LLAMA, LLAMA2_VOCAB),
                       num_layers=80, hidden_size=8192, ffn_hidden_size=28672, num_attention_heads=64,
                       num_query_groups=8, kv_channels=128, vocab_size=32000, tie_embeddings=False,
                       gated_linear_unit=True, activation="silu"),
    "LLAMA31_405B": dims(nemo_dims("Llama31Config405B (num_query_groups 8 from Llama3Config)", LLAMA,
                                   NEMO_PERF_VOCAB.format("pretrain_llama31_405b.py")),
                         num_layers=126, hidden_size=16384, ffn_hidden_size=53248,
                         num_attention_heads=128, num_query_groups=8, kv_channels=128,
                         vocab_size=128256, tie_embeddings=False, gated_linear_unit=True,
                         activation="silu"),
    "NEMOTRON3_8B": dims(nemo_dims("Nemotron3Config8B", NEMOTRON, NEMO_PERF_VOCAB.format("pretrain_nemotron3_8b.py")),
                         num_layers=32, hidden_size=4096, ffn_hidden_size=16384, num_attention_heads=32,
                         num_query_groups=32, kv_channels=128, vocab_size=256000, tie_embeddings=False,
                         gated_linear_unit=False, activation="squared_relu"),
    "NEMOTRON3_22B": dims(nemo_dims("Nemotron3Config22B", NEMOTRON, NEMO_PERF_VOCAB.format("pretrain_nemotron3_22b.py")),
                          num_layers=40, hidden_size=6144, ffn_hidden_size=24576, num_attention_heads=48,
                          num_query_groups=48, kv_channels=128, vocab_size=256000, tie_embeddings=False,
                          gated_linear_unit=False, activation="squared_relu"),
    "NEMOTRON4_15B": dims(nemo_dims("Nemotron4Config15B", NEMOTRON, NEMO_PERF_VOCAB.format("pretrain_nemotron4_15b.py")),
                          num_layers=32, hidden_size=6144, ffn_hidden_size=24576, num_attention_heads=48,
                          num_query_groups=8, kv_channels=128, vocab_size=256000, tie_embeddings=False,
                          gated_linear_unit=False, activation="squared_relu"),
    "NEMOTRON4_340B": dims(nemo_dims("Nemotron4Config340B", NEMOTRON, NEMO_PERF_VOCAB.format("pretrain_nemotron4_340b.py")),
                           num_layers=96, hidden_size=18432, ffn_hidden_size=73728, num_attention_heads=96,
                           num_query_groups=8, kv_channels=192, vocab_size=256000, tie_embeddings=False,
                           gated_linear_unit=False, activation="squared_relu"),
    "MIXTRAL_8X7B": dims(nemo_dims("MixtralConfig8x7B (MoE fields from MixtralConfig)", MIXTRAL,
                                   NEMO_PERF_VOCAB.format("pretrain_mixtral_8x7b.py")),
                         num_layers=32, hidden_size=4096, ffn_hidden_size=14336, num_attention_heads=32,
                         num_query_groups=8, kv_channels=128, vocab_size=32000, tie_embeddings=False,
                         gated_linear_unit=True, activation="silu", num_moe_experts=8,
                         moe_router_topk=2, moe_ffn_hidden_size=14336),
    "MIXTRAL_8X22B": dims(nemo_dims("MixtralConfig8x22B (MoE fields from MixtralConfig)", MIXTRAL,
                                    NEMO_PERF_VOCAB.format("pretrain_mixtral_8x22b.py")),
                          num_layers=56, hidden_size=6144, ffn_hidden_size=16384, num_attention_heads=48,
                          num_query_groups=8, kv_channels=128, vocab_size=32000, tie_embeddings=False,
                          gated_linear_unit=True, activation="silu", num_moe_experts=8,
                          moe_router_topk=2, moe_ffn_hidden_size=16384),
}

SOURCES = {
    "nemo_24.07_performance_summary": (
        "NVIDIA/NeMo docs/source/performance/performance_summary.md @8e3d65dcfe35 (last version "
        "before the file moved to the NeMo Framework user guide in d31653f): NeMo 24.07, DGX-H100, FP8, "
        "pre-training table; tokens/s/GPU and model TFLOP/s/GPU as published"),
    "nemo_framework_docs_25.02": (
        "https://docs.nvidia.com/nemo-framework/user-guide/latest/performance/performance_summary.html "
        "(version for NeMo 25.02), Pretraining tables DGX-B200 and DGX-H100 (stored page excerpt)"),
    "nemo_framework_docs_25.04": (
        "https://docs.nvidia.com/nemo-framework/user-guide/latest/performance/archive/25.04-performance-summary.html, "
        "Pre-Training Performance table DGX-GB200 (stored page excerpt)"),
    "nemo_framework_docs_25.07": (
        "https://docs.nvidia.com/nemo-framework/user-guide/latest/performance/performance-summary.html "
        "(version for NeMo 25.07), Pre-Training Performance table DGX-GB200 (stored page excerpt)"),
}

# NeMo's MegatronTokenDropCallback (nemo/lightning/pytorch/callbacks/moe_token_drop.py:38-39 at
# v2.2.0, v2.3.0 and 7a8f1cc): capacity factor 1.0, every expert's input padded to it.
TOKEN_DROP = {"moe_expert_capacity_factor": 1.0, "moe_pad_expert_input_to_capacity": True}
MIXTRAL_TOKEN_DROP_FROM = ("Mixtral rows: token drop, NVIDIA/NeMo {tag} {dir}/pretrain_mixtral_8x7b.py:{l7} and "
                           "pretrain_mixtral_8x22b.py:{l22} build pretrain_recipe(performance_mode=True), which adds "
                           "MegatronTokenDropCallback (nemo/collections/llm/recipes/mixtral_8x7b.py:226, "
                           "mixtral_8x22b.py:233): capacity factor 1.0, padded")
NEMO_KEYS = {
    "GPT3-5B": "GPT3_5B", "GPT3-20B": "GPT3_20B", "GPT3-175B": "GPT3_175B",
    "LLAMA2-7B": "LLAMA2_7B", "LLAMA2-13B": "LLAMA2_13B", "LLAMA2-70B": "LLAMA2_70B",
    "Nemotron-8B": "NEMOTRON3_8B", "Nemotron-22B": "NEMOTRON3_22B", "Nemotron-15B": "NEMOTRON4_15B",
    "Nemotron-340B": "NEMOTRON4_340B", "LLAMA3-8B": "LLAMA3_8B", "LLAMA3-70B": "LLAMA3_70B",
    "LLAMA3-405B": "LLAMA31_405B", "LLAMA3.1-405B": "LLAMA31_405B",
    "Mixtral-8x7B": "MIXTRAL_8X7B", "Mixtral-8x22B": "MIXTRAL_8X22B",
}

NEMO_SETTINGS_WHY = ("the table prints only the parallel sizes, batch and sequence; the NeMo "
                     "performance recipe of that container is not pinned to a commit here")

TABLES = [
    {
        "id": "nemo-24.07-h100-fp8",
        "kind": "nemo_perf_summary",
        "framework": "nemo",
        "source": {"title": "NeMo Performance Benchmarks (docs)", "repo": "NVIDIA/NeMo",
                   "path": "docs/source/performance/performance_summary.md",
                   "commit": "8e3d65dcfe3504689bfc5b6e67d502780aacad41",
                   "container": "24.07",
                   "location": "section 'Large Language Models / Pretraining' (System: DGX-H100, FP8)"},
        "system": "DGX-H100", "cluster": "dgx-h100", "precision": "FP8",
        "settings_why": NEMO_SETTINGS_WHY + "; EP, FSDP and the FP8 scaling recipe are not printed (null)",
        # The optimizer is not printed: every model's training config of NeMo-Framework-Launcher
        # at tag 24.07 (the container's launcher) names distributed_fused_adam, with neither
        # grad_sync_dtype nor dtype set except Nemotron 340B's (row note).
        "settings": {"optimizer": "distributed_fused_adam"},
        "settings_read_from": ("NVIDIA/NeMo-Framework-Launcher tag 24.07 (8325688), "
                               "launcher_scripts/conf/training/<model>.yaml, section optim"),
        "model_keys": NEMO_KEYS, "unmodelled": {},
        "columns": ["model", "num_gpus", "global_batch", "micro_batch", "seq_length", "tp", "pp",
                    "cp", "vp", "tokens_per_s_per_gpu", "model_tflops_per_gpu", "label"],
        "rows": """
| GPT3-5B       | 64     | 2048 | 4   | 2048 | 1  | 1  | 1  | 1  | 23406 | 765 | GPT3-5B-64g
| GPT3-20B      | 64     | 256  | 2   | 2048 | 2  | 1  | 1  | 1  | 5851  | 750 | GPT3-20B-64g
| GPT3-175B     | 128    | 256  | 1   | 2048 | 4  | 8  | 1  | 6  | 716   | 771 | GPT3-175B-128g
| GPT3-175B     | 512    | 2048 | 2   | 2048 | 4  | 8  | 1  | 6  | 825   | 888 | GPT3-175B-512g
| LLAMA2-7B     | 8      | 128  | 1   | 4096 | 1  | 1  | 1  | 1  | 16934 | 780 | LLAMA2-7B-8g
| LLAMA2-13B    | 16     | 128  | 1   | 4096 | 1  | 4  | 1  | 10 | 8715  | 760 | LLAMA2-13B-16g
| LLAMA2-70B    | 64     | 128  | 1   | 4096 | 4  | 4  | 1  | 20 | 1728  | 768 | LLAMA2-70B-64g
| Nemotron-8B   | 64     | 256  | 4   | 4096 | 2  | 1  | 1  | 1  | 12507 | 643 | Nemotron-8B-64g
| Nemotron-22B  | 64     | 256  | 2   | 4096 | 2  | 4  | 1  | 10 | 4312  | 562 | Nemotron-22B-64g
| Nemotron-340B | 128    | 32   | 1   | 4096 | 8  | 8  | 1  | 12 | 326   | 686 | Nemotron-340B-128g
| LLAMA3-8B     | 8      | 128  | 1   | 8192 | 1  | 1  | 2  | 1  | 12273 | 711 | LLAMA3-8B-8g
| LLAMA3-70B    | 64     | 128  | 1   | 8192 | 4  | 4  | 2  | 5  | 1524  | 734 | LLAMA3-70B-64g
""",
        "row_notes": {
            "GPT3-175B-512g": {"note": "the table links this row's TFLOP/s to MLCommons (MLPerf Training); tokens/s/GPU as printed"},
            "Nemotron-8B-64g": {"note": "'Nemotron-8B' read as Nemotron-3 8B (NeMo Nemotron3Config8B); the table does not say which generation"},
            "Nemotron-22B-64g": {"note": "'Nemotron-22B' read as Nemotron-3 22B (NeMo Nemotron3Config22B)"},
            "Nemotron-340B-128g": {"note": "'Nemotron-340B' read as Nemotron-4 340B (NeMo Nemotron4Config340B); its launcher config (nemotron/nemotron_340b.yaml at tag 24.07) sets grad_sync_dtype bf16 and dtype bf16 (:158-162) and activations_checkpoint_granularity selective (:122), NeMo 1's recompute_granularity: core attention recomputed",
                                   "settings": {"optimizer": "distributed_fused_adam", "grad_sync_dtype": "bf16", "optimizer_dtype": "bf16", "recompute_modules": ["core_attn"]}},
        },
    },
    {
        "id": "nemo-25.02-b200-fp8",
        "kind": "nemo_perf_summary",
        "framework": "nemo",
        "source": {"title": "NeMo Framework User Guide: Performance (25.02)",
                   "url": "https://docs.nvidia.com/nemo-framework/user-guide/latest/performance/performance_summary.html",
                   "container": "25.02",
                   "location": "Pretraining table, 'Container: NeMo 25.02, System: DGX-B200' (FP8, NeMo 2.0)"},
        "system": "DGX-B200", "cluster": "dgx-b200", "precision": "FP8",
        "settings_why": NEMO_SETTINGS_WHY + "; FSDP and the FP8 scaling recipe are not printed (null)",
        "model_keys": NEMO_KEYS, "unmodelled": {},
        "columns": ["model", "num_gpus", "global_batch", "micro_batch", "seq_length", "tp", "pp",
                    "cp", "vp", "ep", "grad_accum", "tokens_per_s_per_gpu", "model_tflops_per_gpu",
                    "label"],
        "rows": """
| GPT3-175B     | 512 | 2048 | 2  | 2048  | 4 | 4 | 1 | 6  | 1 | 32 | 1600  | 1722 | GPT3-175B-512g
| LLAMA3-8B     | 8   | 128  | 2  | 8192  | 1 | 1 | 1 | 1  | 1 | 8  | 26006 | 1506 | LLAMA3-8B-8g
| LLAMA3-70B    | 64  | 128  | 1  | 8192  | 2 | 4 | 2 | 5  | 1 | 32 | 3062  | 1474 | LLAMA3-70B-64g
| LLAMA3-405B   | 128 | 64   | 1  | 8192  | 4 | 8 | 2 | 8  | 1 | 32 | 625   | 1658 | LLAMA3-405B-128g
| Nemotron-15B  | 64  | 256  | 2  | 4096  | 1 | 1 | 1 | 1  | 1 | 2  | 14760 | 1387 | Nemotron-15B-64g
| Nemotron-340B | 128 | 32   | 1  | 4096  | 8 | 4 | 1 | 12 | 1 | 8  | 602   | 1268 | Nemotron-340B-128g
| Mixtral-8x7B  | 64  | 256  | 2  | 4096  | 1 | 1 | 1 | 1  | 8 | 2  | 15457 | 1282 | Mixtral-8x7B-64g
| Mixtral-8x22B | 256 | 64   | 1  | 65536 | 2 | 4 | 8 | 14 | 8 | 16 | 2232  | 824  | Mixtral-8x22B-256g
""",
        "row_settings": {"Mixtral-8x7B-64g": TOKEN_DROP, "Mixtral-8x22B-256g": TOKEN_DROP},
        "row_settings_read_from": MIXTRAL_TOKEN_DROP_FROM.format(tag="v2.2.0", dir="scripts/llm/performance", l7=44, l22=43),
        "row_notes": {
            "Mixtral-8x22B-256g": {"note": "the page prints GBS 1 and MBS 64; with GA 16 and DP = 256/(TP2 x PP4 x CP8) = 4 that is GBS 64, MBS 1 (columns swapped), as recorded here"},
            "LLAMA3-405B-128g": {"note": "'LLAMA3-405B' is Llama 3.1 405B (NeMo Llama31Config405B, the model of scripts/performance/llm/pretrain_llama31_405b.py)"},
        },
    },
    {
        "id": "nemo-25.02-h100-fp8",
        "kind": "nemo_perf_summary",
        "framework": "nemo",
        "source": {"title": "NeMo Framework User Guide: Performance (25.02)",
                   "url": "https://docs.nvidia.com/nemo-framework/user-guide/latest/performance/performance_summary.html",
                   "container": "25.02",
                   "location": "Pretraining table, 'System: DGX-H100' (FP8, NeMo 2.0); only the first row was in the stored excerpt"},
        "system": "DGX-H100", "cluster": "dgx-h100", "precision": "FP8",
        "settings_why": NEMO_SETTINGS_WHY + "; FSDP and the FP8 scaling recipe are not printed (null)",
        "model_keys": NEMO_KEYS, "unmodelled": {},
        "columns": ["model", "num_gpus", "global_batch", "micro_batch", "seq_length", "tp", "pp",
                    "cp", "vp", "ep", "grad_accum", "tokens_per_s_per_gpu", "model_tflops_per_gpu",
                    "label"],
        "rows": """
| GPT3-175B | 512 | 2048 | 2 | 2048 | 4 | 8 | 1 | 6 | 1 | 64 | 866 | 932 | GPT3-175B-512g
""",
    },
    {
        "id": "nemo-25.04-gb200-fp8cs",
        "kind": "nemo_perf_summary",
        "framework": "nemo",
        "source": {"title": "NeMo Framework User Guide: Performance (25.04 archive)",
                   "url": "https://docs.nvidia.com/nemo-framework/user-guide/latest/performance/archive/25.04-performance-summary.html",
                   "container": "25.04",
                   "location": "Pre-Training Performance table, 'Container: NeMo 25.04, System: DGX-GB200' (per-tensor FP8, current-step scaling)"},
        "system": "DGX-GB200", "cluster": "gb200-nvl72", "precision": "FP8-CS",
        "settings_why": NEMO_SETTINGS_WHY,
        "model_keys": NEMO_KEYS, "unmodelled": {},
        "columns": ["model", "num_gpus", "global_batch", "micro_batch", "seq_length", "fsdp", "tp",
                    "pp", "cp", "vp", "ep", "grad_accum", "tokens_per_s_per_gpu",
                    "model_tflops_per_gpu", "label"],
        "rows": """
| GPT3-175B     | 128 | 256 | 2 | 2048  | 0 | 4 | 4 | 1 | 12 | 1 | 16 | 1804  | 1942 | GPT3-175B-128g
| LLAMA3-8B     | 8   | 128 | 2 | 8192  | 0 | 1 | 1 | 1 | 1  | 1 | 8  | 33099 | 1917 | LLAMA3-8B-8g
| LLAMA3-70B    | 64  | 128 | 1 | 8192  | 1 | 1 | 1 | 1 | 1  | 1 | 2  | 4035  | 1943 | LLAMA3-70B-64g
| LLAMA3-405B   | 128 | 64  | 1 | 8192  | 0 | 4 | 8 | 2 | 8  | 1 | 32 | 665   | 1763 | LLAMA3-405B-128g
| Nemotron-15B  | 64  | 256 | 2 | 4096  | 0 | 1 | 1 | 1 | 1  | 1 | 2  | 17809 | 1674 | Nemotron-15B-64g
| Nemotron-340B | 128 | 32  | 1 | 4096  | 0 | 8 | 4 | 1 | 12 | 1 | 8  | 737   | 1551 | Nemotron-340B-128g
| Mixtral-8x7B  | 64  | 256 | 2 | 4096  | 0 | 1 | 1 | 1 | 1  | 8 | 2  | 19275 | 1598 | Mixtral-8x7B-64g
| Mixtral-8x22B | 256 | 64  | 1 | 65536 | 0 | 2 | 4 | 8 | 14 | 8 | 16 | 2731  |      | Mixtral-8x22B-256g
""",
        "row_settings": {"Mixtral-8x7B-64g": TOKEN_DROP, "Mixtral-8x22B-256g": TOKEN_DROP},
        "row_settings_read_from": MIXTRAL_TOKEN_DROP_FROM.format(tag="v2.3.0", dir="scripts/performance/llm", l7=52, l22=55),
        "row_notes": {
            "Mixtral-8x22B-256g": {"note": "the page prints GBS 1 and MBS 64; with GA 16 and DP = 256/(TP2 x PP4 x CP8) = 4 that is GBS 64, MBS 1 (columns swapped), as recorded here; its TFLOP/s cell was cut off in the stored excerpt"},
            "LLAMA3-405B-128g": {"note": "'LLAMA3-405B' is Llama 3.1 405B (NeMo Llama31Config405B)"},
            "LLAMA3-70B-64g": {"note": "FSDP = 1 (Megatron FSDP over 64 GPUs, TP/PP/CP 1)"},
        },
    },
    {
        "id": "nemo-25.07-gb200-fp8cs",
        "kind": "nemo_perf_summary",
        "framework": "nemo",
        "source": {"title": "NeMo Framework User Guide: Performance (25.07)",
                   "url": "https://docs.nvidia.com/nemo-framework/user-guide/latest/performance/performance-summary.html",
                   "container": "25.07",
                   "location": "Pre-Training Performance table, 'Container: NeMo 25.07, System: DGX-GB200' (per-tensor FP8, current-step scaling)"},
        "system": "DGX-GB200", "cluster": "gb200-nvl72", "precision": "FP8-CS",
        "settings_why": NEMO_SETTINGS_WHY,
        "model_keys": NEMO_KEYS,
        "unmodelled": {},
        "columns": ["model", "num_gpus", "global_batch", "micro_batch", "seq_length", "fsdp", "tp",
                    "pp", "cp", "vp", "ep", "grad_accum", "tokens_per_s_per_gpu",
                    "model_tflops_per_gpu", "label"],
        "rows": """
| LLAMA3-8B     | 8   | 128 | 2 | 8192 | 0 | 1 | 1 | 1 | 1 | 1 | 8  | 31737 | 1838 | LLAMA3-8B-8g
| LLAMA3-70B    | 64  | 128 | 1 | 8192 | 1 | 1 | 1 | 1 | 1 | 1 | 2  | 4066  | 1957 | LLAMA3-70B-64g-fsdp
| LLAMA3-70B    | 64  | 128 | 1 | 8192 | 0 | 2 | 4 | 2 | 5 | 1 | 32 | 2605  | 1254 | LLAMA3-70B-64g-alt
| LLAMA3.1-405B | 128 | 64  | 1 | 8192 | 1 | 2 | 1 | 1 | 1 | 1 | 1  | 706   | 1854 | LLAMA3.1-405B-128g-fsdp
| LLAMA3.1-405B | 128 | 64  | 1 | 8192 | 0 | 4 | 8 | 2 | 8 | 1 | 32 | 638   | 1675 | LLAMA3.1-405B-128g-alt
""",
        "row_notes": {
            "LLAMA3-8B-8g": {"note": "the page prints a second figure in parentheses, 30341 tokens/s (1757 TFLOP/s), with the same layout; what distinguishes it was not in the stored excerpt, so only the first figure is kept"},
            "LLAMA3-70B-64g-fsdp": {"note": "cells print 'FSDP 1 (0), TP 1 (2), PP 1 (4), CP 1 (2), VP 1 (5), GA 2 (32), 4066 (2605)': the figures outside parentheses form this row"},
            "LLAMA3-70B-64g-alt": {"note": "the figures in parentheses of the same printed row form this row (see the -fsdp row)"},
            "LLAMA3.1-405B-128g-fsdp": {"note": "cells print 'FSDP 1 (0), TP 2 (4), PP 1 (8), CP 1 (2), VP 1 (8), GA 1 (32), 706 (638)': the figures outside parentheses form this row; cpu_offloading_num_layers 95 is not printed: it is the activation_offload_layers of the only Megatron-FSDP Llama 3.1 405B GB200 pre-training line (TP2 PP1, 128 GPUs) in NeMo's scripts/performance/recommended_model_configs/model_configs_gb200.csv from NVIDIA/NeMo @03bb2af (2025-07-10) on",
                                        "settings": {"grad_accum": 1, "cpu_offloading_num_layers": 95}},
            "LLAMA3.1-405B-128g-alt": {"note": "the figures in parentheses of the same printed row form this row (see the -fsdp row)"},
        },
    },
]

# --- NVIDIA DGX Cloud Benchmarking performance recipes (NVIDIA/dgxc-benchmarking) ------------------
# Each recipe README prints, per GPU count, the training step time and the throughput in tokens per
# second of the whole job (= seq length x GBS / step time), beside the layout. tokens/s/GPU is that
# published throughput divided by the GPU count (measured.derived says so). Rows of "proxy" models
# with fewer layers than the real model are left out (their dimensions are not the model's).

DGXC_REPO = "NVIDIA/dgxc-benchmarking"
DGXC_SETTINGS_WHY = ("the recipe README prints the layout, batch and sequence; its launch scripts "
                     "at the same commit hold the rest, not read here")

SOURCES["dgxc_benchmarking"] = (
    "NVIDIA/dgxc-benchmarking (DGX Cloud Benchmarking performance recipes), the 'Expected "
    "Performance' tables of the training recipes' READMEs at releases v25.03, v25.04.01 and "
    "v25.05.01: training step time and tokens per second of the job as published; NeMo framework")


def dgxc(release, commit, path, section, model, precision, system, cluster, layout, points,
         note=None, settings=None, settings_read_from=None):
    """A dgxc scaling table: layout (shared by its columns) and points (GPUs, GBS, step s, tokens/s);
    settings the README does not print but the recipe's config at the same commit sets, with where
    they were read (settings_read_from)."""
    return {"release": release, "commit": commit, "path": path, "section": section,
            "model": model, "precision": precision, "system": system, "cluster": cluster,
            "layout": layout, "points": points, "note": note, "settings": settings or {},
            "settings_read_from": settings_read_from}


def lay(seq, tp, pp, cp, vp, mbs, ga, ep=None, fsdp=0, **extra):
    return dict(seq_length=seq, tp=tp, pp=pp, cp=cp, vp=vp, micro_batch=mbs, grad_accum=ga, ep=ep,
                fsdp=fsdp, **extra)


DSV3_TOKEN_DROP_FROM = ("token drop: deepseek_v3/pretraining/setup.sh:52-54 clones NeMo at 7a8f1cc, whose "
                        "scripts/performance/llm/pretrain_deepseek_v3.py:40,80-81 adds MegatronTokenDropCallback "
                        "(USE_TOKEN_DROP = True; moe_token_drop.py:38-39: capacity factor 1.0, padded)")
V2503 = ("v25.03", "1b9bb6b3cfea881fc4997ac111e695e52ae901aa")
V2504 = ("v25.04.01", "85380ffe02eac74e1d07e556b28cdcf7cce2d2f0")
V2505 = ("v25.05.01", "60d6fd33ba9554a12b2f0f1f7f62ffd51f220e3d")

H100, GB200 = ("DGX-H100", "dgx-h100"), ("DGX-GB200", "gb200-nvl72")
L31 = "llama3.1/README.md"
NEMOTRON_README = "nemotron/README.md"

DGXC_TABLES = [
    # v25.04.01: llama3.1/README.md, layout tables at the top, 'Expected Performance' below (H100).
    dgxc(*V2504, L31, "Llama 3.1 8b BF16 (H100)", "LLAMA3_8B", "BF16", *H100,
         lay(8192, 1, 1, 2, None, 1, 32),
         [(8, 128, 12.27, 85459), (16, 256, 12.3, 170500), (32, 512, 12.32, 340447),
          (64, 1024, 12.33, 680341), (128, 2048, 12.33, 1360683)]),
    dgxc(*V2504, L31, "Llama 3.1 8b FP8 (H100)", "LLAMA3_8B", "FP8", *H100,
         lay(8192, 1, 1, 2, None, 1, 32),
         [(8, 128, 9.33, 112388), (16, 256, 9.36, 224055), (32, 512, 9.43, 444783),
          (64, 1024, 9.48, 884874), (128, 2048, 9.54, 1758618)]),
    dgxc(*V2504, L31, "Llama 3.1 70b BF16 (H100)", "LLAMA3_70B", "BF16", *H100,
         lay(8192, 4, 4, 2, 5, 1, 64),
         [(64, 128, 14.66, 71526), (128, 256, 14.67, 142955), (256, 512, 14.68, 285716),
          (512, 1024, 14.67, 571821), (1024, 2048, 14.65, 1145202), (2048, 4096, 14.66, 2288843)]),
    dgxc(*V2504, L31, "Llama 3.1 70b FP8 (H100)", "LLAMA3_70B", "FP8", *H100,
         lay(8192, 4, 8, 1, 5, 1, 64),
         [(64, 128, 9.86, 106346), (128, 256, 9.95, 210769), (256, 512, 10, 419430),
          (512, 1024, 10.07, 833030), (1024, 2048, 10.08, 1664406), (2048, 4096, 10.15, 3305855)]),
    dgxc(*V2504, L31, "Llama 3.1 405b BF16 (H100; the 32/64/128-GPU proxy columns with 8/30/62 layers left out)",
         "LLAMA31_405B", "BF16", *H100, lay(8192, 8, 8, 2, 8, 1, 64),
         [(512, 256, 19.78, 106024), (1024, 512, 19.84, 211406), (2048, 1024, 19.87, 422175)]),
    dgxc(*V2504, L31, "Llama 3.1 405b FP8 (H100; the 32/64/128-GPU proxy columns with 8/30/62 layers left out)",
         "LLAMA31_405B", "FP8", *H100, lay(8192, 8, 8, 2, 8, 1, 64),
         [(512, 256, 12.37, 169535), (1024, 512, 12.42, 337706), (2048, 1024, 12.56, 667883)]),
    dgxc(*V2504, NEMOTRON_README, "Nemotron4 15b BF16 (H100)", "NEMOTRON4_15B", "BF16", *H100,
         lay(4096, 2, 1, 1, None, 2, 4),
         [(16, 64, 2.66, 98550), (32, 128, 2.66, 197101), (64, 256, 2.67, 392725),
          (128, 512, 2.67, 785450), (256, 1024, 2.68, 1565039), (512, 2048, 2.71, 3095427),
          (1024, 4096, 2.74, 6123072), (2048, 8192, 2.78, 12069940)]),
    dgxc(*V2504, NEMOTRON_README, "Nemotron4 15b FP8 (H100)", "NEMOTRON4_15B", "FP8", *H100,
         lay(4096, 2, 1, 1, None, 2, 4),
         [(16, 64, 1.98, 132396), (32, 128, 1.98, 264792), (64, 256, 1.98, 529584),
          (128, 512, 1.99, 1053845), (256, 1024, 2, 2097152), (512, 2048, 2.02, 4152776),
          (1024, 4096, 2.03, 8264638), (2048, 8192, 2.09, 16054752)]),
    dgxc(*V2504, NEMOTRON_README, "Nemotron4 340b BF16 (H100)", "NEMOTRON4_340B", "BF16", *H100,
         lay(4096, 8, 8, 1, 12, 1, 16),
         [(256, 64, 4.36, 60125), (512, 128, 4.39, 119428), (1024, 256, 4.41, 237772),
          (2048, 512, 4.43, 473398)],
         note="the layout table prints VP 'NA' here; the README's own launch script at the same commit runs VP 12 for 340b (nemotron/launch.sh:62-68 sets VP=12, :82-83 passes -vp), and v25.05.01 prints VP 12 for the same 256-GPU layout"),
    dgxc(*V2504, NEMOTRON_README, "Nemotron4 340b FP8 (H100)", "NEMOTRON4_340B", "FP8", *H100,
         lay(4096, 8, 8, 1, 12, 1, 16),
         [(256, 64, 2.93, 89469), (512, 128, 2.97, 176528), (1024, 256, 3, 349525),
          (2048, 512, 3.05, 687591)],
         note="the layout table prints VP 'NA' here; the README's own launch script at the same commit runs VP 12 for 340b (nemotron/launch.sh:62-68 sets VP=12, :82-83 passes -vp), and v25.05.01 prints VP 12 for the same 256-GPU layout"),
    # v25.03: one README per size, the layout in each table's header (NeMo 24.12 container).
    dgxc(*V2503, "llama3.1/README_8b.md", "Llama 3.1 8b BF16 (TP=1, PP=1, CP=2, MBS=1, GA=32)", "LLAMA3_8B", "BF16", *H100,
         lay(8192, 1, 1, 2, None, 1, 32),
         [(8, 128, 12.78, 82028), (16, 256, 12.99, 161443), (32, 512, 13.00, 322638),
          (64, 1024, 13.00, 645277), (128, 2048, 13.16, 1275155)],
         settings={'optimizer': 'distributed_fused_adam', 'grad_sync_dtype': 'bf16'},
         settings_read_from="llama3.1/llama3.1_8b.yaml:141-157 at the same commit (optim: distributed_fused_adam, grad_sync_dtype bf16, dtype unset (fp32))"),
    dgxc(*V2503, "llama3.1/README_8b.md", "Llama 3.1 8b FP8 (TP=1, PP=1, CP=2, MBS=1, GA=32)", "LLAMA3_8B", "FP8", *H100,
         lay(8192, 1, 1, 2, None, 1, 32),
         [(8, 128, 9.44, 111054), (16, 256, 9.47, 221358), (32, 512, 9.60, 437088),
          (64, 1024, 9.64, 870639), (128, 2048, 9.73, 1725163)],
         settings={'optimizer': 'distributed_fused_adam', 'grad_sync_dtype': 'bf16'},
         settings_read_from="llama3.1/llama3.1_8b.yaml:141-157 at the same commit (optim: distributed_fused_adam, grad_sync_dtype bf16, dtype unset (fp32))"),
    dgxc(*V2503, "llama3.1/README_70b.md", "Llama 3.1 70b BF16 (TP=4, PP=4, CP=2, VP=5, MBS=1, GA=64)", "LLAMA3_70B", "BF16", *H100,
         lay(8192, 4, 4, 2, 5, 1, 64),
         [(64, 128, 14.61, 71756), (128, 256, 14.70, 142663), (256, 512, 14.72, 284881),
          (512, 1024, 14.80, 566797), (1024, 2048, 14.86, 1129246), (2048, 4096, 14.84, 2260623)],
         settings={'optimizer': 'distributed_fused_adam', 'grad_sync_dtype': 'bf16'},
         settings_read_from="llama3.1/llama3.1_70b.yaml:145-161 at the same commit (optim: distributed_fused_adam, grad_sync_dtype bf16, dtype unset (fp32))"),
    dgxc(*V2503, "llama3.1/README_70b.md", "Llama 3.1 70b FP8 (TP=4, PP=4, CP=2, VP=5, MBS=1, GA=64)", "LLAMA3_70B", "FP8", *H100,
         lay(8192, 4, 4, 2, 5, 1, 64),
         [(64, 128, 10.46, 100275), (128, 256, 10.52, 199292), (256, 512, 10.75, 390167),
          (512, 1024, 10.76, 779393), (1024, 2048, 10.83, 1549142), (2048, 4096, 10.99, 3053178)],
         settings={'optimizer': 'distributed_fused_adam', 'grad_sync_dtype': 'bf16'},
         settings_read_from="llama3.1/llama3.1_70b.yaml:145-161 at the same commit (optim: distributed_fused_adam, grad_sync_dtype bf16, dtype unset (fp32))"),
    dgxc(*V2503, "llama3.1/README_405b.md", "Llama 3.1 405b BF16 (TP=8, PP=9, CP=2, VP=7, MBS=1, GA=63); the 32/96/192-GPU proxy columns with 7/21/42 layers left out",
         "LLAMA31_405B", "BF16", *H100, lay(8192, 8, 9, 2, 7, 1, 63),
         [(576, 252, 17.50, 117964), (1152, 504, 17.60, 234589), (2304, 1008, 17.70, 466527)],
         settings={'optimizer': 'distributed_fused_adam', 'grad_sync_dtype': 'bf16'},
         settings_read_from="llama3.1/llama3.1_405b.yaml:148-164 at the same commit (optim: distributed_fused_adam, grad_sync_dtype bf16, dtype unset (fp32))"),
    dgxc(*V2503, "llama3.1/README_405b.md", "Llama 3.1 405b FP8 (TP=8, PP=9, CP=2, VP=7, MBS=1, GA=63); the 32/96/192-GPU proxy columns with 7/21/42 layers left out",
         "LLAMA31_405B", "FP8", *H100, lay(8192, 8, 9, 2, 7, 1, 63),
         [(576, 252, 11.00, 187671), (1152, 504, 11.10, 371961), (2304, 1008, 11.20, 737280)],
         settings={'optimizer': 'distributed_fused_adam', 'grad_sync_dtype': 'bf16'},
         settings_read_from="llama3.1/llama3.1_405b.yaml:148-164 at the same commit (optim: distributed_fused_adam, grad_sync_dtype bf16, dtype unset (fp32))"),
    dgxc(*V2503, "nemotron/README_15b.md", "Nemotron4 15b BF16 (TP=4, PP=1, MBS=4, GA=4)",
         "NEMOTRON4_15B", "BF16", *H100, lay(4096, 4, 1, 1, None, 4, 4),
         [(16, 64, 2.812, 93223), (32, 128, 2.824, 185654), (64, 256, 2.845, 368568),
          (128, 512, 2.859, 733526), (256, 1024, 2.852, 1470654), (512, 2048, 2.875, 2917777),
          (1024, 4096, 2.895, 5795239), (2048, 8192, 2.887, 11622595)],
         note="CP is not printed; GBS = MBS x GA x GPUs/TP holds only with CP 1",
         settings={'optimizer': 'mcore_distributed_optim'},
         settings_read_from="nemotron/nemotron4-15b-synth.yaml:178-184 at the same commit (optim: mcore_distributed_optim, grad_sync_dtype unset (fp32))"),
    dgxc(*V2503, "nemotron/README_15b.md", "Nemotron4 15b FP8 (TP=4, PP=1, MBS=4, GA=4)",
         "NEMOTRON4_15B", "FP8", *H100, lay(4096, 4, 1, 1, None, 4, 4),
         [(16, 64, 2.039, 128565), (32, 128, 2.046, 256250), (64, 256, 2.048, 512000),
          (128, 512, 2.059, 1018529), (256, 1024, 2.075, 2021351), (512, 2048, 2.12, 3956891),
          (1024, 4096, 2.094, 8012042), (2048, 8192, 2.12, 15827562)],
         note="CP is not printed; GBS = MBS x GA x GPUs/TP holds only with CP 1",
         settings={'optimizer': 'mcore_distributed_optim'},
         settings_read_from="nemotron/nemotron4-15b-synth.yaml:178-184 at the same commit (optim: mcore_distributed_optim, grad_sync_dtype unset (fp32))"),
    dgxc(*V2503, "nemotron/README_340b.md", "Nemotron4 340b BF16 (TP=8, PP=8, MBS=1, GA=16, VP=12)",
         "NEMOTRON4_340B", "BF16", *H100, lay(4096, 8, 8, 2, 12, 1, 32),
         [(128, 32, 4.61, 28432), (256, 64, 4.67, 56134), (512, 128, 4.7, 111551),
          (1024, 256, 4.73, 221686), (2048, 512, 4.84, 433296)],
         note="CP 2, GA 32: the header prints GA=16 and no CP, but the README's launch script runs 340b BF16 with CP 2 (nemotron/configure.sh:75-76 sets CP=2 when DTYPE is bf16, :101 passes model.context_parallel_size) and GBS = 2 x nodes (:81), so GA = GBS / DP is 32",
         settings={'optimizer': 'distributed_fused_adam', 'grad_sync_dtype': 'bf16', 'optimizer_dtype': 'bf16', 'recompute_modules': ['core_attn']},
         settings_read_from="nemotron/nemotron4-340b-synth.yaml at the same commit: optim (:182-189) distributed_fused_adam, grad_sync_dtype bf16, dtype bf16; activations_checkpoint_granularity selective (:138), which NeMo 1 passes as recompute_granularity (megatron_base_model.py:522, NVIDIA/NeMo @6f9f731): Megatron's selective recompute of core attention"),
    dgxc(*V2503, "nemotron/README_340b.md", "Nemotron4 340b FP8 (TP=8, PP=8, MBS=1, GA=16, VP=12)",
         "NEMOTRON4_340B", "FP8", *H100, lay(4096, 8, 8, 1, 12, 1, 16),
         [(128, 32, 3.16, 41478), (256, 64, 3.21, 81665), (512, 128, 3.26, 160825),
          (1024, 256, 3.34, 313945), (2048, 512, 3.49, 600903)],
         note="CP is not printed; GBS = MBS x GA x GPUs/(TP x PP) holds only with CP 1, which the README's launch script keeps for FP8 (nemotron/configure.sh:74-76)",
         settings={'optimizer': 'distributed_fused_adam', 'grad_sync_dtype': 'bf16', 'optimizer_dtype': 'bf16', 'recompute_modules': ['core_attn']},
         settings_read_from="nemotron/nemotron4-340b-synth.yaml at the same commit: optim (:182-189) distributed_fused_adam, grad_sync_dtype bf16, dtype bf16; activations_checkpoint_granularity selective (:138), which NeMo 1 passes as recompute_granularity (megatron_base_model.py:522, NVIDIA/NeMo @6f9f731): Megatron's selective recompute of core attention"),
    dgxc(*V2503, "nemo_megatron/README_175b.md", "NeMo Megatron BF16 (TP=4,PP=8, MBS=1, VP=12, SEQ=2048)",
         "GPT3_175B", "BF16", *H100, lay(2048, 4, 8, 1, 6, 1, 64),
         [(128, 256, 8.309, 63099), (256, 512, 8.408, 124712), (512, 1024, 8.42, 249068),
          (1024, 2048, 8.453, 496191), (2048, 4096, 8.49, 988057)],
         note="VP 6: this table's header prints VP=12, but the config the README's launch script runs at the same commit sets 6 (nemo_megatron/gpt3_175b_hydra.yaml:57 virtual_pipeline_model_parallel_size: 6; configure.sh does not override it), and v25.04.01 reprints the same step times under a layout table with VP 6; CP not printed (GBS = GA 64 x DP needs CP 1, GA from v25.04.01)",
         settings={'optimizer': 'distributed_fused_adam', 'grad_sync_dtype': 'bf16'},
         settings_read_from="nemo_megatron/gpt3_175b_hydra.yaml:139-155 at the same commit (optim: distributed_fused_adam, grad_sync_dtype bf16, dtype unset (fp32))"),
    dgxc(*V2503, "nemo_megatron/README_175b.md", "NeMo Megatron FP8 (TP=4,PP=8, MBS=1, VP=12, SEQ=2048)",
         "GPT3_175B", "FP8", *H100, lay(2048, 4, 8, 1, 6, 1, 64),
         [(128, 256, 5.626, 93190), (256, 512, 5.725, 183157), (512, 1024, 5.774, 363206),
          (1024, 2048, 5.82, 720671), (2048, 4096, 5.96, 1407485)],
         note="VP 6: this table's header prints VP=12, but the config the README's launch script runs at the same commit sets 6 (nemo_megatron/gpt3_175b_hydra.yaml:57 virtual_pipeline_model_parallel_size: 6; configure.sh does not override it), and v25.04.01 reprints the same step times under a layout table with VP 6; CP not printed (GBS = GA 64 x DP needs CP 1, GA from v25.04.01)",
         settings={'optimizer': 'distributed_fused_adam', 'grad_sync_dtype': 'bf16'},
         settings_read_from="nemo_megatron/gpt3_175b_hydra.yaml:139-155 at the same commit (optim: distributed_fused_adam, grad_sync_dtype bf16, dtype unset (fp32))"),
    # v25.05.01: GB200 tables and one H100 point per workload.
    dgxc(*V2505, L31, "GB200 Performance: Llama3.1 405b BF16", "LLAMA31_405B", "BF16", *GB200,
         lay(8192, 4, 8, 2, 8, 1, 32),
         [(128, 64, 9.347, 56092), (256, 128, 9.484, 110563), (512, 256, 9.508, 220567)]),
    dgxc(*V2505, L31, "GB200 Performance: Llama3.1 405b FP8", "LLAMA31_405B", "FP8", *GB200,
         lay(8192, 4, 8, 2, 8, 1, 32),
         [(128, 64, 6.131, 85514), (256, 128, 6.183, 169590), (512, 256, 6.244, 335867)]),
    dgxc(*V2505, L31, "H100 Performance: Llama3.1 405b BF16", "LLAMA31_405B", "BF16", *H100,
         lay(8192, 8, 8, 2, 8, 1, 32), [(512, 256, 19.810, 105863)],
         note="the layout table prints GA 32, but GBS 256 over DP 4 with MBS 1 is 64 micro-batches; GBS kept as printed"),
    dgxc(*V2505, L31, "H100 Performance: Llama3.1 405b FP8", "LLAMA31_405B", "FP8", *H100,
         lay(8192, 8, 8, 2, 8, 1, 32), [(512, 256, 13.020, 161072)],
         note="the layout table prints GA 32, but GBS 256 over DP 4 with MBS 1 is 64 micro-batches; GBS kept as printed"),
    dgxc(*V2505, NEMOTRON_README, "H100 Performance: Nemotron4 15b BF16 H100", "NEMOTRON4_15B", "BF16", *H100,
         lay(4096, 2, 1, 1, None, 2, 4), [(16, 64, 2.746, 95463)]),
    dgxc(*V2505, NEMOTRON_README, "H100 Performance: Nemotron4 15b FP8 H100", "NEMOTRON4_15B", "FP8", *H100,
         lay(4096, 2, 1, 1, None, 2, 4), [(16, 64, 1.988, 131863)]),
    dgxc(*V2505, NEMOTRON_README, "H100 Performance: Nemotron4 340b BF16 H100", "NEMOTRON4_340B", "BF16", *H100,
         lay(4096, 8, 8, 1, 12, 1, 16), [(256, 64, 4.606, 56913)]),
    dgxc(*V2505, NEMOTRON_README, "H100 Performance: Nemotron4 340b FP8 H100", "NEMOTRON4_340B", "FP8", *H100,
         lay(4096, 8, 8, 1, 12, 1, 16), [(256, 64, 3.107, 84372)]),
    dgxc(*V2505, NEMOTRON_README, "GB200 Performance: Nemotron 340b BF16 GB200 (weak scaling)", "NEMOTRON4_340B", "BF16", *GB200,
         lay(4096, 8, 4, 1, 12, 1, 8),
         [(128, 32, 2.189, 59877), (256, 64, 2.19, 119700), (512, 128, 2.229, 235212)]),
    dgxc(*V2505, NEMOTRON_README, "GB200 Performance: Nemotron 340b FP8 GB200 (weak scaling)", "NEMOTRON4_340B", "FP8", *GB200,
         lay(4096, 8, 4, 1, 12, 1, 8),
         [(128, 32, 1.483, 88383), (256, 64, 1.517, 172804), (512, 128, 1.549, 338468)]),
    dgxc(*V2505, NEMOTRON_README, "GB200 Performance: Nemotron 340b BF16 GB200 Strong Scaling", "NEMOTRON4_340B", "BF16", *GB200,
         lay(4096, 8, 4, 1, 12, 1, None),
         [(128, 512, 32.66, 64211), (256, 512, 16.58, 126486), (512, 512, 8.468, 247656)],
         note="strong-scaling table: GA 128/64/32 at 128/256/512 GPUs (layout table)"),
    dgxc(*V2505, NEMOTRON_README, "GB200 Performance: Nemotron 340b FP8 GB200 Strong Scaling", "NEMOTRON4_340B", "FP8", *GB200,
         lay(4096, 8, 4, 1, 12, 1, None),
         [(128, 512, 21.83, 96067), (256, 512, 11.21, 187078), (512, 512, 5.668, 369998)],
         note="strong-scaling table: GA 128/64/32 at 128/256/512 GPUs (layout table)"),
    dgxc(*V2505, "deepseek_v3/pretraining/README.md", "H100 Performance: Deepseek V3 BF16 H100", "DeepSeekV3", "BF16", *H100,
         lay(4096, 2, 16, 1, None, 1, 256, ep=64, expert_tensor_parallel_size=1),
         [(1024, 8192, 52.04, 644781.55)],
         note="VP printed as 1; whether the run kept DeepSeek-V3's MTP layer is not printed (the model's dimensions are measured_runs.json's DeepSeekV3)",
         settings=dict({"recompute_modules": ["mla_up_proj"]}, **TOKEN_DROP),
         settings_read_from="deepseek_v3/pretraining/launch.sh:94-102 at the same commit (h100: AOL=0, RM='mla_up_proj', passed as --recompute_modules); " + DSV3_TOKEN_DROP_FROM),
    dgxc(*V2505, "deepseek_v3/pretraining/README.md", "GB200 Performance: Deepseek V3 BF16 GB200", "DeepSeekV3", "BF16", *GB200,
         lay(4096, 2, 4, 1, None, 1, 64, ep=None, expert_tensor_parallel_size=1),
         [(128, 1024, 34.168, 122755.33), (256, 2048, 34.194, 245323.97), (512, 4096, 34.274, 489502.71)],
         note="EP 32 at 128 GPUs, 64 at 256 and 512 (layout table); VP printed as 1; MTP not printed",
         settings=dict({"recompute_modules": ["core_attn"]}, **TOKEN_DROP),
         settings_read_from="deepseek_v3/pretraining/launch.sh:103-115 at the same commit (gb200: AOL=0, RM='core_attn', passed as --recompute_modules); " + DSV3_TOKEN_DROP_FROM),
]

DGXC_EP = {("GB200 Performance: Deepseek V3 BF16 GB200", 128): 32,
           ("GB200 Performance: Deepseek V3 BF16 GB200", 256): 64,
           ("GB200 Performance: Deepseek V3 BF16 GB200", 512): 64}
DGXC_GA = {("GB200 Performance: Nemotron 340b BF16 GB200 Strong Scaling", 128): 128,
           ("GB200 Performance: Nemotron 340b BF16 GB200 Strong Scaling", 256): 64,
           ("GB200 Performance: Nemotron 340b BF16 GB200 Strong Scaling", 512): 32,
           ("GB200 Performance: Nemotron 340b FP8 GB200 Strong Scaling", 128): 128,
           ("GB200 Performance: Nemotron 340b FP8 GB200 Strong Scaling", 256): 64,
           ("GB200 Performance: Nemotron 340b FP8 GB200 Strong Scaling", 512): 32}

# --- TorchTitan benchmark reports (pytorch/torchtitan benchmarks/) --------------------------------
# FSDP2 runs (torchtitan's FSDP shards over the data-parallel x context-parallel ranks), with
# torch.compile, torchao float8 linears and async TP as each table states. `fsdp` is 1 for all of
# them; settings.fsdp_degree is the printed FSDP size. seq_length, where a table does not print it,
# is seq_len of the train config at the torchtitan commit the report names (cited per row).

TT_REPO = "pytorch/torchtitan"
TT_2412 = ("benchmarks/llama3_h100_202412_torchtitan.md", "820504e20d1149fbf0b98c567af24c4b0433b22d")
TT_ASYNC = ("benchmarks/asyncTP_llama3_h100_2025-06_torchtitan.md", "2887250bbd9103d0bc997ea2efb3a525b5e5dbc0")
TT_H200 = ("benchmarks/llama3-8b_h200_202506_trainy-whitefiber.md", "4a61bd87d3c7e92bcfeb5d5464d9e6bd13ef440a")
GRAND_TETON = ("H100-96GB-500W (Grand Teton)", None)

SOURCES["torchtitan_benchmarks"] = (
    "pytorch/torchtitan benchmarks/: llama3_h100_202412_torchtitan.md (Tables 1-6, Llama 3.1 "
    "8B/70B/405B on H100 96 GB HBM2e at 500 W), asyncTP_llama3_h100_2025-06_torchtitan.md (async "
    "TP vs vanilla TP, Llama 3 8B/70B) and llama3-8b_h200_202506_trainy-whitefiber.md (Llama 3.1 8B "
    "on H200); TPS/GPU as published; framework torchtitan")

SEQ_FROM_CONFIG = {
    "8B@9dec370": "seq_length not printed: seq_len = 8192 in train_configs/llama3_8b.toml at torchtitan 9dec370ad26b (the commit the report names)",
    "70B@9dec370": "seq_length not printed: seq_len = 8192 in train_configs/llama3_70b.toml at torchtitan 9dec370ad26b (the commit the report names)",
    "405B@9dec370": "seq_length not printed: seq_len = 8192 in train_configs/llama3_405b.toml at torchtitan 9dec370ad26b (the commit the report names)",
    "70B@820504e": "seq_length not printed: seq_len = 8192 in torchtitan/models/llama3/train_configs/llama3_70b.toml at torchtitan 820504e20d11 (the commit the report names)",
    "8B@820504e": "seq_length not printed: seq_len = 8192 in torchtitan/models/llama3/train_configs/llama3_8b.toml at torchtitan 820504e20d11 (the commit the report names)",
    "8B@e7c0cae": "seq_length not printed: seq_len = 8192 in torchtitan/models/llama3/train_configs/llama3_8b.toml at torchtitan e7c0cae934df (the commit the report names; the command line sets no seq_len)",
}


def tt(label, doc, table, model, precision, system, gpus, tps, *, seq, tp=1, pp=1, cp=1, vp=1,
       fsdp_degree, local_batch, gbs=None, memory_gib=None, settings=None, note=None):
    """One TorchTitan row as the report prints it."""
    path, commit = doc
    row = {
        "id": f"torchtitan-{label}", "kind": "torchtitan_benchmark", "framework": "torchtitan",
        "source": {"title": "TorchTitan benchmark report", "repo": TT_REPO, "path": path,
                   "commit": commit, "location": table},
        "model": model, "system": system[0], "cluster": system[1], "precision": precision,
        "task": "pre-training", "num_gpus": gpus, "global_batch": gbs,
        "micro_batch": local_batch if pp == 1 else None,
        "seq_length": seq if isinstance(seq, int) else 8192,
        "tp": tp, "pp": pp, "cp": cp, "vp": vp, "ep": None, "fsdp": 1,
        "measured": {"tokens_per_s_per_gpu": tps},
        "settings": dict(settings or {}, fsdp_degree=fsdp_degree, local_batch_size=local_batch),
        "settings_source": {"found": False, "why": "the report prints the techniques and sizes; the full job config is not published"},
    }
    if memory_gib is not None:
        row["measured"]["peak_memory_gib"] = memory_gib
    if system[1] is None:
        row["cluster_missing"] = ("H100 SXM with 96 GB HBM2e (2.4 TB/s) at the 500 W default power limit, "
                                  "8 per host on NVLink, 400 Gb/s RDMA per GPU (Grand Teton): no profile "
                                  "in recipes/clusters")
    notes = [n for n in (None if isinstance(seq, int) else SEQ_FROM_CONFIG[seq], note) if n]
    if pp > 1:
        notes.append("micro_batch null: the pipeline micro-batch size is not printed (local batch size in settings)")
    if notes:
        row["note"] = "; ".join(notes)
    return row


SAC = {"recompute": "selective"}
FULL = {"recompute": "full"}
COMPILE = {"torch_compile": True}
F8 = {"float8_linear": True}
ASYNC_TP = {"async_tp": True}
T1 = "Table 1: 1D Parallelism (FSDP). Llama 3.1 8B model. 8 GPUs. Local batch size 2, global batch size 16. Selective activation checkpointing."
T2 = "Table 2: FSDP + CP + torch.compile + Float8. Llama 3.1 8B model. 8 GPUs. Local batch size 1. Full activation checkpointing."
T3 = "Table 3: 1D Parallelism (FSDP). Llama 3.1 8B model. 128 GPUs. Local batch size 2, global batch size 256. Selective activation checkpointing."
T4 = "Table 4: 2D parallelism (FSDP + TP) + torch.compile + Float8. Llama 3.1 70B model. 256 GPUs (FSDP 32, TP 8). Local batch size 16, global batch size 512. Full activation checkpointing."
T5 = "Table 5: 3D parallelism (FSDP + TP + PP) + torch.compile + Float8 + AsyncTP. Llama 3.1 405B model. 512 GPUs (FSDP 8, TP 8, PP8). Local batch size 32, global batch size 256. Full activation checkpointing."
T6 = "Table 6: 4D parallelism (FSDP + TP + PP + CP) + torch.compile + Float8 + AsyncTP + 1F1B. Llama 3.1 405B model. 512 GPUs (TP 8, PP8). Local batch size 8. Full activation checkpointing."
A70 = "Llama3 70b on 256 H100s with FSDP=32, TP=8, torch.compile, full AC, local batch size 16"
A8 = "Llama3 8b on 64 H100s with FSDP=8, TP=8, torch.compile, per op SAC, local batch size 12"
ASYNC_NOTE = ("the table header says 'tokens/sec'; read as per GPU: the same 70B layout measured 829 TPS/GPU "
              "with float8 in llama3_h100_202412_torchtitan.md Table 4, beside 809.8 here")
H200_TABLE = "Results table (NUM_NODES, TPS/GPU, Memory(GiB)); command: local_batch_size=2, compile, float8 converters with FSDP float8 all-gather"
H200 = ("DGX-H200", "dgx-h200")


def _tt_rows():
    rows = []
    for gpus, table, gbs, label, tps_mem in ((8, T1, 16, "2412-8b-8g", ((5762, 82.4), (6667, 77.0), (8532, 76.8))),
                                             (128, T3, 256, "2412-8b-128g", ((5605, 67.0), (6514, 62.0), (8380, 61.8)))):
        for (tps, mem), (suffix, precision, settings) in zip(tps_mem, (
                ("fsdp", "BF16", SAC), ("fsdp-compile", "BF16", {**SAC, **COMPILE}),
                ("fsdp-compile-float8", "FP8-tensorwise", {**SAC, **COMPILE, **F8}))):
            rows.append(tt(f"{label}-{suffix}", TT_2412, table, "LLAMA3_8B", precision, GRAND_TETON,
                           gpus, tps, seq="8B@9dec370", fsdp_degree=gpus, local_batch=2, gbs=gbs,
                           memory_gib=mem, settings=settings))
    for fsdp, cp, seq, tps, mem in ((8, 1, 32768, 3890, 83.9), (4, 2, 65536, 2540, 84.2),
                                    (2, 4, 131072, 1071, 84.0), (1, 8, 262144, 548, 84.5)):
        rows.append(tt(f"2412-8b-8g-cp{cp}-{seq // 1024}k", TT_2412, T2, "LLAMA3_8B", "FP8-tensorwise",
                       GRAND_TETON, 8, tps, seq=seq, cp=cp, fsdp_degree=fsdp, local_batch=1,
                       memory_gib=mem, settings={**FULL, **COMPILE, **F8}))
    for suffix, tps, mem, extra in (("2d", 829, 71.9, {}), ("2d-asynctp", 876, 67.6, ASYNC_TP)):
        rows.append(tt(f"2412-70b-256g-{suffix}", TT_2412, T4, "LLAMA3_70B", "FP8-tensorwise", GRAND_TETON,
                       256, tps, seq="70B@9dec370", tp=8, fsdp_degree=32, local_batch=16, gbs=512,
                       memory_gib=mem, settings={**FULL, **COMPILE, **F8, **extra}))
    for suffix, schedule, vp, tps, mem in (("1f1b", "1F1B", 1, 100, 82.5),
                                           ("interleaved-1f1b", "Interleaved 1F1B", None, 128, 72.7)):
        rows.append(tt(f"2412-405b-512g-{suffix}", TT_2412, T5, "LLAMA31_405B", "FP8-tensorwise", GRAND_TETON,
                       512, tps, seq="405B@9dec370", tp=8, pp=8, vp=vp, fsdp_degree=8, local_batch=32,
                       gbs=256, memory_gib=mem,
                       settings={**FULL, **COMPILE, **F8, **ASYNC_TP, "pp_schedule": schedule},
                       note=None if vp else "vp null: the number of stages per rank of the interleaved schedule is not printed"))
    for fsdp, cp, seq, tps, mem in ((8, 1, 32768, 76, 75.3), (4, 2, 65536, 47, 75.9),
                                    (2, 4, 131072, 31, 77.1), (1, 8, 262144, 16, 84.9)):
        rows.append(tt(f"2412-405b-512g-cp{cp}-{seq // 1024}k", TT_2412, T6, "LLAMA31_405B", "FP8-tensorwise",
                       GRAND_TETON, 512, tps, seq=seq, tp=8, pp=8, cp=cp, fsdp_degree=fsdp,
                       local_batch=8, memory_gib=mem,
                       settings={**FULL, **COMPILE, **F8, **ASYNC_TP, "pp_schedule": "1F1B"}))
    for model, size, table, tp_fsdp, gpus, lbs, ac, vals in (
            ("LLAMA3_70B", "70b", A70, 32, 256, 16, FULL,
             (("BF16", 597.3, 652.4), ("FP8-tensorwise", 809.8, 942.4), ("FP8-rowwise", 599.6, 624.8))),
            ("LLAMA3_8B", "8b", A8, 8, 64, 12, SAC,
             (("BF16", 4378, 4809.4), ("FP8-tensorwise", 5078.1, 5570.1), ("FP8-rowwise", 3708.5, 3914.9)))):
        for precision, vanilla, async_tp in vals:
            f8 = F8 if precision != "BF16" else {}
            for suffix, tps, extra in (("vanilla-tp", vanilla, {}), ("async-tp", async_tp, ASYNC_TP)):
                rows.append(tt(f"2506-{size}-{gpus}g-{precision.lower()}-{suffix}", TT_ASYNC, table, model,
                               precision, GRAND_TETON, gpus, tps, seq=f"{size.upper()}@820504e", tp=8,
                               fsdp_degree=tp_fsdp, local_batch=lbs,
                               settings={**ac, **COMPILE, **f8, **extra}, note=ASYNC_NOTE))
    for nodes, tps, mem in ((4, 10938, 47.96), (8, 10753, 46.97)):
        rows.append(tt(f"trainy-h200-8b-{nodes * 8}g", TT_H200, H200_TABLE, "LLAMA3_8B", "FP8-tensorwise", H200,
                       nodes * 8, tps, seq="8B@e7c0cae", fsdp_degree=nodes * 8, local_batch=2,
                       memory_gib=mem, settings={**SAC, **COMPILE, **F8},
                       note=("H200 hosts on WhiteFiber with 400 Gb/s CX-7 per GPU (not a DGX; dgx-h200 is "
                             "the nearest profile); FSDP over all GPUs and selective op AC are the train "
                             "config's defaults (data_parallel_shard_degree -1, activation_checkpoint "
                             "mode selective) at e7c0cae; float8 recipe printed only as the float8 converter")))
    return rows


TORCHTITAN_ROWS = _tt_rows()

# --- Megatron MoE Model Zoo (yanring/Megatron-MoE-ModelZoo best_practice/qwen3/readme.md) ---------
# Megatron-Core (Megatron-LM) MoE runs by the Megatron-Core MoE team: step time and per-GPU model
# TFLOP/s (their FLOP count) as published. tokens/s/GPU is derived only where a step time is printed.

MZ_REPO = "yanring/Megatron-MoE-ModelZoo"
MZ_QWEN3 = ("best_practice/qwen3/readme.md", "798dfb503c6884a130fca8638e13da3bd0dd7ce0")
SOURCES["megatron_moe_model_zoo"] = (
    "yanring/Megatron-MoE-ModelZoo best_practice/qwen3/readme.md @798dfb5 (Megatron-Core MoE "
    "best-practice results: Qwen3-235B-A22B and Qwen3-Next-80B-A3B on H100, GB200, GB300; step time "
    "and per-GPU TFLOP/s as published, commands beside each table); framework megatron")
# The tables' TFLOP/s are Megatron-LM's count (num_floating_point_operations in
# megatron/training/training.py), which halves core attention for the causal mask since 8873b55
# (2025-03-06). The same tables confirm it: where both are printed, TFLOP/s over tokens/s/GPU is
# 147.3 GFLOP per token at 4K (245 TFLOP/s, 19.7 s step; 276, 17.6 s gives 148.2), which is the
# causal count of Qwen3-235B-A22B (148.4); counting the whole score matrix gives 167.3.
MZ_FLOP_COUNT = ("Megatron-LM training.py num_floating_point_operations, causal attention counted as "
                 "half since 8873b55 (2025-03-06); the table's 4K rows that print both step time and "
                 "TFLOP/s give 147-148 GFLOP per token, the causal count")
MZ_GPN = ("GPUs per node: sbatch_benchmarking.sh runs 4 tasks per node when GB200_CLUSTER=1 "
          "(GB200/GB300 trays) and 8 otherwise (@e865051)")


def mz(label, table, model, system, precision, gpus, seq, tp, pp, vp, cp, ep, mbs, gbs, *,
       step_s=None, tflops, fsdp=0, settings=None, note=None, tflops_forced=None):
    path, commit = MZ_QWEN3
    measured = {}
    published = {"model_tflops_per_gpu": tflops}
    if step_s is not None:
        published["step_time_s"] = step_s
        measured["tokens_per_s_per_gpu"] = round(seq * gbs / step_s / gpus, 1)
        measured["derived"] = "seq_length x global_batch / published step time / num_gpus"
    else:
        measured["model_tflops_per_gpu"] = tflops
        measured["attention_flops"] = "causal"
        measured["attention_flops_source"] = MZ_FLOP_COUNT
    if tflops_forced is not None:
        published["model_tflops_per_gpu_forced_balance"] = tflops_forced
    measured["published"] = published
    row = {
        "id": f"mz-qwen3-{label}", "kind": "megatron_moe_model_zoo", "framework": "megatron",
        "source": {"title": "Megatron MoE Model Zoo: Qwen3 performance results", "repo": MZ_REPO,
                   "path": path, "commit": commit, "location": table},
        "model": model, "system": system[0], "cluster": system[1], "precision": precision,
        "task": "pre-training", "num_gpus": gpus, "global_batch": gbs, "micro_batch": mbs,
        "seq_length": seq, "tp": tp, "pp": pp, "cp": cp, "vp": vp, "ep": ep, "fsdp": fsdp,
        "measured": measured, "settings": settings or {},
        "settings_source": {"found": True, "repo": MZ_REPO, "path": path, "commit": commit,
                            "why": "the table's columns and the command printed under it"},
    }
    if note:
        row["note"] = note
    return row


MZ_H100 = ("DGX-H100", "dgx-h100")
MZ_T1 = "H100 table (256 H100 GPUs, NVLink 4th gen, InfiniBand 8x50 GB/s)"
MZ_LC = "H100 'Long Context' table (Qwen3-235B-A22, DeepEP, bf16); PP 8, VPP 4, EP 8 from its command"
MZ_GB200 = "GB200 table (Qwen3-235B-A22B, HybridEP, NVLink domain 72); layouts as printed, commands below it"
MZ_GB300 = "GB300 table (Qwen3-235B-A22B, HybridEP, NVLink domain 72)"
NORM_ACT = {"recompute_modules": ["layernorm", "moe_act"], "moe_token_dispatcher_type": "flex", "moe_flex_dispatcher_backend": "deepep"}
FORCED = "measured with --moe-router-force-load-balancing (benchmark-only balanced routing), per the command under the table"

MZ_ROWS = [
    mz("h100-235b-256g-crossnode-ep32", MZ_T1, "Qwen3_235B_A22B", MZ_H100, "BF16", 256, 4096, 2, 8, 4, 1, 32, 1, 2048,
       step_s=19.7, tflops=245, settings=dict(NORM_ACT, expert_tensor_parallel_size=1, code="moe_dev(f3e6c5)")),
    mz("h100-235b-256g-crossnode-ep32-a2a-overlap", MZ_T1, "Qwen3_235B_A22B", MZ_H100, "BF16", 256, 4096, 2, 8, 4, 1, 32, 1, 2048,
       step_s=17.6, tflops=276, settings=dict(NORM_ACT, expert_tensor_parallel_size=1, moe_a2a_overlap=True, code="moe_dev(f3e6c5)"),
       note="Notes column: '+1f1b overlap' (EP all-to-all overlapped with the 1F1B schedule)"),
    mz("h100-235b-256g-intranode-ep8-fsdp", MZ_T1, "Qwen3_235B_A22B", MZ_H100, "BF16", 256, 4096, 2, 1, 1, 1, 8, 4, 2048,
       step_s=17.6, tflops=276, fsdp=1,
       settings={"recompute_num_layers": 1, "recompute": "full", "moe_token_dispatcher_type": "flex", "moe_flex_dispatcher_backend": "deepep", "expert_tensor_parallel_size": 1, "code": "main(1e057005)"},
       note="FSDP 'On', EDP 32, DP 128; recompute 'full'; Notes column: 'disable log para norm'"),
    mz("h100-235b-256g-intranode-ep8-pp32-a2a", MZ_T1, "Qwen3_235B_A22B", MZ_H100, "BF16", 256, 4096, 2, 32, 3, 1, 8, 1, 2048,
       step_s=24.2, tflops=200, settings={"recompute_modules": ["layernorm", "moe_act"], "moe_token_dispatcher_type": "alltoall", "expert_tensor_parallel_size": 1, "code": "main(1e057005)"}),
    mz("h100-235b-256g-intranode-ep8-tp4", MZ_T1, "Qwen3_235B_A22B", MZ_H100, "BF16", 256, 4096, 4, 8, 4, 1, 8, 1, 2048,
       step_s=29.0, tflops=167, settings={"moe_token_dispatcher_type": "flex", "moe_flex_dispatcher_backend": "deepep", "expert_tensor_parallel_size": 1, "code": "main(1e057005)"},
       note="recompute column empty (no recompute)"),
    mz("h100-next80b-128g-ep32", MZ_T1, "Qwen3_Next_80B_A3B", MZ_H100, "BF16", 128, 4096, 1, 4, 3, 1, 32, 1, 256,
       step_s=2.2, tflops=89,
       settings={"recompute_modules": ["layernorm", "moe_act", "shared_experts"], "moe_token_dispatcher_type": "flex", "moe_flex_dispatcher_backend": "deepep", "expert_tensor_parallel_size": 1, "code": "dev(bbc762d5)"},
       note="the page notes Qwen3-Next-80B-A3B 'is not well tuned'"),
]
for _seq, _cp, _forced, _dropless in ((16384, 1, 295, 237), (32768, 2, 335, 277), (65536, 4, 368, 320), (131072, 8, 389, 357)):
    MZ_ROWS.append(mz(f"h100-235b-256g-{_seq // 1024}k-cp{_cp}", MZ_LC, "Qwen3_235B_A22B", MZ_H100, "BF16", 256, _seq, 4, 8, 4, _cp, 8,
                      None, 256, tflops=_dropless, tflops_forced=_forced,
                      settings={"recompute_modules": ["layernorm", "moe"], "moe_token_dispatcher_type": "flex", "moe_flex_dispatcher_backend": "deepep"},
                      note=("NNODES 32 x 8 GPUs; measured = the 'dropless' TFLOP/s, the forced-balance figure is kept in "
                            "measured.published; micro_batch null: not in the command (the runtime.conf default for "
                            "Qwen3-235B-A22B is 1)")))
    MZ_ROWS.append(mz(f"h100-235b-256g-{_seq // 1024}k-cp{_cp}-forced", MZ_LC, "Qwen3_235B_A22B", MZ_H100, "BF16", 256, _seq, 4, 8, 4,
                      _cp, 8, None, 256, tflops=_forced,
                      settings={"recompute_modules": ["layernorm", "moe"], "moe_token_dispatcher_type": "flex", "moe_flex_dispatcher_backend": "deepep",
                                "moe_router_force_load_balancing": True},
                      note=("NNODES 32 x 8 GPUs; measured = the 'forced balance' TFLOP/s of the same cell, run with the command plus "
                            "--moe-router-force-load-balancing (the note under the table); micro_batch null: not in the command "
                            "(the runtime.conf default for Qwen3-235B-A22B is 1)")))
MZ_ROWS += [
    mz("gb200-235b-256g-bf16", MZ_GB200, "Qwen3_235B_A22B", ("DGX-GB200", "gb200-nvl72"), "BF16", 256, 4096, 1, 8, 1, 1, 8, 1, 8192,
       tflops=750, settings={"moe_token_dispatcher_type": "flex", "moe_flex_dispatcher_backend": "hybridep", "moe_router_force_load_balancing": True, "cuda_graph_impl": "transformer_engine",
                             "cuda_graph_scope": ["attn", "moe_router", "moe_preprocess"]},
       note=f"NNODES 64; {MZ_GPN}; {FORCED}"),
    mz("gb200-235b-256g-mxfp8", MZ_GB200, "Qwen3_235B_A22B", ("DGX-GB200", "gb200-nvl72"), "MXFP8", 256, 4096, 1, 4, 6, 1, 64, 3, 3072,
       tflops=919, settings={"moe_token_dispatcher_type": "flex", "moe_flex_dispatcher_backend": "hybridep", "moe_router_force_load_balancing": True, "moe_a2a_overlap": True, "recompute_modules": ["moe_act", "layernorm"],
                             "cuda_graph_impl": "transformer_engine", "cuda_graph_scope": ["attn", "moe_router", "moe_preprocess"],
                             "fine_grained_activation_offloading": ["expert_fc1", "moe_act"]},
       note=f"Notes column: 'activation offloading required'; NNODES 64; {MZ_GPN}; {FORCED}"),
    mz("gb200-235b-128g-128k-cp4-mxfp8", MZ_GB200, "Qwen3_235B_A22B", ("DGX-GB200", "gb200-nvl72"), "MXFP8", 128, 131072, 4, 4, 12, 4, 32, 1, 1024,
       tflops=1150, settings={"moe_token_dispatcher_type": "flex", "moe_flex_dispatcher_backend": "hybridep", "moe_router_force_load_balancing": True, "recompute_modules": ["moe_act", "layernorm"]},
       note=f"Notes column: 'long context'; NNODES 32; {MZ_GPN}; {FORCED}"),
    mz("gb300-235b-64g-mxfp8", MZ_GB300, "Qwen3_235B_A22B", ("DGX-GB300", "gb300-nvl72"), "MXFP8", 64, 4096, 1, 1, 1, 1, 64, 1, 8192,
       tflops=1055, settings={"moe_token_dispatcher_type": "flex", "moe_flex_dispatcher_backend": "hybridep", "moe_router_force_load_balancing": True, "moe_a2a_overlap": True, "cuda_graph_impl": "transformer_engine",
                              "cuda_graph_scope": ["attn", "moe_router", "moe_preprocess"]},
       note=f"NNODES 16; {MZ_GPN}; {FORCED}"),
]

# --- MosaicML LLM Foundry MPT benchmarks (mosaicml/llm-foundry scripts/train/benchmarking/README.md) ---
# PyTorch FSDP (Composer) runs of MPT models on the MosaicML platform, BF16 autocast; throughput
# T/s/GPU as published. MPT: non-gated GELU MLP (expansion 4), tied embeddings, no GQA.

LF_REPO = "mosaicml/llm-foundry"
LF_README = ("scripts/train/benchmarking/README.md", "495218376830947dce625efabc4d86be7c47cc45")
LF_YAML_COMMIT = "495218376830947dce625efabc4d86be7c47cc45"
SOURCES["llm_foundry_benchmarks"] = (
    "mosaicml/llm-foundry scripts/train/benchmarking/README.md @4952183: tables 'H100 80GB BF16 "
    "(Large Scale, >= 128 GPUs)' (all rows) and 'H100 80GB BF16' (the 7B to 70B rows); "
    "Throughput (T/s/GPU) as published; framework mosaic (Composer + PyTorch FSDP)")


def mpt_dims(size, d_model, n_heads, n_layers):
    return dims({"repo": LF_REPO, "commit": LF_YAML_COMMIT,
                 "path": f"scripts/train/yamls/pretrain/mpt-{size}.yaml",
                 "defaults": "llmfoundry/models/mpt/configuration_mpt.py (tie_word_embeddings True; ffn mptmlp, expansion_ratio from the yaml)"},
                num_layers=n_layers, hidden_size=d_model, ffn_hidden_size=4 * d_model,
                num_attention_heads=n_heads, num_query_groups=n_heads, kv_channels=d_model // n_heads,
                vocab_size=50368, tie_embeddings=True, gated_linear_unit=False, activation="gelu")


for _size, _d, _h, _l in (("1b", 2048, 16, 24), ("3b", 2560, 20, 32), ("7b", 4096, 32, 32),
                          ("13b", 5120, 40, 40), ("30b", 7168, 56, 48), ("70b", 8192, 64, 80)):
    MODELS[f"MPT_{_size.upper()}"] = mpt_dims(_size, _d, _h, _l)

LF_LARGE = "H100 80GB BF16 (Large Scale, >= 128 GPUs)"
LF_H100 = "H100 80GB BF16"
# model | seq | GPUs | MBS | GA | GBS (sequences) | T/s/GPU | sharding | activation checkpointing
LF_ROWS_TEXT = {
    LF_LARGE: """
70b 2048 512 8 1 4096 1007 FULL_SHARD True
70b 2048 256 8 1 2048 1035 FULL_SHARD True
70b 2048 128 8 1 1024 1058 FULL_SHARD True
30b 2048 512 8 1 4096 2115 FULL_SHARD True
30b 2048 256 8 1 2048 2148 FULL_SHARD True
30b 2048 128 8 1 1024 2199 FULL_SHARD True
13b 2048 512 16 1 8192 4952 FULL_SHARD True
13b 2048 256 16 1 4096 4989 FULL_SHARD True
13b 2048 128 16 1 2048 5080 FULL_SHARD True
7b 2048 512 6 1 3072 9670 FULL_SHARD False
7b 2048 256 6 1 1536 10119 FULL_SHARD False
7b 2048 128 6 1 768 10475 FULL_SHARD False
3b 2048 512 8 1 4096 21664 SHARD_GRAD_OP False
3b 2048 256 8 1 2048 22772 SHARD_GRAD_OP False
3b 2048 128 8 1 1024 23422 SHARD_GRAD_OP False
1b 2048 512 12 1 6144 39837 SHARD_GRAD_OP False
1b 2048 256 12 1 3072 42555 SHARD_GRAD_OP False
1b 2048 128 12 1 1536 44123 SHARD_GRAD_OP False
""",
    LF_H100: """
70b 2048 64 8 4 2048 1039 FULL_SHARD True
70b 2048 32 2 16 1024 882 FULL_SHARD True
30b 8192 8 1 21 168 1384 FULL_SHARD True
30b 4096 8 1 21 168 1802 FULL_SHARD True
30b 2048 32 14 3 1344 2308 FULL_SHARD True
30b 2048 16 10 3 480 2263 FULL_SHARD True
30b 2048 8 3 21 504 2002 FULL_SHARD True
30b 1024 8 6 21 1008 2084 FULL_SHARD True
13b 32768 8 1 3 24 1976 FULL_SHARD True
13b 16384 8 3 3 72 2985 FULL_SHARD True
13b 4096 8 10 3 240 4717 FULL_SHARD True
13b 2048 64 2 1 128 4800 FULL_SHARD False
13b 2048 32 2 1 64 4811 FULL_SHARD False
13b 2048 16 2 1 32 4767 FULL_SHARD False
13b 2048 8 2 1 16 4792 FULL_SHARD False
13b 1024 8 40 3 960 5502 FULL_SHARD True
7b 65536 8 1 2 16 1956 FULL_SHARD True
7b 32768 8 2 2 32 3318 FULL_SHARD True
7b 8192 8 8 2 128 6935 FULL_SHARD True
7b 4096 8 16 2 256 8611 FULL_SHARD True
7b 2048 8 6 1 48 10643 FULL_SHARD False
7b 1024 8 64 2 1024 10203 FULL_SHARD True
""",
}


def _lf_rows():
    rows = []
    path, commit = LF_README
    for table, text in LF_ROWS_TEXT.items():
        tag = "large" if table == LF_LARGE else "h100"
        for line in text.strip().splitlines():
            size, seq, gpus, mbs, ga, gbs, tps, shard, ckpt = line.split()
            settings = {"sharding_strategy": shard, "grad_accum": int(ga), "mixed_precision": "amp_bf16",
                        "attn_impl": "flash"}
            if ckpt == "True":
                settings["recompute"] = "full"
            rows.append({
                "id": f"llmfoundry-{tag}-mpt-{size}-{seq}-{gpus}g", "kind": "llm_foundry_benchmark",
                "framework": "mosaic",
                "source": {"title": "LLM Foundry MPT training benchmarks", "repo": LF_REPO, "path": path,
                           "commit": commit, "location": f"section 'Results', table '{table}'"},
                "model": f"MPT_{size.upper()}", "system": "H100-80GB (MosaicML platform)",
                "cluster": "dgx-h100", "precision": "BF16", "task": "pre-training",
                "num_gpus": int(gpus), "global_batch": int(gbs), "micro_batch": int(mbs),
                "seq_length": int(seq), "tp": 1, "pp": 1, "cp": 1, "vp": 1, "ep": None, "fsdp": 1,
                "measured": {"tokens_per_s_per_gpu": int(tps)},
                "settings": settings,
                "settings_source": {"found": False, "why": "the table prints batch, sharding and checkpointing; the node interconnect of the MosaicML platform is not printed"},
                "note": "GPU printed as h100_80gb; mapped to dgx-h100 (an 8-GPU H100 80 GB node; the platform's network is not printed)",
            })
    return rows


LF_ROWS = _lf_rows()
