// OmegaConf-style "${a.b}" interpolations, resolved after overrides as
// OmegaConf.to_container(resolve=True) does in Bridge.
#include <algorithm>
#include <string>
#include <vector>

#include "hcp/recipe.h"

namespace hcp {
namespace {

/// Longest chain of references followed (${a} names ${b}, which names ${c}, ...).
constexpr size_t kMaxChain = 32;

bool is_absolute_reference(std::string_view ref) {
  // Relative (${.x}) and resolver (${oc.env:X}) forms are left as they are.
  return !ref.empty() && ref[0] != '.' && ref.find(':') == std::string_view::npos &&
         ref.find("${") == std::string_view::npos;
}

/// The references being followed, outermost first.
using Chain = std::vector<std::string>;

Result<Value> resolve_string(const Recipe& recipe, const Value& v, Chain& chain);

/// "${a} -> ${b} -> ${a}".
std::string chain_text(const Chain& chain, std::string_view last) {
  std::string text;
  for (const std::string& ref : chain)
    text += "${" + ref + "} -> ";
  return text + "${" + std::string(last) + "}";
}

/// Return the resolved value a reference names: a cycle, or a chain past kMaxChain links, is an
/// error that says which (a long acyclic chain was once called a cycle).
Result<Value> lookup(const Recipe& recipe, std::string_view ref, const Value& site, Chain& chain) {
  if (std::find(chain.begin(), chain.end(), ref) != chain.end()) {
    return Error{"interpolation cycle: " + chain_text(chain, ref), site.location(), ""};
  }
  if (chain.size() > kMaxChain) {
    return Error{"interpolation chain longer than " + std::to_string(kMaxChain) + " links, at ${" +
                     std::string(ref) + "}",
                 site.location(), ""};
  }
  const Value* target = recipe.find(ref);
  if (target == nullptr) {
    return Error{"interpolation ${" + std::string(ref) + "} refers to a missing key",
                 site.location(), std::string(ref)};
  }
  if (!target->is_string()) return *target;
  chain.emplace_back(ref);
  Result<Value> resolved = resolve_string(recipe, *target, chain);
  chain.pop_back();
  return resolved;
}

Result<Value> resolve_string(const Recipe& recipe, const Value& v, Chain& chain) {
  const std::string& s = v.as_string();
  size_t open = s.find("${");
  if (open == std::string::npos) return v;
  size_t close = s.find('}', open);
  if (open == 0 && close == s.size() - 1) {
    std::string_view ref = std::string_view(s).substr(2, s.size() - 3);
    if (!is_absolute_reference(ref)) return v;
    Result<Value> target = lookup(recipe, ref, v, chain);
    if (!target) return target;
    Value out = *target;
    out.set_location(v.location());  // Report it where the interpolation was written.
    return out;
  }
  std::string text;
  size_t pos = 0;
  while (open != std::string::npos && close != std::string::npos) {
    std::string_view ref = std::string_view(s).substr(open + 2, close - open - 2);
    if (!is_absolute_reference(ref)) return v;
    Result<Value> target = lookup(recipe, ref, v, chain);
    if (!target) return target;
    text += s.substr(pos, open - pos);
    text += target->is_string() ? target->as_string() : target->str();
    pos = close + 1;
    open = s.find("${", pos);
    close = open == std::string::npos ? open : s.find('}', open);
  }
  text += s.substr(pos);
  return Value::string(text, v.location());
}

Status resolve_in(const Recipe& recipe, Value& v) {
  if (v.is_string()) {
    Chain chain;
    Result<Value> r = resolve_string(recipe, v, chain);
    if (!r) return r.error();
    v = std::move(*r);
  } else if (v.is_list()) {
    for (Value& item : v.items()) {
      if (Status s = resolve_in(recipe, item); !s) return s;
    }
  } else if (v.is_map()) {
    for (size_t i = 0; i < v.entries().size(); ++i) {
      if (Status s = resolve_in(recipe, v.value_at(i)); !s) return s;
    }
  }
  return Ok{};
}

}  // namespace

Status resolve_interpolations(Recipe& recipe) {
  // Resolve against an unmodified copy so that every reference sees the original values.
  Recipe original = recipe;
  return resolve_in(original, recipe.root);
}

}  // namespace hcp
