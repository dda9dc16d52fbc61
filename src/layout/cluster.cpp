// Cluster profiles: recipes/clusters/NAME.yaml and `probe --save` output.
#include "hcp/cluster.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "hcp/checked.h"
#include "hcp/data_dir.h"
#include "hcp/edit_distance.h"
#include "hcp/file_input.h"
#include "hcp/text_util.h"
#include "hcp/yaml_input.h"

namespace hcp {

namespace fs = std::filesystem;

namespace {

enum class FieldType { kString, kInt, kNumber };

struct Field {
  const char* name;
  FieldType type;
  std::string ClusterProfile::*text = nullptr;
  int ClusterProfile::*integer = nullptr;
  double ClusterProfile::*number = nullptr;
  int min_int = 0;
  PhysicalRange range = {"", 0, 0, true};  ///< A number's physical range (checked.h).
};

/// The profile's fields in file order.
const std::vector<Field>& fields() {
  static const std::vector<Field> all = {
      {"name", FieldType::kString, &ClusterProfile::name},
      {"description", FieldType::kString, &ClusterProfile::description},
      {"gpu_name", FieldType::kString, &ClusterProfile::gpu_name},
      {"gpu_sm", FieldType::kInt, nullptr, &ClusterProfile::gpu_sm, nullptr, 0},
      {"gpus_per_node", FieldType::kInt, nullptr, &ClusterProfile::gpus_per_node, nullptr, 1},
      {"nvlink_domain", FieldType::kInt, nullptr, &ClusterProfile::nvlink_domain, nullptr, 1},
      {"nvlink_gbps_per_gpu", FieldType::kNumber, nullptr, nullptr,
       &ClusterProfile::nvlink_gbps_per_gpu, 0, or_zero(kBandwidthGBps)},
      {"pcie_gbps_per_gpu", FieldType::kNumber, nullptr, nullptr,
       &ClusterProfile::pcie_gbps_per_gpu, 0, or_zero(kBandwidthGBps)},
      {"nics_per_node", FieldType::kInt, nullptr, &ClusterProfile::nics_per_node, nullptr, 0},
      {"nic_gbits", FieldType::kNumber, nullptr, nullptr, &ClusterProfile::nic_gbits, 0,
       or_zero(kLinkGbits)},
      {"gpu_memory_gib", FieldType::kNumber, nullptr, nullptr, &ClusterProfile::gpu_memory_gib, 0,
       or_zero(kMemoryGib)},
      {"bf16_dense_tflops", FieldType::kNumber, nullptr, nullptr,
       &ClusterProfile::bf16_dense_tflops, 0, or_zero(kTflops)},
      {"fp8_dense_tflops", FieldType::kNumber, nullptr, nullptr, &ClusterProfile::fp8_dense_tflops,
       0, or_zero(kTflops)},
  };
  return all;
}

std::vector<std::string> known_keys() {
  std::vector<std::string> keys;
  for (const Field& f : fields())
    keys.emplace_back(f.name);
  keys.emplace_back("sources");
  return keys;
}

/// Build an Error member by member (GCC 12 warns on aggregate-initialised temporaries here).
Error make_error(std::string message, Location where, std::string key) {
  Error e;
  e.message = std::move(message);
  e.location = std::move(where);
  e.key = std::move(key);
  return e;
}

Location at(const std::string& path, const YAML::Mark& mark) {
  if (mark.line < 0) return {path, 0, 0};
  return {path, mark.line + 1, mark.column + 1};
}

Error error_at(const std::string& path, const YAML::Node& node, std::string message,
               std::string key = {}) {
  return make_error(std::move(message), at(path, node.Mark()), std::move(key));
}

std::string unknown_key_message(const std::string& key) {
  std::string message = "unknown cluster profile key '" + key + "'";
  return message + did_you_mean(key, closest_match(key, known_keys()));
}

/// Parse one scalar into its field; return an error message or empty on success.
std::string set_field(const Field& f, const std::string& text, ClusterProfile& p) {
  if (f.type == FieldType::kString) {
    p.*(f.text) = text;
    return {};
  }
  const char* first = text.data();
  const char* last = text.data() + text.size();
  if (f.type == FieldType::kInt) {
    long long v = 0;
    auto [ptr, ec] = std::from_chars(first, last, v);
    if (text.empty() || ec != std::errc() || ptr != last || v > 1000000000LL) {
      return std::string(f.name) + ": expected an integer, got '" + text + "'";
    }
    if (v < f.min_int) {
      return std::string(f.name) + ": must be >= " + std::to_string(f.min_int) + ", got " + text;
    }
    p.*(f.integer) = static_cast<int>(v);
    return {};
  }
  Result<double> v = parse_physical(text, f.range);
  if (!v) return std::string(f.name) + ": " + v.error().message;
  p.*(f.number) = *v;
  return {};
}

Result<std::map<std::string, std::string>> read_sources(const std::string& path,
                                                        const YAML::Node& node) {
  std::map<std::string, std::string> out;
  if (node.IsNull()) return out;
  if (!node.IsMap()) return error_at(path, node, "sources: expected a mapping of field -> source");
  for (const auto& entry : node) {
    const std::string key = entry.first.Scalar();
    bool known = std::any_of(fields().begin(), fields().end(),
                             [&](const Field& f) { return key == f.name; });
    if (!entry.first.IsScalar() || !known) {
      return error_at(path, entry.first, "sources: " + unknown_key_message(key), "sources");
    }
    if (!entry.second.IsScalar()) {
      return error_at(path, entry.second, "sources." + key + ": expected a string", "sources");
    }
    out[key] = entry.second.Scalar();
  }
  return out;
}

Result<ClusterProfile> profile_from_yaml(const std::string& path, const YAML::Node& root) {
  if (!root.IsMap()) {
    return make_error("a cluster profile must be a YAML mapping", {path, 1, 1}, "");
  }
  ClusterProfile p;
  std::set<std::string> seen;
  bool domain_given = false;
  for (const auto& entry : root) {
    const std::string key = entry.first.IsScalar() ? entry.first.Scalar() : "";
    if (!seen.insert(key).second) return error_at(path, entry.first, "duplicate key '" + key + "'");
    if (key == "sources") {
      auto sources = read_sources(path, entry.second);
      if (!sources) return sources.error();
      p.sources = std::move(*sources);
      continue;
    }
    auto f = std::find_if(fields().begin(), fields().end(),
                          [&](const Field& fd) { return key == fd.name; });
    if (f == fields().end()) return error_at(path, entry.first, unknown_key_message(key), key);
    if (!entry.second.IsScalar()) {
      return error_at(path, entry.second, key + ": expected a single value", key);
    }
    std::string message = set_field(*f, entry.second.Scalar(), p);
    if (!message.empty()) return error_at(path, entry.second, message, key);
    domain_given = domain_given || key == "nvlink_domain";
  }
  if (!seen.count("gpus_per_node")) {
    return make_error("missing required key 'gpus_per_node'", {path, 1, 1}, "gpus_per_node");
  }
  if (!domain_given) p.nvlink_domain = p.gpus_per_node;
  p.nvlink_domain_given = domain_given;
  if (p.name.empty()) p.name = fs::path(path).stem().string();
  return p;
}

/// Quote a string for YAML (double-quoted style), so any text reads back unchanged.
std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20 || c == 0x7f) {
      out += "\\x" + hex_byte(c);
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

/// Shortest text that reads back as the same double.
std::string number_text(double v) {
  char buf[64];
  auto [ptr, ec] = std::to_chars(buf, buf + sizeof buf, v);
  return ec == std::errc() ? std::string(buf, ptr) : "0";
}

}  // namespace

Result<ClusterProfile> load_cluster_profile(const std::string& path) {
  Result<std::string> text = read_input_file(path, InputKind::kConfig);
  if (!text) return text.error();
  if (Status s = check_no_control_bytes(*text, path, "a cluster profile"); !s) return s.error();
  Result<YAML::Node> root = parse_single_yaml(*text, path, "a cluster profile");
  if (!root) return root.error();
  try {
    return profile_from_yaml(path, *root);
  } catch (const YAML::Exception& e) {
    return make_error("malformed YAML: " + e.msg, at(path, e.mark), "");
  }
}

Result<ClusterProfile> find_cluster_profile(const std::string& name_or_path) {
  std::error_code ec;
  bool looks_like_path = name_or_path.find('/') != std::string::npos ||
                         name_or_path.ends_with(".yaml") || name_or_path.ends_with(".yml");
  if (looks_like_path || fs::is_regular_file(name_or_path, ec)) {
    return load_cluster_profile(name_or_path);
  }
  std::string found = find_data_file("clusters/" + name_or_path + ".yaml");
  if (!found.empty()) return load_cluster_profile(found);
  std::vector<std::string> names = cluster_profile_names();
  std::string message = "unknown cluster profile '" + name_or_path + "'";
  message += did_you_mean(name_or_path, closest_match(name_or_path, names));
  if (!names.empty()) {
    message += "; shipped profiles:";
    for (const auto& n : names)
      message += " " + n;
  }
  return make_error(message, {"<command line>", 0, 0}, "--cluster");
}

std::vector<std::string> cluster_profile_names() {
  std::set<std::string> names;
  for (const std::string& dir : recipe_search_dirs()) {
    std::error_code ec;
    fs::directory_iterator it(fs::path(dir) / "clusters", ec);
    if (ec) continue;
    for (const auto& entry : it) {
      if (entry.path().extension() == ".yaml" && entry.is_regular_file(ec)) {
        names.insert(entry.path().stem().string());
      }
    }
  }
  return {names.begin(), names.end()};
}

std::string cluster_profile_yaml(const ClusterProfile& p) {
  std::string out = "# hcp-plan cluster profile (fields: include/hcp/cluster.h)\n";
  for (const Field& f : fields()) {
    out += std::string(f.name) + ": ";
    if (f.type == FieldType::kString) {
      out += quoted(p.*(f.text));
    } else if (f.type == FieldType::kInt) {
      out += std::to_string(p.*(f.integer));
    } else {
      out += number_text(p.*(f.number));
    }
    out += "\n";
  }
  if (p.sources.empty()) return out + "sources: {}\n";
  out += "sources:\n";
  for (const auto& [key, source] : p.sources)
    out += "  " + quoted(key) + ": " + quoted(source) + "\n";
  return out;
}

}  // namespace hcp
