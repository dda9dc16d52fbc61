// Catalog §8: Bridge-specific and launch-environment rules (CP110–CP114).
#include <string>

#include "families.h"

namespace hcp::rules {
namespace {

bool torch_fsdp2(const Recipe& recipe) {
  return recipe.bool_or("dist.use_torch_fsdp2", false);
}

// --- CP110 ---------------------------------------------------------------------------------

void check_fsdp_v2(const RuleContext& ctx, Reporter& r) {
  if (ctx.recipe.int_or("ddp.megatron_fsdp_version", 1) != 2) return;
  Layout p = layout_of(ctx.recipe);
  std::vector<std::string> unsupported;
  if (p.cp != 1) unsupported.push_back("context_parallel_size=" + str(p.cp));
  if (p.tp != 1) unsupported.push_back("tensor_model_parallel_size=" + str(p.tp));
  if (p.pp != 1) unsupported.push_back("pipeline_model_parallel_size=" + str(p.pp));
  if (p.ep != 1) unsupported.push_back("expert_model_parallel_size=" + str(p.ep));
  if (unsupported.empty()) return;
  r.report("ddp.megatron_fsdp_version",
           "MFSDP V2 currently supports DP-only training; unsupported settings: " +
               join_names(unsupported));
}

Rule cp110() {
  return {
      .id = "CP110",
      .severity = Severity::kError,
      .family = "env",
      .title = "Megatron FSDP v2 is DP-only",
      .rationale = "Bridge rejects MFSDP version 2 with CP (or TP, PP, EP) other than 1.",
      .upstream = "Megatron-Bridge src/megatron/bridge/training/config.py:1123-1154",
      .fix = "use Megatron FSDP v1 with CP, or CP=1",
      .enforced_by = {"bridge"},
      .bad_example = "++ddp.megatron_fsdp_version=2",
      .good_example = "++ddp.megatron_fsdp_version=1",
      .example_args = "",
      .check = check_fsdp_v2,
      .reads = layout_fields({LayoutField::kEp}),
  };
}

// --- CP111 ---------------------------------------------------------------------------------

void check_device_connections(const RuleContext& ctx, Reporter& r) {
  const Recipe& recipe = ctx.recipe;
  Layout p = layout_of(recipe);
  bool mfsdp = megatron_fsdp(recipe);
  bool fsdp = mfsdp || torch_fsdp2(recipe);
  // The MLM CLI requires CUDA_DEVICE_MAX_CONNECTIONS=1 for TP/CP only when
  // get_device_arch_version() < 10: the requirement is gone from Blackwell on (Megatron-LM
  // d98e8a64 megatron/training/arguments.py:1453-1479).
  bool blackwell = ctx.env.gpu_sm && *ctx.env.gpu_sm >= 100;
  bool needs_one = (p.tp > 1 || p.cp > 1) && !fsdp &&
                   !recipe.bool_or("model.overlap_moe_expert_parallel_comm", false) && !blackwell;
  if (!needs_one && !fsdp) return;
  if (ctx.env.process_env.empty()) {
    r.skipped(Input::kLaunchEnv);
    return;
  }
  auto value = env_var(ctx.env, "CUDA_DEVICE_MAX_CONNECTIONS");
  std::string shown = value ? "'" + *value + "'" : std::string("unset");
  if (needs_one && (!value || *value != "1")) {
    std::string gpu =
        ctx.env.gpu_sm
            ? " on sm" + std::to_string(*ctx.env.gpu_sm)
            : "; GPU unknown: assumed one before Blackwell (pass --gpu-sm 100 for Blackwell, "
              "where the requirement does not exist)";
    if (!ctx.env.gpu_sm) r.assumed(Input::kGpuArch, "a GPU before Blackwell (sm < 100)");
    std::string message =
        "Using tensor model parallelism or context parallelism require setting the environment "
        "variable CUDA_DEVICE_MAX_CONNECTIONS to 1 (it is " +
        shown + ")" + gpu;
    if (ctx.env.framework == Framework::kMlm) {
      r.report("model.context_parallel_size", message);
    } else {
      r.report("model.context_parallel_size",
               message +
                   "; Bridge does not check it, but TP/CP communication then cannot "
                   "overlap with compute in order",
               "bridge");
    }
  }
  // FSDP asserts the opposite: Bridge for Megatron FSDP (Megatron-Bridge 067f987d
  // src/megatron/bridge/training/config.py:1110-1112), the MLM CLI for torch FSDP2 and Megatron
  // FSDP (arguments.py:1048-1049, 1166-1167). Bridge has no such check for torch FSDP2.
  if (fsdp && value && *value == "1") {
    bool asserted = mfsdp || ctx.env.framework == Framework::kMlm;
    r.report(mfsdp ? "dist.use_megatron_fsdp" : "dist.use_torch_fsdp2",
             "FSDP requires CUDA_DEVICE_MAX_CONNECTIONS > 1 or unset, but it is 1" +
                 std::string(asserted ? "" : " (Bridge does not check it for torch FSDP2)"),
             asserted ? "fsdp" : "fsdp_bridge");
  }
}

Rule cp111() {
  return {
      .id = "CP111",
      .severity = Severity::kError,
      .family = "env",
      .title = "CUDA_DEVICE_MAX_CONNECTIONS=1 with TP or CP (not with FSDP)",
      .rationale =
          "Below sm100 the MLM CLI asserts CUDA_DEVICE_MAX_CONNECTIONS=1 for TP/CP so "
          "communication kernels are scheduled in order (Blackwell does not need it; an "
          "unknown GPU is assumed older and the message says so); FSDP asserts the "
          "opposite, an error with Megatron FSDP (Bridge and MLM) and torch FSDP2 (MLM).",
      .upstream =
          "Megatron-LM d98e8a64 megatron/training/arguments.py:1453-1479, 1048-1049, "
          "1166-1167; Megatron-Bridge 067f987d src/megatron/bridge/training/config.py:1110-1112",
      .fix = "export CUDA_DEVICE_MAX_CONNECTIONS=1",
      .enforced_by = {"mlm", "bridge"},
      .bad_example = "--env CUDA_DEVICE_MAX_CONNECTIONS=8",
      .good_example = "--env CUDA_DEVICE_MAX_CONNECTIONS=1",
      .example_args = "--framework mlm",
      .check = check_device_connections,
      .cases =
          {
              {.name = "bridge", .severity = Severity::kWarning},
              {.name = "fsdp",
               .severity = Severity::kError,
               .fix = "unset CUDA_DEVICE_MAX_CONNECTIONS for FSDP"},
              {.name = "fsdp_bridge",
               .severity = Severity::kWarning,
               .fix = "unset CUDA_DEVICE_MAX_CONNECTIONS for FSDP"},
          },
  };
}

// --- CP112 ---------------------------------------------------------------------------------

void check_torch_fsdp2(const RuleContext& ctx, Reporter& r) {
  if (!torch_fsdp2(ctx.recipe)) return;
  Layout p = layout_of(ctx.recipe);
  if (p.pp <= 1 && p.ep <= 1) return;
  std::string what = p.pp > 1 ? "pipeline parallelism" : "expert parallelism";
  std::string message = "--use-torch-fsdp2 is not supported with " + what;
  if (ctx.env.framework == Framework::kMlm) {
    r.report("dist.use_torch_fsdp2", message);
  } else {
    r.report("dist.use_torch_fsdp2", message + " (checked only by the Megatron-LM CLI)", "bridge");
  }
}

Rule cp112() {
  return {
      .id = "CP112",
      .severity = Severity::kError,
      .family = "env",
      .title = "torch FSDP2 without pipeline or expert parallelism",
      .rationale = "The MLM CLI rejects --use-torch-fsdp2 with PP>1 (and EP>1).",
      .upstream = "Megatron-LM megatron/training/arguments.py:1031-1049",
      .fix = "use PP=1 with torch FSDP2, or Megatron FSDP",
      .enforced_by = {"mlm"},
      .bad_example = "++dist.use_torch_fsdp2=true ++model.pipeline_model_parallel_size=2",
      .good_example = "++dist.use_torch_fsdp2=true",
      .example_args = "--framework mlm",
      .check = check_torch_fsdp2,
      .reads = layout_fields({LayoutField::kEp}),
      .cases =
          {
              {.name = "bridge", .severity = Severity::kWarning},
          },
  };
}

// --- CP113 ---------------------------------------------------------------------------------

void check_single_gpu_reload(const RuleContext& ctx, Reporter& r) {
  const Recipe& recipe = ctx.recipe;
  Layout p = layout_of(recipe);
  bool single = p.tp == 1 && p.pp == 1 && p.cp == 1 && p.ep == 1;
  if (!single || !p.hcp.empty() || !uses_comm_type(recipe, "a2a+p2p")) return;
  r.report("model.cp_comm_type",
           "a2a+p2p with every parallel size 1 and no HCP sizes looks like a config saved by "
           "load_megatron_model, which resets TP/PP/CP/EP to 1 and clears "
           "hierarchical_context_parallel_sizes but keeps cp_comm_type; restore the training "
           "layout before launching it");
}

Rule cp113() {
  return {
      .id = "CP113",
      .severity = Severity::kInfo,
      .family = "env",
      .title = "single-GPU reload clears HCP sizes but keeps cp_comm_type",
      .rationale =
          "Bridge's load_megatron_model resets TP, PP, CP, EP to 1 and sets "
          "hierarchical_context_parallel_sizes=None; a config saved that way keeps "
          "a2a+p2p and trips CP012 if relaunched as is.",
      .upstream = "Megatron-Bridge src/megatron/bridge/training/model_load_save.py:460-474",
      .fix =
          "restore context_parallel_size and hierarchical_context_parallel_sizes from the "
          "training config",
      .enforced_by = {"bridge"},
      .bad_example = "model.context_parallel_size=1 model.hierarchical_context_parallel_sizes=null",
      .good_example = "model.context_parallel_size=16",
      .example_args = "",
      .check = check_single_gpu_reload,
      .reads = layout_fields({LayoutField::kEp}),
  };
}

// --- CP114 ---------------------------------------------------------------------------------

void check_decentralized_gloo(const RuleContext& ctx, Reporter& r) {
  const Recipe& recipe = ctx.recipe;
  if (!recipe.bool_or("dist.use_decentralized_pg", false)) return;
  if (!recipe.bool_or("dist.use_gloo_process_groups", true)) return;
  r.report(recipe.has("dist.use_gloo_process_groups") ? "dist.use_gloo_process_groups"
                                                      : "dist.use_decentralized_pg",
           "Gloo process groups are not supported when use_decentralized_pg=True "
           "(use_gloo_process_groups defaults to True)");
}

Rule cp114() {
  return {
      .id = "CP114",
      .severity = Severity::kError,
      .family = "env",
      .title = "decentralized process groups without Gloo",
      .rationale =
          "Bridge rejects Gloo process groups with use_decentralized_pg=True, and "
          "use_gloo_process_groups defaults to True.",
      .upstream = "Megatron-Bridge src/megatron/bridge/training/config.py:1550-1555",
      .fix = "set dist.use_gloo_process_groups=false",
      .enforced_by = {"bridge"},
      .bad_example = "++dist.use_decentralized_pg=true",
      .good_example = "++dist.use_decentralized_pg=true ++dist.use_gloo_process_groups=false",
      .example_args = "",
      .check = check_decentralized_gloo,
  };
}

/// Computed by validate's wiring with plan's memory model (src/planner/memory_fit.cpp): the rules
/// module has no cost model, so the entry has no recipe check.
Rule cp115() {
  return {
      .id = "CP115",
      .severity = Severity::kWarning,
      .family = "memory",
      .title = "the recipe's own layout does not fit in GPU memory",
      .rationale =
          "Nothing upstream checks memory before a job starts: Megatron-Core allocates weights, "
          "gradients and optimizer state at setup and the activations in the first iteration, so "
          "a layout that does not fit dies with CUDA out of memory after its queue wait and "
          "start-up. validate prices the recipe's own layout with plan's memory model (weights, "
          "gradients, optimizer, activations, logits, CP buffers, reserved) on the cluster's GPU "
          "(--cluster, default dgx-h100 as plan) and gives the figure with the model's band "
          "(+-20% on what the allocator holds, check-log's memory tolerance): a layout whose "
          "band's low edge fits may still run. A warning: the model is an estimate.",
      .upstream =
          "hcp-plan's memory model (src/model/, man page PLAN) as `hcp-plan plan` uses it; "
          "PyTorch's CUDA caching allocator (torch.OutOfMemoryError); NVIDIA/Megatron-LM "
          "megatron/training/utils/common_utils.py:313-331 (report_memory) @ d98e8a64",
      .fix =
          "no stronger recompute makes this layout fit: `hcp-plan plan` on the same recipe and "
          "nodes names the nearest layout that fits (more TP, CP or PP); or pass --cluster for "
          "a GPU with more memory",
      .enforced_by = {},
      .bad_example =
          "llama3_8b_128k on 4 x 8 H100 80 GB (dgx-h100): its TP1 CP16 a2a+p2p [8,2] "
          "DP2 without recompute",
      .good_example =
          "the same recipe on dgx-h200 (141 GB per GPU), or with "
          "model.recompute_granularity=full",
      .example_args = "",
      .check = nullptr,
      .runs_in = "validate",
      .cases = {{.name = "recompute",
                 .severity = Severity::kWarning,
                 .fix = "the least change that makes it fit, as `hcp-plan plan` names it: {} (in "
                        "the recipe: model.recompute_granularity)"},
                {.name = "recompute_mlm",
                 .severity = Severity::kWarning,
                 .fix = "the least change that makes it fit, as `hcp-plan plan` names it: {} (on "
                        "the Megatron-LM command line: --recompute-granularity, with "
                        "--recompute-method and --recompute-num-layers for full)"}},
  };
}

}  // namespace

void add_env_rules(std::vector<Rule>& out) {
  for (Rule (*rule)() : {cp110, cp111, cp112, cp113, cp114, cp115})
    out.push_back(rule());
}

}  // namespace hcp::rules
