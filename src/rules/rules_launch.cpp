// Catalog entries of the checks that read a node or a launch instead of a recipe: preflight's
// PF* (src/preflight/checks.cpp, cluster.cpp) and the probe's TOPO* (probes/topology_findings.cpp).
// Their computation lives there, on topologies and process environments; the registry holds their
// ID, severity, rationale, fix and example inputs so `rules` lists them and `explain` shows them.
// check_rules() skips them (no recipe check); RuleTest.LaunchRuleIdsMatchTheirSources keeps these
// entries and the IDs the sources emit in step.
#include "families.h"

namespace hcp::rules {
namespace {

Rule launch_rule(std::string_view id, Severity severity, std::string_view family,
                 std::string_view title, std::string_view rationale, std::string_view source,
                 std::string_view fix, std::string_view failing, std::string_view passing) {
  return {
      .id = id,
      .severity = severity,
      .family = family,
      .title = title,
      .rationale = rationale,
      .upstream = source,
      .fix = fix,
      .enforced_by = {},
      .bad_example = failing,
      .good_example = passing,
      .example_args = {},
      .check = nullptr,
      .runs_in = family == "probe" ? "probe" : "preflight",
  };
}

constexpr std::string_view kNcclEnv =
    "hcp-plan src/preflight/checks.cpp; NCCL documentation, Environment Variables";
constexpr std::string_view kNodeChecks = "hcp-plan src/preflight/checks.cpp";
constexpr std::string_view kClusterChecks = "hcp-plan src/preflight/cluster.cpp";
constexpr std::string_view kTopo = "hcp-plan probes/topology_findings.cpp";

}  // namespace

void add_preflight_rules(std::vector<Rule>& out) {
  out.push_back(launch_rule(
      "PF101", Severity::kError, "preflight", "NCCL_IB_HCA names the node's HCAs",
      "NCCL uses only the HCAs NCCL_IB_HCA selects: a name the node lacks, or a filter that "
      "leaves none, loses RDMA (error); a subset pins inter-node CP/DP traffic to part of the "
      "bandwidth (warning).",
      kNcclEnv, "list the node's HCAs (ibv_devices) or unset NCCL_IB_HCA",
      "NCCL_IB_HCA=mlx5_9 on a node whose RDMA NICs are mlx5_0..mlx5_7",
      "NCCL_IB_HCA unset on the same node"));
  out.push_back(launch_rule(
      "PF102", Severity::kInfo, "preflight", "NCCL_SOCKET_IFNAME pins NCCL's bootstrap",
      "NCCL_SOCKET_IFNAME restricts the bootstrap (and any socket transport) to the named "
      "interfaces; every node needs an interface of that name.",
      kNcclEnv, "make sure every node has an interface of that name",
      "NCCL_SOCKET_IFNAME=eth0 in the launch environment", "NCCL_SOCKET_IFNAME unset"));
  out.push_back(launch_rule(
      "PF103", Severity::kWarning, "preflight", "NCCL_NET=Socket on an RDMA multi-node launch",
      "NCCL_NET=Socket sends inter-node traffic over TCP although the node has RDMA NICs.",
      kNcclEnv, "unset NCCL_NET (or set it to IB)",
      "NCCL_NET=Socket, --nodes 2, a node with InfiniBand NICs", "NCCL_NET unset, same launch"));
  out.push_back(launch_rule(
      "PF104", Severity::kWarning, "preflight", "NCCL_IB_DISABLE=1 on an RDMA multi-node launch",
      "NCCL_IB_DISABLE=1 turns InfiniBand/RoCE off for a launch that spans nodes.", kNcclEnv,
      "unset NCCL_IB_DISABLE", "NCCL_IB_DISABLE=1, --nodes 2, a node with InfiniBand NICs",
      "NCCL_IB_DISABLE unset, same launch"));
  out.push_back(launch_rule(
      "PF105", Severity::kWarning, "preflight", "NCCL_P2P_DISABLE=1 with TP or CP",
      "NCCL_P2P_DISABLE=1 routes TP and CP traffic inside the node through host memory instead "
      "of NVLink.",
      kNcclEnv, "unset NCCL_P2P_DISABLE", "NCCL_P2P_DISABLE=1 with a CP=16 recipe",
      "NCCL_P2P_DISABLE unset with the same recipe"));
  out.push_back(
      launch_rule("PF106", Severity::kInfo, "preflight", "NCCL_NVLS_ENABLE=0 disables NVLink SHARP",
                  "NCCL_NVLS_ENABLE=0 turns off NVLink SHARP collectives on NVSwitch systems.",
                  kNcclEnv, "unset it on NVSwitch systems unless NVLS is known to misbehave",
                  "NCCL_NVLS_ENABLE=0", "NCCL_NVLS_ENABLE unset"));
  out.push_back(launch_rule(
      "PF201", Severity::kError, "preflight", "the node shows the GPUs the launch asks for",
      "A node with fewer visible GPUs than --gpus-per-node (or none) cannot start its ranks "
      "(error); more GPUs than ranks leave some idle (warning).",
      kNodeChecks,
      "check CUDA_VISIBLE_DEVICES, the allocation (--gpus-per-node) and nvidia-smi for GPUs that "
      "fell off the bus",
      "--gpus-per-node 8 on a node where 7 GPUs are visible",
      "--gpus-per-node 8 on a node with 8 visible GPUs"));
  out.push_back(launch_rule(
      "PF203", Severity::kError, "preflight", "a multi-node launch needs an RDMA NIC",
      "A launch across nodes on a node without an InfiniBand, RoCE or EFA NIC runs its "
      "inter-node CP/DP traffic over TCP, if at all.",
      kNodeChecks, "check the HCAs (ibstat, ibv_devinfo) and their drivers",
      "--nodes 4 on a node with Ethernet NICs only", "--nodes 4 on a node with InfiniBand HCAs"));
  out.push_back(launch_rule(
      "PF204", Severity::kError, "preflight", "TP groups stay inside the node's NVLink domain",
      "Tensor parallelism communicates every layer; a TP group that leaves the NVLink domain "
      "runs over the network.",
      kNodeChecks, "keep tensor_model_parallel_size within the NVLink domain",
      "TP=8 on a node whose NVLink domain is 4 GPUs (NVLink-bridge pairs)",
      "TP=4 on the same node"));
  out.push_back(launch_rule(
      "PF205", Severity::kError, "preflight", "the HCP a2a level stays inside the NVLink domain",
      "The a2a level of hierarchical CP (TP*HCP[0] ranks) exchanges every attention layer's "
      "heads; measured on this node's NVLink domain, leaving it puts the all-to-all on the "
      "network (validate's CP020 judges the same from --gpus-per-node / --nvlink-domain).",
      kNodeChecks, "make the first hierarchical_context_parallel_sizes entry fit the NVLink domain",
      "HCP [8, 2] with TP=1 on a node whose NVLink domain is 4 GPUs",
      "HCP [4, 4] on the same node"));
  out.push_back(launch_rule(
      "PF206", Severity::kError, "preflight", "RDMA NIC ports are ACTIVE on a multi-node launch",
      "A port that is DOWN or INIT carries nothing: none ACTIVE means NCCL falls back to sockets "
      "or fails (error); some down means fewer rails (warning).",
      kNodeChecks, "bring the ports up (ibstat; check cables and switch ports)",
      "--nodes 2 on a node whose mlx5_* ports are all DOWN",
      "--nodes 2 on a node whose ports are ACTIVE"));
  out.push_back(launch_rule(
      "PF301", Severity::kError, "preflight", "nodes run the same TE, Megatron and torch versions",
      "Nodes of one job with different Transformer Engine, Megatron-Core, Megatron-Bridge, torch "
      "or NCCL versions can pick different attention backends or CP code paths and hang or "
      "diverge.",
      kClusterChecks, "install the same packages on every node (one container image)",
      "preflight over MPI where one node has transformer-engine 2.14 and the others 2.18",
      "the same versions on every node"));
  out.push_back(launch_rule(
      "PF302", Severity::kWarning, "preflight",
      "nodes share the CUDA driver and the CP-relevant variables",
      "A different CUDA driver, or CUDA_DEVICE_MAX_CONNECTIONS / NVTE_* / NCCL_* set differently "
      "on one node, changes scheduling or backends on that node only.",
      kClusterChecks, "launch every node with the same driver and environment",
      "one node with NVTE_FUSED_ATTN=0, the others without", "the same variables on every node"));
  out.push_back(launch_rule(
      "PF303", Severity::kWarning, "preflight", "nodes have the same hardware",
      "A node whose GPUs, NVLink, NICs or active NIC ports differ from the majority slows every "
      "collective it takes part in.",
      kClusterChecks, "check the node (nvidia-smi topo -m, ibstat) or leave it out of the job",
      "one node with 4 active fabric NIC ports where the others have 8",
      "every node like the majority"));
  out.push_back(launch_rule(
      "PF304", Severity::kWarning, "preflight", "one preflight rank per host",
      "Several preflight ranks on one host count it once and hide the nodes that did not run.",
      kClusterChecks, "launch one preflight task per node (srun --ntasks-per-node=1)",
      "mpirun -np 2 with both ranks on one host", "one rank on each host"));
  out.push_back(launch_rule(
      "PF305", Severity::kWarning, "preflight", "preflight ran on every node of the launch",
      "Fewer hosts answered than --nodes says: the nodes that did not run are unchecked.",
      kClusterChecks, "run preflight on every node of the allocation",
      "--nodes 4 with preflight on 3 hosts", "--nodes 4 with preflight on 4 hosts"));
}

void add_probe_rules(std::vector<Rule>& out) {
  out.push_back(launch_rule(
      "TOPO001", Severity::kWarning, "probe", "NVLink counts are symmetric",
      "GPU i reaching GPU j over a different number of NVLinks than j reaches i points to a "
      "broken link; ring collectives run at the slowest direction. Preflight raises it to an "
      "error.",
      kTopo, "reset the GPU or check the NVLink/NVSwitch fabric (nvidia-smi nvlink --status)",
      "nvidia-smi topo -m where GPU0 -> GPU1 is NV4 and GPU1 -> GPU0 is NV2",
      "the same matrix with NV4 both ways"));
  out.push_back(launch_rule(
      "TOPO002", Severity::kWarning, "probe", "no NVLinks down",
      "A GPU with NVLinks down (NVML) or fewer active links than the other GPUs runs its TP/CP "
      "traffic at a fraction of the bandwidth. Preflight raises it to an error.",
      kTopo, "reset the GPU or check the NVLink/NVSwitch fabric (nvidia-smi nvlink --status)",
      "an NVML probe where GPU 3 reports 2 of 18 NVLinks down", "every link up"));
  out.push_back(launch_rule(
      "TOPO003", Severity::kWarning, "probe", "every GPU has a NIC on its PCIe switch",
      "GPUs without a NIC under their PCIe switch send inter-node traffic across the CPU "
      "interconnect (no GPUDirect RDMA path).",
      kTopo, "check the NIC placement or NCCL_IB_HCA / NCCL_NET_GDR_LEVEL",
      "a topology where GPUs 4-7 share no PCIe switch with any NIC",
      "one NIC per PCIe switch of the GPUs"));
  out.push_back(launch_rule(
      "TOPO004", Severity::kWarning, "probe", "NICs of one speed",
      "NCCL rings run at the slowest NIC; a 100 Gb/s NIC among 400 Gb/s ones slows every ring "
      "through it.",
      kTopo, "set NCCL_IB_HCA to the fast NICs", "NICs of 400 and 100 Gb/s on one node",
      "NICs of 400 Gb/s only"));
  out.push_back(launch_rule(
      "TOPO005", Severity::kInfo, "probe", "GPUs on one NUMA node, or bound per rank",
      "GPUs split across NUMA nodes need each rank's CPU threads and memory bound to its GPU's "
      "NUMA node.",
      kTopo, "bind each rank to its GPU's NUMA node (numactl, or the launcher's --cpu-bind)",
      "a node with GPUs 0-3 on NUMA node 0 and 4-7 on NUMA node 1",
      "a node with every GPU on one NUMA node"));
}

}  // namespace hcp::rules
