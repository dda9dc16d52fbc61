// Tests of src/rules/rules_dynamic.cpp: each rule fires and stays quiet, with its version
// boundaries, framework semantics and locations.
#include "rule_test_util.h"

namespace hcp::test {
namespace {

std::vector<RuleCase> dynamic_cases() {
  return {
      {"CP080",
       [](Recipe& r, Environment& e) {
         e.framework = Framework::kMlm;
         r.set("model.hybrid_context_parallel", B(true));
         r.set("model.pipeline_model_parallel_size", I(2));
       },
       [](Recipe& r, Environment& e) {
         e.framework = Framework::kMlm;
         r.set("model.hybrid_context_parallel", B(true));
       }},
      {"CP081",
       [](Recipe& r, Environment& e) {
         r.set("model.hybrid_context_parallel", B(true));
         r.set("model.context_parallel_size", I(3));
         e.world_size = 6;
       },
       [](Recipe& r, Environment&) { r.set("model.hybrid_context_parallel", B(true)); }},
      {"CP082", [](Recipe& r, Environment&) { r.set("model.hybrid_context_parallel", B(true)); },
       [](Recipe& r, Environment&) {
         r.set("model.hybrid_context_parallel", B(true));
         r.set("model.max_seqlen_per_dp_cp_rank", I(1024));
       }},
      {"CP083",
       [](Recipe& r, Environment&) {
         r.set("model.hybrid_context_parallel", B(true));
         r.set("model.max_seqlen_per_dp_cp_rank", I(512));
       },
       [](Recipe& r, Environment&) {
         r.set("model.hybrid_context_parallel", B(true));
         r.set("model.max_seqlen_per_dp_cp_rank", I(1024));
       }},
      {"CP084",
       [](Recipe& r, Environment&) {
         r.set("model.hybrid_context_parallel", B(true));
         r.set("model.seq_length", I(8200));
       },
       [](Recipe& r, Environment&) { r.set("model.hybrid_context_parallel", B(true)); }},
      {"CP085",
       [](Recipe& r, Environment&) {
         r.set("model.hybrid_context_parallel", B(true));
         r.set("model.multi_latent_attention", B(true));
       },
       [](Recipe& r, Environment&) { r.set("model.multi_latent_attention", B(true)); }},
      {"CP086", [](Recipe& r, Environment&) { r.set("model.hybrid_context_parallel", B(true)); },
       [](Recipe& r, Environment& e) {
         r.set("model.hybrid_context_parallel", B(true));
         e.mcore_version = Version{0, 20, 0, {}};
       }},
      {"CP087",
       [](Recipe& r, Environment&) {
         r.set("model.dynamic_context_parallel", B(true));
         r.set("model.cp_comm_type", S("a2a+p2p"));
         r.set("model.hierarchical_context_parallel_sizes", L({2, 2}));
       },
       [](Recipe& r, Environment&) { r.set("model.dynamic_context_parallel", B(true)); }},
      {"CP088",
       [](Recipe& r, Environment&) {
         r.set("model.dynamic_context_parallel", B(true));
         r.set("model.hybrid_context_parallel", B(true));
       },
       [](Recipe& r, Environment&) { r.set("model.dynamic_context_parallel", B(true)); }},
      {"CP089",
       [](Recipe& r, Environment&) {
         r.set("model.dynamic_context_parallel", B(true));
         r.set("model.sequence_packing_scheduler", S("dp_balanced"));
       },
       [](Recipe& r, Environment&) { r.set("model.dynamic_context_parallel", B(true)); }},
      {"CP090",
       [](Recipe& r, Environment&) {
         r.set("model.dynamic_context_parallel", B(true));
         r.set("model.min_dynamic_context_parallel_size", I(16));
       },
       [](Recipe& r, Environment&) {
         r.set("model.dynamic_context_parallel", B(true));
         r.set("model.min_dynamic_context_parallel_size", I(4));
       }},
      {"CP091",
       [](Recipe& r, Environment& e) {
         e.framework = Framework::kMlm;
         r.set("model.dynamic_context_parallel", B(true));
         r.set("dataset.dataloader_type", S("cyclic"));
       },
       [](Recipe& r, Environment& e) {
         e.framework = Framework::kMlm;
         r.set("model.dynamic_context_parallel", B(true));
         r.set("dataset.dataloader_type", S("single"));
       }},
      {"CP092",
       [](Recipe& r, Environment&) {
         r.set("model.sequence_packing_scheduler", S("dp_balanced"));
         r.set("model.cuda_graph_impl", S("transformer_engine"));
       },
       [](Recipe& r, Environment&) {
         r.set("model.sequence_packing_scheduler", S("dp_balanced"));
         r.set("model.cuda_graph_impl", S("transformer_engine"));
         r.set("model.pad_packed_seq_alignment", S("max"));
         r.set("model.thd_max_packed_sequences", I(8));
         r.set("model.max_seqlen_per_dp_cp_rank", I(2048));
       }},
      {"CP093",
       [](Recipe& r, Environment&) {
         r.set("model.pad_packed_seq_alignment", I(4096));
         r.set("model.max_seqlen_per_dp_cp_rank", I(2048));
       },
       [](Recipe& r, Environment&) {
         r.set("model.pad_packed_seq_alignment", I(128));
         r.set("model.max_seqlen_per_dp_cp_rank", I(2048));
       }},
      {"CP094",
       [](Recipe& r, Environment& e) {
         r.set("model.sequence_packing_scheduler", S("dp_balanced"));
         set_te(e, 2, 8);
       },
       [](Recipe& r, Environment&) {
         r.set("model.sequence_packing_scheduler", S("dp_balanced"));
       }},
      {"CP095", [](Recipe& r, Environment&) { r.set("model.cp_partition_mode", S("contiguous")); },
       [](Recipe& r, Environment&) { r.set("model.cp_partition_mode", S("zigzag")); }},
      {"CP096", [](Recipe& r, Environment&) { r.set("model.hybrid_context_parallel", B(true)); },
       [](Recipe& r, Environment& e) {
         r.set("model.hybrid_context_parallel", B(true));
         e.framework = Framework::kMlm;
       }},
  };
}

INSTANTIATE_TEST_SUITE_P(Dynamic, RuleCaseTest, ::testing::ValuesIn(dynamic_cases()), case_name);

TEST(DynamicRules, EveryRuleHasACase) {
  expect_family_covered("dynamic", dynamic_cases());
}

TEST(DynamicRules, HybridRestrictionsAreWarningsUnderBridge) {
  auto ds = run([](Recipe& r, Environment&) {
    r.set("model.hybrid_context_parallel", B(true));
    r.set("model.pipeline_model_parallel_size", I(2));
    r.set("model.max_seqlen_per_dp_cp_rank", I(4096));
  });
  auto it =
      std::find_if(ds.begin(), ds.end(), [](const Diagnostic& d) { return d.id() == "CP080"; });
  ASSERT_NE(it, ds.end());
  EXPECT_EQ(it->severity(), Severity::kWarning);
}

// Issue #15 finding 10: the CLI's CUDA-graph assert reads args.enable_cuda_graph.
TEST(DynamicRules, HybridCudaGraphClauseReadsEnableCudaGraphUnderMlm) {
  auto with = [](const char* key, Value v) {
    return run([=](Recipe& r, Environment& e) {
      e.framework = Framework::kMlm;
      r.set("model.hybrid_context_parallel", B(true));
      r.set(key, v);
    });
  };
  auto impl = with("model.cuda_graph_impl", S("transformer_engine"));
  EXPECT_EQ(severity_of(impl, "CP080"), Severity::kWarning) << dump(impl);
  auto enable = with("model.enable_cuda_graph", B(true));
  EXPECT_EQ(severity_of(enable, "CP080"), Severity::kError) << dump(enable);
  EXPECT_TRUE(says(enable, "CP080", "not supported with CUDA Graph"));
}

TEST(DynamicRules, NonPowerOfTwoDomainWarns) {
  auto ds = run([](Recipe& r, Environment& e) {
    r.set("model.hybrid_context_parallel", B(true));
    r.set("model.context_parallel_size", I(2));
    e.world_size = 12;  // TP2 -> DP3, DP*CP = 6
  });
  auto it =
      std::find_if(ds.begin(), ds.end(), [](const Diagnostic& d) { return d.id() == "CP081"; });
  ASSERT_NE(it, ds.end());
  EXPECT_EQ(it->severity(), Severity::kWarning);
}

TEST(DynamicRules, DevCapacityUsesCpForDpBalanced) {
  // dp_balanced: CP(4) * 1024 = 4096 < 8192.
  auto ds = run([](Recipe& r, Environment&) {
    r.set("model.sequence_packing_scheduler", S("dp_balanced"));
    r.set("model.max_seqlen_per_dp_cp_rank", I(1024));
  });
  EXPECT_TRUE(has_id(ds, "CP083"));
  // default_dynamic_cp: DP*CP = 2*4 = 8 ranks, 8 * 1024 = 8192 >= 8192.
  auto ok = run([](Recipe& r, Environment&) {
    r.set("model.dynamic_context_parallel", B(true));
    r.set("model.max_seqlen_per_dp_cp_rank", I(1024));
  });
  EXPECT_FALSE(has_id(ok, "CP083")) << dump(ok);
}

}  // namespace
}  // namespace hcp::test
