// Parser for --option strings (see include/hcp/layout_option.h).
#include "hcp/layout_option.h"
#include "hcp/checked.h"

#include <charconv>
#include <string>

#include "hcp/edit_distance.h"

namespace hcp {

namespace {

const std::vector<std::string>& known_keys() {
  static const std::vector<std::string> keys = {"tp", "cp", "pp",           "ep", "etp",
                                                "dp", "vp", "cp_comm_type", "hcp"};
  return keys;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t'))
    s.remove_suffix(1);
  return s;
}

Error option_error(const std::string& message, const std::string& key) {
  return Error{message, {"<command line>", 0, 0}, key};  // the value of an option
}

/// Split on commas that are not inside [...].
Result<std::vector<std::string_view>> split_items(std::string_view text) {
  std::vector<std::string_view> items;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i <= text.size(); ++i) {
    char ch = i < text.size() ? text[i] : ',';
    if (ch == '[') ++depth;
    if (ch == ']' && --depth < 0) return option_error("unbalanced ']' in option", "");
    if (ch == ',' && depth == 0) {
      items.push_back(trim(text.substr(start, i - start)));
      start = i + 1;
    }
  }
  if (depth != 0) return option_error("unbalanced '[' in option", "");
  return items;
}

Result<int64_t> parse_size(std::string_view text, const std::string& key) {
  text = trim(text);
  int64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) {
    return option_error(key + " must be a positive integer, got '" + std::string(text) + "'", key);
  }
  if (value <= 0) {
    return option_error(key + " must be positive, got " + std::to_string(value), key);
  }
  // No group is larger than the largest world; the bound keeps products of sizes from overflow.
  if (value > kMaxWorldGpus) {
    return option_error(key + "=" + std::to_string(value) + " is larger than " +
                            std::to_string(kMaxWorldGpus) + " GPUs, the largest world accepted",
                        key);
  }
  return value;
}

/// Parse "8x2", "[8,2]", "[8, 2]" or "8,2" (the latter only reachable inside brackets).
Result<std::vector<int64_t>> parse_hcp(std::string_view text) {
  text = trim(text);
  char separator = 'x';
  if (!text.empty() && text.front() == '[') {
    if (text.back() != ']') return option_error("hcp list must end with ']'", "hcp");
    text = text.substr(1, text.size() - 2);
    separator = ',';
  }
  std::vector<int64_t> sizes;
  size_t start = 0;
  for (size_t i = 0; i <= text.size(); ++i) {
    if (i < text.size() && text[i] != separator) continue;
    auto size = parse_size(text.substr(start, i - start), "hcp");
    if (!size) return size.error();
    sizes.push_back(*size);
    start = i + 1;
  }
  if (sizes.size() < 2) {
    return option_error(
        "hcp needs at least two sizes, as AxP or [A,P], got '" + std::string(text) + "'", "hcp");
  }
  return sizes;
}

/// Set the size `field` of the layout (the keys tp .. vp).
void set_size(Layout& l, LayoutField field, int64_t size) {
  switch (field) {
    case LayoutField::kTp:
      l.tp = size;
      break;
    case LayoutField::kCp:
      l.cp = size;
      break;
    case LayoutField::kPp:
      l.pp = size;
      break;
    case LayoutField::kEp:
      l.ep = size;
      break;
    case LayoutField::kEtp:
      l.etp = size;
      break;
    case LayoutField::kDp:
      l.dp = size;
      break;
    case LayoutField::kVp:
      l.vpp = size;
      break;
    default:
      break;
  }
}

Status set_key(PartialLayout& option, const std::string& key, std::string_view value) {
  for (size_t i = 0; i < 7; ++i) {
    if (key != known_keys()[i]) continue;
    auto size = parse_size(value, key);
    if (!size) return size.error();
    auto field = static_cast<LayoutField>(i);
    set_size(option.layout, field, *size);
    option.set(field);
    return Ok{};
  }
  if (key == "cp_comm_type") {
    auto type = parse_cp_comm_type(trim(value));
    if (!type) return option_error(type.error().message, key);
    option.layout.comm = *type;
    option.set(LayoutField::kCpCommType);
    return Ok{};
  }
  auto hcp = parse_hcp(value);
  if (!hcp) return hcp.error();
  option.layout.hcp = *hcp;
  option.set(LayoutField::kHcp);
  return Ok{};
}

Status check_consistency(const PartialLayout& option) {
  const std::vector<int64_t>& hcp = option.layout.hcp;
  if (hcp.empty()) return Ok{};
  int64_t product = 1;
  for (int64_t s : hcp) {
    auto next = checked_mul(product, s);
    if (!next || *next > kMaxWorldGpus) {
      return option_error("prod(hcp) is larger than " + std::to_string(kMaxWorldGpus) + " GPUs",
                          "hcp");
    }
    product = *next;
  }
  if (option.has(LayoutField::kCp) && product != option.layout.cp) {
    return option_error(
        "prod(hcp)=" + std::to_string(product) + " != cp=" + std::to_string(option.layout.cp),
        "hcp");
  }
  return Ok{};
}

}  // namespace

Result<PartialLayout> parse_layout_option(std::string_view text) {
  if (trim(text).empty()) return option_error("empty option", "");
  auto items = split_items(text);
  if (!items) return items.error();
  PartialLayout option;
  std::vector<std::string> seen;
  for (std::string_view item : *items) {
    size_t eq = item.find('=');
    if (eq == std::string_view::npos) {
      return option_error("expected key=value, got '" + std::string(item) + "'", "");
    }
    std::string key(trim(item.substr(0, eq)));
    bool known = false;
    for (const auto& k : known_keys())
      known = known || k == key;
    if (!known) {
      return option_error(
          "unknown option key '" + key + "'" + did_you_mean(key, closest_match(key, known_keys())),
          key);
    }
    for (const auto& k : seen) {
      if (k == key) return option_error("option key '" + key + "' given twice", key);
    }
    seen.push_back(key);
    if (auto st = set_key(option, key, item.substr(eq + 1)); !st) return st.error();
  }
  if (auto st = check_consistency(option); !st) return st.error();
  return option;
}

std::string layout_option_text(const PartialLayout& option) {
  const Layout& l = option.layout;
  std::string out;
  auto add = [&out](const std::string& item) { out += (out.empty() ? "" : ",") + item; };
  const std::pair<LayoutField, int64_t> sizes[] = {{LayoutField::kTp, l.tp},
                                                   {LayoutField::kCp, l.cp},
                                                   {LayoutField::kPp, l.pp},
                                                   {LayoutField::kEp, l.ep},
                                                   {LayoutField::kEtp, l.expert_tp()},
                                                   {LayoutField::kDp, l.dp},
                                                   {LayoutField::kVp, l.virtual_stages()}};
  for (const auto& [field, value] : sizes) {
    if (option.has(field)) {
      add(known_keys()[static_cast<size_t>(field)] + "=" + std::to_string(value));
    }
  }
  if (option.has(LayoutField::kCpCommType)) {
    add(std::string("cp_comm_type=") + cp_comm_type_name(l.comm));
  }
  if (option.has(LayoutField::kHcp)) {
    std::string text;
    for (int64_t s : l.hcp)
      text += (text.empty() ? "" : "x") + std::to_string(s);
    add("hcp=" + text);
  }
  return out;
}

}  // namespace hcp
