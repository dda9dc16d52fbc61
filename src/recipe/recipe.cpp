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

Parallelism parallelism_of(const Recipe& recipe) {
  Parallelism p;
  p.tp = recipe.int_or("model.tensor_model_parallel_size", 1);
  p.pp = recipe.int_or("model.pipeline_model_parallel_size", 1);
  p.cp = recipe.int_or("model.context_parallel_size", 1);
  p.ep = recipe.int_or("model.expert_model_parallel_size", 1);
  if (auto etp = recipe.get_int("model.expert_tensor_parallel_size")) {
    p.etp = *etp;
  } else {
    // MCore defaults ETP to TP; Bridge's finalize() sets it to 1 when EP > 1.
    p.etp = (recipe.framework == Framework::kBridge && p.ep > 1) ? 1 : p.tp;
  }
  p.vpp = recipe.get_int("model.virtual_pipeline_model_parallel_size");
  if (auto hcp = recipe.get_int_list("model.hierarchical_context_parallel_sizes")) p.hcp = *hcp;
  if (const Value* comm = recipe.find("model.cp_comm_type"); comm != nullptr) {
    if (comm->is_string()) {
      p.cp_comm_types.push_back(comm->as_string());
    } else if (comm->is_list()) {
      for (const Value& item : comm->items()) {
        p.cp_comm_types.push_back(item.is_string() ? item.as_string() : item.str());
      }
    }
  }
  p.sequence_parallel = recipe.bool_or("model.sequence_parallel", false);
  if (recipe.bool_or("dist.use_tp_pp_dp_mapping", false)) p.order = "tp-cp-ep-pp-dp";
  return p;
}

}  // namespace hcp
