// hcp-plan preflight RECIPE [OVERRIDE...]: go / no-go for this recipe on this node, right before
// the launch. Exit 0 GO, 1 NO-GO, 2 bad input, 3 when the node cannot be probed at all. Under an
// MPI launch with one task per node, rank 0 reports for the cluster and every rank exits with
// the cluster's verdict.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "command.h"
#include "common_options.h"
#include "hcp/json_io.h"
#include "hcp/mpi_world.h"
#include "hcp/preflight.h"
#include "hcp/python_env.h"
#include "hcp/recipe.h"
#include "output.h"

namespace hcp::cli {
namespace {

struct PreflightOptions {
  RecipeSources sources;                           ///< RECIPE, --mlm-args, --hf-config.
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
  bool mpi = false;      ///< --mpi: report for the cluster (also when an MPI launcher is detected).
  ConfigOptions config;  ///< --config FILE, --no-config.
  OutputOptions output;

  bool has_captures() const {
    return !hwloc_xml.empty() || !nccl_topo.empty() || !smi_topo.empty();
  }
};

/// The one launch to check: a Bridge recipe or a Megatron-LM argument list with one section.
Result<RecipeSubject> load_subject(const PreflightOptions& o,
                                   const std::vector<std::string>& overrides) {
  if (o.sources.recipe.empty() && o.sources.mlm_args.empty() && o.sources.hf_config.empty())
    return Error{"give the RECIPE to check (or --mlm-args)", Location{"<command line>", 0, 0}, ""};
  return load_one_recipe_subject(o.sources, overrides);
}

/// The variables the job runs with: --env-file instead of this process's, then the MLM config's
/// ENV_VARS (the functional-test harness exports them), then --env entries.
Result<EnvMap> job_environment(const PreflightOptions& o, const RecipeSubject& subject) {
  EnvMap env;
  if (!o.env_file.empty()) {
    auto file = load_env_file(expand_rank(o.env_file));
    if (!file) return file.error();
    env = std::move(*file);
  } else {
    env = process_environment();
  }
  for (const auto& [name, value] : subject.env_vars)
    env[name] = value;
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
  auto subject = load_subject(o, overrides);
  if (!subject) return subject.error();
  auto env = job_environment(o, *subject);
  in.recipe = std::move(subject->recipe);
  if (!env) return env.error();
  in.process_env = std::move(*env);
  auto base = command_line_environment(o, in.recipe);
  if (!base) return base.error();
  in.base = std::move(*base);
  in.recipe.framework = in.base.framework;
  auto launch = launch_shape_from(in.process_env, given(o.nodes), given(o.gpus_per_node));
  if (!launch) return launch.error();
  in.launch = std::move(*launch);
  if (Status hwloc = o.hwloc_xml.empty() ? Status(Ok{}) : hwloc_library_status(); !hwloc) {
    exit_code = kExitEnvironment;  // Not the capture's fault: the library is missing.
    return hwloc.error();
  }
  auto node = load_node(o);
  if (!node) {
    if (o.has_captures()) return node.error();  // A bad capture is bad input.
    exit_code = kExitEnvironment;
    return Error{"cannot probe this node: " + node.error().str(), Location{"<node>", 0, 0}, ""};
  }
  in.node = std::move(*node);
  fill_gpus_from_node(in.launch, in.node);
  if (!o.python.empty()) {
    auto py = probe_python_env(expand_rank(o.python));
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

/// Check this node: its report and exit code, or why it could not be checked.
NodePreflight check_this_node(const PreflightOptions& o,
                              const std::vector<std::string>& overrides) {
  NodePreflight node;
  int failure_code = kExitBadInput;
  auto input = gather_input(o, overrides, failure_code);
  if (!input) {
    node.exit_code = failure_code;
    node.problem = input.error().str();
    node.host = host_name();
    return node;
  }
  PreflightReport report = run_preflight(*input);
  if (o.strict && report.summary.warnings > 0) report.go = false;  // --strict: warnings block.
  node.exit_code = report.go ? kExitOk : kExitFindings;
  node.host = input->node.host.empty() ? host_name() : input->node.host;
  node.report = std::move(report);
  node.topology = std::move(input->node);
  return node;
}

int report_this_node(const PreflightOptions& o, const NodePreflight& node) {
  if (!node.report) {
    print_error(node.problem);
    return node.exit_code;
  }
  std::string text = o.output.format == "json" ? json_dump(preflight_json(*node.report), 2) + "\n"
                                               : preflight_text(*node.report);
  if (!emit(o.output, text)) return kExitBadInput;
  return node.exit_code;
}

/// Rank 0: read every node's outcome, print the cluster report; the exit code every rank uses.
int report_cluster(const PreflightOptions& o, const std::vector<std::string>& messages) {
  std::vector<NodePreflight> nodes;
  for (size_t rank = 0; rank < messages.size(); ++rank) {
    auto j = nlohmann::json::parse(messages[rank], nullptr, false);
    auto node = node_preflight_from_json(j, "rank " + std::to_string(rank));
    if (!node) {
      print_error(node.error().str());
      return kExitEnvironment;
    }
    nodes.push_back(std::move(*node));
  }
  ClusterPreflightReport cluster = aggregate_preflight(std::move(nodes));
  if (o.strict && cluster.exit_code == kExitOk && cluster.summary.warnings > 0) {
    cluster.go = false;
    cluster.exit_code = kExitFindings;
  }
  std::string text = o.output.format == "json"
                         ? json_dump(cluster_preflight_json(cluster), 2) + "\n"
                         : cluster_preflight_text(cluster);
  if (!emit(o.output, text)) return kExitBadInput;
  return cluster.exit_code;
}

/// Every rank checks its node and sends the outcome to rank 0, which reports for the cluster;
/// rank 0's exit code goes back to every rank.
int run_cluster_preflight(const PreflightOptions& o, const NodePreflight& mine) {
  auto world = MpiWorld::join();
  if (!world) {
    print_error("cannot report for the cluster: " + world.error().str());
    return kExitEnvironment;
  }
  NodePreflight sent = mine;
  sent.rank = (*world)->rank();
  auto messages = (*world)->gather_on_root(json_dump(node_preflight_to_json(sent)));
  if (!messages) {
    print_error(messages.error().str());
    return kExitEnvironment;
  }
  int code = (*world)->is_root() ? report_cluster(o, *messages) : kExitOk;
  auto verdict = (*world)->broadcast_from_root(code);
  if (!verdict) {
    print_error(verdict.error().str());
    return kExitEnvironment;
  }
  return *verdict;
}

int run_preflight_command(const PreflightOptions& o, const std::vector<std::string>& overrides) {
  bool cluster = o.mpi || launched_under_mpi();
  if (cluster && !mpi_available()) {
    if (o.mpi) {
      print_error("--mpi: this hcp-plan was built without MPI (install libopenmpi-dev, rebuild)");
      return kExitEnvironment;
    }
    cluster = false;  // Launched by mpirun but built without MPI: every rank reports its node.
  }
  NodePreflight mine = check_this_node(o, overrides);
  return cluster ? run_cluster_preflight(o, mine) : report_this_node(o, mine);
}

void add_options(CLI::App& sub, PreflightOptions& o) {
  add_recipe_sources(
      sub, o.sources,
      "Recipe path, shipped recipe name, or Megatron-LM model_config.yaml (MODEL_ARGS)");
  sub.footer("Arguments after RECIPE that are not options are overrides (k=v, -cp 4, ...).");
  sub.add_option("--nodes", o.nodes, "Nodes of the launch (when no launcher variable says)");
  sub.add_option("--gpus-per-node", o.gpus_per_node, "GPUs per node of the launch");
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
  sub.add_flag("--mpi", o.mpi,
               "One task per node: rank 0 reports for the cluster, every rank exits with its "
               "verdict (on by itself under mpirun / srun --mpi=pmix). File paths may hold {rank}");
  add_config_options(sub, o.config);
  add_output_options(sub, o.output);
}

const CommandRegistration kPreflight{
    "preflight", "Go / no-go for a recipe on this node before the launch (exit 1 on NO-GO)",
    [](CLI::App& sub) -> std::function<int()> {
      auto o = std::make_shared<PreflightOptions>();
      add_options(sub, *o);
      return [o, &sub]() -> int {
        if (!apply_config_or_report(sub, o->config, o->sources.recipe)) return kExitBadInput;
        return run_preflight_command(*o, sub.remaining(false));
      };
    }};

}  // namespace
}  // namespace hcp::cli
