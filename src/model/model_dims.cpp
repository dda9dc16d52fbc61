// ModelDims: the sizes the cost model reads, from a recipe.
#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <string_view>

#include "hcp/checked.h"
#include "hcp/model.h"
#include "layers.h"

namespace hcp {

int64_t ModelDims::windowed_layers() const {
  return static_cast<int64_t>(std::count(windowed.begin(), windowed.end(), true));
}

double ModelDims::layer_params() const {
  return model_detail::layer_mix(*this).layer_params() /
         static_cast<double>(std::max<int64_t>(num_layers, 1));
}

double ModelDims::layer_active_params() const {
  return model_detail::layer_mix(*this).active_params() /
         static_cast<double>(std::max<int64_t>(num_layers, 1));
}

double ModelDims::embedding_params() const {
  double one = static_cast<double>(hidden) * vocab;
  return tied_embeddings ? one : 2 * one;
}

namespace {

Error missing(const Recipe& recipe, std::string_view key) {
  Error e;
  e.message = "the recipe does not set " + std::string(key) + " (a positive integer)";
  e.location = recipe.where(key);
  e.key = std::string(key);
  return e;
}

/// Megatron's window_attn_skip_freq: an int N makes every Nth layer (1-based) full attention; a
/// list gives 1 for full-attention layers, 0 for windowed ones.
std::vector<bool> windowed_pattern(const Recipe& recipe, int64_t layers) {
  std::vector<bool> windowed(static_cast<size_t>(layers), true);
  if (auto freq = recipe.get_int("model.window_attn_skip_freq"); freq && *freq > 0) {
    for (int64_t i = 0; i < layers; ++i)
      windowed[i] = (i + 1) % *freq != 0;
  } else if (auto list = recipe.get_int_list("model.window_attn_skip_freq")) {
    for (int64_t i = 0; i < layers && i < static_cast<int64_t>(list->size()); ++i) {
      windowed[i] = (*list)[i] == 0;
    }
  }
  return windowed;
}

/// Return the sliding window size, or 0 when the model has none. Megatron spells it
/// window_size: [left, right] (or one int); -1 / 0 mean unlimited.
int64_t window_of(const Recipe& recipe) {
  if (auto list = recipe.get_int_list("model.window_size"); list && !list->empty()) {
    return (*list)[0] > 0 ? (*list)[0] + 1 : 0;
  }
  if (auto one = recipe.get_int("model.window_size"); one && *one > 0) return *one;
  return 0;
}

/// vocab rounded up to a multiple of `multiple`; nullopt when that overflows int64_t.
std::optional<int64_t> pad_vocab(int64_t vocab, int64_t multiple) {
  if (multiple <= 1) return vocab;
  auto sum = checked_add(vocab, multiple - 1);
  if (!sum) return std::nullopt;
  return checked_mul(*sum / multiple, multiple);
}

/// moe_layer_freq: an int N makes every Nth layer MoE (1: all); a list gives 1 for MoE layers.
/// Only a leading run of dense layers is modelled (DeepSeek-V3: first 3 dense).
int64_t leading_dense_layers(const Recipe& recipe, int64_t layers) {
  if (auto list = recipe.get_int_list("model.moe_layer_freq")) {
    int64_t k = 0;
    while (k < static_cast<int64_t>(list->size()) && (*list)[k] == 0)
      ++k;
    return std::min(k, layers);
  }
  return std::min(recipe.int_or("model.moe_first_k_dense_replace", 0), layers);
}

void read_moe_mla_hybrid(const Recipe& recipe, ModelDims& m) {
  if (m.num_experts > 0) m.moe_dense_layers = leading_dense_layers(recipe, m.num_layers);
  m.moe_capacity_factor = recipe.get_double("model.moe_expert_capacity_factor").value_or(0);
  m.moe_pad_to_capacity = recipe.bool_or("model.moe_pad_expert_input_to_capacity", false);
  m.moe_force_balance = recipe.bool_or("model.moe_router_force_load_balancing", false);
  m.mtp_layers = recipe.int_or("model.mtp_num_layers", 0);
  m.mla = recipe.bool_or("model.multi_latent_attention", false);
  if (m.mla) {
    m.q_lora_rank = recipe.int_or("model.q_lora_rank", 0);
    m.kv_lora_rank = recipe.int_or("model.kv_lora_rank", 512);
    m.qk_head_dim = recipe.int_or("model.qk_head_dim", 128);
    m.qk_pos_dim = recipe.int_or("model.qk_pos_emb_head_dim", 64);
    m.v_head_dim = recipe.int_or("model.v_head_dim", 128);
  }
  if (auto pattern = recipe.get_string("model.hybrid_override_pattern");
      pattern && !pattern->empty()) {
    // Megatron's pattern may carry MTP after a '/' ("M*M-/MM"); the main stack comes first.
    m.layer_pattern = pattern->substr(0, pattern->find('/'));
    m.mamba_heads = recipe.int_or("model.mamba_num_heads", 0);
    m.mamba_head_dim = recipe.int_or("model.mamba_head_dim", 64);
    m.mamba_state_dim = recipe.int_or("model.mamba_state_dim", 128);
    m.mamba_groups = recipe.int_or("model.mamba_num_groups", 8);
  }
}

}  // namespace

Result<ModelDims> model_dims_of(const Recipe& recipe) {
  ModelDims m;
  auto layers = recipe.get_int("model.num_layers");
  auto hidden = recipe.get_int("model.hidden_size");
  auto heads = recipe.get_int("model.num_attention_heads");
  if (!layers || *layers <= 0) return missing(recipe, "model.num_layers");
  if (!hidden || *hidden <= 0) return missing(recipe, "model.hidden_size");
  if (!heads || *heads <= 0) return missing(recipe, "model.num_attention_heads");
  m.num_layers = *layers;
  m.hidden = *hidden;
  m.heads = *heads;
  m.kv_heads = recipe.int_or("model.num_query_groups", m.heads);
  m.head_dim = recipe.int_or("model.kv_channels", m.hidden / m.heads);
  m.ffn = recipe.int_or("model.ffn_hidden_size", 4 * m.hidden);
  m.gated_mlp = recipe.bool_or("model.gated_linear_unit", false);
  m.tied_embeddings = recipe.bool_or("model.share_embeddings_and_output_weights", true);
  int64_t vocab = recipe.int_or("model.vocab_size", recipe.int_or("tokenizer.vocab_size", 32000));
  int64_t multiple = recipe.int_or("model.make_vocab_size_divisible_by", 128);
  auto padded = pad_vocab(vocab, multiple);
  if (!padded) {
    Error e;
    e.message =
        "the vocabulary size " + std::to_string(vocab) +
        " padded to a multiple of make_vocab_size_divisible_by=" + std::to_string(multiple) +
        " overflows a 64-bit integer";
    e.location = recipe.where("model.make_vocab_size_divisible_by");
    e.key = "model.make_vocab_size_divisible_by";
    return e;
  }
  m.vocab = *padded;
  m.num_experts = recipe.int_or("model.num_moe_experts", 0);
  m.moe_ffn = recipe.int_or("model.moe_ffn_hidden_size", m.ffn);
  m.moe_topk = recipe.int_or("model.moe_router_topk", 2);
  m.moe_shared_ffn = recipe.int_or("model.moe_shared_expert_intermediate_size", 0);
  m.seq_length = recipe.int_or("dataset.seq_length", recipe.int_or("model.seq_length", 0));
  if (m.seq_length <= 0) return missing(recipe, "dataset.seq_length");
  m.micro_batch = recipe.int_or("train.micro_batch_size", 1);
  if (m.kv_heads <= 0 || m.head_dim <= 0 || m.ffn <= 0 || m.vocab <= 0 || m.micro_batch <= 0) {
    Error e;
    e.message = "the recipe's model sizes must be positive";
    e.location = recipe.where("model");
    e.key = "model";
    return e;
  }
  m.window = window_of(recipe);
  if (m.window > 0) m.windowed = windowed_pattern(recipe, m.num_layers);
  read_moe_mla_hybrid(recipe, m);
  if (!std::isfinite(m.moe_capacity_factor)) {
    // A NaN or infinite factor padded to would make every expert's load, and the step, NaN.
    Error e;
    e.message =
        "model.moe_expert_capacity_factor must be a finite number (null or negative: "
        "dropless)";
    e.location = recipe.where("model.moe_expert_capacity_factor");
    e.key = "model.moe_expert_capacity_factor";
    return e;
  }
  return m;
}

namespace {

/// mixed_precision is a recipe name ("bf16_with_mxfp8_mixed") or a map with fp8 / fp8_recipe /
/// fp4 / fp4_recipe / fp8_dot_product_attention (src/megatron/bridge/training/mixed_precision.py
/// @067f987: delayed l.227, mxfp8 l.263, tensorwise l.298, blockwise l.383, nvfp4 l.414).
void read_precision(const Recipe& recipe, TrainingSetup& s) {
  if (auto name = recipe.get_string("mixed_precision")) {
    if (auto p = parse_precision(*name)) s.precision = *p;
    return;
  }
  std::string fp8 = recipe.get_string("mixed_precision.fp8").value_or("");
  std::string fp8_recipe = recipe.get_string("mixed_precision.fp8_recipe").value_or("tensorwise");
  std::string fp4 = recipe.get_string("mixed_precision.fp4").value_or("");
  if (!fp4.empty()) {
    s.precision = Precision::kNvfp4;
  } else if (!fp8.empty()) {
    if (fp8_recipe == "delayed") s.precision = Precision::kFp8Delayed;
    if (fp8_recipe == "tensorwise") s.precision = Precision::kFp8Current;
    if (fp8_recipe == "blockwise") s.precision = Precision::kFp8Block;
    if (fp8_recipe == "mxfp8") s.precision = Precision::kMxfp8;
  }
  s.fp8_attention = recipe.bool_or("mixed_precision.fp8_dot_product_attention", false) ||
                    recipe.bool_or("model.fp8_dot_product_attention", false);
}

/// model.offload_modules when model.fine_grained_activation_offloading is on (Megatron-LM
/// transformer_config.py:1323-1341 @d98e8a6).
std::vector<std::string> offload_modules_of(const Recipe& recipe) {
  std::vector<std::string> modules;
  if (!recipe.bool_or("model.fine_grained_activation_offloading", false)) return modules;
  if (const Value* list = recipe.find("model.offload_modules"); list && list->is_list()) {
    for (const Value& item : list->items())
      if (item.is_string()) modules.push_back(item.as_string());
  }
  return modules;
}

/// Bytes per element of an optimizer dtype as a recipe spells it ("torch.bfloat16", "bf16",
/// "fp32", ..., or Bridge's dumped config {_target_: torch.bfloat16, _call_: false}); 4 (fp32)
/// when unset or unknown.
double optimizer_dtype_bytes(const Recipe& recipe, std::string_view key) {
  std::string dtype = recipe.get_string(key).value_or(
      recipe.get_string(std::string(key) + "._target_").value_or("float32"));
  for (const char* half : {"bfloat16", "bf16", "float16", "fp16", "half"})
    if (dtype.find(half) != std::string::npos) return 2;
  if (dtype.find("uint8") != std::string::npos || dtype.find("fp8") != std::string::npos) return 1;
  return 4;
}

/// Bytes per parameter of the optimizer state (0: fp32 main params and Adam moments, 12).
/// Megatron-Core's precision-aware optimizer keeps the main params and both moments in their
/// named dtypes (optimizer_config.py:187-206 @d98e8a6); fp32 main params of bf16 weights keep
/// only the 16-bit remainder (store_param_remainders, default true, with optimizer.bf16:
/// optimizer_config.py:192, distrib_optimizer.py:1008,
/// passed to TE's FusedAdam in optimizer/__init__.py:587-588).
double optimizer_bytes_of(const Recipe& recipe) {
  if (!recipe.bool_or("optimizer.use_precision_aware_optimizer", false)) return 0;
  double main = optimizer_dtype_bytes(recipe, "optimizer.main_params_dtype");
  bool bf16_weights =
      recipe.bool_or("optimizer.bf16", recipe.bool_or("mixed_precision.bf16", true));
  if (main == 4 && bf16_weights && recipe.bool_or("optimizer.store_param_remainders", true))
    main = 2;
  return main + optimizer_dtype_bytes(recipe, "optimizer.exp_avg_dtype") +
         optimizer_dtype_bytes(recipe, "optimizer.exp_avg_sq_dtype");
}

}  // namespace

TrainingSetup training_setup_of(const Recipe& recipe) {
  TrainingSetup s;
  s.global_batch = recipe.int_or("train.global_batch_size", 0);
  std::string granularity = recipe.get_string("model.recompute_granularity").value_or("");
  if (granularity == "full") s.recompute = Recompute::kFull;
  if (granularity == "selective") s.recompute = Recompute::kSelective;
  // Neither section set: on (the default of TrainingSetup), as every Bridge pretrain recipe sets
  // it.
  if (auto dist_opt = distributed_optimizer_of(recipe)) s.distributed_optimizer = *dist_opt;
  s.grad_reduce_in_fp32 = recipe.bool_or(
      "ddp.grad_reduce_in_fp32", recipe.bool_or("mixed_precision.grad_reduce_in_fp32", true));
  s.overlap_grad_reduce = recipe.bool_or("ddp.overlap_grad_reduce", true);
  s.tp_comm_overlap = recipe.bool_or("model.tp_comm_overlap", false) ||
                      recipe.bool_or("comm_overlap.tp_comm_overlap", false);
  read_precision(recipe, s);
  if (const Value* modules = recipe.find("model.recompute_modules");
      modules && modules->is_list()) {
    for (const Value& item : modules->items())
      if (item.is_string()) s.recompute_modules.push_back(item.as_string());
    if (s.recompute == Recompute::kNone && !s.recompute_modules.empty() &&
        granularity == "selective")
      s.recompute = Recompute::kSelective;
  }
  s.recompute_layers = recipe.int_or("model.recompute_num_layers", 0);
  if (recipe.bool_or("model.cpu_offloading", false) ||
      recipe.has("model.cpu_offloading_num_layers"))
    s.activation_offload_layers = recipe.int_or("model.cpu_offloading_num_layers", 0);
  s.offload_modules = offload_modules_of(recipe);
  s.optimizer_bytes_per_param = optimizer_bytes_of(recipe);
  s.optimizer_cpu_offload = recipe.bool_or("optimizer.optimizer_cpu_offload", false);
  s.optimizer_offload_fraction =
      recipe.get_double("optimizer.optimizer_offload_fraction").value_or(1.0);
  // Megatron-FSDP: dist.use_megatron_fsdp or ddp.use_megatron_fsdp (config.py:1484-1488 @067f987)
  // forces the distributed optimizer on (config.py:1082-1085).
  s.fsdp = recipe.bool_or("dist.use_megatron_fsdp", false) ||
           recipe.bool_or("ddp.use_megatron_fsdp", false);
  if (s.fsdp) s.distributed_optimizer = true;
  // The captured modules: cuda_graph_scope, or its newer name cuda_graph_modules.
  std::vector<std::string> scope;
  const Value* value = recipe.find("model.cuda_graph_scope");
  if (value == nullptr) value = recipe.find("model.cuda_graph_modules");
  if (value != nullptr && value->is_string()) scope.push_back(value->as_string());
  if (value != nullptr && value->is_list()) {
    for (const Value& item : value->items())
      if (item.is_string()) scope.push_back(item.as_string());
  }
  set_cuda_graphs(s, recipe.get_string("model.cuda_graph_impl").value_or("none"),
                  recipe.bool_or("model.enable_cuda_graph", false), scope);
  s.moe_a2a_overlap = recipe.bool_or("comm_overlap.overlap_moe_expert_parallel_comm", false);
  s.moe_deepep = recipe.get_string("model.moe_token_dispatcher_type").value_or("") == "flex";
  return s;
}

void set_cuda_graphs(TrainingSetup& setup, std::string_view impl, bool enabled,
                     const std::vector<std::string>& scope) {
  setup.cuda_graphs = enabled || (!impl.empty() && impl != "none");
  bool full_scope = std::find(scope.begin(), scope.end(), "full_iteration") != scope.end();
  setup.cuda_graph_full_iteration = impl == "full_iteration" || (impl == "local" && full_scope);
  setup.cuda_graph_partial_scope =
      setup.cuda_graphs && !setup.cuda_graph_full_iteration && cuda_graph_scope_is_partial(scope);
}

bool cuda_graph_scope_is_partial(const std::vector<std::string>& scope) {
  if (scope.empty()) return false;
  auto has = [&](std::string_view name) {
    return std::find(scope.begin(), scope.end(), name) != scope.end();
  };
  if (has("full") || has("full_iteration")) return false;
  return !(has("attn") && (has("mlp") || has("moe")));
}

}  // namespace hcp
