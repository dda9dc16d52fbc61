// Tests of src/rules/rules_env.cpp: each rule fires and stays quiet, with its version boundaries,
// framework semantics and locations.
#include "rule_test_util.h"

namespace hcp::test {
namespace {

std::vector<RuleCase> env_cases() {
  return {
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

INSTANTIATE_TEST_SUITE_P(Env, RuleCaseTest, ::testing::ValuesIn(env_cases()), case_name);

TEST(EnvRules, EveryRuleHasACase) {
  expect_family_covered("env", env_cases());
}

// Issue #15 finding 9: Bridge (Megatron FSDP) and MLM (both FSDPs) assert it.
TEST(EnvRules, FsdpWithOneConnectionIsAnError) {
  auto mfsdp = run([](Recipe& r, Environment& e) {
    r.set("dist.use_megatron_fsdp", B(true));
    e.process_env = {{"CUDA_DEVICE_MAX_CONNECTIONS", "1"}};
  });
  EXPECT_EQ(severity_of(mfsdp, "CP111"), Severity::kError) << dump(mfsdp);
  auto torch_mlm = run([](Recipe& r, Environment& e) {
    r.set("dist.use_torch_fsdp2", B(true));
    e.framework = Framework::kMlm;
    e.process_env = {{"CUDA_DEVICE_MAX_CONNECTIONS", "1"}};
  });
  EXPECT_EQ(severity_of(torch_mlm, "CP111"), Severity::kError) << dump(torch_mlm);
  auto torch_bridge = run([](Recipe& r, Environment& e) {
    r.set("dist.use_torch_fsdp2", B(true));
    e.process_env = {{"CUDA_DEVICE_MAX_CONNECTIONS", "1"}};
  });
  EXPECT_EQ(severity_of(torch_bridge, "CP111"), Severity::kWarning) << dump(torch_bridge);
  auto unset = run([](Recipe& r, Environment& e) {
    r.set("dist.use_megatron_fsdp", B(true));
    e.process_env = {{"NCCL_DEBUG", "INFO"}};
  });
  EXPECT_FALSE(has_id(unset, "CP111"));
}

// Issue #15 (Blackwell): without --gpu-sm the message names the assumed GPU and the flag.
TEST(EnvRules, UnknownGpuIsAssumedPreBlackwellAndSaysSo) {
  auto ds = run([](Recipe&, Environment& e) {
    e.framework = Framework::kMlm;
    e.process_env = {{"CUDA_DEVICE_MAX_CONNECTIONS", "8"}};
  });
  EXPECT_TRUE(says(ds, "CP111", "assumed one before Blackwell")) << dump(ds);
  EXPECT_TRUE(says(ds, "CP111", "--gpu-sm 100")) << dump(ds);
  auto hopper = run([](Recipe&, Environment& e) {
    e.framework = Framework::kMlm;
    e.gpu_sm = 90;
    e.process_env = {{"CUDA_DEVICE_MAX_CONNECTIONS", "8"}};
  });
  EXPECT_TRUE(says(hopper, "CP111", "on sm90")) << dump(hopper);
  EXPECT_FALSE(says(hopper, "CP111", "--gpu-sm")) << dump(hopper);
}

TEST(EnvRules, DeviceConnectionsIsWarningUnderBridge) {
  auto ds = run([](Recipe&, Environment& e) {
    e.process_env = {{"CUDA_DEVICE_MAX_CONNECTIONS", "8"}};
  });
  auto it =
      std::find_if(ds.begin(), ds.end(), [](const Diagnostic& d) { return d.id() == "CP111"; });
  ASSERT_NE(it, ds.end());
  EXPECT_EQ(it->severity(), Severity::kWarning);
}

TEST(EnvRules, Sm100DoesNotNeedOneConnection) {
  auto ds = run([](Recipe&, Environment& e) {
    e.framework = Framework::kMlm;
    e.gpu_sm = 100;
    e.process_env = {{"CUDA_DEVICE_MAX_CONNECTIONS", "8"}};
  });
  EXPECT_FALSE(has_id(ds, "CP111"));
}

}  // namespace
}  // namespace hcp::test
