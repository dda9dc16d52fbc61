// The preflight verdict: every check run together, findings grouped by source, text and JSON.
#include <algorithm>
#include <regex>
#include <set>
#include <sstream>
#include <tuple>

#include "hcp/file_input.h"
#include "hcp/mlm_args.h"
#include "hcp/preflight.h"
#include "hcp/text_util.h"
#include "preflight_format.h"

namespace hcp {
namespace {

using namespace preflight_format;

/// The rules' environment with the launch shape only (no versions, no process variables).
Environment launch_environment(const PreflightInput& in) {
  Environment env;
  env.framework = in.recipe.framework;
  env.nodes = in.launch.nodes;
  env.gpus_per_node = in.launch.gpus_per_node;
  env.world_size = in.launch.world_size;
  int64_t domain = nvlink_domain_of(in.node);
  if (domain > 0) env.nvlink_domain = domain;
  if (in.base.gpu_sm)
    env.gpu_sm = in.base.gpu_sm;
  else if (!in.node.gpus.empty() && in.node.gpus.front().sm > 0)
    env.gpu_sm = in.node.gpus.front().sm;
  return env;
}

/// The same plus the versions (command line first, then the interpreter) and the variables.
Environment full_environment(const PreflightInput& in) {
  Environment env = launch_environment(in);
  env.te_version = in.base.te_version;
  env.mcore_version = in.base.mcore_version;
  env.bridge_version = in.base.bridge_version;
  env.torch_version = in.base.torch_version;
  env.nccl_version = in.base.nccl_version;
  if (in.python) apply_python_env(*in.python, env);
  env.process_env = in.process_env;
  return env;
}

using Fingerprint = std::tuple<std::string, std::string, std::string>;

Fingerprint fingerprint(const Diagnostic& d) {
  return {d.id(), d.key, d.message};
}

/// Rule findings split by cause: those the launch shape alone produces are about the recipe,
/// those that appear only with versions and variables are about the environment.
void add_rule_findings(const PreflightInput& in, std::vector<PreflightFinding>& out) {
  std::set<Fingerprint> recipe_only;
  for (const Diagnostic& d : check_rules(in.recipe, launch_environment(in)))
    recipe_only.insert(fingerprint(d));
  for (Diagnostic& d : check_rules(in.recipe, full_environment(in))) {
    // Unknown-input notes (IN001-IN006) say what the environment did not tell.
    const Rule* rule = find_rule(d.id());
    bool unknown_input = rule != nullptr && rule->family == "input";
    bool recipe = !unknown_input && recipe_only.count(fingerprint(d)) != 0;
    out.push_back({recipe ? "recipe" : "environment", std::move(d)});
  }
}

bool relevant_variable(const std::string& name) {
  return name == "CUDA_DEVICE_MAX_CONNECTIONS" || name.rfind("NVTE_", 0) == 0 ||
         name.rfind("NCCL_", 0) == 0;
}

nlohmann::json environment_json(const PreflightInput& in) {
  nlohmann::json j;
  j["python"] = in.python ? nlohmann::json(in.python->interpreter) : nlohmann::json(nullptr);
  j["packages"] = nlohmann::json::object();
  if (in.python)
    for (const PythonPackage& p : in.python->packages)
      j["packages"][p.name] =
          p.raw_version.empty() ? nlohmann::json(nullptr) : nlohmann::json(p.raw_version);
  j["driver_version"] =
      in.driver_version.empty() ? nlohmann::json(nullptr) : nlohmann::json(in.driver_version);
  j["variables"] = nlohmann::json::object();
  for (const auto& [name, value] : in.process_env)
    if (relevant_variable(name)) j["variables"][name] = value;
  return j;
}

nlohmann::json node_json(const Topology& node) {
  nlohmann::json j;
  j["host"] = node.host;
  j["gpus"] = node.gpus.size();
  j["gpu_name"] = node.gpus.empty() ? "" : node.gpus.front().name;
  j["nvlink_domain"] = nvlink_domain_of(node);
  j["nics"] = nlohmann::json::array();
  for (const Nic& n : node.nics)
    j["nics"].push_back({{"name", n.name}, {"kind", nic_kind_name(n.kind)}});
  j["sources"] = node.sources;
  j["notes"] = node.notes;
  j["warnings"] = node.warnings;
  return j;
}

std::string environment_line(const nlohmann::json& env) {
  std::string text = "environment: ";
  if (env["python"].is_null()) {
    text += "no --python (versions unknown)";
  } else {
    text += "python " + env["python"].get<std::string>() + ":";
    for (const auto& [name, version] : env["packages"].items())
      text += " " + name + " " + (version.is_null() ? "-" : version.get<std::string>());
  }
  text += "; CUDA driver " +
          (env["driver_version"].is_null() ? "unknown" : env["driver_version"].get<std::string>());
  return text;
}

/// The findings with repeats folded (hcp::fold_repeats), each note under its findings' source;
/// the summary and the verdict count them all before.
std::vector<PreflightFinding> folded(const std::vector<PreflightFinding>& findings,
                                     const std::vector<Diagnostic>& diagnostics) {
  std::vector<PreflightFinding> out;
  for (FoldedEntry& e : fold_plan(diagnostics)) {
    const std::string& source = findings[e.index].source;
    if (e.note) {
      out.push_back({source, std::move(*e.note)});
    } else {
      out.push_back({source, diagnostics[e.index]});
    }
  }
  return out;
}

}  // namespace

PreflightReport run_preflight(const PreflightInput& in) {
  PreflightReport report;
  report.recipe = in.recipe.path.empty() ? in.recipe.name : in.recipe.path;
  report.launch = in.launch;
  add_rule_findings(in, report.findings);
  if (in.python)
    for (Diagnostic& d : python_env_diagnostics(*in.python))
      report.findings.push_back({"environment", std::move(d)});
  for (Diagnostic& d : nccl_env_findings(in.process_env, in.node, in.launch, in.recipe))
    report.findings.push_back({"environment", std::move(d)});
  for (Diagnostic& d : node_findings(in.node, in.launch, in.recipe, in.process_env))
    report.findings.push_back({"node", std::move(d)});
  // Megatron-LM launches get fix hints in its flag names, as check_rules() gives the rules'.
  if (in.recipe.framework == Framework::kMlm) {
    for (PreflightFinding& f : report.findings)
      spell_fix_for_mlm(f.diagnostic);
  }
  std::stable_sort(report.findings.begin(), report.findings.end(),
                   [](const PreflightFinding& a, const PreflightFinding& b) {
                     return a.diagnostic.severity() > b.diagnostic.severity();
                   });
  std::vector<Diagnostic> all;
  for (const PreflightFinding& f : report.findings)
    all.push_back(f.diagnostic);
  report.summary = summarize(all);
  report.go = report.summary.errors == 0;
  report.findings = folded(report.findings, all);
  report.environment = environment_json(in);
  report.node = node_json(in.node);
  return report;
}

std::string preflight_text(const PreflightReport& r) {
  std::ostringstream ss;
  ss << (r.go ? "GO" : "NO-GO") << ": " << counts_text(r.summary) << "\n";
  ss << "recipe " << one_line(r.recipe) << " on " << shape_text(r.launch) << "\n";
  ss << environment_line(r.environment) << "\n";
  ss << "node "
     << (r.node["host"].get<std::string>().empty() ? "?" : r.node["host"].get<std::string>())
     << ": " << r.node["gpus"].get<size_t>() << " GPUs, NVLink domain "
     << r.node["nvlink_domain"].get<int64_t>() << ", " << r.node["nics"].size() << " NICs\n";
  for (const auto& note : r.node.value("notes", nlohmann::json::array()))
    if (note.is_string()) ss << "  note: " << note.get<std::string>() << "\n";
  for (const char* source : {"recipe", "environment", "node"}) {
    std::ostringstream group;
    for (const PreflightFinding& f : r.findings)
      if (f.source == source) append_finding(group, f.diagnostic);
    ss << "\n" << source << ":\n" << (group.str().empty() ? "  no findings\n" : group.str());
  }
  return ss.str();
}

nlohmann::json preflight_json(const PreflightReport& r) {
  nlohmann::json j;
  j["verdict"] = r.go ? "GO" : "NO-GO";
  j["summary"] = {
      {"errors", r.summary.errors}, {"warnings", r.summary.warnings}, {"infos", r.summary.infos}};
  j["recipe"] = r.recipe;
  j["launch"] = launch_json(r.launch);
  j["environment"] = r.environment;
  j["node"] = r.node;
  j["diagnostics"] = nlohmann::json::array();
  for (const PreflightFinding& f : r.findings)
    j["diagnostics"].push_back(finding_json(f.source, f.diagnostic));
  return j;
}

std::string read_driver_version(const std::string& path) {
  std::string line = read_system_file_line(path).value_or("");
  static const std::regex version(R"((\d+\.\d+(\.\d+)?))");
  std::smatch m;
  auto at = line.find("Kernel Module");
  std::string tail = at == std::string::npos ? line : line.substr(at);
  return std::regex_search(tail, m, version) ? m.str(1) : "";
}

}  // namespace hcp
