// hcp-plan preflight RECIPE [OVERRIDE...]: go / no-go for this recipe on this node, right before
// the launch. Exit 0 GO, 1 NO-GO, 2 bad input, 3 when the node cannot be probed at all.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "command.h"
#include "common_options.h"
#include "hcp/preflight.h"
#include "hcp/python_env.h"
#include "hcp/recipe.h"
#include "output.h"

namespace hcp::cli {
namespace {

struct PreflightOptions {
  std::string recipe;
  int64_t nodes = 0;                               ///< 0 = not given.
  int64_t gpus_per_node = 0;                       ///< 0 = not given.
  std::map<std::string, std::string> env_options;  ///< --te-version, --mcore-version, ...
  std::string env_file;
  std::vector<std::string> env_assignments;  ///< --env NAME=VALUE
  std::string python;
  std::vector<std::string> hwloc_xml, nccl_topo, smi_topo;
  bool no_nvml = false;
  std::string sysfs_root;  ///< --sysfs-root: RDMA port state and driver version below it.
  bool strict = false;
  OutputOptions output;

  bool has_captures() const {
    return !hwloc_xml.empty() || !nccl_topo.empty() || !smi_topo.empty();
  }
};

Result<Recipe> load_subject(const PreflightOptions& o, const std::vector<std::string>& overrides) {
  if (o.recipe.empty())
    return Error{"give the RECIPE to check", Location{"<command line>", 0, 0}, ""};
  auto path = resolve_recipe_path(o.recipe);
  if (!path) return path.error();
  auto recipe = load_recipe_file(*path);
  if (!recipe) return recipe.error();
  if (Status s = apply_overrides(*recipe, overrides); !s) return s.error();
  return recipe;
}

/// The variables the job runs with: --env-file instead of this process's, then --env entries.
Result<EnvMap> job_environment(const PreflightOptions& o) {
  EnvMap env;
  if (!o.env_file.empty()) {
    auto file = load_env_file(o.env_file);
    if (!file) return file.error();
    env = std::move(*file);
  } else {
    env = process_environment();
  }
  for (const std::string& a : o.env_assignments) {
    size_t eq = a.find('=');
    if (eq == 0 || eq == std::string::npos)
      return Error{"--env expects NAME=VALUE, got '" + a + "'", Location{"<command line>", 0, 0},
                   ""};
    env[a.substr(0, eq)] = a.substr(eq + 1);
  }
  return env;
}

Result<Environment> command_line_environment(const PreflightOptions& o, const Recipe& recipe) {
  Environment env;
  env.framework = recipe.framework;
  for (const auto& [name, value] : o.env_options)
    if (Status s = set_environment_option(env, name, value); !s) return s.error();
  return env;
}

std::optional<int64_t> given(int64_t v) {
  return v > 0 ? std::optional<int64_t>(v) : std::nullopt;
}

/// The node: captures when given, else the live probe.
Result<Topology> load_node(const PreflightOptions& o) {
  if (o.has_captures()) {
    auto topo = load_topology_captures(o.hwloc_xml, o.nccl_topo, o.smi_topo);
    if (Status s = topo ? merge_sysfs_nics(*topo, o.sysfs_root) : Status(Ok{}); !s)
      return s.error();
    return topo;
  }
  LiveProbeOptions live;
  live.use_nvml = !o.no_nvml;
  if (!o.sysfs_root.empty()) live.sysfs_root = o.sysfs_root;
  return probe_live(live);
}

/// Without a GPU count from the launcher or the command line, use what the node shows.
void fill_gpus_from_node(LaunchShape& launch, const Topology& node) {
  if (launch.gpus_per_node || node.gpus.empty()) return;
  launch.gpus_per_node = static_cast<int64_t>(node.gpus.size());
  launch.gpus_from_probe = true;
  launch.world_size = launch.nodes.value_or(1) * *launch.gpus_per_node;
  launch.notes.push_back("GPUs per node = GPUs visible on this node (nothing else said)");
}

Result<PreflightInput> gather_input(const PreflightOptions& o,
                                    const std::vector<std::string>& overrides, int& exit_code) {
  exit_code = kExitBadInput;
  PreflightInput in;
  auto recipe = load_subject(o, overrides);
  if (!recipe) return recipe.error();
  in.recipe = std::move(*recipe);
  auto env = job_environment(o);
  if (!env) return env.error();
  in.process_env = std::move(*env);
  auto base = command_line_environment(o, in.recipe);
  if (!base) return base.error();
  in.base = std::move(*base);
  in.recipe.framework = in.base.framework;
  auto launch = launch_shape_from(in.process_env, given(o.nodes), given(o.gpus_per_node));
  if (!launch) return launch.error();
  in.launch = std::move(*launch);
  auto node = load_node(o);
  if (!node) {
    if (o.has_captures()) return node.error();  // A bad capture is bad input.
    exit_code = kExitEnvironment;
    return Error{"cannot probe this node: " + node.error().str(), Location{"<node>", 0, 0}, ""};
  }
  in.node = std::move(*node);
  fill_gpus_from_node(in.launch, in.node);
  if (!o.python.empty()) {
    auto py = probe_python_env(o.python);
    if (!py) {
      exit_code = kExitEnvironment;
      return py.error();
    }
    in.python = std::move(*py);
  }
  if (!o.has_captures() || !o.sysfs_root.empty())
    in.driver_version = read_driver_version_under(o.sysfs_root.empty() ? "/" : o.sysfs_root);
  return in;
}

int run_preflight_command(const PreflightOptions& o, const std::vector<std::string>& overrides) {
  int failure_code = kExitBadInput;
  auto input = gather_input(o, overrides, failure_code);
  if (!input) {
    print_error(input.error().str());
    return failure_code;
  }
  PreflightReport report = run_preflight(*input);
  if (o.strict && report.summary.warnings > 0) report.go = false;  // --strict: warnings block.
  std::string text =
      o.output.format == "json" ? preflight_json(report).dump(2) + "\n" : preflight_text(report);
  if (!emit(o.output, text)) return kExitBadInput;
  return report.go ? kExitOk : kExitFindings;
}

void add_options(CLI::App& sub, PreflightOptions& o) {
  sub.add_option("recipe", o.recipe, "Recipe path or shipped recipe name");
  sub.allow_extras();
  sub.footer("Arguments after RECIPE that are not options are overrides (k=v, -cp 4, ...).");
  sub.add_option("--nodes", o.nodes, "Nodes of the launch (when no launcher variable says)")
      ->check(CLI::PositiveNumber);
  sub.add_option("--gpus-per-node", o.gpus_per_node, "GPUs per node of the launch")
      ->check(CLI::PositiveNumber);
  for (const char* name : {"te-version", "mcore-version", "framework", "gpu-sm"}) {
    sub.add_option_function<std::string>(
        std::string("--") + name,
        [&o, key = std::string(name)](const std::string& v) { o.env_options[key] = v; },
        std::string("As for validate: ") + name + " (wins over the detected value)");
  }
  sub.add_option("--env-file", o.env_file,
                 "KEY=VALUE lines used instead of this process's environment")
      ->type_name("FILE");
  sub.add_option("--env", o.env_assignments, "Extra variable NAME=VALUE (repeatable)");
  auto* python = sub.add_option("--python", o.python,
                                "Read TE/MCore/Bridge/torch/NCCL versions from this interpreter");
  sub.add_flag_callback(
         "--detect-env", [&o]() { o.python = o.python.empty() ? "python3" : o.python; },
         "Same as --python python3 (from PATH)")
      ->excludes(python);
  sub.add_option("--hwloc-xml", o.hwloc_xml, "hwloc XML capture instead of the live probe")
      ->type_name("FILE");
  sub.add_option("--nccl-topo", o.nccl_topo, "NCCL topology XML capture")->type_name("FILE");
  sub.add_option("--nvidia-smi-topo", o.smi_topo, "`nvidia-smi topo -m` capture")
      ->type_name("FILE");
  sub.add_flag("--no-nvml", o.no_nvml, "Do not load libnvidia-ml.so.1");
  sub.add_option("--sysfs-root", o.sysfs_root,
                 "Read RDMA port state (sys/class/infiniband) and the driver version "
                 "(proc/driver/nvidia/version) below DIR (default / on the live node)")
      ->type_name("DIR")
      ->check(CLI::ExistingDirectory);
  sub.add_flag("--strict", o.strict, "NO-GO (exit 1) on warnings as well as errors");
  add_output_options(sub, o.output);
}

const CommandRegistration kPreflight{
    "preflight", "Go / no-go for a recipe on this node before the launch (exit 1 on NO-GO)",
    [](CLI::App& sub) -> std::function<int()> {
      auto o = std::make_shared<PreflightOptions>();
      add_options(sub, *o);
      return [o, &sub] { return run_preflight_command(*o, sub.remaining(false)); };
    }};

}  // namespace
}  // namespace hcp::cli
