// Catalog §4–§5: TE attention backends under context parallelism (CP050–CP052, CP060–CP071).
// With CP, UnfusedDotProductAttention is always off, so only FlashAttention and FusedAttention
// can run; these rules name the settings that switch off the last one.
#include <algorithm>
#include <string>

#include "families.h"
#include "hcp/te_matrix.h"
#include "te_backend.h"

namespace hcp::rules {

// --- Shared helpers of the rules2 families --------------------------------------------------

bool uses_dynamic_cp(const Recipe& recipe) {
  return recipe.bool_or("model.hybrid_context_parallel", false) ||
         recipe.bool_or("model.dynamic_context_parallel", false);
}

std::string thd_key(const Recipe& recipe) {
  if (std::string key = packing_key(recipe); !key.empty()) return key;
  if (recipe.bool_or("dataset.packed_sequence", false)) return "dataset.packed_sequence";
  if (recipe.bool_or("model.hybrid_context_parallel", false)) {
    return "model.hybrid_context_parallel";
  }
  if (recipe.bool_or("model.dynamic_context_parallel", false)) {
    return "model.dynamic_context_parallel";
  }
  return "";
}

bool uses_thd_input(const Recipe& recipe) {
  return !thd_key(recipe).empty();
}

bool uses_te_core_attention(const Recipe& recipe) {
  if (auto variant = recipe.get_string("model.experimental_attention_variant")) {
    if (*variant == "dsa" || *variant == "dsv4_hybrid") return false;
  }
  if (auto pattern = recipe.get_string("model.hybrid_layer_pattern")) {
    return pattern->find('*') != std::string::npos;
  }
  return true;
}

Version te_version_or_latest(const RuleContext& ctx, Reporter& r) {
  if (ctx.env.te_version) return *ctx.env.te_version;
  r.assumed(Input::kTeVersion, "TE " + te_latest_release().str() + " (newest release)");
  return te_latest_release();
}

Version mcore_version_or_latest(const RuleContext& ctx, Reporter& r) {
  if (ctx.env.mcore_version) return *ctx.env.mcore_version;
  r.assumed(Input::kMcoreVersion, "MCore " + catalog_mcore_version().str() + " (newest release)");
  return catalog_mcore_version();
}

std::optional<std::string> env_var(const Environment& env, const std::string& name) {
  auto it = env.process_env.find(name);
  if (it == env.process_env.end()) return std::nullopt;
  return it->second;
}

namespace {

std::string joined(const std::vector<std::string>& v) {
  return join_names(v);
}

/// Report `what` as an error on a known GPU below sm100, as a warning naming the assumption and
/// the --gpu-sm option when the GPU is unknown, and nothing on sm100 and newer.
void report_below_sm100(const RuleContext& ctx, Reporter& r, const std::string& key,
                        const std::string& what) {
  if (!ctx.env.gpu_sm) {
    r.assumed(Input::kGpuArch, "a GPU below sm100 (Hopper or older)");
    r.report(key,
             what +
                 ": no attention backend is left on GPUs below sm100 (GPU unknown: assumed "
                 "Hopper or older; pass --gpu-sm 100 for Blackwell)",
             "gpu_unknown");
    return;
  }
  if (*ctx.env.gpu_sm >= 100) return;
  r.report(key, what + ": no attention backend is left on sm" + std::to_string(*ctx.env.gpu_sm));
}

// --- CP050 ---------------------------------------------------------------------------------

void check_padding_mask(const RuleContext& ctx, Reporter& r) {
  if (!te_attention_with_cp(ctx.recipe) || uses_thd_input(ctx.recipe)) return;
  std::string mask = mask_type(ctx.recipe);
  if (mask.find("padding") == std::string::npos && mask != "arbitrary") return;
  r.report(mask_key(ctx.recipe),
           "attention mask '" + mask +
               "' with context_parallel_size=" + std::to_string(cp_of(ctx.recipe)) +
               " on BSHD/SBHD input: Padding mask not supported with context parallelism! "
               "(TE supports padding masks under CP only for THD)");
}

Rule cp050() {
  return {
      .id = "CP050",
      .severity = Severity::kError,
      .family = "backend",
      .title = "padding and arbitrary masks under CP only with THD input",
      .rationale =
          "TE supports padding masks under context parallelism only for THD (packed) "
          "input; BSHD/SBHD with a padding or arbitrary mask has no CP implementation "
          "(TransformerEngine#2052).",
      .upstream =
          "TransformerEngine .../backends.py:983-986, 2169-2172; "
          ".../context_parallel.py:3080-3082, 4225-4228",
      .fix = "use packed (THD) sequences with cu_seqlens instead of an attention mask, or CP=1",
      .enforced_by = {"te"},
      .bad_example = "++model.use_arbitrary_attention_mask=true",
      .good_example = "++model.use_arbitrary_attention_mask=false",
      .example_args = "",
      .check = check_padding_mask,
  };
}

// --- CP051 ---------------------------------------------------------------------------------

void check_thd_comm_types(const RuleContext& ctx, Reporter& r) {
  if (!te_attention_with_cp(ctx.recipe) || !uses_thd_input(ctx.recipe)) return;
  Version te = te_version_or_latest(ctx, r);
  for (const std::string& type : configured_comm_types(ctx.recipe)) {
    auto feature = te_thd_feature(type);
    if (!feature || te_supports(te, *feature)) continue;
    const TeFeatureInfo& info = te_feature_info(*feature);
    std::string since = *feature == TeFeature::kThdA2aP2p
                            ? "no TE release up to v2.18 supports it (TE main after 8ff60f8d)"
                            : "needs TE >= " + info.first.str();
    r.report(kCommKey, "THD (packed) input with cp_comm_type=" + type + " on TE " + te.str() +
                           ": " + since + " (" + thd_key(ctx.recipe) + " makes the input THD)");
  }
}

Rule cp051() {
  return {
      .id = "CP051",
      .severity = Severity::kError,
      .family = "backend",
      .title = "THD (packed) input supported per comm type from a TE version on",
      .rationale =
          "THD under CP: p2p since TE 1.7, a2a since 2.10, all_gather since 2.18, and "
          "a2a+p2p in no release up to v2.18 (\"thd format is not supported with "
          "hierarchical CP implementation yet!\", ms-swift#6001).",
      .upstream = std::string_view("TransformerEngine .../context_parallel.py (per tag); TE "
                                   "e52bdb41 (#2220), 70101184 (#2829), 8ff60f8d (#3290)"),
      .fix = "use p2p (or a2a on TE >= 2.10) for packed sequences, or upgrade TE",
      .enforced_by = {"te"},
      .bad_example = "++dataset.packing_buffer_size=8",
      .good_example = "++dataset.packing_buffer_size=8 model.cp_comm_type=p2p",
      .example_args = "--te-version 2.18",
      .check = check_thd_comm_types,
  };
}

// --- CP052 ---------------------------------------------------------------------------------

void check_thd_padding_backend(const RuleContext& ctx, Reporter& r) {
  if (!te_attention_with_cp(ctx.recipe) || !uses_thd_input(ctx.recipe)) return;
  if (backend(ctx.recipe) != "flash") return;
  if (ctx.env.gpu_sm && *ctx.env.gpu_sm != 90) {
    r.report(kBackendKey,
             "THD with CP pads between sequences, which disables FlashAttention 2/4; with "
             "attention_backend=flash on sm" +
                 std::to_string(*ctx.env.gpu_sm) + " (no FA3) no backend is left",
             "no_fa3");
    return;
  }
  r.report(kBackendKey,
           "THD with CP pads between sequences, which disables FlashAttention 2/4 and Unfused; "
           "attention_backend=flash then works only with FlashAttention 3 on sm90");
}

Rule cp052() {
  return {
      .id = "CP052",
      .severity = Severity::kWarning,
      .family = "backend",
      .title = "THD with padding between sequences needs FusedAttention or FA3",
      .rationale =
          "CP pads each packed sequence to a multiple of 2*CP, so cu_seqlens differ from "
          "cu_seqlens_padded; TE then disables FlashAttention 2/4 and Unfused. With "
          "attention_backend=flash only FA3 (sm90) remains.",
      .upstream = "TransformerEngine .../utils.py:1071-1090",
      .fix = "use attention_backend=auto or fused for packed sequences under CP",
      .enforced_by = {"te"},
      .bad_example = "++dataset.packing_buffer_size=8 ++model.attention_backend=flash",
      .good_example = "++dataset.packing_buffer_size=8 ++model.attention_backend=fused",
      .example_args = "",
      .check = check_thd_padding_backend,
      .cases =
          {
              {.name = "no_fa3", .severity = Severity::kError},
          },
  };
}

// --- CP060 ---------------------------------------------------------------------------------

void check_te_implementation(const RuleContext& ctx, Reporter& r) {
  if (!te_attention_with_cp(ctx.recipe)) return;
  auto impl = ctx.recipe.get_string("model.transformer_impl");
  if (impl && *impl != "transformer_engine") {
    r.report("model.transformer_impl",
             "transformer_impl=" + *impl +
                 " with context_parallel_size=" + std::to_string(cp_of(ctx.recipe)) +
                 ": Context parallelism is only supported by "
                 "TEDotProductAttention!");
    return;
  }
  if (backend(ctx.recipe) == "local") {
    r.report(kBackendKey, "attention_backend=local with context_parallel_size=" +
                              std::to_string(cp_of(ctx.recipe)) +
                              ": Context parallelism is only supported by TEDotProductAttention!");
  }
}

Rule cp060() {
  return {
      .id = "CP060",
      .severity = Severity::kError,
      .family = "backend",
      .title = "CP needs the Transformer Engine attention implementation",
      .rationale =
          "Only TEDotProductAttention implements context parallelism; the local "
          "implementation and attention_backend=local assert under CP.",
      .upstream = "Megatron-LM megatron/core/transformer/dot_product_attention.py:57-59",
      .fix = "set model.transformer_impl=transformer_engine and attention_backend=auto",
      .enforced_by = {"mcore"},
      .bad_example = "++model.transformer_impl=local",
      .good_example = "++model.transformer_impl=transformer_engine",
      .example_args = "",
      .check = check_te_implementation,
  };
}

// --- CP061 ---------------------------------------------------------------------------------

/// The value MCore's LanguageModule._set_attention_backend requires of NVTE_FLASH_ATTN,
/// NVTE_FUSED_ATTN and NVTE_UNFUSED_ATTN for each attention_backend (Megatron-LM d98e8a64
/// megatron/core/models/common/language_module/language_module.py:120-147; since core_v0.11.0).
struct NvteExpectation {
  const char* backend;
  const char* flash;
  const char* fused;
  const char* unfused;
};
constexpr NvteExpectation kNvteExpected[] = {{"local", "0", "0", "0"},
                                             {"flash", "1", "0", "0"},
                                             {"fused", "0", "1", "0"},
                                             {"unfused", "0", "0", "1"},
                                             {"auto", "1", "1", "1"}};

/// Report each NVTE_*_ATTN variable that is set and disagrees with attention_backend; return
/// true when one did (MCore asserts at model construction, whatever CP is).
bool report_nvte_mismatch(const RuleContext& ctx, Reporter& r, const std::string& choice) {
  const NvteExpectation* expected = nullptr;
  for (const NvteExpectation& e : kNvteExpected) {
    if (choice == e.backend) expected = &e;
  }
  if (expected == nullptr) return false;
  bool any_set = false;
  for (const char* var : {"NVTE_FLASH_ATTN", "NVTE_FUSED_ATTN", "NVTE_UNFUSED_ATTN"}) {
    any_set = any_set || env_var(ctx.env, var).has_value();
  }
  if (!any_set || mcore_version_or_latest(ctx, r) < Version{0, 11, 0, ""}) return false;
  bool mismatch = false;
  for (const auto& [var, want] :
       {std::pair<std::string, const char*>{"NVTE_FLASH_ATTN", expected->flash},
        {"NVTE_FUSED_ATTN", expected->fused},
        {"NVTE_UNFUSED_ATTN", expected->unfused}}) {
    auto value = env_var(ctx.env, var);
    if (!value || *value == want) continue;
    mismatch = true;
    r.report(kBackendKey,
             var + " set to " + *value + ", but expected " + want + " for attention backend type " +
                 choice + " (Megatron-Core asserts it when it builds the model)",
             "nvte_mismatch");
  }
  return mismatch;
}

void check_backend_choice(const RuleContext& ctx, Reporter& r) {
  if (!uses_te_core_attention(ctx.recipe)) return;
  std::string choice = backend(ctx.recipe);
  if (report_nvte_mismatch(ctx, r, choice)) return;
  if (!te_attention_with_cp(ctx.recipe) || choice == "local") return;
  Version te = te_version_or_latest(ctx, r);
  BackendFilters f = backend_filters(ctx, te);
  if (!f.flash_off.empty() && !f.fused_off.empty()) {
    r.report(kBackendKey,
             "No dot product attention backend is available under CP (Unfused is always off "
             "with CP): FlashAttention is off by " +
                 joined(f.flash_off) + "; FusedAttention is off by " + joined(f.fused_off));
  }
}

Rule cp061() {
  return {
      .id = "CP061",
      .severity = Severity::kError,
      .family = "backend",
      .title = "attention backend choice leaves a CP-capable backend",
      .rationale =
          "Under CP only FlashAttention and FusedAttention run. attention_backend=unfused, "
          "or a choice that removes one while a filter removes the other, ends in 'No dot "
          "product attention backend is available'. MCore >= 0.11 also asserts that each "
          "NVTE_FLASH_ATTN / NVTE_FUSED_ATTN / NVTE_UNFUSED_ATTN variable is unset or agrees "
          "with attention_backend (auto wants 1, 1, 1; fused 0, 1, 0; flash 1, 0, 0).",
      .upstream =
          "Megatron-LM d98e8a64 megatron/core/models/common/language_module/language_module.py:"
          "108-160 (core_v0.11.0 on); TransformerEngine .../utils.py:1169-1176, "
          ".../dot_product_attention.py:2160-2165",
      .fix = "use attention_backend=auto, or the backend that supports these inputs",
      .enforced_by = {"te", "mcore"},
      .bad_example = "++model.attention_backend=unfused",
      .good_example = "++model.attention_backend=fused",
      .example_args = "",
      .check = check_backend_choice,
      .cases =
          {
              {.name = "nvte_mismatch",
               .severity = Severity::kError,
               .fix = "unset NVTE_FLASH_ATTN, NVTE_FUSED_ATTN and NVTE_UNFUSED_ATTN and choose the "
                      "backend with attention_backend (flash/fused/unfused/auto/local)"},
          },
  };
}

// --- CP062 ---------------------------------------------------------------------------------

void check_gpu_arch(const RuleContext& ctx, Reporter& r) {
  if (!te_attention_with_cp(ctx.recipe) || !ctx.env.gpu_sm) return;
  int sm = *ctx.env.gpu_sm;
  if (sm < 80) {
    r.report("model.context_parallel_size",
             "GPU sm" + std::to_string(sm) +
                 ": FlashAttention 2 and FusedAttention need sm80+, and Unfused is off under CP, "
                 "so no attention backend is available");
    return;
  }
  if (sm == 120 && fp8_attention(ctx.recipe)) {
    r.report(fp8_attention_key(ctx.recipe),
             "FP8 attention on sm120 disables FlashAttention and FusedAttention: no backend");
  }
}

Rule cp062() {
  return {
      .id = "CP062",
      .severity = Severity::kError,
      .family = "backend",
      .title = "GPU architecture has a CP-capable attention backend",
      .rationale =
          "Below sm80 FlashAttention 2 and FusedAttention are off and Unfused is off "
          "under CP; FP8 attention on sm120 disables both Flash and Fused.",
      .upstream = "TransformerEngine .../utils.py:565-590, 725-738, 1169-1176",
      .fix = "run CP on sm80+ GPUs (A100, H100, B200), or CP=1",
      .enforced_by = {"te"},
      .bad_example = "--gpu-sm 75",
      .good_example = "--gpu-sm 90",
      .example_args = "",
      .check = check_gpu_arch,
  };
}

// --- CP063 ---------------------------------------------------------------------------------

void check_fp8_attention(const RuleContext& ctx, Reporter& r) {
  const Recipe& recipe = ctx.recipe;
  if (!te_attention_with_cp(recipe) || !fp8_attention(recipe)) return;
  std::string key = fp8_attention_key(recipe);
  Version te = te_version_or_latest(ctx, r);
  if (backend(recipe) == "flash") {
    r.report(key,
             "FP8 attention under CP needs FusedAttention (FlashAttention does not support "
             "context parallelism with FP8), but attention_backend=flash");
  }
  bool v215 = te_supports(te, TeFeature::kFusedFiltersV215);
  if (v215 && uses_thd_input(recipe)) {
    r.report(key, "FP8 attention with THD input under CP on TE " + te.str() +
                      ": FusedAttention does not support it and FlashAttention is off for FP8");
  }
  if (v215 && attention_bias(recipe)) {
    r.report(key, "FP8 attention with an attention bias under CP on TE " + te.str() +
                      ": no backend is left");
  }
  if (is_mla(recipe) && te_supports(te, TeFeature::kMlaP2pOnly) && !v215) {
    r.report(key, "FP8 MLA attention under CP on TE " + te.str() +
                      " (2.5–2.14 disable FusedAttention for it): no backend is left");
  }
  std::string fp8_recipe = fp8_recipe_of(recipe);
  if (fp8_recipe == "mxfp8" && uses_thd_input(recipe)) {
    r.report(key, "MXFP8 attention with THD input under CP: FusedAttention is disabled");
  }
  // Flash is off for FP8 under CP (TE d0067d0d utils.py:1184-1188), so FusedAttention must stay.
  // Float8CurrentScaling ("tensorwise") turns it off below sm100 (utils.py:686-689, TE >= 2.8).
  if (fp8_recipe == "tensorwise" && te >= Version{2, 8, 0, ""}) {
    report_below_sm100(ctx, r, fp8_recipe_key(recipe),
                       "FP8 attention with the current-scaling recipe (tensorwise) under CP: "
                       "FusedAttention is off below sm100 and FlashAttention is off for FP8");
  }
  // FP8 with a sliding window: FusedAttention needs sm100 and cuDNN >= 9.21 from TE 2.12
  // (utils.py:1344-1352); before 2.12 it refuses FP8 sliding windows outright (v2.11 :876-881).
  if (!swa_comm_types(recipe).empty()) {
    if (te < Version{2, 12, 0, ""}) {
      r.report("model.window_size", "FP8 attention with a sliding window under CP on TE " +
                                        te.str() +
                                        ": FusedAttention does not support it (TE >= 2.12 does "
                                        "on sm100 with cuDNN >= 9.21) and FlashAttention is off "
                                        "for FP8");
    } else {
      report_below_sm100(ctx, r, "model.window_size",
                         "FP8 attention with a sliding window under CP: FusedAttention needs "
                         "sm100 and cuDNN >= 9.21, and FlashAttention is off for FP8");
    }
  }
}

Rule cp063() {
  return {
      .id = "CP063",
      .severity = Severity::kError,
      .family = "backend",
      .title = "FP8 attention under CP needs FusedAttention",
      .rationale =
          "FlashAttention is off for FP8 under CP, so FusedAttention must accept the "
          "inputs: on TE >= 2.15 it refuses FP8 with THD or with a bias; on 2.5–2.14 "
          "FP8 MLA; MXFP8 with THD; current scaling (tensorwise) below sm100; a sliding "
          "window below sm100 (any GPU before TE 2.12). The FP8 recipe is read from "
          "mixed_precision (Bridge) or the model. fp8_recipe=custom runs no FP8 attention: "
          "MCore builds CustomRecipe without fp8_dpa.",
      .upstream = std::string_view(
          "TransformerEngine d0067d0d .../utils.py:1182-1188, 1240-1251, 686-689, 1344-1352, "
          ".../dot_product_attention.py:2215; .../backends.py:2226-2231; Megatron-LM d98e8a64 "
          "megatron/core/fp8_utils.py:345-353, 789-791; Megatron-Bridge 067f987d "
          "src/megatron/bridge/training/mixed_precision.py:50-52, 113-160"),
      .fix =
          "use attention_backend=auto/fused and BSHD input for FP8 attention under CP, or "
          "turn fp8_dot_product_attention off",
      .enforced_by = {"te"},
      .bad_example = "++model.fp8_dot_product_attention=true ++model.attention_backend=flash",
      .good_example = "++model.fp8_dot_product_attention=true ++model.attention_backend=fused",
      .example_args = "",
      .check = check_fp8_attention,
      .cases =
          {
              {.name = "gpu_unknown", .severity = Severity::kWarning},
          },
  };
}

// --- CP064 ---------------------------------------------------------------------------------

void check_sliding_window(const RuleContext& ctx, Reporter& r) {
  const Recipe& recipe = ctx.recipe;
  if (!te_attention_with_cp(recipe)) return;
  std::vector<std::string> types = swa_comm_types(recipe);
  if (types.empty()) return;
  Version te = te_version_or_latest(ctx, r);
  if (!te_supports(te, TeFeature::kCommTypeArgument)) {
    r.report("model.window_size",
             "Sliding window attention is not supported with context "
             "parallelism on TE " +
                 te.str() + " (< 1.10).");
    return;
  }
  if (!te_supports(te, TeFeature::kSlidingWindow)) {
    r.report("model.window_size",
             "TE 1.10 silently forces sliding-window layers to all_gather whatever cp_comm_type "
             "says",
             "te_1_10");
    return;
  }
  for (const std::string& type : types) {
    if (type == "p2p" || type == "a2a+p2p") {
      r.report(kCommKey,
               "Context parallelism does not support sliding window attention with "
               "cp_comm_type='" +
                   type +
                   "'! (sliding-window layers need a2a or "
                   "all_gather)");
    } else if (type == "all_gather") {
      r.report(kCommKey,
               "sliding window with all_gather moves CP x more data than a2a and is known to be "
               "very slow or hit NCCL timeouts (Megatron-LM#2222)",
               "all_gather");
    }
  }
}

Rule cp064() {
  return {
      .id = "CP064",
      .severity = Severity::kError,
      .family = "backend",
      .title = "sliding-window layers need a2a or all_gather",
      .rationale =
          "TE has no sliding-window implementation for the p2p ring (and so not for "
          "a2a+p2p); all_gather works but is slow (Megatron-LM#1160, #2222). TE 1.10 "
          "forced all_gather silently; TE <= 1.9 had no SWA under CP.",
      .upstream =
          "TransformerEngine .../context_parallel.py:5054-5060, 3086-3095, 4232-4240; "
          ".../utils.py:1261-1271, 1343-1358",
      .fix =
          "use cp_comm_type=a2a on sliding-window layers (a per-layer list keeps p2p on "
          "full-attention layers, MCore >= 0.17)",
      .enforced_by = {"te"},
      .bad_example = "++model.window_size=[4095,0]",
      .good_example = "++model.window_size=[4095,0] model.cp_comm_type=a2a",
      .example_args = "",
      .check = check_sliding_window,
      .cases =
          {
              {.name = "te_1_10", .severity = Severity::kWarning},
              {.name = "all_gather",
               .severity = Severity::kWarning,
               .fix = "use cp_comm_type=a2a on the sliding-window layers"},
          },
  };
}

// --- CP065 ---------------------------------------------------------------------------------

void check_softmax_sinks(const RuleContext& ctx, Reporter& r) {
  const Recipe& recipe = ctx.recipe;
  if (!te_attention_with_cp(recipe) || !sinks(recipe)) return;
  std::string type = *recipe.get_string("model.softmax_type");
  Version te = te_version_or_latest(ctx, r);
  if (!te_supports(te, TeFeature::kSoftmaxSinks)) {
    r.report("model.softmax_type",
             "Transformer-Engine v" + te.str() + " must be >= 2.8.0 to support softmax_type");
    return;
  }
  for (const std::string& comm : configured_comm_types(recipe)) {
    if (comm == "a2a") continue;
    std::string degenerate =
        effective_comm(recipe, comm) == "a2a"
            ? "; TE's backend filter reads the configured type, so HCP sizes [CP, 1] do not help"
            : "";
    r.report(kCommKey, "Context parallelism only supports softmax_type='" + type +
                           "' with cp_comm_type = 'a2a'! (got " + comm + degenerate + ")");
  }
  BackendFilters f = backend_filters(ctx, te);
  if (!f.fused_off.empty()) {
    r.report("model.softmax_type", "Context parallelism only supports softmax_type='" + type +
                                       "' with FusedAttention backend!, but FusedAttention is "
                                       "off by " +
                                       joined(f.fused_off));
  }
  if (uses_thd_input(recipe)) {
    r.report("model.softmax_type",
             "softmax_type='" + type + "' with THD input under CP needs cuDNN >= 9.18", "thd");
  }
  if (fp8_attention(recipe)) {
    bool v215 = te_supports(te, TeFeature::kFusedFiltersV215);
    r.report(fp8_attention_key(recipe),
             v215 ? "FP8 attention with softmax_type='" + type +
                        "' under CP needs sm100+ and cuDNN >= 9.21"
                  : "FP8 attention with softmax_type='" + type +
                        "' is unsupported under CP on TE " + te.str(),
             v215 ? "fp8_te_2_15" : "");
  }
}

Rule cp065() {
  return {
      .id = "CP065",
      .severity = Severity::kError,
      .family = "backend",
      .title = "softmax sinks (off-by-one, learnable) under CP need a2a and FusedAttention",
      .rationale =
          "gpt-oss style softmax_type: FlashAttention does not support it, Unfused is off "
          "under CP, and TE's CP implements it only with a2a on FusedAttention "
          "(Megatron-Bridge#2298, TransformerEngine#2541). Needs TE >= 2.8.",
      .upstream =
          "TransformerEngine .../context_parallel.py:5062-5072, .../utils.py:1113-1155; "
          "Megatron-LM megatron/core/extensions/transformer_engine.py:2184-2189",
      .fix = "set cp_comm_type=a2a (heads divisible by CP per TP rank) and keep FusedAttention",
      .enforced_by = {"te", "mcore"},
      .bad_example = "++model.softmax_type=learnable",
      .good_example = "++model.softmax_type=vanilla",
      .example_args = "",
      .check = check_softmax_sinks,
      .cases =
          {
              {.name = "thd", .severity = Severity::kWarning},
              {.name = "fp8_te_2_15", .severity = Severity::kWarning},
          },
  };
}

// --- CP066 ---------------------------------------------------------------------------------

void check_mla(const RuleContext& ctx, Reporter& r) {
  const Recipe& recipe = ctx.recipe;
  if (!te_attention_with_cp(recipe) || !is_mla(recipe)) return;
  Version te = te_version_or_latest(ctx, r);
  if (!te_supports(te, TeFeature::kMlaP2pOnly)) {
    r.report("model.multi_latent_attention",
             "MLA with context parallelism on TE " + te.str() +
                 ": FusedAttention does not support context parallelism with MLA (TE <= 2.4)");
    return;
  }
  if (te_supports(te, TeFeature::kMlaAnyCommType)) return;
  for (const std::string& comm : distinct_comm_types(recipe)) {
    if (comm == "p2p" || comm == "a2a+p2p") continue;
    r.report(kCommKey, "Context parallelism does not support MLA with cp_comm_type='" + comm +
                           "'! (TE " + te.str() + "; TE 2.5–2.14 allow p2p and a2a+p2p only)");
  }
}

Rule cp066() {
  return {
      .id = "CP066",
      .severity = Severity::kError,
      .family = "backend",
      .title = "MLA under CP: TE >= 2.5, and p2p / a2a+p2p only before TE 2.15",
      .rationale =
          "TE <= 2.4 disables FusedAttention for MLA under CP (TransformerEngine#1552); "
          "2.5–2.14 accept only p2p and a2a+p2p; 2.15 lifted the restriction (ee5dcec2).",
      .upstream = "TransformerEngine faee0e8b (#1729), ee5dcec2 (#2719); .../utils.py:904-950",
      .fix = "use cp_comm_type=p2p for MLA on TE 2.5–2.14, or upgrade TE to 2.15+",
      .enforced_by = {"te"},
      .bad_example = "++model.multi_latent_attention=true model.cp_comm_type=a2a",
      .good_example = "++model.multi_latent_attention=true model.cp_comm_type=p2p",
      .example_args = "--te-version 2.10",
      .check = check_mla,
  };
}

// --- CP067 ---------------------------------------------------------------------------------

void check_attention_bias(const RuleContext& ctx, Reporter& r) {
  const Recipe& recipe = ctx.recipe;
  if (!te_attention_with_cp(recipe) || !attention_bias(recipe)) return;
  const char* key = "model.position_embedding_type";
  if (*recipe.get_string(key) == "alibi") {
    r.report(key, "Alibi slope bias addition is not supported with context parallelism.");
    return;
  }
  Version te = te_version_or_latest(ctx, r);
  if (uses_thd_input(recipe) || backend(recipe) == "flash") {
    r.report(key,
             "Context parallelism only supports attention bias with FusedAttention backend "
             "and non-padding mask types!");
  }
  for (const std::string& comm : configured_comm_types(recipe)) {
    if (comm == "a2a+p2p") {
      r.report(kCommKey,
               "post_scale_bias bias type is not supported with hierarchical CP "
               "implementation yet! (TE asserts it before falling back for degenerate HCP sizes)");
    } else if ((comm == "a2a" || comm == "all_gather") &&
               te_supports(te, TeFeature::kCommTypeArgument)) {
      // all_gather (TE 1.10) and a2a (TE 1.11) assert attn_bias_type == "no_bias" from their
      // first release: TE v1.11 transformer_engine/pytorch/attention.py:3041, 3522; v2.14
      // .../context_parallel.py:2840, 3355. TE < 1.10 never sees cp_comm_type (CP019).
      r.report(kCommKey,
               "No support for cp_comm_type='" + comm + "' and attn_bias_type='post_scale_bias'.");
    }
  }
}

Rule cp067() {
  return {
      .id = "CP067",
      .severity = Severity::kError,
      .family = "backend",
      .title = "attention bias under CP: p2p, FusedAttention, BSHD; never ALiBi",
      .rationale =
          "A core attention bias (T5 relative bias) is supported under CP only as "
          "post_scale_bias on FusedAttention with non-padding masks and non-THD input, "
          "with p2p only: a2a+p2p never (even with degenerate HCP sizes), a2a and "
          "all_gather on no TE release (they assert no_bias since 1.11 / 1.10); ALiBi never.",
      .upstream =
          "TransformerEngine .../context_parallel.py:5024-5026, 5046-5049, 3083-3085, "
          "4229-4231; .../utils.py:1202-1258; .../backends.py:1098-1102, 2242-2247; "
          "v1.11 transformer_engine/pytorch/attention.py:3041, 3522; v2.14 "
          ".../context_parallel.py:2840, 3355",
      .fix = "use rotary embeddings, or cp_comm_type=p2p with FusedAttention for relative bias",
      .enforced_by = {"te"},
      .bad_example = "++model.position_embedding_type=relative",
      .good_example = "++model.position_embedding_type=rope",
      .example_args = "",
      .check = check_attention_bias,
  };
}

// --- CP068 ---------------------------------------------------------------------------------

void check_mask_shape(const RuleContext& ctx, Reporter& r) {
  if (!te_attention_with_cp(ctx.recipe)) return;
  std::string mask = mask_type(ctx.recipe);
  if (mask.find("bottom_right") == std::string::npos) return;
  r.report(mask_key(ctx.recipe), "attention mask '" + mask +
                                     "' under CP disables FlashAttention and FusedAttention: no "
                                     "backend is available");
}

Rule cp068() {
  return {
      .id = "CP068",
      .severity = Severity::kError,
      .family = "backend",
      .title = "no bottom-right causal masks under CP",
      .rationale =
          "A causal_bottom_right mask (or causal cross-attention with sq != skv) "
          "disables both FlashAttention and FusedAttention under CP.",
      .upstream = "TransformerEngine .../utils.py:1189-1201, 1216-1227",
      .fix = "use a top-left causal mask (MCore's default) or CP=1",
      .enforced_by = {"te"},
      .bad_example = "++model.attn_mask_type=causal_bottom_right",
      .good_example = "",
      .example_args = "",
      .check = check_mask_shape,
  };
}

// --- CP069 ---------------------------------------------------------------------------------

void check_sbhd_flash(const RuleContext& ctx, Reporter& r) {
  if (!te_attention_with_cp(ctx.recipe) || uses_thd_input(ctx.recipe)) return;
  if (backend(ctx.recipe) != "flash") return;
  r.report(kBackendKey,
           "TE asserts 'Context parallelism does not support FlashAttention backend with "
           "qkv_format = sbhd!', but its FlashAttention wrapper transposes MCore's sbhd to bshd "
           "first, so MCore models are not affected");
}

Rule cp069() {
  return {
      .id = "CP069",
      .severity = Severity::kInfo,
      .family = "backend",
      .title = "FlashAttention with sbhd under CP is fine for MCore",
      .rationale =
          "TE asserts that FlashAttention CP does not take sbhd, but TE's own wrapper "
          "transposes sbhd to bshd before calling it, so MCore (sbhd) is not affected.",
      .upstream =
          "TransformerEngine .../context_parallel.py:5043-5045; .../backends.py:928-950, "
          "1129",
      .fix = "nothing to do",
      .enforced_by = {"te"},
      .bad_example = "++model.attention_backend=flash",
      .good_example = "++model.attention_backend=auto",
      .example_args = "",
      .check = check_sbhd_flash,
  };
}

// --- CP070 ---------------------------------------------------------------------------------

void check_kv_cache(const RuleContext& ctx, Reporter& r) {
  const Recipe& recipe = ctx.recipe;
  if (!te_attention_with_cp(recipe)) return;
  std::string key;
  if (recipe.bool_or("model.use_inference_optimized_layers", false)) {
    key = "model.use_inference_optimized_layers";
  } else if (recipe.get_string("model.transformer_impl").value_or("") == "inference_optimized") {
    key = "model.transformer_impl";
  } else if (recipe.bool_or("model.flash_decode", false)) {
    key = "model.flash_decode";
  }
  if (key.empty()) return;
  Version te = te_version_or_latest(ctx, r);
  if (!te_supports(te, TeFeature::kKvCacheDisablesBackends)) return;
  r.report(key, "KV-cache inference with context_parallel_size=" + std::to_string(cp_of(recipe)) +
                    ": Disabling all backends for KV caching with context parallelism (TE " +
                    te.str() + ")");
}

Rule cp070() {
  return {
      .id = "CP070",
      .severity = Severity::kError,
      .family = "backend",
      .title = "no KV-cache inference under CP",
      .rationale =
          "With a KV cache and context parallelism TE disables every attention backend "
          "(TE >= 2.2).",
      .upstream = "TransformerEngine .../utils.py:852-856",
      .fix = "run inference with context_parallel_size=1",
      .enforced_by = {"te"},
      .bad_example = "++model.use_inference_optimized_layers=true",
      .good_example = "++model.use_inference_optimized_layers=false",
      .example_args = "",
      .check = check_kv_cache,
  };
}

// --- CP071 ---------------------------------------------------------------------------------

void check_deterministic(const RuleContext& ctx, Reporter& r) {
  const Recipe& recipe = ctx.recipe;
  if (!recipe.bool_or("model.deterministic_mode", false) || !uses_te_core_attention(recipe)) {
    return;
  }
  if (ctx.env.process_env.empty()) {
    r.skipped(Input::kLaunchEnv);
    return;
  }
  // From core_v0.19.0 the MLM CLI validates the determinism variables and fills the unset ones
  // (NCCL_ALGO=Ring, NVTE_ALLOW_NONDETERMINISTIC_ALGO=0) before the model is built; NCCL_ALGO
  // tokens must be Ring, CollnetDirect, CollnetChain or ^NVLS (Tree is rejected). Megatron-LM
  // d98e8a64 megatron/training/determinism.py:27-48, 66-117; arguments.py:1708-1711. Bridge and
  // MLM core_v0.18 require NCCL_ALGO set to one of Tree, Ring, CollnetDirect, CollnetChain, ^NVLS
  // (Bridge 067f987d config.py:1043-1063; core_v0.18.0 arguments.py:1534-1535).
  bool mlm_fills = ctx.env.framework == Framework::kMlm &&
                   mcore_version_or_latest(ctx, r) >= Version{0, 19, 0, ""};
  auto allow = env_var(ctx.env, "NVTE_ALLOW_NONDETERMINISTIC_ALGO");
  if ((allow && *allow != "0") || (!allow && !mlm_fills)) {
    r.report("model.deterministic_mode",
             "deterministic_mode is on and we are using DotProductAttention from Transformer "
             "Engine, but NVTE_ALLOW_NONDETERMINISTIC_ALGO is not 0 (it is " +
                 (allow ? "'" + *allow + "'" : std::string("unset")) + ")");
  }
  auto algo = env_var(ctx.env, "NCCL_ALGO");
  if (mlm_fills) {
    if (!algo) return;  // filled with Ring
    static const std::vector<std::string> kAccepted = {"Ring", "CollnetDirect", "CollnetChain",
                                                       "^NVLS"};
    std::string token;
    std::vector<std::string> bad;
    std::string tokens = *algo + ",";
    bool any = false;
    for (char c : tokens) {
      if (c != ',') {
        if (c != ' ') token += c;
        continue;
      }
      if (token.empty()) continue;
      any = true;
      if (std::find(kAccepted.begin(), kAccepted.end(), token) == kAccepted.end()) {
        bad.push_back(token);
      }
      token.clear();
    }
    if (any && bad.empty()) return;
    r.report("model.deterministic_mode",
             "NCCL_ALGO='" + *algo +
                 "': under --deterministic-mode each token must be one of CollnetChain, "
                 "CollnetDirect, Ring or ^NVLS (Tree is not bit-exact)",
             "mlm_algo");
    return;
  }
  static const std::vector<std::string> kAlgos = {"Tree", "Ring", "CollnetDirect", "CollnetChain",
                                                  "^NVLS"};
  if (!algo || std::find(kAlgos.begin(), kAlgos.end(), *algo) == kAlgos.end()) {
    r.report("model.deterministic_mode",
             "deterministic_mode needs NCCL_ALGO set to one of Tree, Ring, CollnetDirect, "
             "CollnetChain or ^NVLS (it is " +
                 (algo ? "'" + *algo + "'" : std::string("unset")) + ")",
             "algo");
  }
}

Rule cp071() {
  return {
      .id = "CP071",
      .severity = Severity::kError,
      .family = "backend",
      .title = "deterministic mode needs NVTE_ALLOW_NONDETERMINISTIC_ALGO=0 and a fixed NCCL_ALGO",
      .rationale =
          "MCore asserts NVTE_ALLOW_NONDETERMINISTIC_ALGO=0 for TE attention in "
          "deterministic mode, Bridge (and the MLM CLI before core_v0.19) requires NCCL_ALGO "
          "in Tree/Ring/CollnetDirect/CollnetChain/^NVLS. From core_v0.19 the MLM CLI fills "
          "NCCL_ALGO=Ring and NVTE_ALLOW_NONDETERMINISTIC_ALGO=0 when unset and rejects "
          "Tree and nonzero NVTE_ALLOW_NONDETERMINISTIC_ALGO.",
      .upstream =
          "Megatron-LM d98e8a64 megatron/core/extensions/transformer_engine.py:2155-2162, "
          "megatron/training/determinism.py:27-48, 66-117; core_v0.18.0 "
          "megatron/training/arguments.py:1534-1535; Megatron-Bridge 067f987d "
          "src/megatron/bridge/training/config.py:1043-1063",
      .fix = "export NVTE_ALLOW_NONDETERMINISTIC_ALGO=0 NCCL_ALGO=Ring",
      .enforced_by = {"mcore", "bridge", "mlm"},
      .bad_example = "++model.deterministic_mode=true --env NVTE_ALLOW_NONDETERMINISTIC_ALGO=1",
      .good_example =
          "++model.deterministic_mode=true --env NVTE_ALLOW_NONDETERMINISTIC_ALGO=0 "
          "--env NCCL_ALGO=Ring",
      .example_args = "",
      .check = check_deterministic,
      .cases =
          {
              {.name = "mlm_algo",
               .severity = Severity::kError,
               .fix = "export NCCL_ALGO=Ring, or leave it unset (MLM then sets Ring)"},
              {.name = "algo", .severity = Severity::kError, .fix = "export NCCL_ALGO=Ring"},
          },
  };
}

// --- CP072 ---------------------------------------------------------------------------------

void check_deterministic_backends(const RuleContext& ctx, Reporter& r) {
  const Recipe& recipe = ctx.recipe;
  if (!te_attention_with_cp(recipe) || !recipe.bool_or("model.deterministic_mode", false)) return;
  Version te = te_version_or_latest(ctx, r);
  // TE >= 2.12 turns FusedAttention off for sink attention when deterministic (TransformerEngine
  // d0067d0d .../utils.py:1535-1547); FlashAttention never supports sinks and Unfused is off
  // under CP (utils.py:1122-1123, 1169-1172).
  if (sinks(recipe) && te >= Version{2, 12, 0, ""}) {
    r.report("model.softmax_type",
             "deterministic_mode disables FusedAttention for softmax_type='" +
                 *recipe.get_string("model.softmax_type") +
                 "' (sink attention needs NVTE_ALLOW_NONDETERMINISTIC_ALGO=1); FlashAttention "
                 "does not support sinks and Unfused is off under CP: no attention backend is "
                 "available");
    return;
  }
  // Deterministic fp16/bf16 training turns FusedAttention off below sm90 (utils.py:1556-1567;
  // FP8 likewise, utils.py:1548-1553).
  std::string needs = fused_required_key(recipe);
  if (needs.empty()) return;
  if (!ctx.env.gpu_sm) return r.assumed(Input::kGpuArch, "sm90 or newer");
  if (*ctx.env.gpu_sm >= 90) return;
  r.report(needs, "deterministic training on sm" + std::to_string(*ctx.env.gpu_sm) +
                      " disables FusedAttention, but " + needs +
                      " needs it under CP (FlashAttention cannot serve it): no attention "
                      "backend is available");
}

Rule cp072() {
  return {
      .id = "CP072",
      .severity = Severity::kError,
      .family = "backend",
      .title = "deterministic mode under CP leaves an attention backend",
      .rationale =
          "TE's determinism filters remove FusedAttention for softmax sinks (TE >= 2.12) and "
          "for fp16/bf16 or FP8 training below sm90; FlashAttention cannot run sinks, FP8, a "
          "bias or padded THD, and Unfused is off under CP, so nothing is left.",
      .upstream =
          "TransformerEngine d0067d0d transformer_engine/pytorch/attention/"
          "dot_product_attention/utils.py:1535-1567, 1122-1123, 1169-1172",
      .fix = "turn deterministic_mode off for these layers, use vanilla softmax, or run on sm90+",
      .enforced_by = {"te"},
      .bad_example =
          "++model.deterministic_mode=true ++model.softmax_type=learnable "
          "model.cp_comm_type=a2a model.hierarchical_context_parallel_sizes=null",
      .good_example =
          "++model.deterministic_mode=true ++model.softmax_type=vanilla "
          "model.cp_comm_type=a2a model.hierarchical_context_parallel_sizes=null",
      .example_args = "--te-version 2.18.0",
      .check = check_deterministic_backends,
  };
}

// --- CP073 ---------------------------------------------------------------------------------

void check_qk_clip(const RuleContext& ctx, Reporter& r) {
  const Recipe& recipe = ctx.recipe;
  std::string key;
  for (const char* k : {"model.qk_clip", "model.log_max_attention_logit"}) {
    if (key.empty() && recipe.bool_or(k, false)) key = k;
  }
  if (key.empty() || !uses_te_core_attention(recipe)) return;
  Version te = te_version_or_latest(ctx, r);
  // MCore asks TE for the max attention logit (Megatron-LM d98e8a64
  // megatron/core/extensions/transformer_engine.py:2219-2225) and asserts TE >= 2.9.
  if (te < Version{2, 9, 0, ""}) {
    r.report(key, "qk-clip is only supported in TE 2.9.0 and later (found TE " + te.str() + ")");
    return;
  }
  // TE: return_max_logit turns FlashAttention off, and every backend with FP8 attention
  // (TransformerEngine d0067d0d .../utils.py:756-766); TE 2.9-2.10 also turn FusedAttention off
  // for THD (v2.10 utils.py:534-542).
  if (fp8_attention(recipe)) {
    r.report(key, key.substr(6) +
                      " makes TE return the max attention logit, which disables every attention "
                      "backend with FP8 attention");
    return;
  }
  if (backend(recipe) == "flash") {
    r.report(key, key.substr(6) +
                      " makes TE return the max attention logit, which FlashAttention cannot: "
                      "attention_backend=flash leaves no backend");
    return;
  }
  if (!te_attention_with_cp(recipe)) return;
  BackendFilters f = backend_filters(ctx, te);
  if (uses_thd_input(recipe) && te < Version{2, 11, 0, ""}) {
    f.fused_off.push_back("THD input on TE " + te.str());
  }
  if (f.fused_off.empty()) return;
  r.report(key, key.substr(6) +
                    " turns FlashAttention off (max_logit) and Unfused is off under CP, so only "
                    "FusedAttention could run, but it is off by " +
                    joined(f.fused_off) + ": no attention backend is available");
}

Rule cp073() {
  return {
      .id = "CP073",
      .severity = Severity::kError,
      .family = "backend",
      .title = "qk_clip / log_max_attention_logit need TE >= 2.9 and FusedAttention under CP",
      .rationale =
          "MCore asks TE for the max attention logit and asserts TE >= 2.9. TE then turns "
          "FlashAttention off, and every backend when attention runs in FP8; under CP "
          "(Unfused off) FusedAttention must accept the inputs.",
      .upstream =
          "Megatron-LM d98e8a64 megatron/core/extensions/transformer_engine.py:2219-2225; "
          "TransformerEngine d0067d0d .../dot_product_attention/utils.py:756-766",
      .fix = "upgrade TE to >= 2.9, keep attention in bf16, and use attention_backend=auto",
      .enforced_by = {"mcore", "te"},
      .bad_example = "++model.qk_clip=true ++model.attention_backend=flash",
      .good_example = "++model.qk_clip=true ++model.attention_backend=auto",
      .example_args = "--te-version 2.18.0",
      .check = check_qk_clip,
  };
}

// --- CP074 ---------------------------------------------------------------------------------

void check_fp32_attention(const RuleContext& ctx, Reporter& r) {
  if (!te_attention_with_cp(ctx.recipe) || fp8_attention(ctx.recipe)) return;
  std::string key;
  if (activation_precision(ctx.recipe, key) != "fp32") return;
  r.report(key,
           "attention runs in fp32 (neither bf16 nor fp16 is on): FlashAttention and "
           "FusedAttention need fp16/bf16 and UnfusedDotProductAttention is off under CP, so no "
           "attention backend is available");
}

Rule cp074() {
  return {
      .id = "CP074",
      .severity = Severity::kError,
      .family = "backend",
      .title = "CP needs fp16 or bf16 attention",
      .rationale =
          "FlashAttention and FusedAttention accept only fp16/bf16 (or FP8) inputs, and "
          "UnfusedDotProductAttention, the only fp32 backend, does not support context "
          "parallelism.",
      .upstream =
          "TransformerEngine d0067d0d transformer_engine/pytorch/attention/"
          "dot_product_attention/utils.py:598-640, 1169-1172",
      .fix = "train in bf16 (mixed_precision: bf16_mixed) or use CP=1",
      .enforced_by = {"te"},
      .bad_example = "mixed_precision=null ++model.bf16=false ++model.fp16=false",
      .good_example = "mixed_precision=null ++model.bf16=true ++model.fp16=false",
      .example_args = "",
      .check = check_fp32_attention,
  };
}

}  // namespace

void add_backend_rules(std::vector<Rule>& out) {
  for (Rule (*rule)() : {cp050, cp051, cp052, cp060, cp061, cp062, cp063, cp064, cp065, cp066,
                         cp067, cp068, cp069, cp070, cp071, cp072, cp073, cp074})
    out.push_back(rule());
}

}  // namespace hcp::rules
