// HF config.json -> Bridge model fields (bridge.md §5, MegatronModelBridge.CONFIG_MAPPING and
// the per-family *_bridge.py extras that change what context parallelism can do).
#include "hcp/hf_config.h"

#include <algorithm>
#include <limits>
#include <nlohmann/json.hpp>

#include "hcp/checked.h"
#include "hcp/file_input.h"
#include "hcp/json_io.h"
#include "hcp/schema.h"

namespace hcp {
namespace {

using nlohmann::json;

/// HF field -> Bridge model field, for integer fields. The first present HF field wins.
struct IntMapping {
  std::string_view hf;
  std::string_view key;
};

const std::vector<IntMapping>& int_mappings() {
  static const std::vector<IntMapping> kMap = {
      {"num_hidden_layers", "model.num_layers"},
      {"hidden_size", "model.hidden_size"},
      {"intermediate_size", "model.ffn_hidden_size"},
      {"num_attention_heads", "model.num_attention_heads"},
      {"num_key_value_heads", "model.num_query_groups"},
      {"head_dim", "model.kv_channels"},
      {"attention_head_dim", "model.kv_channels"},
      {"vocab_size", "model.vocab_size"},
      {"num_experts", "model.num_moe_experts"},
      {"num_local_experts", "model.num_moe_experts"},
      {"n_routed_experts", "model.num_moe_experts"},
      {"num_experts_per_tok", "model.moe_router_topk"},
      {"moe_intermediate_size", "model.moe_ffn_hidden_size"},
      {"q_lora_rank", "model.q_lora_rank"},
      {"kv_lora_rank", "model.kv_lora_rank"},
      {"qk_nope_head_dim", "model.qk_head_dim"},
      {"qk_rope_head_dim", "model.qk_pos_emb_head_dim"},
      {"v_head_dim", "model.v_head_dim"},
      {"num_nextn_predict_layers", "model.mtp_num_layers"},
      {"mtp_num_hidden_layers", "model.mtp_num_layers"},
      {"mamba_head_dim", "model.mamba_head_dim"},
      {"mamba_num_heads", "model.mamba_num_heads"},
      {"n_groups", "model.mamba_num_groups"},
      {"linear_num_key_heads", "model.linear_num_key_heads"},
      {"linear_num_value_heads", "model.linear_num_value_heads"},
  };
  return kMap;
}

/// Byte offset of the value of the first `"key":` in the text; npos when there is none.
size_t value_offset(std::string_view text, std::string_view key) {
  std::string quoted = "\"" + std::string(key) + "\"";
  size_t pos = 0;
  while ((pos = text.find(quoted, pos)) != std::string_view::npos) {
    size_t colon = text.find_first_not_of(" \t\r\n", pos + quoted.size());
    if (colon != std::string_view::npos && text[colon] == ':') {
      size_t value = text.find_first_not_of(" \t\r\n", colon + 1);
      return value == std::string_view::npos ? colon : value;
    }
    pos += quoted.size();
  }
  return std::string_view::npos;
}

/// Return the 1-based line and column of the value of the first `"key":` in the text.
Location locate_key(std::string_view text, std::string_view key, const std::string& path) {
  const size_t value = value_offset(text, key);
  if (value == std::string_view::npos) return Location{path, 0, 0};
  return location_at_offset(text, path, value);
}

/// The value of the first `"key":` as the file writes it, up to the next delimiter (at most 64
/// bytes); "" when there is none. nlohmann::json re-prints numbers (4e3 as 4000.0, an integer
/// beyond 2^64 as 4.096e+19), so messages quote this instead.
std::string literal_of(std::string_view text, std::string_view key) {
  const size_t start = value_offset(text, key);
  if (start == std::string_view::npos || start >= text.size()) return "";
  const size_t end = text.find_first_of(",}] \t\r\n", start);
  return std::string(text.substr(start, std::min<size_t>(end, start + 64) - start));
}

/// True when `literal` is an optional minus sign and decimal digits only.
bool integer_literal(std::string_view literal) {
  if (literal.starts_with('-')) literal.remove_prefix(1);
  return !literal.empty() && literal.find_first_not_of("0123456789") == std::string_view::npos;
}

/// Reads fields of one HF config object and writes them into a recipe with locations.
class HfReader {
 public:
  HfReader(const json& config, std::string_view text, const std::string& path, Recipe& recipe)
      : config_(config), text_(text), path_(path), recipe_(recipe) {}

  /// Return the integer at `field`; nullopt when absent or null; Error when of another type or
  /// outside `range` (checked.h), naming the field at its line and column.
  Result<std::optional<int64_t>> int_field(std::string_view field, const CountRange& range) const {
    auto it = config_.find(std::string(field));
    if (it == config_.end() || it->is_null()) return std::optional<int64_t>{};
    if (!it->is_number_integer()) {
      const std::string literal = literal_of(text_, field);
      if (it->is_number_float() && integer_literal(literal)) {  // beyond 64 bits: parsed as float
        return Error{"HF config field '" + std::string(field) + "': '" + literal +
                         "' overflows a 64-bit integer",
                     at(field), std::string(field)};
      }
      return Error{"HF config field '" + std::string(field) + "' must be an integer, got " +
                       (literal.empty() ? it->dump() : literal),
                   at(field), std::string(field)};
    }
    // 2^63 and above parse as unsigned; get<int64_t> would wrap them to negative numbers.
    if (it->is_number_unsigned() &&
        it->get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      return Error{"HF config field '" + std::string(field) + "': '" + it->dump() +
                       "' overflows a 64-bit integer",
                   at(field), std::string(field)};
    }
    const int64_t value = it->get<int64_t>();
    if (auto why = count_range_error(value, range)) {
      return Error{"HF config field '" + std::string(field) + "': '" + it->dump() + "' is " + *why,
                   at(field), std::string(field)};
    }
    return std::optional<int64_t>(value);
  }

  std::optional<std::string> string_field(std::string_view field) const {
    auto it = config_.find(std::string(field));
    if (it == config_.end() || !it->is_string()) return std::nullopt;
    return it->get<std::string>();
  }

  /// Return the number at `field`; nullopt when absent or null; Error when not a number, not
  /// finite, denormal or outside `range` (checked.h), naming the field at its line and column.
  Result<std::optional<double>> number_field(std::string_view field,
                                             const PhysicalRange& range) const {
    auto it = config_.find(std::string(field));
    if (it == config_.end() || it->is_null()) return std::optional<double>{};
    if (!it->is_number()) {
      return Error{
          "HF config field '" + std::string(field) + "' must be a number, got " + it->dump(),
          at(field), std::string(field)};
    }
    const double value = it->get<double>();
    if (auto why = physical_range_error(value, range)) {
      return Error{"HF config field '" + std::string(field) + "': '" + it->dump() + "' is " + *why,
                   at(field), std::string(field)};
    }
    return std::optional<double>(value);
  }

  bool bool_field(std::string_view field) const {
    auto it = config_.find(std::string(field));
    return it != config_.end() && it->is_boolean() && it->get<bool>();
  }

  Location at(std::string_view field) const { return locate_key(text_, field, path_); }

  void set(std::string_view key, Value value) { recipe_.set(key, std::move(value)); }

 private:
  const json& config_;
  std::string_view text_;
  const std::string& path_;
  Recipe& recipe_;
};

Status apply_int_mappings(HfReader& hf) {
  std::vector<std::string_view> done;
  for (const IntMapping& m : int_mappings()) {
    bool already = false;
    for (std::string_view key : done)
      already = already || key == m.key;
    if (already) continue;
    auto v = hf.int_field(m.hf, count_range_of(m.key));
    if (!v) return v.error();
    if (!v->has_value()) continue;
    hf.set(m.key, Value::integer(**v, hf.at(m.hf)));
    done.push_back(m.key);
  }
  return Ok{};
}

/// window_size = (sliding_window - 1, 0) as GPT-OSS, Gemma2 and Mistral bridges set it.
Status apply_sliding_window(HfReader& hf, const std::string& model_type) {
  auto window = hf.int_field("sliding_window", kCountOrZero);
  if (!window) return window.error();
  if (!window->has_value() || **window <= 0) return Ok{};
  bool qwen_style = model_type.rfind("qwen", 0) == 0;
  if (qwen_style && !hf.bool_field("use_sliding_window")) return Ok{};
  // A window at or above the longest position never slides (Phi-3.5: 262144 over 131072
  // positions; Phi-4: 16384 over 16384): transformers applies the window only to keys beyond it
  // (modeling_flash_attention_utils.py, `kv_seq_len > sliding_window`), so it is full attention.
  auto max_pos = hf.int_field("max_position_embeddings", kDimensionCount);
  if (!max_pos) return max_pos.error();
  if (max_pos->has_value() && **window >= **max_pos) return Ok{};
  Location at = hf.at("sliding_window");
  int64_t left = model_type == "gemma3" || model_type == "gemma3_text" ? **window : **window - 1;
  hf.set("model.window_size", Value::list({Value::integer(left, at), Value::integer(0, at)}, at));
  if (model_type == "gpt_oss") hf.set("model.window_attn_skip_freq", Value::integer(2, at));
  auto pattern =
      hf.int_field("sliding_window_pattern", count_range_of("model.window_attn_skip_freq"));
  if (!pattern) return pattern.error();
  if (pattern->has_value()) {
    hf.set("model.window_attn_skip_freq",
           Value::integer(**pattern, hf.at("sliding_window_pattern")));
  }
  return Ok{};
}

/// DeepSeek Sparse Attention (DeepSeek-V3.2, GLM-5 "glm_moe_dsa"): an indexer selects the top-k
/// keys. Bridge maps it so (067f987d src/megatron/bridge/models/glm_moe_dsa/glm5_bridge.py:
/// 131-136): experimental_attention_variant "dsa", dsa_indexer_{n_heads,topk,head_dim}.
Status apply_sparse_attention(HfReader& hf) {
  auto topk = hf.int_field("index_topk", count_range_of("model.dsa_indexer_topk"));
  if (!topk) return topk.error();
  if (!topk->has_value()) return Ok{};
  Location at = hf.at("index_topk");
  hf.set("model.experimental_attention_variant", Value::string("dsa", at));
  hf.set("model.dsa_indexer_topk", Value::integer(**topk, at));
  for (auto [field, key] : {std::pair{"index_n_heads", "model.dsa_indexer_n_heads"},
                            std::pair{"index_head_dim", "model.dsa_indexer_head_dim"}}) {
    auto v = hf.int_field(field, count_range_of(key));
    if (!v) return v.error();
    if (v->has_value()) hf.set(key, Value::integer(**v, hf.at(field)));
  }
  return Ok{};
}

/// Family extras: sinks (GPT-OSS), MLA (DeepSeek), hybrid Mamba patterns, linear attention, sparse
/// attention. Their integer fields were read (and checked) by apply_int_mappings.
Status apply_family_extras(HfReader& hf, const std::string& model_type) {
  if (model_type == "gpt_oss") {
    hf.set("model.softmax_type", Value::string("learnable", hf.at("model_type")));
  }
  if (auto rank = hf.int_field("kv_lora_rank", kCountOrZero); rank && rank->has_value()) {
    hf.set("model.multi_latent_attention", Value::boolean(true, hf.at("kv_lora_rank")));
  }
  if (auto pattern = hf.string_field("hybrid_override_pattern")) {
    hf.set("model.hybrid_layer_pattern", Value::string(*pattern, hf.at("hybrid_override_pattern")));
  }
  if (auto heads = hf.int_field("linear_num_key_heads", kCountOrZero);
      heads && heads->has_value()) {
    hf.set("model.experimental_attention_variant",
           Value::string("gated_delta_net", hf.at("linear_num_key_heads")));
  }
  if (Status st = apply_sparse_attention(hf); !st) return st;
  auto dropout = hf.number_field("attention_dropout", number_range_of("model.attention_dropout"));
  if (!dropout) return dropout.error();
  if (dropout->has_value()) {
    hf.set("model.attention_dropout", Value::real(**dropout, hf.at("attention_dropout")));
  }
  return Ok{};
}

/// MCore defaults the query groups to the head count; an HF config without
/// num_key_value_heads is plain multi-head attention.
void default_query_groups(Recipe& recipe, const std::string& path) {
  if (recipe.has("model.num_query_groups")) return;
  if (auto heads = recipe.get_int("model.num_attention_heads")) {
    recipe.set("model.num_query_groups", Value::integer(*heads, Location{path, 0, 0}));
  }
}

/// Bridge maps max_position_embeddings to seq_length; recipes usually override it, so it is used
/// only when the recipe has no sequence length.
Status default_seq_length(HfReader& hf, Recipe& recipe) {
  auto max_pos = hf.int_field("max_position_embeddings", kDimensionCount);
  if (!max_pos) return max_pos.error();
  if (!max_pos->has_value()) return Ok{};
  if (recipe.has("model.seq_length") || recipe.has("dataset.seq_length")) return Ok{};
  Location at = hf.at("max_position_embeddings");
  recipe.set("model.seq_length", Value::integer(**max_pos, at));
  recipe.set("dataset.seq_length", Value::integer(**max_pos, at));
  return Ok{};
}

}  // namespace

Status apply_hf_config_text(Recipe& recipe, std::string_view json_text, const std::string& path) {
  // Every nlohmann exception (syntax, numbers out of range such as 1e400) becomes an error here.
  Result<json> parsed = parse_json_input(json_text, path, "JSON in HF config");
  if (!parsed) return parsed.error();
  json root = std::move(*parsed);
  if (!root.is_object()) {
    return Error{"HF config root must be a JSON object", Location{path, 1, 1}, ""};
  }
  // VLM configs keep the language model in text_config (Gemma 3, Qwen-VL, Llava).
  const json* config = &root;
  if (!root.contains("num_hidden_layers") && root.contains("text_config") &&
      root["text_config"].is_object()) {
    config = &root["text_config"];
  }
  for (const char* required : {"num_hidden_layers", "hidden_size", "num_attention_heads"}) {
    if (!config->contains(required)) {
      return Error{
          std::string("HF config has no ") + required + " (is this a transformers config.json?)",
          Location{path, 0, 0}, required};
    }
    // transformers hands the null to the model's config class as None, which sizes nothing
    // (LlamaConfig computes hidden_size // num_attention_heads): not a model to check.
    if ((*config)[required].is_null()) {
      return Error{std::string("HF config field '") + required +
                       "' is null: the model's size needs an integer there",
                   locate_key(json_text, required, path), required};
    }
  }
  HfReader hf(*config, json_text, path, recipe);
  std::string model_type =
      hf.string_field("model_type")
          .value_or(root.contains("model_type") && root["model_type"].is_string()
                        ? root["model_type"].get<std::string>()
                        : "");
  if (Value* model = recipe.root.get("model")) model->erase("num_query_groups");
  if (auto st = apply_int_mappings(hf); !st) return st;
  if (auto st = apply_sliding_window(hf, model_type); !st) return st;
  if (auto st = apply_family_extras(hf, model_type); !st) return st;
  default_query_groups(recipe, path);
  if (auto st = default_seq_length(hf, recipe); !st) return st;
  return check_recipe_schema(recipe);  // Sizes in bounds, as for a recipe file.
}

Status apply_hf_config(Recipe& recipe, const std::string& path) {
  Result<std::string> text = read_input_file(path, InputKind::kConfig);
  if (!text) return text.error();
  return apply_hf_config_text(recipe, *text, path);
}

}  // namespace hcp
