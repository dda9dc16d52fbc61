// Catalog entries of the checks that read a node, a launch or a job's log instead of a recipe:
// preflight's PF* (src/preflight/preflight_checks.cpp, preflight_cluster.cpp), the probe's TOPO*
// (src/preflight/topology_findings.cpp) and check-log's LOG* (src/logcheck/logcheck_checks.cpp).
// Their computation lives there, on topologies, process environments and logs; the registry holds
// their ID, severity, rationale, fix and example inputs so `rules` lists them and `explain` shows
// them, and the emitting code makes each finding with finding(ID, key, message[, case]), which
// takes the severity and fix from here. check_rules() skips them (no recipe check).
#include "families.h"

namespace hcp::rules {
namespace {

Rule launch_rule(std::string_view id, Severity severity, std::string_view family,
                 std::string_view title, std::string_view rationale, std::string_view source,
                 std::string_view fix, std::string_view failing, std::string_view passing,
                 std::vector<RuleCase> cases = {}) {
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
      .runs_in = family,
      .cases = std::move(cases),
  };
}

constexpr std::string_view kNcclEnv =
    "hcp-plan src/preflight/preflight_checks.cpp; NCCL documentation, Environment Variables";
constexpr std::string_view kNodeChecks = "hcp-plan src/preflight/preflight_checks.cpp";
constexpr std::string_view kClusterChecks = "hcp-plan src/preflight/preflight_cluster.cpp";
constexpr std::string_view kTopo = "hcp-plan src/preflight/topology_findings.cpp";
// TOPO002 when a GPU has fewer active NVLinks than most (rather than links NVML reports down).
constexpr std::string_view kFewerLinksFix =
    "check `nvidia-smi nvlink -s` and the fabric manager; collectives over this GPU run at its "
    "reduced bandwidth";
// Where check-log's inputs come from (tests/fixtures/logs/README.md cites each print statement).
constexpr std::string_view kPgLog =
    "pytorch torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp (ProcessGroupNCCL initialization "
    "options, logPrefix); NVIDIA/Megatron-LM megatron/core/parallel_state.py group_desc "
    "(CONTEXT_PARALLEL_GROUP 1116-1141, HIERARCHICAL_..._L<level> 378-432) @ d98e8a64";
constexpr std::string_view kIterLog =
    "NVIDIA/Megatron-LM megatron/training/training.py:3567-3598 (training_log) @ d98e8a64; "
    "NVIDIA-NeMo/Megatron-Bridge src/megatron/bridge/training/utils/train_utils.py:1088-1096 @ "
    "067f987d; hcp-plan's cost model and its corpus bands (hcp-plan accuracy)";
constexpr std::string_view kMemLog =
    "NVIDIA/Megatron-LM megatron/training/utils/common_utils.py:313-331 (report_memory) @ "
    "d98e8a64; hcp-plan's memory model";
constexpr std::string_view kFailLog =
    "Python tracebacks; PyTorch's CUDA caching allocator and ProcessGroupNCCL watchdog messages; "
    "NCCL's error strings (src/misc/utils.cc ncclGetErrorString)";
// check-log's notes (info findings) carry no fix; `explain` shows the entry's.
constexpr RuleCase kNoteWithoutFix = {.name = "", .severity = Severity::kInfo, .fix = ""};
constexpr std::string_view kConfigLog =
    "NVIDIA/Megatron-LM megatron/training/arguments.py:1990-2001 (_print_args) @ d98e8a64; "
    "Megatron-Bridge training/config.py:1809-1880 (log_non_default_values) @ 067f987d";

}  // namespace

void add_preflight_rules(std::vector<Rule>& out) {
  out.push_back(launch_rule(
      "PF101", Severity::kError, "preflight", "NCCL_IB_HCA names the node's HCAs",
      "NCCL uses only the HCAs NCCL_IB_HCA selects: a name the node lacks, or a filter that "
      "leaves none, loses RDMA (error); a subset pins inter-node CP/DP traffic to part of the "
      "bandwidth (warning).",
      kNcclEnv, "list the node's HCAs (ibv_devices) or unset NCCL_IB_HCA",
      "NCCL_IB_HCA=mlx5_9 on a node whose RDMA NICs are mlx5_0..mlx5_7",
      "NCCL_IB_HCA unset on the same node",
      {{.name = "none_selected",
        .severity = Severity::kError,
        .fix = "unset NCCL_IB_HCA or name the HCAs to use"},
       {.name = "subset",
        .severity = Severity::kWarning,
        .fix = "inter-node CP/DP traffic gets that share of the bandwidth; unset it unless that "
               "is intended"}}));
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
      "--gpus-per-node 8 on a node with 8 visible GPUs",
      {{.name = "no_gpu",
        .severity = Severity::kError,
        .fix = "run preflight on a GPU node, inside the job allocation"},
       {.name = "idle", .severity = Severity::kWarning, .fix = "launch one rank per GPU"}}));
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
      kNodeChecks,
      "bring the ports up (ibstat; check cables and switch ports; INIT means no subnet manager has "
      "configured the port)",
      "--nodes 2 on a node whose mlx5_* ports are all DOWN",
      "--nodes 2 on a node whose ports are ACTIVE",
      {{.name = "some_down",
        .severity = Severity::kWarning,
        .fix = "fewer rails give less inter-node bandwidth: bring the ports up (ibstat) or leave "
               "them out of NCCL_IB_HCA"}}));
  out.push_back(launch_rule(
      "PF301", Severity::kError, "preflight", "nodes run the same TE, Megatron and torch versions",
      "Nodes of one job with different Transformer Engine, Megatron-Core, Megatron-Bridge, torch "
      "or NCCL versions can pick different attention backends or CP code paths and hang or "
      "diverge.",
      kClusterChecks, "install the same container image or Python environment on every node",
      "preflight over MPI where one node has transformer-engine 2.14 and the others 2.18",
      "the same versions on every node"));
  out.push_back(launch_rule(
      "PF302", Severity::kWarning, "preflight",
      "nodes share the CUDA driver and the CP-relevant variables",
      "A different CUDA driver, or CUDA_DEVICE_MAX_CONNECTIONS / NVTE_* / NCCL_* set differently "
      "on one node, changes scheduling or backends on that node only.",
      kClusterChecks, "launch every node with the same environment (same job script, same image)",
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
      kClusterChecks,
      "launch one preflight task per node (srun --ntasks-per-node=1, mpirun --map-by "
      "ppr:1:node)",
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
      kTopo, "check `nvidia-smi nvlink -s` on both GPUs; a link may be down",
      "nvidia-smi topo -m where GPU0 -> GPU1 is NV4 and GPU1 -> GPU0 is NV2",
      "the same matrix with NV4 both ways", {{.name = "preflight", .severity = Severity::kError}}));
  out.push_back(launch_rule(
      "TOPO002", Severity::kWarning, "probe", "no NVLinks down",
      "A GPU with NVLinks down (NVML) or fewer active links than the other GPUs runs its TP/CP "
      "traffic at a fraction of the bandwidth. Preflight raises it to an error.",
      kTopo,
      "reset the GPU or check the NVLink/NVSwitch fabric (nvidia-smi nvlink -s, fabric manager)",
      "an NVML probe where GPU 3 reports 2 of 18 NVLinks down", "every link up",
      {{.name = "preflight", .severity = Severity::kError},
       {.name = "fewer_links", .severity = Severity::kWarning, .fix = kFewerLinksFix},
       {.name = "fewer_links_preflight", .severity = Severity::kError, .fix = kFewerLinksFix}}));
  out.push_back(launch_rule(
      "TOPO003", Severity::kWarning, "probe", "every GPU has a NIC on its PCIe switch",
      "GPUs without a NIC under their PCIe switch send inter-node traffic across the CPU "
      "interconnect (no GPUDirect RDMA path).",
      kTopo,
      "GPUDirect RDMA from these GPUs crosses the PCIe root or the CPU; expect lower inter-node "
      "bandwidth, or route through NVLink peers (NCCL PXN)",
      "a topology where GPUs 4-7 share no PCIe switch with any NIC",
      "one NIC per PCIe switch of the GPUs"));
  out.push_back(launch_rule(
      "TOPO004", Severity::kWarning, "probe", "NICs of one speed",
      "NCCL rings run at the slowest NIC; a 100 Gb/s NIC among 400 Gb/s ones slows every ring "
      "through it.",
      kTopo, "NCCL rings run at the slowest NIC; set NCCL_IB_HCA to the fast ones",
      "NICs of 400 and 100 Gb/s on one node", "NICs of 400 Gb/s only"));
  out.push_back(launch_rule(
      "TOPO005", Severity::kInfo, "probe", "GPUs on one NUMA node, or bound per rank",
      "GPUs split across NUMA nodes need each rank's CPU threads and memory bound to its GPU's "
      "NUMA node.",
      kTopo,
      "bind each rank's CPU threads and memory to its GPU's NUMA node (numactl, or the "
      "launcher's --cpu-bind)",
      "a node with GPUs 0-3 on NUMA node 0 and 4-7 on NUMA node 1",
      "a node with every GPU on one NUMA node"));
}

/// The inputs outside the recipe that some rules need (check_rules' notes on what it could not
/// check), one entry per input: missing_input_diagnostics reports them.
void add_input_rules(std::vector<Rule>& out) {
  struct Entry {
    const char* id;
    const char* title;
    const char* fix;
  };
  static constexpr Entry kEntries[] = {
      {"IN001", "world size unknown",
       "pass --nodes N --gpus-per-node G (validate and groups also take --world-size N), or set "
       "world_size / nodes and gpus_per_node in .hcp-plan.yaml"},
      {"IN002", "GPUs per node unknown",
       "pass --gpus-per-node G, or set gpus_per_node in .hcp-plan.yaml"},
      {"IN003", "Transformer Engine version unknown",
       "pass --te-version X.Y.Z (or --python / --detect-env), or set te_version in .hcp-plan.yaml"},
      {"IN004", "Megatron-Core version unknown",
       "pass --mcore-version X.Y.Z (or --python / --detect-env), or set mcore_version in "
       ".hcp-plan.yaml"},
      {"IN005", "launch environment unknown",
       "pass --env NAME=VALUE for the job's environment variables, or state them under env: in "
       ".hcp-plan.yaml"},
      {"IN006", "GPU architecture unknown",
       "pass --gpu-sm N (90 for H100, 100 for B200), or set gpu_sm in .hcp-plan.yaml"},
  };
  for (const Entry& e : kEntries) {
    Rule rule = launch_rule(
        e.id, Severity::kInfo, "input", e.title,
        "Some rules need a fact outside the recipe. When the command line and the project config "
        "do not give it, those rules skip their check or assume a value; this note lists them "
        "(\"skipped CP111\", \"assumed TE >= 2.15 for CP034\") so that a clean report is not "
        "mistaken for a complete one. Ignore it like any finding (--ignore, ignore: in the "
        "config).",
        "hcp-plan's own notes (src/rules/registry.cpp missing_input_diagnostics)", e.fix,
        "validate without the input a rule needs", "validate with it given");
    rule.runs_in = "validate";  // Also plan, preflight and check-log: where the rules run.
    out.push_back(std::move(rule));
  }
}

void add_logcheck_rules(std::vector<Rule>& out) {
  out.push_back(launch_rule(
      "LOG001", Severity::kError, "check-log",
      "a2a+p2p configured but no hierarchical CP groups created (CP silently off)",
      "With a2a+p2p and no hierarchical sizes, older MCore and Bridge paths never build the "
      "HIERARCHICAL_CONTEXT_PARALLEL_GROUP_L0/L1 groups; TE gets no CP group and every rank "
      "attends to its local chunk only: the run is fast and its gradients are wrong.",
      kPgLog,
      "set model.hierarchical_context_parallel_sizes=[a2a, p2p] with a x p = CP (and "
      "dist.use_decentralized_pg=False on Bridge); discard the run's checkpoints",
      "a log whose arguments say cp_comm_type a2a+p2p and whose ProcessGroupNCCL lines show "
      "CONTEXT_PARALLEL_GROUP but no HIERARCHICAL_CONTEXT_PARALLEL_GROUP_L0/L1",
      "the same log with HIERARCHICAL_CONTEXT_PARALLEL_GROUP_L0 and _L1 of the configured "
      "sizes"));
  out.push_back(launch_rule(
      "LOG002", Severity::kError, "check-log", "hierarchical CP groups created with other sizes",
      "The hierarchical groups the job built differ in size from the configured "
      "hierarchical_context_parallel_sizes: the launcher changed them, so the run is not the "
      "planned layout.",
      kPgLog, "make the launcher pass the configured hierarchical_context_parallel_sizes",
      "hierarchical sizes [8, 2] configured, groups _L0 of size 4 and _L1 of size 4 created",
      "[8, 2] configured, _L0 of size 8 and _L1 of size 2 created"));
  out.push_back(launch_rule(
      "LOG003", Severity::kError, "check-log",
      "CP > 1 configured but no (or a wrong-size) CP group",
      "A CP degree above 1 needs a CONTEXT_PARALLEL_GROUP of that size; without it the sequence "
      "is split but attention never sees the other ranks' chunks.",
      kPgLog, "check that the launcher's parallel sizes reach initialize_model_parallel",
      "context_parallel_size 16 configured, no CONTEXT_PARALLEL_GROUP of size 16 in the log",
      "a CONTEXT_PARALLEL_GROUP of size 16 in the log"));
  out.push_back(launch_rule(
      "LOG004", Severity::kError, "check-log", "step time faster than the plan's band with CP > 1",
      "With CP communication off, attention costs 1/CP of the real work: the measured step time "
      "falls below the plan's band, often onto the prediction with attention divided by CP.",
      kIterLog,
      "check the CP groups (TORCH_CPP_LOG_LEVEL=INFO) and cp_comm_type/hierarchical sizes; "
      "compare the loss with a CP=1 run",
      "a CP=16 run whose median step time is a quarter of the plan's lower edge",
      "the same run inside the plan's band"));
  out.push_back(launch_rule(
      "LOG005", Severity::kWarning, "check-log", "step time slower than the plan's band",
      "A step time above the band's upper edge points to a slow link, a bad NCCL environment or "
      "an unplanned layout; the finding names the largest term of the prediction.",
      kIterLog,
      "run `hcp-plan probe` on the nodes, check the NCCL environment (`hcp-plan preflight`) and "
      "measure with `hcp-plan bench`",
      "a run whose median step time is twice the plan's upper edge",
      "the same run inside the plan's band"));
  out.push_back(launch_rule(
      "LOG006", Severity::kInfo, "check-log", "step time against the plan",
      "The measured median step time after warm-up beside the prediction and its band.", kIterLog,
      "none needed; `--save-calibration` turns the run into a calibration for plan and compare",
      "a run with iteration lines inside the plan's band", "a log without iteration lines",
      {kNoteWithoutFix}));
  out.push_back(launch_rule(
      "LOG007", Severity::kWarning, "check-log", "measured peak memory against the plan",
      "The peak allocated memory the job reported above the plan's per-GPU prediction means the "
      "memory model misses a term for this run (or the run differs from the recipe).",
      kMemLog, "raise recompute, CP or TP (`hcp-plan plan`) before the job grows",
      "max allocated 70 GiB where the plan predicts 40 GiB",
      "max allocated within the plan's prediction",
      {{.name = "within_plan", .severity = Severity::kInfo, .fix = ""}}));
  out.push_back(launch_rule(
      "LOG008", Severity::kInfo, "check-log", "process-group creation not logged",
      "Without TORCH_CPP_LOG_LEVEL=INFO PyTorch does not log the groups it creates, so the CP "
      "and hierarchical groups cannot be checked.",
      kPgLog, "run with TORCH_CPP_LOG_LEVEL=INFO (PyTorch logs every ProcessGroupNCCL it creates)",
      "a log with iteration lines and no ProcessGroupNCCL initialization lines",
      "a log with the ProcessGroupNCCL initialization lines", {kNoteWithoutFix}));
  out.push_back(launch_rule(
      "LOG020", Severity::kError, "check-log", "assertion failure",
      "The job stopped on an assert; when the message is an upstream CP check the finding names "
      "the catalog rule that predicts it (e.g. CP012, CP013) and its fix.",
      kFailLog, "fix the configuration the assert names",
      "AssertionError: --hierarchical-context-parallel-sizes must be set when a2a+p2p is used in "
      "cp comm",
      "a log without a traceback"));
  out.push_back(launch_rule(
      "LOG021", Severity::kError, "check-log", "CUDA out of memory",
      "The job ran out of GPU memory; the finding puts the plan's per-GPU prediction and its "
      "largest term beside the allocation that failed.",
      kFailLog,
      "use `hcp-plan plan --memory-limit` to pick a layout that fits (more CP/TP, recompute)",
      "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 8.00 GiB",
      "a log without an out-of-memory error"));
  out.push_back(launch_rule(
      "LOG022", Severity::kError, "check-log", "NCCL collective timeout (watchdog)",
      "ProcessGroupNCCL's watchdog aborted a collective that did not finish in time; a hang or "
      "a dead link in one rank shows as a timeout on the others.",
      kFailLog,
      "run `hcp-plan preflight` on every node (NIC state, NCCL_IB_HCA, NCCL environment) and "
      "`hcp-plan probe`; a hang in one rank shows as a timeout on the others",
      "[PG ID 0 ...] Watchdog caught collective operation timeout: WorkNCCL(...) ran for "
      "1800000 milliseconds before timing out",
      "a log without watchdog lines"));
  out.push_back(launch_rule(
      "LOG023", Severity::kError, "check-log", "NCCL or CUDA error",
      "The job stopped on an NCCL or CUDA runtime error (unhandled system error, illegal memory "
      "access, ...).",
      kFailLog, "run `hcp-plan preflight` on the failing node; set NCCL_DEBUG=INFO for the cause",
      "torch.distributed.DistBackendError: NCCL error ... unhandled system error",
      "a log without NCCL or CUDA errors"));
  out.push_back(launch_rule(
      "LOG024", Severity::kError, "check-log", "the job failed with an exception",
      "The job stopped on an exception that is neither an assert, an OOM nor an NCCL/CUDA error.",
      kFailLog, "read the traceback the finding points at",
      "Traceback (most recent call last): ... ValueError: ...", "a log without a traceback"));
  out.push_back(launch_rule(
      "LOG025", Severity::kInfo, "check-log", "which failure came first",
      "One failure brings others: a device-side assert or an OOM on one rank leaves the other "
      "ranks waiting in a collective until their NCCL watchdog times out. With two or more "
      "distinct failures the finding names the first one in reading order (the logs as given, "
      "each top to bottom), the one to fix first.",
      kFailLog, "fix the first failure; the later ones are often its consequences",
      "a device-side assert, then an NCCL watchdog timeout", "a log with one failure (or none)",
      {kNoteWithoutFix}));
  out.push_back(launch_rule(
      "LOG030", Severity::kInfo, "check-log", "which configuration was checked",
      "The effective configuration printed by the job (Megatron-LM's arguments block, Bridge's "
      "ConfigContainer or its non-default summary) is the truth and goes through every rule; "
      "without one the recipe on the command line is checked.",
      kConfigLog, "none needed", "a log with a `--- arguments ---` block",
      "a log without a printed configuration, checked against the recipe given",
      {kNoteWithoutFix}));
  out.push_back(launch_rule(
      "LOG031", Severity::kWarning, "check-log", "the job ran with other values than the recipe",
      "The printed configuration differs from the recipe given on the command line in a "
      "parallelism, sequence or CP key: the launcher changed it.",
      kConfigLog, "update the recipe (or find the launcher step that changed the value)",
      "a recipe with context_parallel_size 8 and a log whose arguments say 16",
      "a recipe and a log that agree"));
  out.push_back(launch_rule(
      "LOG032", Severity::kInfo, "check-log", "versions printed by the job",
      "TE, megatron-core, torch and NCCL versions printed at start-up select the version-gated "
      "rules (the command line's --te-version and --mcore-version win).",
      "NVIDIA/nccl src/init.cc:695 (NCCL version line) @ 5067397c; Megatron-LM and Bridge "
      "start-up prints",
      "none needed", "NCCL INFO NCCL version 2.21.5+cuda12.4", "a log without version lines",
      {kNoteWithoutFix}));
  out.push_back(launch_rule(
      "LOG033", Severity::kInfo, "check-log", "speed not checked",
      "The step time is not compared with the plan when the log has too few iterations after "
      "warm-up or the model cannot price the layout; the finding says which.",
      kIterLog, "let the job run past warm-up, or pass --cluster/--topology",
      "a log with two iteration lines", "a log with twenty iteration lines", {kNoteWithoutFix}));
}

}  // namespace hcp::rules
