// Tests of src/rules/rules_backend.cpp: each rule fires and stays quiet, with its version
// boundaries, framework semantics and locations.
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
    return d.id.empty() && d.severity == Severity::kInfo &&
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

TEST(BackendRules, FlashOffByEnvWarnsThatOnlyFusedRemains) {
  auto ds = run([](Recipe&, Environment& e) {
    e.process_env = {{"NVTE_FLASH_ATTN", "0"}, {"NVTE_FUSED_ATTN", "1"}};
  });
  ASSERT_TRUE(has_id(ds, "CP061"));
  auto both = run([](Recipe&, Environment& e) {
    e.process_env = {{"NVTE_FLASH_ATTN", "0"}, {"NVTE_FUSED_ATTN", "0"}};
  });
  auto it =
      std::find_if(both.begin(), both.end(), [](const Diagnostic& d) { return d.id == "CP061"; });
  ASSERT_NE(it, both.end());
  EXPECT_EQ(it->severity, Severity::kError);
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
    return d.id.empty() && d.message.find("launch environment") != std::string::npos &&
           d.message.find("CP071") != std::string::npos;
  });
  EXPECT_TRUE(noted) << dump(ds);
}

}  // namespace
}  // namespace hcp::test
