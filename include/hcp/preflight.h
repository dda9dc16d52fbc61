// `hcp-plan preflight`: the go/no-go check run on a GPU node right before a training launch.
// It reads the launch shape from the launcher's environment, the Python versions, the node
// topology and the process environment, checks them against the recipe and each other, and
// returns one verdict with the findings grouped by where they come from.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "hcp/diagnostic.h"
#include "hcp/python_env.h"
#include "hcp/recipe.h"
#include "hcp/rules.h"
#include "hcp/topology.h"

namespace hcp {

/// Environment variables by name (the process environment or an --env-file).
using EnvMap = std::map<std::string, std::string>;

/// Read KEY=VALUE lines (blank lines and '#' comments skipped, an optional leading "export " and
/// matching quotes around the value removed). Error with file:line on a line without '='.
Result<EnvMap> load_env_file(const std::string& path);
/// Return the environment of this process.
EnvMap process_environment();

/// How many nodes and GPUs the job is launched on, and who said so.
struct LaunchShape {
  std::string source;  ///< "slurm", "torchrun", "openmpi", "command line" or "probe".
  std::optional<int64_t> nodes;
  std::optional<int64_t> gpus_per_node;
  std::optional<int64_t> world_size;  ///< nodes x gpus_per_node when both are known.
  std::string nodelist;               ///< SLURM_JOB_NODELIST; empty otherwise.
  /// True when gpus_per_node was taken from the GPUs the probe saw (nothing else said), so the
  /// GPU-count check has nothing to compare against.
  bool gpus_from_probe = false;
  std::vector<std::string> notes;  ///< How each number was derived.
};

/// Launch shape from the launcher's variables (Slurm first, then torchrun, then Open MPI); the
/// command line's --nodes / --gpus-per-node win over them field by field. Nodes default to 1.
/// gpus_per_node stays unset when nothing gives it (the caller fills it from the probe).
/// Error (bad input) when a variable or option is not a positive integer or they contradict.
Result<LaunchShape> launch_shape_from(const EnvMap& env, std::optional<int64_t> nodes_option,
                                      std::optional<int64_t> gpus_per_node_option);

/// Findings about the node's topology, as `probe` reports them: NVLink links down or asymmetric,
/// a GPU without a NIC on its PCIe switch, NICs of mixed speed, GPUs split across NUMA nodes.
/// IDs "TOPO001".."TOPO005", key "topology".
std::vector<Diagnostic> topology_findings(const Topology& topo);
/// The same findings as preflight reports them before a launch: key "node", and NVLink links
/// down or asymmetric (TOPO001/TOPO002) as errors, the catalog's "preflight" cases.
std::vector<Diagnostic> preflight_topology_findings(const Topology& node);

/// Findings about the NCCL variables that pin or exclude NICs and transports (NCCL_IB_HCA,
/// NCCL_SOCKET_IFNAME, NCCL_NET, NCCL_IB_DISABLE, NCCL_P2P_DISABLE, NCCL_NVLS_ENABLE), checked
/// against the node's NICs and the launch shape. IDs PF101..PF106.
std::vector<Diagnostic> nccl_env_findings(const EnvMap& env, const Topology& node,
                                          const LaunchShape& launch, const Recipe& recipe);

/// Findings about the node against the launch shape and the recipe's layout: GPU count
/// (PF201), NVLink links down or asymmetric (preflight_topology_findings), fabric NICs for
/// a multi-node launch (PF203), TP groups and the HCP a2a level inside the NVLink domain (PF204,
/// PF205), RDMA ports not ACTIVE on a multi-node launch (PF206: error when none of the NICs NCCL
/// would use is active, warning naming those down otherwise; only the NICs `env`'s NCCL_IB_HCA
/// selects count; ports of unknown state are not judged), plus the probe's other topology
/// findings.
std::vector<Diagnostic> node_findings(const Topology& node, const LaunchShape& launch,
                                      const Recipe& recipe, const EnvMap& env = {});

/// Everything a preflight check reads.
struct PreflightInput {
  Recipe recipe;
  LaunchShape launch;
  EnvMap process_env;
  Topology node;
  std::optional<PythonEnvironment> python;  ///< Unset when no interpreter was asked.
  std::string driver_version;               ///< CUDA driver version; empty when unknown.
  Environment base;                         ///< Command-line environment options (versions).
};

/// One finding and the part of the input it is about.
struct PreflightFinding {
  std::string source;  ///< "recipe", "environment" or "node".
  Diagnostic diagnostic;
};

/// The outcome of a preflight check.
struct PreflightReport {
  bool go = false;
  Summary summary;
  std::string recipe;  ///< Recipe path or name.
  LaunchShape launch;
  nlohmann::json environment;              ///< Versions, driver, relevant process variables.
  nlohmann::json node;                     ///< Host, GPUs, NVLink domain, NICs, sources, notes.
  std::vector<PreflightFinding> findings;  ///< Errors first, then warnings, then infos.
};

/// Run every check: launch shape vs node, process environment, and the full rule set with the
/// launch shape, versions and process environment as input. GO when no finding is an error.
PreflightReport run_preflight(const PreflightInput& input);

/// Text: the verdict line first ("NO-GO: 2 errors, 1 warning ..."), the launch shape, then the
/// findings grouped by source.
std::string preflight_text(const PreflightReport& report);
/// JSON: {"verdict","summary","recipe","launch","environment","node","diagnostics":[{"source",
/// "id","severity","message","key","fix"}]}.
nlohmann::json preflight_json(const PreflightReport& report);

/// Read preflight_json() output back (rank 0 of a cluster preflight reads every node's).
Result<PreflightReport> preflight_report_from_json(const nlohmann::json& j,
                                                   const std::string& where);

// --- Many nodes: one task per node, one report on rank 0 ---------------------------------------

/// One node's outcome as rank 0 receives it: the report, or why the node could not be checked.
struct NodePreflight {
  int rank = 0;
  std::string host;
  /// What the node alone would exit with: 0 GO, 1 NO-GO, 2 bad input, 3 cannot probe.
  int exit_code = 0;
  std::string problem;                    ///< Why there is no report (exit 2 or 3).
  std::optional<PreflightReport> report;  ///< Set when the node was checked.
  std::optional<Topology> topology;       ///< The node as probed, when it was.
};

/// Wire form of a node's outcome: {"rank","host","exit_code","problem","report","topology"}.
nlohmann::json node_preflight_to_json(const NodePreflight& node);
/// Read node_preflight_to_json() output back; `source` names it in errors ("rank 3").
Result<NodePreflight> node_preflight_from_json(const nlohmann::json& j, const std::string& source);

/// A finding of the cluster report and the nodes that reported it.
struct ClusterFinding {
  std::string source;  ///< "recipe", "environment", "node" or "cluster".
  Diagnostic diagnostic;
  std::vector<std::string> hosts;  ///< The nodes that reported it, in rank order.
  bool every_node = false;         ///< Every checked node reported it.
};

/// The verdict for the whole cluster, built on rank 0.
struct ClusterPreflightReport {
  bool go = false;
  /// Exit code of every rank: 2 when a node had bad input, else 3 when one could not be
  /// probed, else 1 for NO-GO and 0 for GO.
  int exit_code = 0;
  Summary summary;  ///< Over the distinct findings below.
  std::string recipe;
  LaunchShape launch;  ///< As rank 0 read it.
  std::vector<NodePreflight> nodes;
  std::vector<NodeDifference> differing_nodes;  ///< Hardware, software and variables.
  std::vector<ClusterFinding> findings;         ///< Errors first; each distinct finding once.
};

/// Combine every node's outcome: findings merged across nodes, nodes that differ from the
/// majority named (hardware PF303, software versions PF301, CP-relevant variables PF302), several
/// ranks on one host (PF304), and fewer nodes than the launch says (PF305).
ClusterPreflightReport aggregate_preflight(std::vector<NodePreflight> nodes);
/// Text: the cluster verdict line, the launch, one line per node, the differing nodes, then the
/// findings grouped by source with the nodes that reported them.
std::string cluster_preflight_text(const ClusterPreflightReport& c);
/// JSON: {"verdict","exit_code","summary","recipe","launch","nodes":[{"rank","host","verdict",
/// "summary","problem","environment","node"}],"differing_nodes","diagnostics":[{...,"hosts"}]}.
nlohmann::json cluster_preflight_json(const ClusterPreflightReport& c);

/// Read the NVIDIA kernel driver version from /proc/driver/nvidia/version ("" when no driver).
std::string read_driver_version(const std::string& path = "/proc/driver/nvidia/version");
/// The same below a root directory: <root>/proc/driver/nvidia/version ("/" on the node itself,
/// the --sysfs-root tree in tests).
std::string read_driver_version_under(const std::string& root);

}  // namespace hcp
