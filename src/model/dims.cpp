// ModelDims: the sizes the cost model reads, from a recipe.
#include <algorithm>

#include "hcp/model.h"

namespace hcp {

int64_t ModelDims::windowed_layers() const {
  return static_cast<int64_t>(std::count(windowed.begin(), windowed.end(), true));
}

namespace {

double mlp_params(double hidden, double ffn, bool gated) {
  return (gated ? 3.0 : 2.0) * hidden * ffn;
}

double attention_params(const ModelDims& m) {
  double q = static_cast<double>(m.heads) * m.head_dim;
  double kv = static_cast<double>(m.kv_heads) * m.head_dim;
  return m.hidden * (q + 2 * kv) + q * m.hidden;
}

}  // namespace

double ModelDims::layer_params() const {
  double norms = 2.0 * hidden;
  if (num_experts <= 0) return attention_params(*this) + mlp_params(hidden, ffn, gated_mlp) + norms;
  double experts = num_experts * mlp_params(hidden, moe_ffn, gated_mlp);
  double shared = mlp_params(hidden, moe_shared_ffn, gated_mlp);
  double router = static_cast<double>(hidden) * num_experts;
  return attention_params(*this) + experts + shared + router + norms;
}

double ModelDims::layer_active_params() const {
  if (num_experts <= 0) return layer_params();
  double active = std::max<int64_t>(moe_topk, 1) * mlp_params(hidden, moe_ffn, gated_mlp);
  double shared = mlp_params(hidden, moe_shared_ffn, gated_mlp);
  return attention_params(*this) + active + shared + static_cast<double>(hidden) * num_experts;
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

int64_t pad_vocab(int64_t vocab, int64_t multiple) {
  if (multiple <= 1) return vocab;
  return (vocab + multiple - 1) / multiple * multiple;
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
  m.vocab = pad_vocab(vocab, recipe.int_or("model.make_vocab_size_divisible_by", 128));
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
  return m;
}

TrainingSetup training_setup_of(const Recipe& recipe) {
  TrainingSetup s;
  s.global_batch = recipe.int_or("train.global_batch_size", 0);
  std::string granularity = recipe.get_string("model.recompute_granularity").value_or("");
  if (granularity == "full") s.recompute = Recompute::kFull;
  if (granularity == "selective") s.recompute = Recompute::kSelective;
  s.distributed_optimizer = recipe.bool_or(
      "ddp.use_distributed_optimizer", recipe.bool_or("optimizer.use_distributed_optimizer", true));
  s.grad_reduce_in_fp32 = recipe.bool_or(
      "ddp.grad_reduce_in_fp32", recipe.bool_or("mixed_precision.grad_reduce_in_fp32", true));
  s.overlap_grad_reduce = recipe.bool_or("ddp.overlap_grad_reduce", true);
  s.tp_comm_overlap = recipe.bool_or("model.tp_comm_overlap", false) ||
                      recipe.bool_or("comm_overlap.tp_comm_overlap", false);
  return s;
}

}  // namespace hcp
