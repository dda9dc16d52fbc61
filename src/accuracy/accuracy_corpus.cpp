// The validation corpus: recipes/corpus/measured_runs.json -> rows the cost model can price.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "hcp/accuracy.h"
#include "hcp/checked.h"
#include "hcp/data_dir.h"
#include "hcp/json_io.h"
#include "hcp/text_util.h"

namespace hcp::accuracy {

namespace {

using nlohmann::json;

Error corpus_error(const std::string& path, const std::string& key, const std::string& message) {
  Error e;
  e.message = message;
  e.location = Location{path, 0, 0};
  e.key = key;
  return e;
}

int64_t int_or(const json& j, const char* key, int64_t fallback) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_number()) return fallback;
  return it->get<int64_t>();
}

std::string string_or(const json& j, const char* key, std::string fallback = {}) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_string()) return fallback;
  return it->get<std::string>();
}

bool bool_or(const json& j, const char* key, bool fallback) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_boolean()) return fallback;
  return it->get<bool>();
}

/// Megatron pads the vocabulary to a multiple of 128 (make_vocab_size_divisible_by).
int64_t pad_vocab(int64_t vocab) {
  return (vocab + 127) / 128 * 128;
}

/// The model sizes of one `models` entry (Megatron names; see build_corpus.py DIMS_FIELDS).
Result<ModelDims> dims_of(const json& m, const std::string& path, const std::string& key) {
  ModelDims d;
  d.num_layers = int_or(m, "num_layers", 0);
  d.hidden = int_or(m, "hidden_size", 0);
  d.heads = int_or(m, "num_attention_heads", 0);
  if (d.num_layers <= 0 || d.hidden <= 0 || d.heads <= 0) {
    return corpus_error(path, "models." + key,
                        "model " + key + " lacks num_layers, hidden_size or num_attention_heads");
  }
  d.kv_heads = int_or(m, "num_query_groups", d.heads);
  d.head_dim = int_or(m, "kv_channels", 0);
  if (d.head_dim <= 0) d.head_dim = int_or(m, "qk_head_dim", d.hidden / d.heads);
  d.ffn = int_or(m, "ffn_hidden_size", 4 * d.hidden);
  d.vocab = pad_vocab(int_or(m, "vocab_size", 32000));
  d.gated_mlp = bool_or(m, "gated_linear_unit", false);
  d.tied_embeddings = bool_or(m, "tie_embeddings", false);
  d.num_experts = int_or(m, "num_moe_experts", 0);
  d.moe_ffn = int_or(m, "moe_ffn_hidden_size", d.ffn);
  d.moe_topk = int_or(m, "moe_router_topk", 0);
  d.moe_shared_ffn = int_or(m, "moe_shared_expert_intermediate_size", 0);
  // MoE, MLA, MTP and hybrid details (the fields model_dims_of reads from a recipe).
  if (auto freq = string_or(m, "moe_layer_freq");
      d.num_experts > 0 && freq.rfind("first ", 0) == 0) {
    d.moe_dense_layers = std::atoll(freq.c_str() + 6);  // "first 3 dense, then MoE"
  }
  d.mtp_layers = int_or(m, "mtp_num_layers", 0);
  d.mla = bool_or(m, "multi_latent_attention", false);
  if (d.mla) {
    d.q_lora_rank = int_or(m, "q_lora_rank", 0);
    d.kv_lora_rank = int_or(m, "kv_lora_rank", 512);
    d.qk_head_dim = int_or(m, "qk_head_dim", 128);
    d.qk_pos_dim = int_or(m, "qk_pos_emb_head_dim", 64);
    d.v_head_dim = int_or(m, "v_head_dim", 128);
  }
  d.layer_pattern = string_or(m, "hybrid_layer_pattern");
  if (!d.layer_pattern.empty()) {
    d.layer_pattern = d.layer_pattern.substr(0, d.layer_pattern.find('/'));
    d.num_layers = static_cast<int64_t>(d.layer_pattern.size());
    d.mamba_heads = int_or(m, "mamba_num_heads", 0);
    d.mamba_head_dim = int_or(m, "mamba_head_dim", 64);
    d.mamba_state_dim = int_or(m, "mamba_state_dim", 128);
    d.mamba_groups = int_or(m, "mamba_num_groups", 8);
  }
  d.window = int_or(m, "window_size", 0);
  if (int64_t skip = int_or(m, "window_attn_skip_freq", 0); d.window > 0 && skip > 0) {
    d.windowed.assign(static_cast<size_t>(d.num_layers), true);
    for (int64_t i = 0; i < d.num_layers; ++i)
      d.windowed[i] = (i + 1) % skip != 0;
  }
  return d;
}

std::string source_line(const json& s) {
  std::string out = string_or(s, "repo") + " " + string_or(s, "path");
  if (auto c = string_or(s, "container"); !c.empty()) out += " (container " + c;
  if (auto sec = string_or(s, "section"); !sec.empty()) out += ", " + sec;
  if (!string_or(s, "container").empty()) out += ")";
  if (auto loc = string_or(s, "location"); !loc.empty()) out += " " + loc;
  if (auto commit = string_or(s, "commit"); !commit.empty()) out += " @" + commit.substr(0, 7);
  return out;
}

/// Recompute as the Bridge preset sets it: recompute_modules -> selective, recompute_num_layers
/// -> full; a printed granularity (`recompute`: "full" / "selective", the TorchTitan and
/// llm-foundry rows' activation checkpointing) as printed; otherwise none (the recipe default of
/// the summary models, Bridge's recompute_granularity None).
Recompute recompute_of(const json& settings) {
  if (settings.contains("recompute_num_layers")) return Recompute::kFull;
  if (settings.contains("recompute_modules")) return Recompute::kSelective;
  if (auto printed = parse_recompute(string_or(settings, "recompute"))) return *printed;
  return Recompute::kNone;
}

/// A list of strings under `key` (empty when absent or not a list).
std::vector<std::string> strings_of(const json& settings, const char* key) {
  std::vector<std::string> out;
  auto it = settings.find(key);
  if (it == settings.end() || !it->is_array()) return out;
  for (const json& item : *it)
    if (item.is_string()) out.push_back(item.get<std::string>());
  return out;
}

/// The optimizer state of NeMo 1's distributed_fused_adam (Apex DistributedFusedAdam) as NeMo
/// configures it (nemo/collections/nlp/models/language_modeling/megatron_base_model.py:779-800,
/// NVIDIA/NeMo @6f9f731): with optim.dtype bf16, the bf16 model dtype, no master copy
/// (store_params False) and bf16 Adam moments, 2 + 2 bytes per parameter; with the default fp32,
/// 16-bit remainders of the bf16 params (store_param_remainders) and fp32 moments, 2 + 4 + 4.
constexpr double kFusedAdamBf16StateBytes = 4;
constexpr double kFusedAdamFp32StateBytes = 10;

/// Memory settings a row states or its source's configs set: offloaded modules, the optimizer
/// and its state dtype, the gradient reduction dtype.
void read_memory_settings(const json& settings, const std::string& kind, TrainingSetup& setup) {
  setup.offload_modules = strings_of(settings, "fine_grained_activation_offloading");
  std::string optimizer = string_or(settings, "optimizer");
  std::string state_dtype = string_or(settings, "optimizer_dtype", "fp32");
  if (optimizer == "distributed_fused_adam") {
    setup.optimizer_bytes_per_param =
        state_dtype == "bf16" ? kFusedAdamBf16StateBytes : kFusedAdamFp32StateBytes;
  }
  if (!optimizer.empty()) {
    // NeMo 1 (launcher configs): grad_reduce_in_fp32 = (optim.grad_sync_dtype == fp32)
    // (megatron_gpt_model.py:524 @6f9f731); Apex's grad_sync_dtype defaults to the state dtype.
    setup.grad_reduce_in_fp32 = string_or(settings, "grad_sync_dtype", state_dtype) == "fp32";
  } else if (kind == "nemo_perf_summary" || kind == "dgxc_benchmarking") {
    // NeMo 2's performance scripts set grad_reduce_in_fp32 = False for every compute dtype
    // (scripts/performance/helpers.py:234, set_precision_configs, NVIDIA/NeMo @8cfedd7); earlier
    // ones build the recipe with performance_mode=True (scripts/performance/llm/
    // pretrain_llama3_8b.py:51 @da49629), which sets it (recipes/llama3_8b.py:238,
    // llama31_405b.py:253, nemotron4_15b.py:222, nemotron4_340b.py:226 @da49629).
    setup.grad_reduce_in_fp32 = false;
  }
}

/// The recompute settings of a row: full (recompute_num_layers) or selective (its modules).
void read_recompute(const json& settings, TrainingSetup& setup) {
  setup.recompute = recompute_of(settings);
  if (settings.contains("recompute_modules") && settings["recompute_modules"].is_array()) {
    for (const json& module : settings["recompute_modules"]) {
      if (module.is_string()) setup.recompute_modules.push_back(module.get<std::string>());
    }
  }
  setup.recompute_layers = int_or(settings, "recompute_num_layers", 0);
}

/// CUDA graphs of a row: cuda_graph_impl and the captured modules (set_cuda_graphs).
void read_cuda_graphs(const json& settings, TrainingSetup& setup) {
  std::vector<std::string> scope;
  if (settings.contains("cuda_graph_scope")) {
    const json& value = settings["cuda_graph_scope"];
    if (value.is_string()) scope.push_back(value.get<std::string>());
    if (value.is_array()) {
      for (const json& item : value)
        if (item.is_string()) scope.push_back(item.get<std::string>());
    }
  }
  set_cuda_graphs(setup, string_or(settings, "cuda_graph_impl", "none"), false, scope);
}

/// The MoE settings of a row: EP overlap, the dispatcher and token drop.
void read_moe_settings(const json& settings, CorpusRow& row) {
  // moe_a2a_overlap sets comm_overlap.overlap_moe_expert_parallel_comm (and delayed wgrad):
  // scripts/performance/utils/overrides.py:165-175 (Megatron-Bridge v0.5.1 @5cb3444).
  row.setup.moe_a2a_overlap = bool_or(settings, "moe_a2a_overlap", false);
  // The flex dispatcher (DeepEP / HybridEP), as the recipe reader takes it (model_dims.cpp):
  // Bridge rows name its backend, Megatron-LM rows the dispatcher type.
  row.setup.moe_deepep = !string_or(settings, "moe_flex_dispatcher_backend").empty() ||
                         string_or(settings, "moe_token_dispatcher_type") == "flex";
  // Token drop (NeMo's MegatronTokenDropCallback, Bridge's --use_tokendrop): a capacity factor,
  // and padding every expert's input to it.
  if (auto f = settings.find("moe_expert_capacity_factor"); f != settings.end() && f->is_number())
    row.dims.moe_capacity_factor = std::max(0.0, f->get<double>());
  row.dims.moe_pad_to_capacity = bool_or(settings, "moe_pad_expert_input_to_capacity", false);
  row.dims.moe_force_balance = bool_or(settings, "moe_router_force_load_balancing", false);
}

/// How the row's publication counted attention in its model TFLOP/s (measured.attention_flops):
/// "full" (the default) or "causal"; nullopt for anything else.
std::optional<AttentionFlops> attention_flops_of(const json& r) {
  if (!r.contains("measured") || !r["measured"].is_object() ||
      !r["measured"].contains("attention_flops"))
    return AttentionFlops::kFull;
  const json& value = r["measured"]["attention_flops"];
  if (value == "full") return AttentionFlops::kFull;
  if (value == "causal") return AttentionFlops::kCausal;
  return std::nullopt;
}

/// An error when a row's measured throughput is not a figure a GPU runs at (kTokensPerGpu,
/// kTflops): 1e308 tokens/s/GPU once printed as a band of hundreds of digits. 0 and below are
/// "not measured" (the row is excluded), as before.
Status check_measured_range(const json& r, const std::string& id, const std::string& path) {
  if (!r.contains("measured") || !r["measured"].is_object()) return Ok{};
  const json& measured = r["measured"];
  for (const auto& [field, range] :
       {std::pair<const char*, PhysicalRange>{"tokens_per_s_per_gpu", kTokensPerGpu},
        {"model_tflops_per_gpu", kTflops}}) {
    if (!measured.contains(field) || !measured[field].is_number()) continue;
    const double value = measured[field].get<double>();
    if (value <= 0) continue;
    if (auto why = physical_range_error(value, range)) {
      return corpus_error(path, "rows." + id + ".measured." + field,
                          "row " + id + ": measured." + field + " " +
                              format_number_for_error(value) + " is " + *why);
    }
  }
  return Ok{};
}

/// The measured throughput of a row: tokens/s/GPU, or model TFLOP/s/GPU converted to tokens
/// with the publication's own attention count.
void read_measured(const json& r, CorpusRow& row) {
  const json empty = json::object();
  const json& measured = r.contains("measured") ? r["measured"] : empty;
  if (measured.contains("tokens_per_s_per_gpu") && measured["tokens_per_s_per_gpu"].is_number()) {
    row.measured_tokens = measured["tokens_per_s_per_gpu"].get<double>();
  }
  if (measured.contains("model_tflops_per_gpu") && measured["model_tflops_per_gpu"].is_number()) {
    row.measured_tflops = measured["model_tflops_per_gpu"].get<double>();
  }
  if (row.measured_tokens <= 0 && row.measured_tflops > 0 && row.dims.seq_length > 0) {
    row.tflops_metric = true;
    row.measured_tokens =
        row.measured_tflops * 1e12 / model_flops_per_token(row.dims, row.attention_flops);
  }
  if (row.measured_tokens <= 0 && row.excluded.empty()) row.excluded = "no measured throughput";
}

/// The container release of a table ("26.04.01" -> "26.04"): a re-run of one release's table is
/// the same publication.
std::string release_of(std::string container) {
  size_t first = container.find('.');
  if (first == std::string::npos) return container;
  size_t second = container.find('.', first + 1);
  return second == std::string::npos ? container : container.substr(0, second);
}

/// The publication a row comes from: its source's title (with its release, where the source is
/// re-published per release), else its URL, else repo and path (with the container release for a
/// table published once per release).
std::string publication_of(const json& r) {
  if (!r.contains("source") || !r["source"].is_object()) return "unknown";
  const json& s = r["source"];
  // A repository README re-published per release (dgxc-benchmarking) is one table per release.
  if (auto title = string_or(s, "title"); !title.empty()) {
    auto release = string_or(s, "release");
    return release.empty() ? title : title + " " + release;
  }
  if (auto url = string_or(s, "url"); !url.empty()) return url;
  std::string out = string_or(s, "repo") + " " + string_or(s, "path");
  if (auto c = string_or(s, "container"); !c.empty()) out += " " + release_of(c);
  return out;
}

/// The framework of a row: its `framework`, else the one its kind of table measures.
std::string framework_of(const json& r, const std::string& kind) {
  if (auto f = string_or(r, "framework"); !f.empty()) return f;
  if (kind == "nemo_long_sequence") return "nemo";
  return "megatron-bridge";
}

Result<CorpusRow> row_of(const json& r, const json& models, const std::string& path) {
  CorpusRow row;
  row.id = string_or(r, "id");
  if (row.id.empty()) return corpus_error(path, "rows", "a corpus row has no id");
  row.kind = string_or(r, "kind");
  row.publication = publication_of(r);
  row.framework = framework_of(r, row.kind);
  row.system = string_or(r, "system");
  row.cluster = string_or(r, "cluster");
  row.cluster_missing = string_or(r, "cluster_missing");
  row.precision = string_or(r, "precision", "unknown");
  row.excluded = string_or(r, "excluded");
  if (r.contains("source") && r["source"].is_object()) row.source = source_line(r["source"]);
  if (r.contains("model") && r["model"].is_string()) row.model = r["model"].get<std::string>();
  if (row.model.empty()) {
    if (row.excluded.empty()) row.excluded = "no model dimensions";
    return row;
  }
  if (!models.contains(row.model)) {
    return corpus_error(path, "rows." + row.id + ".model",
                        "row " + row.id + " names model '" + row.model + "' not in models");
  }
  const json& m = models[row.model];
  auto dims = dims_of(m, path, row.model);
  if (!dims) return dims.error();
  row.dims = *dims;
  row.dims.seq_length = int_or(r, "seq_length", 0);
  row.dims.micro_batch = int_or(r, "micro_batch", 1);
  row.family = regime_of(row.dims, Layout{}).family;
  Layout& l = row.layout;
  l.tp = int_or(r, "tp", 1);
  l.cp = int_or(r, "cp", 1);
  l.pp = int_or(r, "pp", 1);
  l.vpp = std::max<int64_t>(1, int_or(r, "vp", 1));
  l.ep = std::max<int64_t>(1, int_or(r, "ep", 1));
  const json empty = json::object();
  const json& settings = r.contains("settings") ? r["settings"] : empty;
  // The rows are Bridge runs: Bridge's ETP default unless the preset says otherwise (an
  // expert_tensor_parallel_size below 1 leaves ETP following TP).
  l.etp = default_expert_tp(Framework::kBridge, l.ep);
  if (auto etp = settings.find("expert_tensor_parallel_size");
      etp != settings.end() && etp->is_number()) {
    l.etp = etp->get<int64_t>() > 0 ? std::optional<int64_t>(etp->get<int64_t>()) : std::nullopt;
  }
  int64_t gpus = int_or(r, "num_gpus", 0);
  int64_t model_parallel = l.tp * l.cp * l.pp;
  if (gpus <= 0 || model_parallel <= 0 || gpus % model_parallel != 0) {
    if (row.excluded.empty()) {
      row.excluded = "GPUs " + std::to_string(gpus) + " not divisible by TP x CP x PP";
    }
    return row;
  }
  l.dp = gpus / model_parallel;
  std::string comm = string_or(r, "cp_comm_type", string_or(m, "recipe_cp_comm_type", "p2p"));
  if (auto type = parse_cp_comm_type(comm)) l.comm = *type;
  row.setup.global_batch = int_or(r, "global_batch", 0);
  if (r.contains("settings_source") && r["settings_source"].is_object()) {
    row.settings_found =
        row.kind != "bridge_summary" || bool_or(r["settings_source"], "found", false);
  }
  read_recompute(settings, row.setup);
  // cpu_offloading_num_layers: Bridge's perf overrides turn on model.cpu_offloading for that
  // many layers' activations (weights stay on the GPU): scripts/performance/utils/overrides.py
  // _set_recompute_overrides (NVIDIA-NeMo/Megatron-Bridge v0.4.2 @c810129, lines 140-143).
  row.setup.activation_offload_layers = int_or(settings, "cpu_offloading_num_layers", 0);
  read_memory_settings(settings, row.kind, row.setup);
  if (row.kind == "bridge_summary") {
    // Every model's perf script sets ddp.grad_reduce_in_fp32 = False in its common configs
    // (scripts/performance/configs/<model>/<model>_llm_pretrain.py, set_*_common_configs, e.g.
    // llama/llama3_llm_pretrain.py:43-44, deepseek/deepseek_llm_pretrain.py:42-43,
    // gpt_oss/gpt_oss_llm_pretrain.py:32-33, qwen/qwen3_llm_pretrain.py:41-42,
    // nemotronh/nemotron_3_llm_pretrain.py:34-35; Megatron-Bridge v0.4.2 @c810129): bf16 main
    // gradients in the DDP buffer, not fp32.
    row.setup.grad_reduce_in_fp32 = false;
  }
  if (auto p = parse_precision(row.precision)) row.setup.precision = *p;
  row.setup.fp8_attention = bool_or(settings, "fp8_dot_product_attention", false);
  row.setup.fsdp = int_or(r, "fsdp", 0) > 0 || bool_or(settings, "use_megatron_fsdp", false);
  read_cuda_graphs(settings, row.setup);
  read_moe_settings(settings, row);
  // "DeepSeekV3 (w/o MTP)" rows: the same model without its multi-token prediction layer.
  if (string_or(r, "variant") == "without MTP") row.dims.mtp_layers = 0;
  if (auto counted = attention_flops_of(r); counted) {
    row.attention_flops = *counted;
  } else {
    return corpus_error(path, "rows." + row.id + ".measured.attention_flops",
                        "row " + row.id +
                            ": measured.attention_flops must be \"full\" or "
                            "\"causal\"");
  }
  if (Status range = check_measured_range(r, row.id, path); !range) return range.error();
  read_measured(r, row);
  return row;
}

}  // namespace

double model_flops_per_token(const ModelDims& m, AttentionFlops attention_count) {
  double layers = static_cast<double>(m.num_layers);
  double dense = 6.0 * (layers * m.layer_active_params() + static_cast<double>(m.hidden) * m.vocab);
  double attention_width = static_cast<double>(m.heads) * m.head_dim;
  double attention_layers = layers - static_cast<double>(m.windowed_layers());
  // Causal counting keeps the nonzero half of the score matrix: Megatron-LM
  // megatron/training/training.py num_floating_point_operations, "(args.seq_length /
  // args.hidden_size / 2)" since 8873b55 (2025-03-06). NeMo counted the whole matrix (launcher
  // auto_configurator/autoconfig/scripts/compare_throughput.py "4Bs^2h" at tag 24.07;
  // nemo/utils/flops_formulas.py until 6251117, 2025-08-09).
  double full_half = attention_count == AttentionFlops::kCausal ? 0.5 : 1.0;
  double attention =
      12.0 * full_half * attention_layers * static_cast<double>(m.seq_length) * attention_width;
  if (m.window > 0) {
    attention += 12.0 * static_cast<double>(m.windowed_layers()) *
                 static_cast<double>(std::min(m.window, m.seq_length)) * attention_width;
  }
  return dense + attention;
}

std::string shipped_corpus_path() {
  return find_data_file("corpus/measured_runs.json");
}

bool megatron_family(const CorpusRow& row) {
  for (const char* f : {"megatron-bridge", "megatron-lm", "megatron", "nemo", "bridge", "mcore"})
    if (row.framework == f) return true;
  return false;
}

std::string shipped_validation_path() {
  return find_data_file("corpus/validation_runs.json");
}

Result<Corpus> load_validation(const std::string& path, const std::string& models_path) {
  auto corpus = load_corpus(path, models_path);
  if (!corpus) return corpus;
  for (CorpusRow& row : corpus->rows)
    row.validation = true;
  return corpus;
}

Result<Corpus> load_corpus(const std::string& path, const std::string& models_path) {
  Result<json> loaded = load_json_file(path, InputKind::kCalibration, "corpus JSON");
  if (!loaded) return loaded.error();
  const json j = std::move(*loaded);
  if (!j.is_object() || !j.contains("rows") || !j["rows"].is_array()) {
    return corpus_error(path, "rows", path + ": the corpus needs a 'rows' list");
  }
  json models = json::object();
  if (!models_path.empty()) {
    auto other = load_json_file(models_path, InputKind::kCalibration, "corpus JSON");
    if (!other) return other.error();
    if (other->is_object() && other->contains("models") && (*other)["models"].is_object())
      models = (*other)["models"];
  }
  if (j.contains("models") && j["models"].is_object()) {
    for (const auto& [name, dims] : j["models"].items())
      models[name] = dims;
  }
  Corpus corpus;
  corpus.path = path;
  for (const json& r : j["rows"]) {
    if (!r.is_object()) return corpus_error(path, "rows", path + ": a row is not an object");
    auto row = row_of(r, models, path);
    if (!row) return row.error();
    corpus.rows.push_back(std::move(*row));
  }
  return corpus;
}

}  // namespace hcp::accuracy
