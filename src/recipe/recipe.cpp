// Typed access to a loaded recipe and the parallel layout it describes.
#include "hcp/recipe.h"

namespace hcp {
namespace {

/// Split "a.b.c" into its segments.
std::vector<std::string_view> split_dotted(std::string_view dotted) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (start <= dotted.size()) {
    size_t dot = dotted.find('.', start);
    if (dot == std::string_view::npos) dot = dotted.size();
    parts.push_back(dotted.substr(start, dot - start));
    start = dot + 1;
  }
  return parts;
}

/// Return the list index a numeric segment names, or -1.
long list_index(std::string_view segment) {
  if (segment.empty() || segment.size() > 9) return -1;
  long index = 0;
  for (char c : segment) {
    if (c < '0' || c > '9') return -1;
    index = index * 10 + (c - '0');
  }
  return index;
}

}  // namespace

const char* framework_name(Framework f) {
  return f == Framework::kMlm ? "mlm" : "bridge";
}

const Value* Recipe::find(std::string_view dotted) const {
  const Value* node = &root;
  // Walk the segments in place (no split list: the rules call this in the planner's inner loop).
  for (size_t start = 0; start <= dotted.size();) {
    size_t dot = dotted.find('.', start);
    if (dot == std::string_view::npos) dot = dotted.size();
    std::string_view segment = dotted.substr(start, dot - start);
    start = dot + 1;
    if (node->is_map()) {
      node = node->get(segment);
    } else if (node->is_list()) {
      long index = list_index(segment);
      if (index < 0 || static_cast<size_t>(index) >= node->items().size()) return nullptr;
      node = &node->items()[static_cast<size_t>(index)];
    } else {
      return nullptr;
    }
    if (node == nullptr) return nullptr;
  }
  return node;
}

bool Recipe::has(std::string_view dotted) const {
  const Value* v = find(dotted);
  return v != nullptr && !v->is_null();
}

Location Recipe::where(std::string_view dotted) const {
  if (const Value* v = find(dotted); v != nullptr && v->location().known()) return v->location();
  return Location{path.empty() ? name : path, 0, 0};
}

std::optional<int64_t> Recipe::get_int(std::string_view dotted) const {
  const Value* v = find(dotted);
  if (v == nullptr || !v->is_int()) return std::nullopt;
  return v->as_int();
}

std::optional<double> Recipe::get_double(std::string_view dotted) const {
  const Value* v = find(dotted);
  if (v == nullptr || !v->is_number()) return std::nullopt;
  return v->as_double();
}

std::optional<bool> Recipe::get_bool(std::string_view dotted) const {
  const Value* v = find(dotted);
  if (v == nullptr || !v->is_bool()) return std::nullopt;
  return v->as_bool();
}

std::optional<std::string> Recipe::get_string(std::string_view dotted) const {
  const Value* v = find(dotted);
  if (v == nullptr || !v->is_string()) return std::nullopt;
  return v->as_string();
}

std::optional<std::vector<int64_t>> Recipe::get_int_list(std::string_view dotted) const {
  const Value* v = find(dotted);
  if (v == nullptr || !v->is_list()) return std::nullopt;
  std::vector<int64_t> out;
  for (const Value& item : v->items()) {
    if (!item.is_int()) return std::nullopt;
    out.push_back(item.as_int());
  }
  return out;
}

int64_t Recipe::int_or(std::string_view dotted, int64_t fallback) const {
  return get_int(dotted).value_or(fallback);
}

bool Recipe::bool_or(std::string_view dotted, bool fallback) const {
  return get_bool(dotted).value_or(fallback);
}

void Recipe::set(std::string_view dotted, Value v) {
  Value* node = &root;
  auto parts = split_dotted(dotted);
  for (size_t i = 0; i + 1 < parts.size(); ++i) {
    Value* child = node->get(parts[i]);
    if (child == nullptr || !child->is_map()) {
      child = &node->set(std::string(parts[i]), Value::map({}, v.location()));
    }
    node = child;
  }
  node->set(std::string(parts.back()), std::move(v));
}

std::optional<int64_t> default_expert_tp(Framework framework, int64_t ep) {
  if (framework == Framework::kBridge && ep > 1) return 1;
  return std::nullopt;
}

std::vector<std::string> cp_comm_type_texts(const Recipe& recipe) {
  std::vector<std::string> texts;
  const Value* comm = recipe.find("model.cp_comm_type");
  if (comm == nullptr) return texts;
  if (comm->is_string()) {
    texts.push_back(comm->as_string());
  } else if (comm->is_list()) {
    for (const Value& item : comm->items()) {
      texts.push_back(item.is_string() ? item.as_string() : item.str());
    }
  }
  return texts;
}

Status check_model_section(const Recipe& recipe) {
  const Value* model = recipe.find("model");
  if (model == nullptr || model->is_null()) {
    // Megatron-Bridge's ConfigContainer.model is a required model provider (config.py:975
    // @067f987) that validate() reads (self.model.bf16, config.py:1134): None fails at start-up.
    return Error{std::string("the recipe has no model section (") +
                     (model == nullptr ? "no 'model' key" : "model is null") +
                     "): Megatron-Bridge needs cfg.model, the model provider, to start",
                 recipe.where("model"), "model"};
  }
  const Value* granularity = recipe.find("model.recompute_granularity");
  if (granularity == nullptr || granularity->is_null()) return Ok{};
  if (granularity->is_string() &&
      (granularity->as_string() == "full" || granularity->as_string() == "selective")) {
    return Ok{};
  }
  // Megatron-Core's TransformerConfig raises ValueError for any other value
  // (megatron/core/transformer/transformer_config.py:1900-1905 @d98e8a6).
  return Error{"model.recompute_granularity must be full or selective (or null for none), got '" +
                   granularity->str() + "': Megatron-Core's TransformerConfig raises ValueError",
               recipe.where("model.recompute_granularity"), "model.recompute_granularity"};
}

Result<CpCommType> recipe_cp_comm_type(std::string_view text) {
  auto type = parse_cp_comm_type(text);
  if (type && cp_comm_type_name(*type) == text) return type;
  return Error{"unknown cp_comm_type '" + std::string(text) +
                   "' (Transformer Engine takes p2p, all_gather, a2a or a2a+p2p)",
               {},
               "model.cp_comm_type"};
}

namespace {

/// How many layers of one kind (full attention, or sliding window) use each comm type.
struct LayerTypes {
  std::vector<std::pair<CpCommType, int64_t>> counts;  ///< In order of first use.
  int64_t layers = 0;

  void add(CpCommType type) {
    ++layers;
    for (auto& [t, n] : counts) {
      if (t == type) {
        ++n;
        return;
      }
    }
    counts.emplace_back(type, 1);
  }
  /// The most common type (the first used on a tie); nullopt without layers.
  std::optional<CpCommType> most_common() const {
    std::optional<std::pair<CpCommType, int64_t>> best;
    for (const auto& c : counts) {
      if (!best || c.second > best->second) best = c;
    }
    if (!best) return std::nullopt;
    return best->first;
  }
  /// "p2p on 3 and a2a on 1 of 4 full-attention layers: priced as p2p on all of them".
  std::string mixed_text(const char* kind) const {
    std::string text;
    for (size_t i = 0; i < counts.size(); ++i) {
      text += std::string(i == 0                   ? ""
                          : i + 1 == counts.size() ? " and "
                                                   : ", ") +
              cp_comm_type_name(counts[i].first) + " on " + std::to_string(counts[i].second);
    }
    return text + " of " + std::to_string(layers) + " " + kind + ": priced as " +
           cp_comm_type_name(*most_common()) + " on all of them";
  }
};

/// The parseable per-layer cp_comm_types, split into full-attention and sliding-window layers.
std::pair<LayerTypes, LayerTypes> layer_types(const Recipe& recipe,
                                              const std::vector<bool>& windowed_layers) {
  std::pair<LayerTypes, LayerTypes> out;
  std::vector<std::string> texts = cp_comm_type_texts(recipe);
  for (size_t i = 0; i < texts.size(); ++i) {
    auto type = recipe_cp_comm_type(texts[i]);
    if (!type) continue;
    bool windowed = i < windowed_layers.size() && windowed_layers[i];
    (windowed ? out.second : out.first).add(*type);
  }
  return out;
}

/// Set comm and windowed_comm from the per-layer cp_comm_type texts (unparseable ones skipped):
/// each kind of layer is priced with its most common type (cp_comm_type_pricing_note).
void read_comm_types(const Recipe& recipe, const std::vector<bool>& windowed_layers, Layout& l) {
  auto [full, windowed] = layer_types(recipe, windowed_layers);
  if (auto type = full.most_common()) {
    l.comm = *type;
  } else if (auto only = windowed.most_common()) {
    l.comm = *only;
  }
  if (auto type = windowed.most_common(); type && *type != l.comm) l.windowed_comm = *type;
}

}  // namespace

std::string cp_comm_type_pricing_note(const Recipe& recipe,
                                      const std::vector<bool>& windowed_layers) {
  auto [full, windowed] = layer_types(recipe, windowed_layers);
  std::vector<std::string> parts;
  bool split = windowed.layers > 0;
  if (full.counts.size() > 1)
    parts.push_back(full.mixed_text(split ? "full-attention layers" : "layers"));
  if (windowed.counts.size() > 1) parts.push_back(windowed.mixed_text("sliding-window layers"));
  if (parts.empty()) return "";
  std::string text = "the per-layer cp_comm_type list mixes types (";
  for (size_t i = 0; i < parts.size(); ++i)
    text += (i == 0 ? "" : "; ") + parts[i];
  return text + "); the cost model prices one type per kind of layer, the most common";
}

Layout layout_of(const Recipe& recipe, const std::vector<bool>& windowed_layers) {
  Layout l;
  l.tp = recipe.int_or("model.tensor_model_parallel_size", 1);
  l.pp = recipe.int_or("model.pipeline_model_parallel_size", 1);
  l.cp = recipe.int_or("model.context_parallel_size", 1);
  l.ep = recipe.int_or("model.expert_model_parallel_size", 1);
  l.etp = recipe.get_int("model.expert_tensor_parallel_size");
  if (!l.etp) l.etp = default_expert_tp(recipe.framework, l.ep);
  l.vpp = recipe.get_int("model.virtual_pipeline_model_parallel_size");
  if (auto hcp = recipe.get_int_list("model.hierarchical_context_parallel_sizes")) l.hcp = *hcp;
  read_comm_types(recipe, windowed_layers, l);
  l.sequence_parallel = recipe.bool_or("model.sequence_parallel", false);
  if (recipe.bool_or("dist.use_tp_pp_dp_mapping", false)) l.order = kTpPpDpRankOrder;
  return l;
}

namespace {

/// Set `key` to null when the recipe has it (a key the recipe lacks stays absent).
void clear_key(Recipe& recipe, std::string_view key, const Location& origin) {
  if (recipe.has(key)) recipe.set(key, Value::null(origin));
}

/// model.expert_tensor_parallel_size is written only when it changes what the recipe runs with.
bool etp_changes(const Layout& layout, const Recipe& recipe) {
  if (!layout.etp) return false;
  if (auto own = recipe.get_int("model.expert_tensor_parallel_size")) return *own != *layout.etp;
  return layout.etp != default_expert_tp(recipe.framework, layout.ep);
}

Value comm_value(const Layout& layout, const std::vector<bool>& windowed_layers,
                 const Location& origin) {
  if (!layout.windowed_comm || windowed_layers.empty()) {
    return Value::string(cp_comm_type_name(layout.comm), origin);
  }
  std::vector<Value> per_layer;
  per_layer.reserve(windowed_layers.size());
  for (bool windowed : windowed_layers) {
    CpCommType type = windowed ? *layout.windowed_comm : layout.comm;
    per_layer.push_back(Value::string(cp_comm_type_name(type), origin));
  }
  return Value::list(std::move(per_layer), origin);
}

}  // namespace

void apply(const Layout& layout, Recipe& recipe, const Location& origin,
           const std::vector<bool>& windowed_layers) {
  auto integer = [&](int64_t v) { return Value::integer(v, origin); };
  const int64_t own_ep = recipe.int_or("model.expert_model_parallel_size", 1);
  const bool write_etp = etp_changes(layout, recipe);
  recipe.set("model.tensor_model_parallel_size", integer(layout.tp));
  recipe.set("model.context_parallel_size", integer(layout.cp));
  recipe.set("model.pipeline_model_parallel_size", integer(layout.pp));
  recipe.set("model.sequence_parallel", Value::boolean(layout.sequence_parallel, origin));
  if (layout.ep != own_ep) recipe.set("model.expert_model_parallel_size", integer(layout.ep));
  if (write_etp) recipe.set("model.expert_tensor_parallel_size", integer(*layout.etp));
  if (layout.pp == 1 || layout.virtual_stages() <= 1) {
    clear_key(recipe, "model.virtual_pipeline_model_parallel_size", origin);
  } else {
    recipe.set("model.virtual_pipeline_model_parallel_size", integer(layout.virtual_stages()));
  }
  if (layout.cp == 1) {
    clear_key(recipe, "model.cp_comm_type", origin);
  } else {
    recipe.set("model.cp_comm_type", comm_value(layout, windowed_layers, origin));
  }
  std::vector<int64_t> hcp = layout.hcp_sizes();
  if (hcp.empty()) {
    clear_key(recipe, "model.hierarchical_context_parallel_sizes", origin);
  } else {
    recipe.set("model.hierarchical_context_parallel_sizes",
               Value::list({integer(hcp[0]), integer(hcp[1])}, origin));
  }
}

}  // namespace hcp
