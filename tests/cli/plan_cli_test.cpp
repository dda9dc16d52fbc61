// End-to-end tests of `hcp-plan plan` and `hcp-plan compare` on the shipped default recipe.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "cli/cli_runner.h"

namespace hcp {
namespace {

using hcp::testing::run_cli;
using nlohmann::json;

const std::string kSeed = "plan llama3_8b_128k --nodes 4 --gpus-per-node 8 --top 0 ";

json plan_json(const std::string& args) {
  auto r = run_cli(kSeed + args + " --format json");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r.exit_code == 0 ? json::parse(r.out) : json::object();
}

/// Rank (index in options[]) of a layout, -1 when absent.
int rank_of(const json& plan, int tp, int cp, const std::string& comm, const json& hcp = nullptr) {
  for (size_t i = 0; i < plan["options"].size(); ++i) {
    const json& o = plan["options"][i];
    if (o["tp"] == tp && o["cp"] == cp && o["cp_comm_type"] == comm &&
        o["hierarchical_context_parallel_sizes"] == hcp) {
      return static_cast<int>(i);
    }
  }
  return -1;
}

const json kA8x2 = json::array({8, 2});

TEST(PlanCli, SeedExampleListsABAndCWithAAndBClose) {
  json plan = plan_json("--recompute full");
  int a = rank_of(plan, 1, 16, "a2a+p2p", kA8x2);
  int b = rank_of(plan, 2, 4, "a2a");
  int c = rank_of(plan, 1, 16, "p2p");
  ASSERT_GE(a, 0);
  ASSERT_GE(b, 0);
  ASSERT_GE(c, 0);
  double ta = plan["options"][a]["step_time_s"];
  double tb = plan["options"][b]["step_time_s"];
  EXPECT_LT(std::max(ta, tb) / std::min(ta, tb), 1.15);
  // Contract keys, best first, one recommendation.
  // The first is the recommendation (the fastest or a tie within model error, see
  // tests/planner/decision_test.cpp); the others follow by step time.
  int recommended = 0;
  double previous = 0;
  bool first = true;
  for (const json& o : plan["options"]) {
    for (const char* key :
         {"tp", "cp", "pp", "dp", "cp_comm_type", "hierarchical_context_parallel_sizes",
          "step_time_s", "tokens_per_s_per_gpu", "memory_gib_per_gpu", "fits_memory", "recommended",
          "reasons", "breakdown"}) {
      EXPECT_TRUE(o.contains(key)) << key;
    }
    recommended += o["recommended"].get<bool>();
    if (std::exchange(first, false)) continue;
    if (o["fits_memory"].get<bool>()) {
      EXPECT_GE(o["step_time_s"].get<double>(), previous);
      previous = o["step_time_s"].get<double>();
    }
  }
  EXPECT_EQ(recommended, 1);
  EXPECT_TRUE(plan["options"][0]["recommended"].get<bool>());
}

std::string validate_args(const json& o) {
  std::string args = "validate llama3_8b_128k --nodes 4 --gpus-per-node 8";
  args += " model.tensor_model_parallel_size=" + std::to_string(o["tp"].get<int>());
  args += " model.context_parallel_size=" + std::to_string(o["cp"].get<int>());
  args += " model.pipeline_model_parallel_size=" + std::to_string(o["pp"].get<int>());
  args += " model.cp_comm_type=" + o["cp_comm_type"].get<std::string>();
  args += std::string(" model.sequence_parallel=") + (o["tp"].get<int>() > 1 ? "true" : "false");
  const json& hcp = o["hierarchical_context_parallel_sizes"];
  if (hcp.is_null()) {
    args += " model.hierarchical_context_parallel_sizes=null";
  } else {
    args += " 'model.hierarchical_context_parallel_sizes=[" + std::to_string(hcp[0].get<int>()) +
            "," + std::to_string(hcp[1].get<int>()) + "]'";
  }
  return args;
}

TEST(PlanCli, PlacementOfAGroupTheLayoutDoesNotHaveIsNull) {
  json plan = plan_json("--recompute full");
  int cp1 = 0;
  int hcp = 0;
  for (const json& o : plan["options"]) {
    const json& p = o["placement"];
    EXPECT_TRUE(p["tp_inside_nvlink_domain"].is_boolean()) << o["label"];
    const bool has_cp = o["cp"].get<int>() > 1;
    const bool has_hcp = !o["hierarchical_context_parallel_sizes"].is_null();
    cp1 += !has_cp;
    hcp += has_hcp;
    EXPECT_EQ(p["cp_inside_nvlink_domain"].is_boolean(), has_cp) << o["label"];
    EXPECT_EQ(p["cp_offdomain_fraction"].is_number(), has_cp) << o["label"];
    for (const char* key : {"hcp_a2a_inside_nvlink_domain", "hcp_ring_inside_nvlink_domain"})
      EXPECT_EQ(p[key].is_boolean(), has_hcp) << key << " " << o["label"];
  }
  EXPECT_GT(cp1, 0);  // both kinds are in the seed's plan
  EXPECT_GT(hcp, 0);
}

TEST(PlanCli, ListedOptionsValidateClean) {
  json plan = plan_json("--recompute full");
  ASSERT_GE(plan["options"].size(), 6u);
  for (size_t i = 0; i < 6; ++i) {
    auto r = run_cli(validate_args(plan["options"][i]));
    EXPECT_EQ(r.exit_code, 0) << plan["options"][i]["label"] << "\n" << r.out << r.err;
  }
}

TEST(PlanCli, FlatRingFallsBehindAt32K) {
  json plan = plan_json("dataset.seq_length=32768 model.seq_length=32768");
  int a = rank_of(plan, 1, 16, "a2a+p2p", kA8x2);
  int c = rank_of(plan, 1, 16, "p2p");
  ASSERT_GE(a, 0);
  ASSERT_GE(c, 0);
  EXPECT_LT(a, c);
  // The flat ring runs 15 ring steps per layer against the hierarchical one's 1, each with its
  // fixed cost (with the 2026-11-26 fit its transfer is hidden behind attention at 32K).
  const json& ta = plan["options"][a]["breakdown"]["time"];
  const json& tc = plan["options"][c]["breakdown"]["time"];
  EXPECT_EQ(tc["ring_steps"].get<int>(), 15);
  EXPECT_EQ(ta["ring_steps"].get<int>(), 1);
  EXPECT_GT(tc["cp_ring_hidden_s"].get<double>() + tc["cp_ring_exposed_s"].get<double>(),
            ta["cp_ring_hidden_s"].get<double>() + ta["cp_ring_exposed_s"].get<double>());
}

TEST(PlanCli, SlowNicCalibrationPushesTheFlatRingDown) {
  json fast = plan_json("--recompute full");
  json slow =
      plan_json("--recompute full --calibration tests/fixtures/model/slow_nic_calibration.json");
  int c_fast = rank_of(fast, 1, 16, "p2p");
  int c_slow = rank_of(slow, 1, 16, "p2p");
  ASSERT_GE(c_fast, 0);
  ASSERT_GE(c_slow, 0);
  // The flat ring crosses nodes on every step: against the best option its throughput falls
  // further than its rank can show when it already sits near the bottom of the table.
  auto share_of_best = [](const json& plan, int i) {
    return plan["options"][i]["tokens_per_s_per_gpu"].get<double>() /
           plan["options"][0]["tokens_per_s_per_gpu"].get<double>();
  };
  EXPECT_LT(share_of_best(slow, c_slow), 0.5 * share_of_best(fast, c_fast));
  EXPECT_LT(rank_of(slow, 1, 16, "a2a+p2p", kA8x2), c_slow);
  EXPECT_EQ(slow["hardware"]["nic_gbs"], 5.0);
}

TEST(PlanCli, TextShowsTableRecommendationAndReasons) {
  auto r = run_cli(kSeed + "--recompute full --show-rejected");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Option  TP  CP"), std::string::npos);
  EXPECT_NE(r.out.find("recommended: "), std::string::npos);
  // A ring's reason in numbers ("hides" or "cannot hide", over NVLink or IB: the fitted ring
  // overlap and the bands, which decide the leading options, choose the wording).
  EXPECT_NE(r.out.find(" transfer behind attention: "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("rejected layouts"), std::string::npos);
  EXPECT_NE(r.out.find("[CP032]"), std::string::npos);  // a2a with more ranks than KV heads
}

TEST(PlanCli, TopologyFileAndOutputFile) {
  std::string out = (std::filesystem::temp_directory_path() / "hcp_plan_cli_out.json").string();
  auto r = run_cli(
      "plan llama3_8b_128k --nodes 4 --topology "
      "tests/fixtures/model/dgx-h100-topology.yaml --top 3 --format json -o " +
      out);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json plan = json::parse(hcp::testing::read_whole_file(out));
  EXPECT_EQ(plan["options"].size(), 3u);
  EXPECT_EQ(plan["cluster"], "tests/fixtures/model/dgx-h100-topology.yaml");
  std::filesystem::remove(out);
}

TEST(PlanCli, BadInputsExitTwo) {
  const char* cases[] = {
      "plan llama3_8b_128k",                                      // no --nodes
      "plan llama3_8b_128k --nodes 4 --cluster no-such-cluster",  // unknown profile
      "plan llama3_8b_128k --nodes 4 --recompute sometimes",      // bad recompute
      "plan llama3_8b_128k --nodes 4 --calibration /nonexistent.json",
      "plan no_such_recipe --nodes 4",
      // One argument line split in two (parenthesised: clang's -Wstring-concatenation).
      ("plan llama3_8b_128k --nodes 4 --cluster dgx-h100 --topology "
       "tests/fixtures/model/dgx-h100-topology.yaml"),
      "plan llama3_8b_128k --nodes 4 --memory-limit -3",
      "plan llama3_8b_128k --nodes 4 model.no_such_key=1",
  };
  for (const char* args : cases) {
    auto r = run_cli(args);
    EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.out << r.err;
    EXPECT_NE(r.err.find("error"), std::string::npos) << args;
  }
}

TEST(PlanCli, ConfirmNeedsAGpu) {
  auto r =
      run_cli("plan llama3_8b_128k --nodes 4 --confirm 2", "HCP_GPU_BENCH_LIB=/nonexistent.so");
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_NE(r.err.find("--confirm needs a GPU node"), std::string::npos) << r.err;
}

TEST(CompareCli, ShowsEveryTermAndValidation) {
  auto r = run_cli(
      "compare llama3_8b_128k --nodes 4 --recompute full --option tp=2,cp=4,cp_comm_type=a2a "
      "--option tp=1,cp=16,cp_comm_type=a2a+p2p,hcp=8x2 --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json out = json::parse(r.out);
  ASSERT_EQ(out["options"].size(), 2u);
  for (const json& o : out["options"]) {
    EXPECT_TRUE(o["valid"].get<bool>());
    EXPECT_TRUE(o["breakdown"]["time"].contains("cp_a2a_s"));
    EXPECT_TRUE(o["breakdown"]["memory_gib"].contains("activations"));
  }
  auto text = run_cli(
      "compare llama3_8b_128k --nodes 4 --option tp=2,cp=4,cp_comm_type=a2a "
      "--option tp=1,cp=16,cp_comm_type=a2a+p2p,hcp=8x2");
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("TP/SP comm (exposed)"), std::string::npos);
  EXPECT_NE(text.out.find("CP ring hidden"), std::string::npos);
  // A layout without a ring (a2a, CP1) has no ring step: "-", where one with a ring has a time.
  auto rows = [&](const std::string& name) {
    std::string line = text.out.substr(text.out.find("\n" + name) + 1);
    line = line.substr(0, line.find('\n'));
    std::istringstream in(line.substr(name.size()));
    std::vector<std::string> cells;
    for (std::string cell; in >> cell;)
      cells.push_back(cell);
    return cells;
  };
  for (const std::string name : {"ring step compute", "ring step transfer"}) {
    auto cells = rows(name);
    ASSERT_EQ(cells.size(), 3u) << name << "\n" << text.out;  // "-", then "N unit"
    EXPECT_EQ(cells[0], "-") << name;
    EXPECT_NE(cells[1], "-") << name;
  }
}

TEST(CompareCli, InvalidOptionExitsOneWithTheRule) {
  auto r = run_cli(
      "compare llama3_8b_128k --nodes 4 --option tp=1,cp=16,cp_comm_type=a2a "
      "--option tp=2,cp=4,cp_comm_type=a2a --format json");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  json out = json::parse(r.out);
  // compare keeps the user's order: the invalid option (CP16 a2a > 8 KV heads) stays first.
  const json& last = out["options"][0];
  EXPECT_FALSE(last["valid"].get<bool>());
  bool cp032 = false;
  for (const json& d : last["diagnostics"])
    cp032 |= d["id"] == "CP032";
  EXPECT_TRUE(cp032);
}

TEST(CompareCli, BadOptionTextExitsTwo) {
  // Each case and the one line it prints on stderr.
  const std::pair<const char*, const char*> cases[] = {
      {"compare llama3_8b_128k --nodes 4 --option tp=2,cp=4,cp_comm_type=ring",
       "hcp-plan: error: <command line>: --option \"tp=2,cp=4,cp_comm_type=ring\": unknown "
       "cp_comm_type 'ring' (expected p2p, all_gather, a2a or a2a+p2p)\n"},
      {"compare llama3_8b_128k --nodes 4",  // no option
       "hcp-plan: error: compare needs at least one --option \"tp=..,cp=..,cp_comm_type=..\"\n"},
      {"compare llama3_8b_128k --option tp=2,cp=4",  // no world size, no dp
       "hcp-plan: error: <command line>: --option \"tp=2,cp=4\": give --nodes (and "
       "--gpus-per-node) or dp= in the option\n"},
  };
  for (const auto& [args, message] : cases) {
    auto r = run_cli(args);
    EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.out << r.err;
    EXPECT_EQ(r.out, "") << args;
    EXPECT_EQ(r.err, message) << args;
  }
}

// A TP*CP*PP that does not divide the world is the registry's CP001 (exit 1) for every command:
// compare said "tp*cp*pp = 16 does not divide the 30 GPUs" with exit 2, its own check.
TEST(CompareCli, AWorldTheLayoutDoesNotDivideIsCp001) {
  for (const char* shape : {"--nodes 6 --gpus-per-node 5", "--nodes 7 --gpus-per-node 5"}) {
    const std::string on = std::string(" llama3_8b_128k ") + shape;
    for (const std::string& command :
         {"validate" + on, "groups" + on, "preflight --env-file /dev/null" + on,
          "compare --option tp=1,cp=16 --option tp=1,cp=5" + on}) {
      auto r = run_cli(command);
      EXPECT_EQ(r.exit_code, 1) << command << "\n" << r.out << r.err;
      EXPECT_NE((r.out + r.err).find("[CP001] world size ("), std::string::npos) << command << "\n"
                                                                                 << r.out << r.err;
    }
    auto r = run_cli("compare --option tp=1,cp=16 --option tp=1,cp=5 --format json" + on);
    ASSERT_EQ(r.exit_code, 1) << r.err;
    const json options = json::parse(r.out)["options"];
    ASSERT_EQ(options.size(), 2u);
    EXPECT_EQ(options[0]["valid"], false);
    EXPECT_EQ(options[0]["priced"], false);  // no DP to price
    EXPECT_EQ(options[0]["diagnostics"][0]["id"], "CP001") << options[0];
    EXPECT_EQ(options[0]["diagnostics"][0]["severity"], "error");
    for (const json& d : options[1]["diagnostics"])
      EXPECT_NE(d["id"], "CP001") << options[1];  // 5 divides the world
  }
}

TEST(PlanCli, CandidatesAreNeverRejectedForCp001) {
  // The search takes TP, PP and CP among the divisors of the world (enumerate_layouts): on 30
  // GPUs, whose rejected layouts are CP003, CP030, CP040, ..., none is CP001.
  auto r = run_cli("plan llama3_8b_128k --nodes 6 --gpus-per-node 5 --show-rejected --format json");
  ASSERT_EQ(r.exit_code, 1) << r.err;
  const json plan = json::parse(r.out);
  EXPECT_GT(plan["rejected_count"].get<int>(), 0);
  for (const json& reason : plan["rejection_reasons"])
    EXPECT_NE(reason["rule"], "CP001") << reason;
}

}  // namespace
}  // namespace hcp

namespace hcp::testing {
namespace {

TEST(PlanCliLoadNotes, KeysBridgeSkipsAreWarnedOnStandardError) {
  // A +key override of a key the config lacks sets nothing upstream (omegaconf_utils.py:470-474):
  // plan goes on, and says so on stderr, as validate reports it.
  CliResult r = run_cli(
      "plan llama3_8b_128k --nodes 2 --gpus-per-node 8 --top 1 +model.context_paralel_size=4");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("hcp-plan: warning: <override 1>:1:1: unknown key "
                       "'model.context_paralel_size' (did you mean "
                       "'model.context_parallel_size'?)"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(run_cli("plan llama3_8b_128k --nodes 2 --gpus-per-node 8 --top 1").err.find("warning"),
            std::string::npos);
}

// Issue #29: a profile figure that is 0 or missing is never replaced silently: plan and compare
// say which figure they used and where it came from.
TEST(PlanCliProfile, AZeroFigureIsReplacedAloud) {
  std::string text = read_whole_file(HCP_SOURCE_DIR "/recipes/clusters/dgx-h100.yaml");
  size_t at = text.find("\nbf16_dense_tflops:");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, text.find('\n', at + 1) - at, "\nbf16_dense_tflops: 0");
  std::string path =
      (std::filesystem::temp_directory_path() / "hcp_plan_zero_tflops.yaml").string();
  std::ofstream(path) << text;
  const std::string expected =
      "hcp-plan: warning: cluster profile dgx-h100: bf16_dense_tflops is 0 or missing: used 989 "
      "TFLOP/s from GPU spec table H100: NVIDIA H100 SXM5 datasheet";
  CliResult plan =
      run_cli("plan llama3_8b_128k --nodes 2 --gpus-per-node 8 --top 1 --topology " + path);
  EXPECT_EQ(plan.exit_code, 0) << plan.err;
  EXPECT_NE(plan.err.find(expected), std::string::npos) << plan.err;
  CliResult compare = run_cli(
      "compare llama3_8b_128k --nodes 2 --gpus-per-node 8 --option tp=1,cp=16 --topology " + path);
  EXPECT_NE(compare.err.find(expected), std::string::npos) << compare.err;
  CliResult shipped = run_cli("plan llama3_8b_128k --nodes 2 --gpus-per-node 8 --top 1");
  EXPECT_EQ(shipped.err.find("is 0 or missing"), std::string::npos) << shipped.err;
}

// Issue #29: the shipped profiles state no fp8_dense_tflops; an FP8 run took the GPU spec table's
// FP8 peak unannounced. It is said where the run computes in FP8, and only there.
TEST(PlanCliProfile, TheFp8PeakIsAnnouncedForAnFp8Run) {
  const std::string base = "plan llama3_8b_128k --nodes 2 --gpus-per-node 8 --top 1";
  CliResult fp8 = run_cli(base + " mixed_precision=bf16_with_fp8_current_scaling_mixed");
  EXPECT_EQ(fp8.exit_code, 0) << fp8.err;
  EXPECT_NE(fp8.err.find("hcp-plan: warning: cluster profile dgx-h100: fp8_dense_tflops is 0 or "
                         "missing: used 1979 TFLOP/s from GPU spec table H100"),
            std::string::npos)
      << fp8.err;
  CliResult bf16 = run_cli(base);
  EXPECT_EQ(bf16.err.find("fp8_dense_tflops"), std::string::npos) << bf16.err;
}

}  // namespace
}  // namespace hcp::testing

namespace hcp {
namespace {

// A first plan that reads (issue 30): the order of the rows explained, why the recommendation
// beat faster options, the recipe's own layout as "your layout" with the least changes that
// make it fit.
TEST(PlanText, ExplainsTheRowsTheChoiceAndYourLayout) {
  auto r = hcp::testing::run_cli(
      "plan llama3_8b_128k --nodes 4 --gpus-per-node 8 --cluster dgx-h100 --wide");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // Every CP run behind the bands used p2p; the listed options use all_gather and a2a+p2p.
  const char* unmeasured =
      "no published run behind these bands used cp_comm_type all_gather or a2a+p2p (their CP "
      "runs used p2p), so no run has checked how those options price that exchange\n";
  for (const char* expected : {
           "rows: the recommended option (*) first, then the rest by predicted step time",
           "\nA *     4   8   1   a2a+p2p [2,4]",
           "  your layout; a2a on NVLink",
           "your layout: AS TP1 CP16 a2a+p2p [8,2] DP2, rank 45 of 54; it does not fit",
           "The least changes that make it fit:\n  - the same layout with --recompute full: ",
           "  - why not a faster option: ",
           "A is preferred to B, the fastest, for 30.3 GiB more memory headroom",
           unmeasured,
       }) {
    EXPECT_NE(r.out.find(expected), std::string::npos) << expected << "\n" << r.out;
  }
}

TEST(PlanText, YourLayoutThatFitsNeedsNoChange) {
  auto r = hcp::testing::run_cli(
      "plan llama3_8b_128k --nodes 4 --gpus-per-node 8 --cluster dgx-h100 --recompute full");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("your layout: "), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("does not fit"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("least changes"), std::string::npos) << r.out;
}

TEST(PlanText, AFractionalMemoryLimitIsPrintedAsGivenAndATinyExcessIsNotZero) {
  // 94.6 GiB used to print as "of 95 GiB" beside "needs 94.7": a layout over the limit read as
  // fitting under it.
  auto r = hcp::testing::run_cli("plan llama3_8b_128k --nodes 2 --memory-limit 94.6");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("of 94.6 GiB per GPU"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("of 95 GiB"), std::string::npos) << r.out;
  // Layout Z needs a few hundredths of a GiB more than 98.63: "OOM by <0.1", not "OOM by 0.0".
  auto tight = hcp::testing::run_cli("plan llama3_8b_128k --nodes 1 --memory-limit 98.63 --top 0");
  ASSERT_EQ(tight.exit_code, 1) << tight.err;  // no layout fits in 98.63 GiB
  EXPECT_NE(tight.out.find("OOM by <0.1 GiB"), std::string::npos) << tight.out;
  EXPECT_EQ(tight.out.find("OOM by 0.0"), std::string::npos) << tight.out;
  EXPECT_EQ(tight.out.find("(-0.0)"), std::string::npos) << tight.out;
}

}  // namespace
}  // namespace hcp
