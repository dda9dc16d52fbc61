// Firing and non-firing tests of every rule in CP050–CP114 on recipes built in memory, plus
// focused edge cases (version boundaries, per-layer lists, framework semantics).
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "hcp/rules.h"

namespace hcp {
namespace {

using Mutator = std::function<void(Recipe&, Environment&)>;

Value I(int64_t v) {
  return Value::integer(v, Location{"test.yaml", 1, 1});
}
Value B(bool v) {
  return Value::boolean(v, Location{"test.yaml", 1, 1});
}
Value S(std::string v) {
  return Value::string(std::move(v), Location{"test.yaml", 1, 1});
}
Value L(std::vector<int64_t> v) {
  std::vector<Value> items;
  for (int64_t x : v)
    items.push_back(I(x));
  return Value::list(std::move(items));
}
Value SL(std::vector<std::string> v) {
  std::vector<Value> items;
  for (auto& x : v)
    items.push_back(S(x));
  return Value::list(std::move(items));
}

/// A clean 4-layer GQA model: TP2 CP4 p2p, S=8192, 32 heads, 8 groups, on 16 GPUs.
Recipe base_recipe() {
  Recipe r;
  r.name = "test";
  r.path = "test.yaml";
  r.set("model.tensor_model_parallel_size", I(2));
  r.set("model.pipeline_model_parallel_size", I(1));
  r.set("model.context_parallel_size", I(4));
  r.set("model.num_layers", I(4));
  r.set("model.hidden_size", I(4096));
  r.set("model.num_attention_heads", I(32));
  r.set("model.num_query_groups", I(8));
  r.set("model.seq_length", I(8192));
  r.set("model.sequence_parallel", B(true));
  r.set("model.cp_comm_type", S("p2p"));
  r.set("model.calculate_per_token_loss", B(true));
  r.set("dataset.seq_length", I(8192));
  r.set("train.micro_batch_size", I(1));
  r.set("train.global_batch_size", I(16));
  return r;
}

Environment base_env() {
  Environment env;
  env.world_size = 16;
  env.gpus_per_node = 8;
  env.te_version = Version{2, 18, 0, {}};
  env.mcore_version = Version{0, 19, 0, {}};
  return env;
}

std::vector<Diagnostic> run(const Mutator& mutate) {
  Recipe recipe = base_recipe();
  Environment env = base_env();
  if (mutate) mutate(recipe, env);
  return check_rules(recipe, env);
}

bool has_id(const std::vector<Diagnostic>& ds, const std::string& id) {
  return std::any_of(ds.begin(), ds.end(), [&](const Diagnostic& d) { return d.id == id; });
}

std::string dump(const std::vector<Diagnostic>& ds) {
  std::string text;
  for (const Diagnostic& d : ds) {
    text += "  [" + d.id + "] " + severity_name(d.severity) + ": " + d.message + "\n";
  }
  return text;
}

struct Case {
  std::string id;
  Mutator bad;
  Mutator good;
};

void set_te(Environment& env, int major, int minor) {
  env.te_version = Version{major, minor, 0, {}};
}

std::vector<Case> cases() {
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
      {"CP100",
       [](Recipe& r, Environment&) { r.set("model.experimental_attention_variant", S("dsa")); },
       [](Recipe& r, Environment&) {
         r.set("model.experimental_attention_variant", S("dsa"));
         r.set("model.cp_comm_type", S("allgather"));
       }},
      {"CP101", [](Recipe& r, Environment&) { r.set("model.linear_num_key_heads", I(4)); },
       [](Recipe& r, Environment&) { r.set("model.linear_num_key_heads", I(16)); }},
      {"CP102",
       [](Recipe& r, Environment&) {
         r.set("model.hybrid_layer_pattern", S("M*M*"));
         r.set("model.mamba_num_heads", I(12));
       },
       [](Recipe& r, Environment&) {
         r.set("model.hybrid_layer_pattern", S("M*M*"));
         r.set("model.mamba_num_heads", I(64));
       }},
      {"CP103", [](Recipe& r, Environment&) { r.set("model.batch_invariant_mode", B(true)); },
       [](Recipe& r, Environment&) {
         r.set("model.batch_invariant_mode", B(true));
         r.set("model.context_parallel_size", I(1));
       }},
      {"CP110", [](Recipe& r, Environment&) { r.set("ddp.megatron_fsdp_version", I(2)); },
       [](Recipe& r, Environment&) { r.set("ddp.megatron_fsdp_version", I(1)); }},
      {"CP111",
       [](Recipe&, Environment& e) {
         e.framework = Framework::kMlm;
         e.process_env = {{"CUDA_DEVICE_MAX_CONNECTIONS", "8"}};
       },
       [](Recipe&, Environment& e) {
         e.framework = Framework::kMlm;
         e.process_env = {{"CUDA_DEVICE_MAX_CONNECTIONS", "1"}};
       }},
      {"CP112",
       [](Recipe& r, Environment&) {
         r.set("dist.use_torch_fsdp2", B(true));
         r.set("model.pipeline_model_parallel_size", I(2));
       },
       [](Recipe& r, Environment&) { r.set("dist.use_torch_fsdp2", B(true)); }},
      {"CP113",
       [](Recipe& r, Environment&) {
         r.set("model.tensor_model_parallel_size", I(1));
         r.set("model.context_parallel_size", I(1));
         r.set("model.cp_comm_type", S("a2a+p2p"));
       },
       [](Recipe& r, Environment&) {
         r.set("model.tensor_model_parallel_size", I(1));
         r.set("model.context_parallel_size", I(1));
       }},
      {"CP114", [](Recipe& r, Environment&) { r.set("dist.use_decentralized_pg", B(true)); },
       [](Recipe& r, Environment&) {
         r.set("dist.use_decentralized_pg", B(true));
         r.set("dist.use_gloo_process_groups", B(false));
       }},
  };
}

class Rules2Catalog : public ::testing::TestWithParam<Case> {};

TEST_P(Rules2Catalog, BadFires) {
  auto ds = run(GetParam().bad);
  EXPECT_TRUE(has_id(ds, GetParam().id)) << "diagnostics:\n" << dump(ds);
}

TEST_P(Rules2Catalog, GoodIsQuiet) {
  auto ds = run(GetParam().good);
  EXPECT_FALSE(has_id(ds, GetParam().id)) << "diagnostics:\n" << dump(ds);
}

INSTANTIATE_TEST_SUITE_P(All, Rules2Catalog, ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<Case>& info) { return info.param.id; });

TEST(Rules2Catalog, EveryRuleOfTheRangeHasACase) {
  std::vector<std::string> ids;
  for (const Case& c : cases())
    ids.push_back(c.id);
  int counted = 0;
  for (const Rule& rule : rule_registry()) {
    if (rule.id < "CP050") continue;
    ++counted;
    EXPECT_NE(std::find(ids.begin(), ids.end(), std::string(rule.id)), ids.end()) << rule.id;
    EXPECT_FALSE(rule.title.empty()) << rule.id;
    EXPECT_FALSE(rule.upstream.empty()) << rule.id;
    EXPECT_FALSE(rule.bad_example.empty()) << rule.id;
  }
  EXPECT_EQ(counted, static_cast<int>(cases().size()));
}

TEST(Rules2Catalog, BaseRecipeIsClean) {
  auto ds = run(nullptr);
  for (const Diagnostic& d : ds)
    EXPECT_NE(d.severity, Severity::kError) << dump(ds);
}

// --- Focused edge cases ---------------------------------------------------------------------

TEST(Rules2Backend, ThdA2aNeedsTe210) {
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

TEST(Rules2Backend, ThdAllGatherNeedsTe218) {
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

TEST(Rules2Backend, UnknownTeAssumesNewestReleaseAndSaysSo) {
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

TEST(Rules2Backend, SlidingWindowPerLayerListOnlyFlagsRingLayers) {
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

TEST(Rules2Backend, FullWindowIsNotSlidingWindow) {
  auto ds = run([](Recipe& r, Environment&) { r.set("model.window_size", L({-1, 0})); });
  EXPECT_FALSE(has_id(ds, "CP064"));
}

TEST(Rules2Backend, MlaAnyCommTypeFromTe215) {
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

TEST(Rules2Backend, SinksWithFlashBackendHaveNoFused) {
  auto ds = run([](Recipe& r, Environment&) {
    r.set("model.softmax_type", S("learnable"));
    r.set("model.cp_comm_type", S("a2a"));
    r.set("model.attention_backend", S("flash"));
  });
  EXPECT_TRUE(has_id(ds, "CP065"));
  EXPECT_TRUE(has_id(ds, "CP061")) << dump(ds);
}

TEST(Rules2Backend, FlashOffByEnvWarnsThatOnlyFusedRemains) {
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

TEST(Rules2Backend, DsaAndDsv4VariantsSkipTeBackendRules) {
  auto ds = run([](Recipe& r, Environment&) {
    r.set("model.experimental_attention_variant", S("dsv4_hybrid"));
    r.set("model.attention_backend", S("unfused"));
  });
  EXPECT_FALSE(has_id(ds, "CP061"));
}

TEST(Rules2Backend, DeterministicWithoutEnvIsReportedAsUnknownInput) {
  auto ds = run([](Recipe& r, Environment&) { r.set("model.deterministic_mode", B(true)); });
  EXPECT_FALSE(has_id(ds, "CP071"));
  bool noted = std::any_of(ds.begin(), ds.end(), [](const Diagnostic& d) {
    return d.id.empty() && d.message.find("launch environment") != std::string::npos &&
           d.message.find("CP071") != std::string::npos;
  });
  EXPECT_TRUE(noted) << dump(ds);
}

TEST(Rules2Dynamic, HybridRestrictionsAreWarningsUnderBridge) {
  auto ds = run([](Recipe& r, Environment&) {
    r.set("model.hybrid_context_parallel", B(true));
    r.set("model.pipeline_model_parallel_size", I(2));
    r.set("model.max_seqlen_per_dp_cp_rank", I(4096));
  });
  auto it = std::find_if(ds.begin(), ds.end(), [](const Diagnostic& d) { return d.id == "CP080"; });
  ASSERT_NE(it, ds.end());
  EXPECT_EQ(it->severity, Severity::kWarning);
}

TEST(Rules2Dynamic, NonPowerOfTwoDomainWarns) {
  auto ds = run([](Recipe& r, Environment& e) {
    r.set("model.hybrid_context_parallel", B(true));
    r.set("model.context_parallel_size", I(2));
    e.world_size = 12;  // TP2 -> DP3, DP*CP = 6
  });
  auto it = std::find_if(ds.begin(), ds.end(), [](const Diagnostic& d) { return d.id == "CP081"; });
  ASSERT_NE(it, ds.end());
  EXPECT_EQ(it->severity, Severity::kWarning);
}

TEST(Rules2Dynamic, DevCapacityUsesCpForDpBalanced) {
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

TEST(Rules2Variants, GdnChunkwiseDividesByTpOnly) {
  auto ds = run([](Recipe& r, Environment&) {
    r.set("model.linear_num_key_heads", I(4));
    r.set("model.linear_cp_mode", S("chunkwise"));
  });
  EXPECT_FALSE(has_id(ds, "CP101"));
}

TEST(Rules2Variants, MambaGroupsFewerThanCpMustDivideIt) {
  auto ds = run([](Recipe& r, Environment&) {
    r.set("model.hybrid_layer_pattern", S("M*"));
    r.set("model.mamba_num_heads", I(64));
    r.set("model.mamba_num_groups", I(6));  // 3 per TP rank, CP=4
  });
  EXPECT_TRUE(has_id(ds, "CP102"));
}

TEST(Rules2Env, FsdpWithOneConnectionWarns) {
  auto ds = run([](Recipe& r, Environment& e) {
    r.set("dist.use_megatron_fsdp", B(true));
    e.process_env = {{"CUDA_DEVICE_MAX_CONNECTIONS", "1"}};
  });
  auto it = std::find_if(ds.begin(), ds.end(), [](const Diagnostic& d) { return d.id == "CP111"; });
  ASSERT_NE(it, ds.end());
  EXPECT_EQ(it->severity, Severity::kWarning);
}

TEST(Rules2Env, DeviceConnectionsIsWarningUnderBridge) {
  auto ds = run([](Recipe&, Environment& e) {
    e.process_env = {{"CUDA_DEVICE_MAX_CONNECTIONS", "8"}};
  });
  auto it = std::find_if(ds.begin(), ds.end(), [](const Diagnostic& d) { return d.id == "CP111"; });
  ASSERT_NE(it, ds.end());
  EXPECT_EQ(it->severity, Severity::kWarning);
}

TEST(Rules2Env, Sm100DoesNotNeedOneConnection) {
  auto ds = run([](Recipe&, Environment& e) {
    e.framework = Framework::kMlm;
    e.gpu_sm = 100;
    e.process_env = {{"CUDA_DEVICE_MAX_CONNECTIONS", "8"}};
  });
  EXPECT_FALSE(has_id(ds, "CP111"));
}

TEST(Rules2Registry, DiagnosticsCarryEnforcedBy) {
  auto ds = run([](Recipe& r, Environment&) { r.set("model.batch_invariant_mode", B(true)); });
  auto it = std::find_if(ds.begin(), ds.end(), [](const Diagnostic& d) { return d.id == "CP103"; });
  ASSERT_NE(it, ds.end());
  EXPECT_EQ(it->enforced_by, std::vector<std::string>{"mcore"});
  EXPECT_EQ(it->location.file, "test.yaml");
}

}  // namespace
}  // namespace hcp
