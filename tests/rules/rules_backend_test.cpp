// Tests of src/rules/rules_backend.cpp: each rule fires and stays quiet, with its version
// boundaries, framework semantics and locations.
#include <map>
#include <optional>

#include "rule_test_util.h"

namespace hcp::test {
namespace {

std::vector<RuleCase> backend_cases() {
  return {
      {"CP050",
       [](Recipe& r, Environment&) { r.set("model.use_arbitrary_attention_mask", B(true)); },
       [](Recipe& r, Environment&) {
         r.set("model.use_arbitrary_attention_mask", B(true));
         r.set("dataset.enable_in_batch_packing", B(true));
       }},
      {"CP051",
       [](Recipe& r, Environment&) {
         r.set("dataset.packing_buffer_size", I(8));
         r.set("model.cp_comm_type", S("a2a+p2p"));
         r.set("model.hierarchical_context_parallel_sizes", L({2, 2}));
       },
       [](Recipe& r, Environment&) { r.set("dataset.packing_buffer_size", I(8)); }},
      {"CP052",
       [](Recipe& r, Environment&) {
         r.set("dataset.packing_buffer_size", I(8));
         r.set("model.attention_backend", S("flash"));
       },
       [](Recipe& r, Environment&) {
         r.set("dataset.packing_buffer_size", I(8));
         r.set("model.attention_backend", S("fused"));
       }},
      {"CP060", [](Recipe& r, Environment&) { r.set("model.transformer_impl", S("local")); },
       [](Recipe& r, Environment&) { r.set("model.transformer_impl", S("transformer_engine")); }},
      {"CP061", [](Recipe& r, Environment&) { r.set("model.attention_backend", S("unfused")); },
       [](Recipe& r, Environment&) { r.set("model.attention_backend", S("fused")); }},
      {"CP062", [](Recipe&, Environment& e) { e.gpu_sm = 75; },
       [](Recipe&, Environment& e) { e.gpu_sm = 80; }},
      {"CP063",
       [](Recipe& r, Environment&) {
         r.set("model.fp8_dot_product_attention", B(true));
         r.set("model.attention_backend", S("flash"));
       },
       [](Recipe& r, Environment&) { r.set("model.fp8_dot_product_attention", B(true)); }},
      {"CP064",
       [](Recipe& r, Environment&) {
         r.set("model.window_size", L({4095, 0}));
       },
       [](Recipe& r, Environment&) {
         r.set("model.window_size", L({4095, 0}));
         r.set("model.cp_comm_type", S("a2a"));
       }},
      {"CP065", [](Recipe& r, Environment&) { r.set("model.softmax_type", S("learnable")); },
       [](Recipe& r, Environment&) {
         r.set("model.softmax_type", S("learnable"));
         r.set("model.cp_comm_type", S("a2a"));
       }},
      {"CP066",
       [](Recipe& r, Environment& e) {
         r.set("model.multi_latent_attention", B(true));
         r.set("model.cp_comm_type", S("a2a"));
         set_te(e, 2, 10);
       },
       [](Recipe& r, Environment& e) {
         r.set("model.multi_latent_attention", B(true));
         set_te(e, 2, 10);
       }},
      {"CP067", [](Recipe& r, Environment&) { r.set("model.position_embedding_type", S("alibi")); },
       [](Recipe& r, Environment&) { r.set("model.position_embedding_type", S("rope")); }},
      {"CP068",
       [](Recipe& r, Environment&) { r.set("model.attn_mask_type", S("causal_bottom_right")); },
       [](Recipe& r, Environment&) { r.set("model.attn_mask_type", S("causal")); }},
      {"CP069", [](Recipe& r, Environment&) { r.set("model.attention_backend", S("flash")); },
       [](Recipe& r, Environment&) { r.set("model.attention_backend", S("auto")); }},
      {"CP070",
       [](Recipe& r, Environment&) { r.set("model.use_inference_optimized_layers", B(true)); },
       [](Recipe& r, Environment&) {
         r.set("model.use_inference_optimized_layers", B(true));
         r.set("model.context_parallel_size", I(1));
       }},
      {"CP071",
       [](Recipe& r, Environment& e) {
         r.set("model.deterministic_mode", B(true));
         e.process_env = {{"NVTE_ALLOW_NONDETERMINISTIC_ALGO", "1"}, {"NCCL_ALGO", "Ring"}};
       },
       [](Recipe& r, Environment& e) {
         r.set("model.deterministic_mode", B(true));
         e.process_env = {{"NVTE_ALLOW_NONDETERMINISTIC_ALGO", "0"}, {"NCCL_ALGO", "Ring"}};
       }},
      {"CP072",
       [](Recipe& r, Environment& e) {
         r.set("model.deterministic_mode", B(true));
         r.set("model.softmax_type", S("learnable"));
         r.set("model.cp_comm_type", S("a2a"));
         e.process_env = {{"NVTE_ALLOW_NONDETERMINISTIC_ALGO", "0"}, {"NCCL_ALGO", "Ring"}};
       },
       [](Recipe& r, Environment& e) {
         r.set("model.deterministic_mode", B(true));
         r.set("model.cp_comm_type", S("a2a"));
         e.process_env = {{"NVTE_ALLOW_NONDETERMINISTIC_ALGO", "0"}, {"NCCL_ALGO", "Ring"}};
       }},
      {"CP073",
       [](Recipe& r, Environment& e) {
         r.set("model.qk_clip", B(true));
         set_te(e, 2, 8);
       },
       [](Recipe& r, Environment& e) {
         r.set("model.qk_clip", B(true));
         set_te(e, 2, 9);
       }},
      {"CP074",
       [](Recipe& r, Environment&) {
         r.set("model.bf16", B(false));
         r.set("model.fp16", B(false));
       },
       [](Recipe& r, Environment&) {
         r.set("model.bf16", B(true));
         r.set("model.fp16", B(false));
       }},
  };
}

INSTANTIATE_TEST_SUITE_P(Backend, RuleCaseTest, ::testing::ValuesIn(backend_cases()), case_name);

TEST(BackendRules, EveryRuleHasACase) {
  expect_family_covered("backend", backend_cases());
}

TEST(BackendRules, ThdA2aNeedsTe210) {
  auto at = [](int minor) {
    return run([minor](Recipe& r, Environment& e) {
      r.set("dataset.packing_buffer_size", I(8));
      r.set("model.cp_comm_type", S("a2a"));
      set_te(e, 2, minor);
    });
  };
  EXPECT_TRUE(has_id(at(9), "CP051"));
  EXPECT_FALSE(has_id(at(10), "CP051"));
}

TEST(BackendRules, ThdAllGatherNeedsTe218) {
  auto at = [](int minor) {
    return run([minor](Recipe& r, Environment& e) {
      r.set("dataset.packing_buffer_size", I(8));
      r.set("model.cp_comm_type", S("all_gather"));
      set_te(e, 2, minor);
    });
  };
  EXPECT_TRUE(has_id(at(17), "CP051"));
  EXPECT_FALSE(has_id(at(18), "CP051"));
}

TEST(BackendRules, UnknownTeAssumesNewestReleaseAndSaysSo) {
  auto ds = run([](Recipe& r, Environment& e) {
    e.te_version.reset();
    r.set("dataset.packing_buffer_size", I(8));
    r.set("model.cp_comm_type", S("a2a+p2p"));
    r.set("model.hierarchical_context_parallel_sizes", L({2, 2}));
  });
  EXPECT_TRUE(has_id(ds, "CP051"));
  bool noted = std::any_of(ds.begin(), ds.end(), [](const Diagnostic& d) {
    return d.id().rfind("IN", 0) == 0 && d.severity() == Severity::kInfo &&
           d.message.find("CP051") != std::string::npos;
  });
  EXPECT_TRUE(noted) << dump(ds);
}

TEST(BackendRules, SlidingWindowPerLayerListOnlyFlagsRingLayers) {
  // Layers 1-3 slide (skip freq 4: layer 4 is full attention). a2a on SWA layers, p2p on layer 4.
  auto ds = run([](Recipe& r, Environment&) {
    r.set("model.window_size", L({4095, 0}));
    r.set("model.window_attn_skip_freq", I(4));
    r.set("model.cp_comm_type", SL({"a2a", "a2a", "a2a", "p2p"}));
  });
  EXPECT_FALSE(has_id(ds, "CP064")) << dump(ds);
  auto bad = run([](Recipe& r, Environment&) {
    r.set("model.window_size", L({4095, 0}));
    r.set("model.window_attn_skip_freq", I(4));
    r.set("model.cp_comm_type", SL({"a2a", "p2p", "a2a", "p2p"}));
  });
  EXPECT_TRUE(has_id(bad, "CP064")) << dump(bad);
}

TEST(BackendRules, FullWindowIsNotSlidingWindow) {
  auto ds = run([](Recipe& r, Environment&) { r.set("model.window_size", L({-1, 0})); });
  EXPECT_FALSE(has_id(ds, "CP064"));
}

TEST(BackendRules, MlaAnyCommTypeFromTe215) {
  auto ds = run([](Recipe& r, Environment& e) {
    r.set("model.multi_latent_attention", B(true));
    r.set("model.cp_comm_type", S("a2a"));
    set_te(e, 2, 15);
  });
  EXPECT_FALSE(has_id(ds, "CP066"));
  auto old = run([](Recipe& r, Environment& e) {
    r.set("model.multi_latent_attention", B(true));
    set_te(e, 2, 4);
  });
  EXPECT_TRUE(has_id(old, "CP066"));
}

TEST(BackendRules, SinksWithFlashBackendHaveNoFused) {
  auto ds = run([](Recipe& r, Environment&) {
    r.set("model.softmax_type", S("learnable"));
    r.set("model.cp_comm_type", S("a2a"));
    r.set("model.attention_backend", S("flash"));
  });
  EXPECT_TRUE(has_id(ds, "CP065"));
  EXPECT_TRUE(has_id(ds, "CP061")) << dump(ds);
}

// Issue #15 finding 1: MCore >= 0.11 asserts each NVTE_*_ATTN is unset or agrees with the backend.
TEST(BackendRules, NvteVariablesDisagreeingWithTheBackendAreErrors) {
  auto with = [](const char* backend, const std::map<std::string, std::string>& env,
                 int mcore_minor) {
    return run([=](Recipe& r, Environment& e) {
      r.set("model.attention_backend", S(backend));
      e.process_env = env;
      set_mcore(e, 0, mcore_minor);
    });
  };
  auto flash_off = with("auto", {{"NVTE_FLASH_ATTN", "0"}, {"NVTE_FUSED_ATTN", "1"}}, 19);
  EXPECT_EQ(severity_of(flash_off, "CP061"), Severity::kError) << dump(flash_off);
  EXPECT_TRUE(says(flash_off, "CP061", "NVTE_FLASH_ATTN set to 0, but expected 1"));
  auto fused_off = with("auto", {{"NVTE_FUSED_ATTN", "0"}}, 19);
  EXPECT_EQ(severity_of(fused_off, "CP061"), Severity::kError) << dump(fused_off);
  auto fused_flash = with("fused", {{"NVTE_FLASH_ATTN", "1"}}, 19);
  EXPECT_EQ(severity_of(fused_flash, "CP061"), Severity::kError) << dump(fused_flash);
  EXPECT_FALSE(
      has_id(with("fused", {{"NVTE_FLASH_ATTN", "0"}, {"NVTE_FUSED_ATTN", "1"}}, 19), "CP061"));
  EXPECT_FALSE(has_id(with("auto", {{"NVTE_FLASH_ATTN", "1"}}, 19), "CP061"));
  EXPECT_FALSE(has_id(with("auto", {{"NVTE_FUSED_ATTN", "0"}}, 10), "CP061"));  // before 0.11
}

// Issue #15 finding 2: MCore builds CustomRecipe without fp8_dpa; Bridge keeps the recipe in
// mixed_precision.
TEST(BackendRules, CustomRecipeRunsNoFp8AttentionAndMixedPrecisionRecipeIsRead) {
  auto custom = run([](Recipe& r, Environment&) {
    r.set("model.fp8_dot_product_attention", B(true));
    r.set("model.fp8_recipe", S("custom"));
    r.set("model.attention_backend", S("flash"));
    r.set("dataset.packing_buffer_size", I(8));
  });
  EXPECT_FALSE(has_id(custom, "CP063")) << dump(custom);
  auto mxfp8 = run([](Recipe& r, Environment& e) {
    r.set("mixed_precision.fp8_recipe", S("mxfp8"));
    r.set("mixed_precision.bf16", B(true));
    r.set("mixed_precision.fp8_dot_product_attention", B(true));
    r.set("dataset.packing_buffer_size", I(8));
    set_te(e, 2, 14);
  });
  EXPECT_TRUE(says(mxfp8, "CP063", "MXFP8 attention with THD")) << dump(mxfp8);
}

// Issue #15 finding 12: current scaling turns FusedAttention off below sm100; FP8 with a sliding
// window needs sm100 (TE >= 2.12) and has no backend before TE 2.12.
TEST(BackendRules, Fp8AttentionCurrentScalingAndSlidingWindowNeedSm100) {
  auto tensorwise = [](std::optional<int> sm) {
    return run([sm](Recipe& r, Environment& e) {
      r.set("mixed_precision.bf16", B(true));
      r.set("mixed_precision.fp8_recipe", S("tensorwise"));
      r.set("mixed_precision.fp8_dot_product_attention", B(true));
      if (sm) e.gpu_sm = *sm;
    });
  };
  auto h100 = tensorwise(90);
  EXPECT_EQ(severity_of(h100, "CP063"), Severity::kError) << dump(h100);
  EXPECT_FALSE(has_id(tensorwise(100), "CP063"));
  auto unknown = tensorwise(std::nullopt);
  EXPECT_EQ(severity_of(unknown, "CP063"), Severity::kWarning) << dump(unknown);
  EXPECT_TRUE(says(unknown, "CP063", "--gpu-sm")) << dump(unknown);
  auto swa = [](int te_minor, int sm) {
    return run([=](Recipe& r, Environment& e) {
      r.set("model.fp8_dot_product_attention", B(true));
      r.set("model.window_size", L({4095, 0}));
      r.set("model.cp_comm_type", S("a2a"));
      set_te(e, 2, te_minor);
      e.gpu_sm = sm;
    });
  };
  EXPECT_TRUE(says(swa(11, 100), "CP063", "sliding window")) << dump(swa(11, 100));
  EXPECT_TRUE(says(swa(18, 90), "CP063", "sliding window")) << dump(swa(18, 90));
  EXPECT_FALSE(has_id(swa(18, 100), "CP063")) << dump(swa(18, 100));
}

// Issue #15 finding 3: TE sees the configured a2a+p2p; its filters and its THD / bias asserts act
// before the fallback for degenerate HCP sizes.
TEST(BackendRules, DegenerateHcpSizesStillCountAsA2aP2p) {
  auto sinks = run([](Recipe& r, Environment&) {
    r.set("model.softmax_type", S("learnable"));
    r.set("model.cp_comm_type", S("a2a+p2p"));
    r.set("model.hierarchical_context_parallel_sizes", L({4, 1}));
  });
  EXPECT_TRUE(says(sinks, "CP065", "got a2a+p2p")) << dump(sinks);
  auto thd = run([](Recipe& r, Environment&) {
    r.set("dataset.packing_buffer_size", I(8));
    r.set("model.cp_comm_type", S("a2a+p2p"));
    r.set("model.hierarchical_context_parallel_sizes", L({1, 4}));
  });
  EXPECT_TRUE(says(thd, "CP051", "a2a+p2p")) << dump(thd);
  auto bias = run([](Recipe& r, Environment&) {
    r.set("model.position_embedding_type", S("relative"));
    r.set("model.cp_comm_type", S("a2a+p2p"));
    r.set("model.hierarchical_context_parallel_sizes", L({1, 4}));
  });
  EXPECT_TRUE(says(bias, "CP067", "hierarchical CP")) << dump(bias);
}

// Issue #15 finding 4: a2a (TE 1.11) and all_gather (TE 1.10) assert no_bias from their start.
TEST(BackendRules, BiasWithA2aOrAllGatherFailsOnEveryTe) {
  auto at = [](const char* comm, int minor) {
    return run([=](Recipe& r, Environment& e) {
      r.set("model.position_embedding_type", S("relative"));
      r.set("model.cp_comm_type", S(comm));
      set_te(e, 1, minor);
    });
  };
  EXPECT_TRUE(says(at("all_gather", 10), "CP067", "all_gather")) << dump(at("all_gather", 10));
  EXPECT_TRUE(says(at("a2a", 11), "CP067", "cp_comm_type='a2a'")) << dump(at("a2a", 11));
  EXPECT_FALSE(says(at("p2p", 11), "CP067", "No support for cp_comm_type"));
}

// Issue #15 finding 5: from MCore 0.19 the MLM CLI fills the determinism variables and rejects
// NCCL_ALGO=Tree; Bridge and MLM 0.18 require NCCL_ALGO set.
TEST(BackendRules, DeterministicEnvUnderMlmFromMcore019) {
  auto mlm = [](int minor, const std::map<std::string, std::string>& env) {
    return run([=](Recipe& r, Environment& e) {
      r.set("model.deterministic_mode", B(true));
      e.framework = Framework::kMlm;
      e.process_env = env;
      set_mcore(e, 0, minor);
    });
  };
  std::map<std::string, std::string> other = {{"CUDA_DEVICE_MAX_CONNECTIONS", "1"}};
  EXPECT_FALSE(has_id(mlm(19, other), "CP071")) << dump(mlm(19, other));
  auto tree = mlm(19, {{"NCCL_ALGO", "Tree"}});
  EXPECT_TRUE(says(tree, "CP071", "Tree")) << dump(tree);
  EXPECT_FALSE(has_id(mlm(19, {{"NCCL_ALGO", "Ring,^NVLS"}}), "CP071"));
  EXPECT_TRUE(has_id(mlm(19, {{"NVTE_ALLOW_NONDETERMINISTIC_ALGO", "1"}}), "CP071"));
  EXPECT_TRUE(has_id(mlm(18, other), "CP071"));
  auto bridge = run([&](Recipe& r, Environment& e) {
    r.set("model.deterministic_mode", B(true));
    e.process_env = other;
  });
  EXPECT_TRUE(has_id(bridge, "CP071"));
}

// Issue #15 finding 11.
TEST(BackendRules, DeterministicModeRemovesFusedAttention) {
  auto sinks_at = [](int te_minor) {
    return run([=](Recipe& r, Environment& e) {
      r.set("model.deterministic_mode", B(true));
      r.set("model.softmax_type", S("off-by-one"));
      r.set("model.cp_comm_type", S("a2a"));
      set_te(e, 2, te_minor);
    });
  };
  EXPECT_TRUE(says(sinks_at(12), "CP072", "softmax_type='off-by-one'")) << dump(sinks_at(12));
  EXPECT_FALSE(has_id(sinks_at(11), "CP072"));
  auto a100 = [](bool fused_needed, int sm) {
    return run([=](Recipe& r, Environment& e) {
      r.set("model.deterministic_mode", B(true));
      if (fused_needed) r.set("model.attention_backend", S("fused"));
      e.gpu_sm = sm;
    });
  };
  EXPECT_TRUE(says(a100(true, 80), "CP072", "sm80")) << dump(a100(true, 80));
  EXPECT_FALSE(has_id(a100(false, 80), "CP072"));
  EXPECT_FALSE(has_id(a100(true, 90), "CP072"));
}

// Issue #15 finding 14.
TEST(BackendRules, QkClipNeedsTe29AndLeavesOnlyFusedAttention) {
  auto ds = [](const char* key, int te_minor, bool fp8, const char* backend) {
    return run([=](Recipe& r, Environment& e) {
      r.set(key, B(true));
      r.set("model.attention_backend", S(backend));
      if (fp8) r.set("model.fp8_dot_product_attention", B(true));
      set_te(e, 2, te_minor);
    });
  };
  EXPECT_TRUE(says(ds("model.qk_clip", 8, false, "auto"), "CP073", "TE 2.9.0"));
  EXPECT_TRUE(says(ds("model.log_max_attention_logit", 18, true, "auto"), "CP073",
                   "every attention backend"));
  EXPECT_TRUE(says(ds("model.qk_clip", 18, false, "flash"), "CP073", "attention_backend=flash"));
  EXPECT_FALSE(has_id(ds("model.qk_clip", 18, false, "auto"), "CP073"));
  auto sliding_p2p = run([](Recipe& r, Environment&) {
    r.set("model.qk_clip", B(true));
    r.set("model.window_size", L({4095, 0}));
  });
  EXPECT_TRUE(says(sliding_p2p, "CP073", "sliding window with p2p")) << dump(sliding_p2p);
}

// Issue #15 finding 15.
TEST(BackendRules, Fp32AttentionHasNoBackendUnderCp) {
  auto map = run([](Recipe& r, Environment&) {
    r.set("mixed_precision.bf16", B(false));
    r.set("mixed_precision.fp16", B(false));
  });
  EXPECT_TRUE(has_id(map, "CP074")) << dump(map);
  auto preset = run([](Recipe& r, Environment&) {
    r.set("mixed_precision", S("bf16_mixed"));
    r.set("model.bf16", B(false));
    r.set("model.fp16", B(false));
  });
  EXPECT_FALSE(has_id(preset, "CP074")) << dump(preset);
  auto unknown = run(nullptr);  // no precision given at all: not assumed fp32
  EXPECT_FALSE(has_id(unknown, "CP074"));
  auto cp1 = run([](Recipe& r, Environment&) {
    r.set("mixed_precision.bf16", B(false));
    r.set("model.context_parallel_size", I(1));
  });
  EXPECT_FALSE(has_id(cp1, "CP074"));
}

TEST(BackendRules, DsaAndDsv4VariantsSkipTeBackendRules) {
  auto ds = run([](Recipe& r, Environment&) {
    r.set("model.experimental_attention_variant", S("dsv4_hybrid"));
    r.set("model.attention_backend", S("unfused"));
  });
  EXPECT_FALSE(has_id(ds, "CP061"));
}

TEST(BackendRules, DeterministicWithoutEnvIsReportedAsUnknownInput) {
  auto ds = run([](Recipe& r, Environment&) { r.set("model.deterministic_mode", B(true)); });
  EXPECT_FALSE(has_id(ds, "CP071"));
  bool noted = std::any_of(ds.begin(), ds.end(), [](const Diagnostic& d) {
    return d.id().rfind("IN", 0) == 0 &&
           d.message.find("launch environment") != std::string::npos &&
           d.message.find("CP071") != std::string::npos;
  });
  EXPECT_TRUE(noted) << dump(ds);
}

}  // namespace
}  // namespace hcp::test
