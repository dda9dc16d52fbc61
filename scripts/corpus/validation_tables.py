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
            "Nemotron-340B-128g": {"note": "'Nemotron-340B' read as Nemotron-4 340B (NeMo Nemotron4Config340B)"},
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
            "LLAMA3.1-405B-128g-fsdp": {"note": "cells print 'FSDP 1 (0), TP 2 (4), PP 1 (8), CP 1 (2), VP 1 (8), GA 1 (32), 706 (638)': the figures outside parentheses form this row"},
            "LLAMA3.1-405B-128g-alt": {"note": "the figures in parentheses of the same printed row form this row (see the -fsdp row)"},
        },
    },
]
