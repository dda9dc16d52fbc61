// Catalog §2: cp_comm_type and hierarchical context parallelism (CP010–CP023).
#include <algorithm>
#include <string>

#include "families.h"
#include "hcp/te_matrix.h"

namespace hcp::rules {
namespace {

std::string list_str(const std::vector<int64_t>& v) {
  std::string text = "[";
  for (size_t i = 0; i < v.size(); ++i)
    text += (i ? ", " : "") + str(v[i]);
  return text + "]";
}

bool uses_hcp_comm(const Recipe& recipe) {
  return uses_comm_type(recipe, "a2a+p2p");
}

void check_comm_values(const RuleContext& ctx, Reporter& r) {
  Layout p = layout_of(ctx.recipe);
  // MCore hands cp_comm_type to TE only when CP > 1 (Megatron-LM d98e8a64
  // megatron/core/extensions/transformer_engine.py:2129-2153); at CP=1 nothing reads it (CP022).
  if (p.cp <= 1) return;
  const auto& known = known_comm_types();
  // DSA attention (CP100) has its own CP path that accepts "allgather"; CP100 checks it there.
  const bool dsa = ctx.recipe.get_string("model.experimental_attention_variant") == "dsa";
  std::vector<std::string> reported;
  for (const std::string& type : cp_comm_type_texts(ctx.recipe)) {
    if (std::find(known.begin(), known.end(), type) != known.end()) continue;
    if (dsa && type == "allgather") continue;
    if (std::find(reported.begin(), reported.end(), type) != reported.end()) continue;
    reported.push_back(type);
    std::string hint = type == "allgather" ? " (TE spells it all_gather)" : "";
    if (mcore_newer_than_catalog(ctx.env)) {
      r.report(kCommKey,
               "cp_comm_type " + type + " is not a value of MCore " +
                   catalog_mcore_version().str() +
                   " / TE (p2p, all_gather, a2a, a2a+p2p), the "
                   "newest the catalog was checked against; MCore " +
                   ctx.env.mcore_version->str() + " may have added it: not checked" + hint,
               "newer_mcore");
      continue;
    }
    r.report(kCommKey, "Unsupported communication type: " + type + "!" + hint +
                           "; TE accepts p2p, all_gather, a2a and a2a+p2p");
  }
}

Rule cp010() {
  return {
      .id = "CP010",
      .severity = Severity::kError,
      .family = "hcp",
      .title = "cp_comm_type values are p2p, all_gather, a2a or a2a+p2p",
      .rationale =
          "With CP > 1, TE dispatches on the string at the first forward pass and raises "
          "for anything else; neither MCore nor Bridge checks the value set at config time, "
          "and at CP=1 MCore never passes it to TE. The MLM help text spells it "
          "'allgather', which TE rejects for standard attention.",
      .upstream =
          "TransformerEngine transformer_engine/pytorch/attention/dot_product_attention/"
          "context_parallel.py:5139; Megatron-LM megatron/training/arguments.py:3221-3226, "
          "megatron/core/extensions/transformer_engine.py:2129-2153 (d98e8a64)",
      .fix = "use one of p2p, all_gather, a2a, a2a+p2p",
      .enforced_by = {"te"},
      .bad_example = "model.cp_comm_type=allgather",
      .good_example = "model.cp_comm_type=all_gather",
      .example_args = "",
      .check = check_comm_values,
      .cases =
          {
              // --mcore-version newer than the catalog's: the value may be new (issue #29).
              {.name = "newer_mcore",
               .severity = Severity::kWarning,
               .fix = "check that your MCore and TE accept it, or use one of p2p, all_gather, "
                      "a2a, a2a+p2p"},
          },
  };
}

void check_comm_list_length(const RuleContext& ctx, Reporter& r) {
  const Value* comm = ctx.recipe.find(kCommKey);
  if (comm == nullptr || comm->is_null() || comm->is_string()) return;
  if (!comm->is_list()) {
    r.report(kCommKey, "cp_comm_type must be a str or list of str, got " +
                           std::string(Value::kind_name(comm->kind())));
    return;
  }
  if (layout_of(ctx.recipe).cp <= 1) return;
  auto layers = ctx.recipe.get_int("model.num_layers");
  if (!layers || static_cast<int64_t>(comm->items().size()) == *layers) return;
  r.report(kCommKey, "Length of cp_comm_type (" + str(static_cast<int64_t>(comm->items().size())) +
                         ") must equal num_layers (" + str(*layers) + ").");
}

Rule cp011() {
  return {
      .id = "CP011",
      .severity = Severity::kError,
      .family = "hcp",
      .title = "per-layer cp_comm_type list has num_layers entries",
      .rationale =
          "A list gives one comm type per transformer layer; with CP>1 its length must be "
          "num_layers, and the value must be a string or a list of strings.",
      .upstream =
          "Megatron-LM megatron/core/transformer/transformer_config.py:3103-3112; "
          "Megatron-Bridge src/megatron/bridge/training/config.py:1671-1679",
      .fix = "give one entry per layer, or a single string for all layers",
      .enforced_by = {"bridge", "mcore"},
      .bad_example = "model.cp_comm_type=[a2a+p2p,p2p]",
      .good_example = "model.cp_comm_type=a2a+p2p",
      .example_args = "",
      .check = check_comm_list_length,
  };
}

void check_hcp_required(const RuleContext& ctx, Reporter& r) {
  if (!uses_hcp_comm(ctx.recipe) || ctx.recipe.has(kHcpKey)) return;
  r.report(kCommKey,
           "cp_comm_type contains 'a2a+p2p' but hierarchical_context_parallel_sizes is not set: "
           "the HCP groups are never created, TE gets cp_group=None and silently runs without CP "
           "(each rank attends only to its own chunk)");
}

Rule cp012() {
  return {
      .id = "CP012",
      .severity = Severity::kError,
      .family = "hcp",
      .title = "a2a+p2p requires hierarchical_context_parallel_sizes",
      .rationale =
          "Without HCP sizes the hierarchical groups stay None; TEDotProductAttention passes "
          "cp_group=None and TE computes cp_size=1, so CP is silently off: throughput "
          "looks too good and the loss is worse (Megatron-Bridge#2667). MLM and current "
          "Bridge check it even when CP=1; MCore's TransformerConfig does not.",
      .upstream =
          "Megatron-LM megatron/training/arguments.py:583-585, megatron/core/extensions/"
          "transformer_engine.py:2143-2151; Megatron-Bridge src/megatron/bridge/training/"
          "config.py:1681-1689 (PR #2665)",
      .fix =
          "set model.hierarchical_context_parallel_sizes=[A,P] with A*P = CP and A GPUs of one "
          "node (e.g. [8,2] for CP=16 on 8-GPU nodes)",
      .enforced_by = {"bridge", "mlm"},
      .bad_example = "model.hierarchical_context_parallel_sizes=null",
      .good_example = "model.hierarchical_context_parallel_sizes=[8,2]",
      .example_args = "",
      .check = check_hcp_required,
  };
}

void check_hcp_product(const RuleContext& ctx, Reporter& r) {
  auto hcp = ctx.recipe.get_int_list(kHcpKey);
  if (!hcp || hcp->empty()) return;
  if (auto f = size_rules::hcp_product(*hcp, layout_of(ctx.recipe).cp)) {
    r.report(f->key, f->message);
  }
}

Rule cp013() {
  return {
      .id = "CP013",
      .severity = Severity::kError,
      .family = "hcp",
      .title = "product of hierarchical_context_parallel_sizes equals CP",
      .rationale =
          "The HCP levels subdivide each CP group; MCore and MLM assert the product and "
          "Bridge explains it. Checked whatever the comm type.",
      .upstream =
          "Megatron-LM megatron/training/arguments.py:580-582, megatron/core/"
          "parallel_state.py:1127-1128; Megatron-Bridge src/megatron/bridge/training/"
          "config.py:1691-1697",
      .fix = "make the product of hierarchical_context_parallel_sizes equal context_parallel_size",
      .enforced_by = {"bridge", "mcore", "mlm"},
      .bad_example = "model.hierarchical_context_parallel_sizes=[4,2]",
      .good_example = "model.hierarchical_context_parallel_sizes=[4,4]",
      .example_args = "",
      .check = check_hcp_product,
  };
}

void check_hcp_two_levels(const RuleContext& ctx, Reporter& r) {
  auto hcp = ctx.recipe.get_int_list(kHcpKey);
  if (!hcp || hcp->size() == 2 || !uses_hcp_comm(ctx.recipe)) return;
  r.report(kHcpKey,
           "CP implementation a2a+p2p requires cp_group = [a2a_cp_group, p2p_cp_group]!"
           " hierarchical_context_parallel_sizes has " +
               str(static_cast<int64_t>(hcp->size())) + " levels " + list_str(*hcp));
}

Rule cp014() {
  return {
      .id = "CP014",
      .severity = Severity::kError,
      .family = "hcp",
      .title = "a2a+p2p needs exactly two HCP levels",
      .rationale =
          "MCore builds any number of hierarchical levels, but TE's a2a+p2p takes exactly "
          "[a2a_cp_group, p2p_cp_group]; no config-time check exists.",
      .upstream =
          "TransformerEngine .../dot_product_attention/context_parallel.py:5020-5023, "
          "dot_product_attention.py:643-647; Megatron-LM megatron/core/"
          "parallel_state.py:378-437",
      .fix = "use two levels: [a2a size inside a node, p2p size across nodes]",
      .enforced_by = {"te"},
      .bad_example = "model.hierarchical_context_parallel_sizes=[2,4,2]",
      .good_example = "model.hierarchical_context_parallel_sizes=[8,2]",
      .example_args = "",
      .check = check_hcp_two_levels,
  };
}

void check_hcp_degenerate(const RuleContext& ctx, Reporter& r) {
  auto hcp = ctx.recipe.get_int_list(kHcpKey);
  int64_t cp = layout_of(ctx.recipe).cp;
  if (!hcp || hcp->size() != 2 || cp <= 1 || !uses_hcp_comm(ctx.recipe)) return;
  if ((*hcp)[0] == 1 && (*hcp)[1] == cp) {
    r.report(kHcpKey, "a2a+p2p with hierarchical_context_parallel_sizes " + list_str(*hcp) +
                          " runs as plain p2p (the a2a level has one rank)");
  } else if ((*hcp)[0] == cp && (*hcp)[1] == 1) {
    r.report(kHcpKey, "a2a+p2p with hierarchical_context_parallel_sizes " + list_str(*hcp) +
                          " runs as plain a2a (the p2p level has one rank); the a2a head "
                          "constraints apply to all " +
                          str(cp) + " ranks");
  }
}

Rule cp015() {
  return {
      .id = "CP015",
      .severity = Severity::kInfo,
      .family = "hcp",
      .title = "degenerate HCP falls back to p2p or a2a",
      .rationale =
          "TE runs a2a+p2p with [1, CP] as plain p2p and with [CP, 1] as plain a2a; the "
          "constraints of the effective type then apply (CP032 for [CP, 1]).",
      .upstream = "TransformerEngine .../dot_product_attention/context_parallel.py:5027-5032",
      .fix = "say what runs: cp_comm_type=p2p (or a2a) without hierarchical sizes",
      .enforced_by = {},
      .bad_example = "model.hierarchical_context_parallel_sizes=[1,16]",
      .good_example = "model.hierarchical_context_parallel_sizes=[8,2]",
      .example_args = "",
      .check = check_hcp_degenerate,
  };
}

void check_hcp_unused(const RuleContext& ctx, Reporter& r) {
  if (!ctx.recipe.has(kHcpKey) || uses_hcp_comm(ctx.recipe)) return;
  r.report(kHcpKey,
           "hierarchical_context_parallel_sizes is set but no layer uses cp_comm_type a2a+p2p: the "
           "extra HIERARCHICAL_CONTEXT_PARALLEL_GROUP_L* groups are created for nothing");
}

Rule cp016() {
  return {
      .id = "CP016",
      .severity = Severity::kInfo,
      .family = "hcp",
      .title = "HCP sizes set but no layer uses a2a+p2p",
      .rationale =
          "MCore still creates the hierarchical groups (extra NCCL communicators) and CP013 "
          "still applies; with use_decentralized_pg it is an error (CP017).",
      .upstream = "Megatron-LM megatron/core/parallel_state.py:1127-1141",
      .fix = "remove model.hierarchical_context_parallel_sizes, or use cp_comm_type=a2a+p2p",
      .enforced_by = {},
      .bad_example = "model.cp_comm_type=p2p",
      .good_example = "model.cp_comm_type=a2a+p2p",
      .example_args = "",
      .check = check_hcp_unused,
  };
}

void check_hcp_decentralized(const RuleContext& ctx, Reporter& r) {
  if (ctx.env.framework != Framework::kBridge) return;
  if (!ctx.recipe.bool_or("dist.use_decentralized_pg", false) || !ctx.recipe.has(kHcpKey)) return;
  r.report("dist.use_decentralized_pg",
           "Decentralized process groups (use_decentralized_pg=True) do not support "
           "hierarchical_context_parallel_sizes (older Bridge silently dropped the HCP groups and "
           "with them CP)");
}

Rule cp017() {
  return {
      .id = "CP017",
      .severity = Severity::kError,
      .family = "hcp",
      .title = "HCP is not supported with decentralized process groups",
      .rationale =
          "Bridge's decentralized ProcessGroupCollection is built with hcp=None: current "
          "Bridge raises, older Bridge silently lost CP. So a2a+p2p cannot be used with "
          "use_decentralized_pg=True.",
      .upstream =
          "Megatron-Bridge src/megatron/bridge/training/initialize.py:398-415, 539, "
          "558-590 (PR #2665)",
      .fix =
          "set dist.use_decentralized_pg=false (the MPU path supports a2a+p2p), or use "
          "cp_comm_type a2a or p2p without hierarchical sizes",
      .enforced_by = {"bridge"},
      .bad_example = "++dist.use_decentralized_pg=true",
      .good_example = "++dist.use_decentralized_pg=false",
      .example_args = "",
      .check = check_hcp_decentralized,
  };
}

void check_hcp_te_version(const RuleContext& ctx, Reporter& r) {
  if (layout_of(ctx.recipe).cp <= 1 || !uses_hcp_comm(ctx.recipe)) return;
  if (!ctx.env.te_version) return r.skipped(Input::kTeVersion);
  const Version& te = *ctx.env.te_version;
  if (te_supports(te, TeFeature::kCpA2aP2p)) return;
  if (!te_supports(te, TeFeature::kCpP2p)) return;  // CP019: no CP at all before TE 1.0
  // MCore's assert sits inside is_te_min_version("1.10.0") (Megatron-LM d98e8a64
  // megatron/core/extensions/transformer_engine.py:2140-2148): below TE 1.10 cp_comm_type never
  // reaches TE and every layer silently runs p2p.
  if (!te_supports(te, TeFeature::kCommTypeArgument)) {
    r.report(kCommKey,
             "Transformer-Engine v" + te.str() +
                 " is older than 1.10: MCore never passes cp_comm_type to TE, so a2a+p2p "
                 "silently runs as p2p over all " +
                 std::to_string(layout_of(ctx.recipe).cp) + " CP ranks",
             "te_before_1_10");
    return;
  }
  r.report(kCommKey, "Transformer-Engine v" + te.str() +
                         " must be >= 1.12.0 to support hierarchical cp communication (a2a+p2p)");
}

Rule cp018() {
  return {
      .id = "CP018",
      .severity = Severity::kError,
      .family = "hcp",
      .title = "a2a+p2p needs Transformer Engine >= 1.12",
      .rationale =
          "Hierarchical CP first appears in TE v1.12; MCore asserts the version when it "
          "builds TEDotProductAttention with a2a+p2p on TE 1.10-1.11. Below TE 1.10 MCore "
          "does not pass cp_comm_type at all and the layers silently run p2p (a warning).",
      .upstream = "Megatron-LM d98e8a64 megatron/core/extensions/transformer_engine.py:2140-2148",
      .fix = "upgrade Transformer Engine to >= 1.12.0, or use cp_comm_type p2p",
      .enforced_by = {"mcore"},
      .bad_example = "--te-version 1.11.0",
      .good_example = "--te-version 1.12.0",
      .example_args = "",
      .check = check_hcp_te_version,
      .cases =
          {
              {.name = "te_before_1_10",
               .severity = Severity::kWarning,
               .fix = "upgrade Transformer Engine to >= 1.12.0 for a2a+p2p"},
          },
  };
}

/// Minimum TE per comm type that CP019 checks (a2a+p2p is CP018's).
struct CommMinimum {
  const char* type;
  Version minimum;
};

void check_comm_te_minimums(const RuleContext& ctx, Reporter& r) {
  if (layout_of(ctx.recipe).cp <= 1) return;
  auto types = layer_comm_types(ctx.recipe);
  auto uses = [&](const char* t) {
    return std::find(types.begin(), types.end(), t) != types.end();
  };
  bool non_default = uses("all_gather") || uses("a2a");
  if (!ctx.env.te_version) {
    if (non_default) r.skipped(Input::kTeVersion);
    return;
  }
  const Version& te = *ctx.env.te_version;
  if (!te_supports(te, TeFeature::kCpP2p)) {
    r.report("model.context_parallel_size",
             "Only Transformer-Engine version >= 1.0.0 supports context parallelism! (found " +
                 te.str() + ")");
    return;
  }
  if (!te_supports(te, TeFeature::kCommTypeArgument)) {
    if (non_default) {  // a2a+p2p below TE 1.10 is CP018's
      r.report(kCommKey,
               "Transformer-Engine " + te.str() +
                   " is older than 1.10: MCore never passes cp_comm_type to TE, so every layer "
                   "silently runs p2p whatever cp_comm_type says",
               "te_before_1_10");
    }
    return;
  }
  for (const CommMinimum& m : {CommMinimum{"all_gather", te_min_version(TeFeature::kCpAllGather)},
                               CommMinimum{"a2a", te_min_version(TeFeature::kCpA2a)}}) {
    if (uses(m.type) && te < m.minimum) {
      r.report(kCommKey, std::string("cp_comm_type ") + m.type +
                             " needs Transformer Engine >= " + m.minimum.str() + " (found " +
                             te.str() + "): Unsupported communication type: " + m.type + "!");
    }
  }
}

Rule cp019() {
  return {
      .id = "CP019",
      .severity = Severity::kError,
      .family = "hcp",
      .title = "Transformer Engine minimum per comm type",
      .rationale =
          "TE added cp_comm_type and all_gather in 1.10 and a2a in 1.11; TE 1.10 rejects "
          "a2a. Below 1.10 MCore never passes cp_comm_type, so every layer silently runs "
          "p2p (warning). CP needs TE >= 1.0 at all.",
      .upstream =
          "Megatron-LM megatron/core/extensions/transformer_engine.py:2129-2140; TE tags "
          "v1.10, v1.11 (AttnFuncWithCPAndKVAllGather, AttnFuncWithCPAndQKVOA2A)",
      .fix = "upgrade Transformer Engine (a2a needs >= 1.11, all_gather >= 1.10)",
      .enforced_by = {"te", "mcore"},
      .bad_example =
          "model.cp_comm_type=a2a model.hierarchical_context_parallel_sizes=null "
          "--te-version 1.10.0",
      .good_example =
          "model.cp_comm_type=a2a model.hierarchical_context_parallel_sizes=null "
          "--te-version 1.11.0",
      .example_args = "",
      .check = check_comm_te_minimums,
      .cases =
          {
              {.name = "te_before_1_10",
               .severity = Severity::kWarning,
               .fix = "upgrade Transformer Engine to >= 1.11 to use a2a/all_gather"},
          },
  };
}

void check_a2a_level_in_node(const RuleContext& ctx, Reporter& r) {
  auto hcp = ctx.recipe.get_int_list(kHcpKey);
  Layout p = layout_of(ctx.recipe);
  if (!hcp || hcp->size() < 2 || (*hcp)[0] < 1 || p.cp <= 1 || !uses_hcp_comm(ctx.recipe)) return;
  std::optional<int64_t> domain =
      ctx.env.nvlink_domain ? ctx.env.nvlink_domain : ctx.env.gpus_per_node;
  if (!domain) return r.skipped(Input::kGpusPerNode);
  if (auto f = size_rules::a2a_level_in_domain(
          p.tp, (*hcp)[0], *domain, ctx.env.nvlink_domain.has_value(), ctx.env.world_size)) {
    r.report(f->key, f->message);
  }
}

Rule cp020() {
  return {
      .id = "CP020",
      .severity = Severity::kWarning,
      .family = "hcp",
      .title = "the a2a level of HCP should stay inside a node",
      .rationale =
          "Level-0 HCP groups are runs of HCP[0] consecutive CP ranks, and CP ranks are "
          "strided by TP, so an a2a group spans TP*HCP[0] consecutive global ranks. It "
          "should fit in (and tile) one node or NVLink domain, or the bandwidth-hungry "
          "all-to-all crosses the network.",
      .upstream =
          "Megatron-LM megatron/core/parallel_state.py:378-437, 612; Megatron-Bridge "
          "docs/training/hierarchical-context-parallel.md (cp=16 on 4x8 GPUs: [8, 2])",
      .fix = "choose HCP[0] so that TP*HCP[0] divides the GPUs per node",
      .enforced_by = {},
      .bad_example = "--nodes 8 --gpus-per-node 4",
      .good_example = "--nodes 4 --gpus-per-node 8",
      .example_args = "",
      .check = check_a2a_level_in_node,
  };
}

void check_list_off_by_one(const RuleContext& ctx, Reporter& r) {
  const Value* comm = ctx.recipe.find(kCommKey);
  if (comm == nullptr || !comm->is_list() || layout_of(ctx.recipe).cp <= 1) return;
  if (!ctx.env.mcore_version) return r.skipped(Input::kMcoreVersion);
  const Version& v = *ctx.env.mcore_version;
  if (v < Version{0, 10, 0, ""} || v >= Version{0, 17, 0, ""}) return;
  r.report(kCommKey, "Megatron-Core " + v.str() +
                         " reads cp_comm_type[layer_number] with a 1-based layer number: every "
                         "layer gets the next layer's type and the last layer raises IndexError");
}

Rule cp021() {
  return {
      .id = "CP021",
      .severity = Severity::kError,
      .family = "hcp",
      .title = "per-layer cp_comm_type list is off by one on MCore < 0.17",
      .rationale =
          "MCore 0.10-0.16 index the list with the 1-based layer number: each layer gets "
          "the next layer's type and the last layer raises IndexError.",
      .upstream =
          "Megatron-LM megatron/core/transformer/transformer_layer.py:378-385, fixed by "
          "d3a85845 (#3389), first in core_v0.17.0",
      .fix = "upgrade Megatron-Core to >= 0.17.0, or use a single cp_comm_type string",
      .enforced_by = {"mcore"},
      .bad_example =
          "model.cp_comm_type=[a2a+p2p,a2a+p2p] model.num_layers=2 "
          "--mcore-version 0.16.0",
      .good_example =
          "model.cp_comm_type=[a2a+p2p,a2a+p2p] model.num_layers=2 "
          "--mcore-version 0.17.0",
      .example_args = "",
      .check = check_list_off_by_one,
  };
}

void check_comm_ignored_without_cp(const RuleContext& ctx, Reporter& r) {
  if (layout_of(ctx.recipe).cp != 1 || !ctx.recipe.has(kCommKey)) return;
  r.report(kCommKey, "context_parallel_size is 1, so cp_comm_type " +
                         ctx.recipe.find(kCommKey)->str() + " is ignored");
}

Rule cp022() {
  return {
      .id = "CP022",
      .severity = Severity::kInfo,
      .family = "hcp",
      .title = "cp_comm_type is ignored when CP = 1",
      .rationale =
          "Layers read cp_comm_type only when CP>1; CP012 is still checked by MLM and "
          "Bridge.",
      .upstream = "Megatron-LM megatron/core/transformer/transformer_layer.py:378",
      .fix = "remove model.cp_comm_type, or set context_parallel_size > 1",
      .enforced_by = {},
      .bad_example =
          "model.context_parallel_size=1 model.cp_comm_type=p2p "
          "model.hierarchical_context_parallel_sizes=null",
      .good_example = "model.context_parallel_size=16",
      .example_args = "",
      .check = check_comm_ignored_without_cp,
  };
}

void check_hybrid_is_not_hierarchical(const RuleContext& ctx, Reporter& r) {
  const char* hybrid_key = nullptr;
  for (const char* key : {"model.hybrid_context_parallel", "model.dynamic_context_parallel"}) {
    if (ctx.recipe.bool_or(key, false)) hybrid_key = key;
  }
  if (hybrid_key == nullptr) return;
  if (!ctx.recipe.has(kHcpKey) && !uses_hcp_comm(ctx.recipe)) return;
  r.report(hybrid_key,
           std::string(hybrid_key + 6) +
               " (variable-size CP groups for packed variable-length batches) is a different "
               "feature from hierarchical CP (hierarchical_context_parallel_sizes with "
               "cp_comm_type a2a+p2p); both are set here");
}

Rule cp023() {
  return {
      .id = "CP023",
      .severity = Severity::kInfo,
      .family = "hcp",
      .title = "hybrid_context_parallel is not hierarchical CP",
      .rationale =
          "model.hybrid_context_parallel (dynamic_context_parallel on dev) balances packed "
          "variable-length batches over variable-size CP groups; hierarchical CP is "
          "hierarchical_context_parallel_sizes with cp_comm_type a2a+p2p. The names are "
          "easy to confuse, and the combination does not run (see the dynamic-CP rules).",
      .upstream =
          "Megatron-Bridge skills/perf-hybrid-context-parallel/SKILL.md (pitfall 1); "
          "Megatron-LM megatron/core/model_parallel_config.py",
      .fix =
          "to scale CP beyond the KV heads, use hierarchical_context_parallel_sizes with "
          "a2a+p2p and leave hybrid_context_parallel=false",
      .enforced_by = {},
      .bad_example = "++model.hybrid_context_parallel=true",
      .good_example = "++model.hybrid_context_parallel=false",
      .example_args = "",
      .check = check_hybrid_is_not_hierarchical,
  };
}

}  // namespace

void add_hcp_rules(std::vector<Rule>& out) {
  for (Rule (*rule)() : {cp010, cp011, cp012, cp013, cp014, cp015, cp016, cp017, cp018, cp019,
                         cp020, cp021, cp022, cp023})
    out.push_back(rule());
}

}  // namespace hcp::rules
