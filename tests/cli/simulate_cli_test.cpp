// End-to-end tests of `hcp-plan simulate`.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cli/cli_runner.h"

namespace hcp::testing {
namespace {

nlohmann::json run_json(const std::string& args, int expected_exit) {
  auto r = run_cli("simulate " + args + " --format json");
  EXPECT_EQ(r.exit_code, expected_exit) << r.err;
  return nlohmann::json::parse(r.out, nullptr, false);
}

TEST(SimulateCli, EveryCommTypeMatchesFullAttentionAndTheFormula) {
  const std::string shape = "--seq-length 128 --heads 4 --kv-heads 2 --head-dim 16 --causal";
  for (const char* layout :
       {"--cp 4 --cp-comm-type p2p", "--cp 4 --cp-comm-type all_gather",
        "--cp 2 --cp-comm-type a2a", "--cp 4 --cp-comm-type a2a+p2p --hcp 2,2"}) {
    auto j = run_json(shape + " " + std::string(layout), 0);
    ASSERT_FALSE(j.is_discarded()) << layout;
    EXPECT_LT(j["max_abs_error"].get<double>(), 1e-3) << layout;
    EXPECT_TRUE(j["bytes_match_formula"].get<bool>()) << layout;
    const int64_t formula = j["formula_bytes_per_rank"]["total"].get<int64_t>();
    EXPECT_GT(formula, 0);
    for (auto& [rank, bytes] : j["comm_bytes_per_rank"].items()) {
      EXPECT_EQ(bytes.get<int64_t>(), formula) << layout << " rank " << rank;
    }
  }
}

TEST(SimulateCli, LocalOnlyShowsTheSilentFailure) {
  auto r = run_cli(
      "simulate --seq-length 128 --heads 4 --kv-heads 2 --head-dim 16 --cp 4 "
      "--cp-comm-type a2a+p2p --hcp 2x2 --causal --local-only");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.out.find("CP communication OFF"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("WRONG"), std::string::npos) << r.out;
  auto j = run_json(
      "--seq-length 128 --heads 4 --head-dim 16 --cp 4 --cp-comm-type p2p --local-only", 1);
  ASSERT_FALSE(j.is_discarded());
  EXPECT_GT(j["max_abs_error"].get<double>(), 1e-2);
  EXPECT_EQ(j["comm_bytes_per_rank"]["0"].get<int64_t>(), 0);
}

TEST(SimulateCli, TextReportNamesGroupsAndBytes) {
  auto r = run_cli(
      "simulate --seq-length 128 --heads 4 --kv-heads 2 --head-dim 16 --cp 4 "
      "--cp-comm-type a2a+p2p --hcp 2,2");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("a2a [0,1] [2,3]  p2p ring [0,2] [1,3]"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("(match)"), std::string::npos) << r.out;
}

TEST(SimulateCli, BadInputsExit2) {
  const std::string shape = "simulate --seq-length 128 --heads 4 --kv-heads 2 --head-dim 16 ";
  for (const std::string& args :
       {shape + "--cp 4 --cp-comm-type ring", shape + "--cp 4 --cp-comm-type a2a",
        shape + "--cp 4 --cp-comm-type a2a+p2p", shape + "--cp 4 --cp-comm-type a2a+p2p --hcp 2,3",
        shape + "--cp 4 --cp-comm-type a2a+p2p --hcp x", shape + "--cp 3 --cp-comm-type p2p",
        std::string("simulate --heads 4 --head-dim 16 --cp 2 --cp-comm-type p2p"),
        shape + "--cp 0 --cp-comm-type p2p",
        // Inside the size limits but about 117 h: one error line, no warning before it.
        std::string("simulate --seq-length 65536 --heads 64 --head-dim 256 --cp 8 "
                    "--cp-comm-type p2p")}) {
    auto r = run_cli(args);
    EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.out;
    EXPECT_NE(r.err.find("error"), std::string::npos) << args;
    EXPECT_EQ(r.err.rfind("hcp-plan: error:"), 0u) << args << ": one error line\n" << r.err;
  }
}

}  // namespace
}  // namespace hcp::testing
