// Launch shape from the launcher's environment (Slurm, torchrun, Open MPI) or the command line,
// and the KEY=VALUE environment files tests and job scripts hand to preflight.
#include <charconv>
#include <sstream>

#include "hcp/checked.h"
#include "hcp/file_input.h"
#include "hcp/preflight.h"

extern char** environ;

namespace hcp {
namespace {

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

std::string unquote(const std::string& v) {
  if (v.size() >= 2 && (v.front() == '"' || v.front() == '\'') && v.back() == v.front())
    return v.substr(1, v.size() - 2);
  return v;
}

Error launch_error(const std::string& message) {
  return Error{message, Location{"<environment>", 0, 0}, ""};
}

/// The launcher variables read as counts (nodes, ranks, GPUs).
constexpr const char* kCountVariables[] = {"SLURM_NNODES",          "SLURM_GPUS_ON_NODE",
                                           "SLURM_NTASKS_PER_NODE", "WORLD_SIZE",
                                           "LOCAL_WORLD_SIZE",      "NNODES",
                                           "OMPI_COMM_WORLD_SIZE",  "OMPI_COMM_WORLD_LOCAL_SIZE"};

/// Parse a count variable's value: a positive integer no larger than kMaxWorldGpus; an error
/// otherwise. An empty value is an error too: launchers never set a count empty, and read as
/// unset, "SLURM_NNODES=" became one node and a NO-GO that blamed the recipe's world size.
Result<std::optional<int64_t>> parse_count(const std::string& name, const std::string& raw) {
  if (raw.empty()) {
    return launch_error(name + " is set but empty (a launcher sets it to a positive integer)");
  }
  // Slurm writes repeated counts as "8(x4)"; the leading number is the per-node value.
  std::string text = raw.substr(0, raw.find('('));
  int64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value < 1)
    return launch_error(name + "='" + raw + "' is not a positive integer");
  if (value > kMaxWorldGpus) {
    return launch_error(name + "='" + raw + "' is larger than " + std::to_string(kMaxWorldGpus) +
                        " (the largest world hcp-plan accepts)");
  }
  return std::optional<int64_t>(value);
}

/// A positive integer variable: nullopt when unset, an error when malformed.
Result<std::optional<int64_t>> positive(const EnvMap& env, const std::string& name) {
  auto it = env.find(name);
  if (it == env.end()) return std::optional<int64_t>{};
  return parse_count(name, it->second);
}

bool has(const EnvMap& env, const char* name) {
  return env.count(name) != 0;
}

/// Shape from Slurm: SLURM_NNODES; GPUs per node from SLURM_GPUS_ON_NODE, else from
/// SLURM_NTASKS_PER_NODE when it is more than one task (one task per node says nothing).
Status from_slurm(const EnvMap& env, LaunchShape& shape) {
  auto nodes = positive(env, "SLURM_NNODES");
  auto gpus = positive(env, "SLURM_GPUS_ON_NODE");
  auto tasks = positive(env, "SLURM_NTASKS_PER_NODE");
  for (auto* r : {&nodes, &gpus, &tasks})
    if (!*r) return r->error();
  shape.source = "slurm";
  shape.nodes = *nodes;
  if (*gpus) {
    shape.gpus_per_node = *gpus;
    shape.notes.push_back("GPUs per node from SLURM_GPUS_ON_NODE");
  } else if (*tasks && **tasks > 1) {
    shape.gpus_per_node = *tasks;
    shape.notes.push_back("GPUs per node from SLURM_NTASKS_PER_NODE (one GPU per task)");
  }
  if (auto it = env.find("SLURM_JOB_NODELIST"); it != env.end()) shape.nodelist = it->second;
  return Ok{};
}

/// Shape from torchrun: WORLD_SIZE, LOCAL_WORLD_SIZE (one rank per GPU), NNODES when set.
Status from_torchrun(const EnvMap& env, LaunchShape& shape) {
  auto world = positive(env, "WORLD_SIZE");
  auto local = positive(env, "LOCAL_WORLD_SIZE");
  auto nodes = positive(env, "NNODES");
  for (auto* r : {&world, &local, &nodes})
    if (!*r) return r->error();
  shape.source = "torchrun";
  shape.gpus_per_node = *local;
  shape.nodes = *nodes;
  // All three given: they must agree (torchrun sets WORLD_SIZE = NNODES x LOCAL_WORLD_SIZE).
  if (*world && *local && *nodes && **nodes * **local != **world) {
    return launch_error("WORLD_SIZE=" + std::to_string(**world) +
                        " is not NNODES=" + std::to_string(**nodes) +
                        " x LOCAL_WORLD_SIZE=" + std::to_string(**local) + " (" +
                        std::to_string(**nodes * **local) + "): the launcher variables disagree");
  }
  if (!shape.nodes && *world && *local) {
    if (**world % **local != 0)
      return launch_error("WORLD_SIZE=" + std::to_string(**world) +
                          " is not a multiple of LOCAL_WORLD_SIZE=" + std::to_string(**local));
    shape.nodes = **world / **local;
    shape.notes.push_back("nodes = WORLD_SIZE / LOCAL_WORLD_SIZE");
  }
  return Ok{};
}

/// Shape from Open MPI: one rank per node (LOCAL_SIZE 1, the preflight launch) gives the node
/// count only; more local ranks mean one rank per GPU.
Status from_openmpi(const EnvMap& env, LaunchShape& shape) {
  auto world = positive(env, "OMPI_COMM_WORLD_SIZE");
  auto local = positive(env, "OMPI_COMM_WORLD_LOCAL_SIZE");
  for (auto* r : {&world, &local})
    if (!*r) return r->error();
  shape.source = "openmpi";
  int64_t per_node = local->value_or(1);
  if (*world && **world % per_node != 0)
    return launch_error("OMPI_COMM_WORLD_SIZE is not a multiple of OMPI_COMM_WORLD_LOCAL_SIZE");
  if (*world) shape.nodes = **world / per_node;
  if (per_node > 1) shape.gpus_per_node = per_node;
  return Ok{};
}

}  // namespace

Result<EnvMap> load_env_file(const std::string& path) {
  // The shared reader: directories, devices and oversized files are errors; a BOM is skipped.
  Result<std::string> content = read_input_file(path, InputKind::kEnv);
  if (!content) return content.error();
  if (Status s = check_no_control_bytes(*content, path, "an environment file"); !s) {
    return s.error();
  }
  EnvMap env;
  std::istringstream in(*content);
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    std::string text = trim(line);
    if (text.empty() || text.front() == '#') continue;
    if (text.rfind("export ", 0) == 0) text = trim(text.substr(7));
    size_t eq = text.find('=');
    if (eq == 0 || eq == std::string::npos)
      return Error{"expected KEY=VALUE, got '" + text + "'", Location{path, number, 1}, ""};
    std::string key = trim(text.substr(0, eq));
    std::string value = unquote(trim(text.substr(eq + 1)));
    // Launcher counts are checked here, where the file and line are known.
    for (const char* count : kCountVariables) {
      if (key != count) continue;
      if (auto parsed = parse_count(key, value); !parsed) {
        return Error{parsed.error().message, Location{path, number, static_cast<int>(eq) + 2}, key};
      }
    }
    env[key] = value;
  }
  return env;
}

EnvMap process_environment() {
  EnvMap env;
  for (char** e = environ; e && *e; ++e) {
    std::string entry(*e);
    size_t eq = entry.find('=');
    if (eq != std::string::npos && eq > 0) env[entry.substr(0, eq)] = entry.substr(eq + 1);
  }
  return env;
}

Result<LaunchShape> launch_shape_from(const EnvMap& env, std::optional<int64_t> nodes_option,
                                      std::optional<int64_t> gpus_per_node_option) {
  LaunchShape shape;
  Status found = Ok{};
  if (has(env, "SLURM_NNODES") || has(env, "SLURM_JOB_ID"))
    found = from_slurm(env, shape);
  else if (has(env, "WORLD_SIZE") || has(env, "LOCAL_WORLD_SIZE"))
    found = from_torchrun(env, shape);
  else if (has(env, "OMPI_COMM_WORLD_SIZE"))
    found = from_openmpi(env, shape);
  if (!found) return found.error();
  if ((nodes_option && nodes_option < 1) || (gpus_per_node_option && gpus_per_node_option < 1))
    return Error{"--nodes and --gpus-per-node must be positive", Location{"<command line>", 0, 0},
                 ""};
  if ((nodes_option && *nodes_option > kMaxWorldGpus) ||
      (gpus_per_node_option && *gpus_per_node_option > kMaxWorldGpus)) {
    return Error{"--nodes and --gpus-per-node must be at most " + std::to_string(kMaxWorldGpus),
                 Location{"<command line>", 0, 0}, ""};
  }
  bool from_options = (nodes_option && nodes_option != shape.nodes) ||
                      (gpus_per_node_option && gpus_per_node_option != shape.gpus_per_node);
  if (nodes_option) shape.nodes = nodes_option;
  if (gpus_per_node_option) shape.gpus_per_node = gpus_per_node_option;
  if (shape.source.empty()) {
    shape.source = "command line";
  } else if (from_options) {
    shape.notes.push_back("--nodes/--gpus-per-node override the " + shape.source + " values");
  }
  if (!shape.nodes) {
    shape.nodes = 1;
    shape.notes.push_back("nodes defaulted to 1 (no launcher variable, no --nodes)");
  }
  if (shape.gpus_per_node) {
    // Each count is at most kMaxWorldGpus, so the product cannot overflow; the world is bounded.
    auto world = checked_mul(*shape.nodes, *shape.gpus_per_node);
    if (!world || *world > kMaxWorldGpus) {
      return Error{
          "a world of " + std::to_string(*shape.nodes) + " nodes x " +
              std::to_string(*shape.gpus_per_node) + " GPUs is larger than " +
              std::to_string(kMaxWorldGpus) + " GPUs (the largest hcp-plan accepts)",
          Location{shape.source == "command line" ? "<command line>" : "<environment>", 0, 0}, ""};
    }
    shape.world_size = *world;
  }
  return shape;
}

}  // namespace hcp
