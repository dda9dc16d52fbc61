// End-to-end tests of `hcp-plan dcp`: the reference vectors through the binary, inputs, errors.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "cli/cli_runner.h"

namespace hcp::testing {
namespace {

using nlohmann::json;

const std::string kFixtures = "tests/fixtures/dcp/";

json load_cases() {
  return json::parse(read_whole_file(std::string(HCP_FIXTURES_DIR) + "/dcp/reference_cases.json"));
}

std::string temp_lengths_file(const std::vector<int64_t>& lengths, const std::string& name) {
  const auto path = std::filesystem::temp_directory_path() /
                    ("hcp_dcp_cli_" + std::to_string(getpid()) + "_" + name + ".json");
  std::ofstream(path) << json(lengths).dump();
  return path.string();
}

std::string flags_of(const json& input) {
  std::string flags = " --dp " + std::to_string(input["dp"].get<int>()) + " --cp " +
                      std::to_string(input["cp"].get<int>()) + " --max-seqlen-per-dp-cp-rank " +
                      std::to_string(input["max_seqlen_per_dp_cp_rank"].get<int64_t>()) +
                      " --min-cp " +
                      std::to_string(input["min_dynamic_context_parallel_size"].get<int>()) +
                      " --variant " + input["variant"].get<std::string>();
  const json& vpp = input["microbatch_group_size_per_vp_stage"];
  if (!vpp.is_null()) flags += " --vpp-group " + std::to_string(vpp.get<int>());
  return flags;
}

TEST(DcpCli, JsonMicrobatchesEqualTheReferenceForEveryVector) {
  int compared = 0;
  const json cases = load_cases();
  for (const json& c : cases["cases"]) {
    const json& input = c["input"];
    if (input["variant"] == "dp_balanced") continue;  // a baseline, not a --variant
    SCOPED_TRACE(c["name"].get<std::string>());
    const std::string file =
        temp_lengths_file(input["lengths"].get<std::vector<int64_t>>(), c["name"]);
    auto r = run_cli("dcp --lengths '" + file + "'" + flags_of(input) + " --format json");
    std::filesystem::remove(file);
    if (c["expected"].contains("error")) {
      EXPECT_EQ(r.exit_code, 2) << r.out;
      EXPECT_NE(r.err.find("sample"), std::string::npos) << r.err;
      continue;
    }
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const json doc = json::parse(r.out);
    const json& mbs = doc["microbatches"];
    ASSERT_EQ(mbs.size(), c["expected"]["sample_id_groups"].size());
    for (size_t i = 0; i < mbs.size(); ++i) {
      EXPECT_EQ(mbs[i]["ranks"], c["expected"]["sample_id_groups"][i]);
      EXPECT_EQ(mbs[i]["cp_per_sample"], c["expected"]["cp_per_sample"][i]);
      EXPECT_EQ(mbs[i]["work_per_rank"], c["expected"]["work_per_rank"][i]);
    }
    ++compared;
  }
  EXPECT_GE(compared, 14);
}

TEST(DcpCli, AnUnsetVppGroupIsNullInJson) {
  const std::string base =
      "dcp --lengths " + kFixtures + "bridge_toy.json --dp 2 --cp 2 --max-seqlen-per-dp-cp-rank 64";
  auto unset = run_cli(base + " --format json");
  ASSERT_EQ(unset.exit_code, 0) << unset.err;
  EXPECT_TRUE(json::parse(unset.out)["vpp_group"].is_null()) << unset.out.substr(0, 400);
  auto set = run_cli(base + " --vpp-group 2 --format json");
  ASSERT_EQ(set.exit_code, 0) << set.err;
  EXPECT_EQ(json::parse(set.out)["vpp_group"], 2);
}

TEST(DcpCli, TextReportForTheBridgeToy) {
  auto r = run_cli("dcp --lengths " + kFixtures +
                   "bridge_toy.json --dp 2 --cp 2 --max-seqlen-per-dp-cp-rank 64");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("8 sequences"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("CP size histogram"), std::string::npos);
  EXPECT_NE(r.out.find("Estimated speed-up"), std::string::npos);
}

/// The lines of `text` after the line that starts with `header` up to the next blank line.
std::vector<std::string> table_after(const std::string& text, const std::string& header,
                                     std::string* header_line) {
  std::istringstream in(text);
  std::vector<std::string> rows;
  bool inside = false;
  for (std::string line; std::getline(in, line);) {
    if (!inside) {
      inside = line.rfind(header, 0) == 0;
      if (inside) *header_line = line;
      continue;
    }
    if (line.rfind("  ", 0) != 0) break;
    rows.push_back(line);
  }
  return rows;
}

TEST(DcpCli, TablesStayAlignedWhenACellIsWiderThanItsColumn) {
  // Five CP group sizes in one micro-batch: a summary of 34 characters in a column of 30.
  std::vector<int64_t> mixed(1, 16384);
  mixed.insert(mixed.end(), 10, 8192);
  mixed.insert(mixed.end(), 40, 4096);
  mixed.insert(mixed.end(), 60, 2048);
  mixed.insert(mixed.end(), 100, 1024);
  auto r = run_cli("dcp --lengths " + temp_lengths_file(mixed, "mixed") +
                   " --dp 256 --cp 2 --max-seqlen-per-dp-cp-rank 1024");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string header;
  auto rows = table_after(r.out, "  mb   CP groups", &header);
  ASSERT_FALSE(rows.empty()) << r.out;
  const size_t tokens = header.find("tokens max/mean");
  ASSERT_NE(tokens, std::string::npos) << r.out;
  for (const std::string& row : rows) {
    ASSERT_GT(row.size(), tokens) << r.out;
    EXPECT_EQ(row[tokens - 1], ' ') << row;  // the groups cell ended before the column
    EXPECT_NE(row[tokens], ' ') << row;      // and the tokens cell starts on it
  }
  // A CP size of four digits in the histogram keeps a space before its bar.
  auto wide = run_cli("dcp --lengths " + temp_lengths_file({1048576, 1024}, "wide") +
                      " --dp 1024 --cp 2 --max-seqlen-per-dp-cp-rank 1024");
  ASSERT_EQ(wide.exit_code, 0) << wide.err;
  EXPECT_NE(wide.out.find("  CP 1024 \u2588"), std::string::npos) << wide.out;
}

TEST(DcpCli, ReadsIdxAndWritesOutputFile) {
  const auto out = std::filesystem::temp_directory_path() /
                   ("hcp_dcp_cli_out_" + std::to_string(getpid()) + ".json");
  auto r = run_cli("dcp --idx " + kFixtures +
                   "valid.idx --dp 2 --cp 2 --max-seqlen-per-dp-cp-rank 4096 --format json -o '" +
                   out.string() + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json doc = json::parse(read_whole_file(out.string()));
  std::filesystem::remove(out);
  EXPECT_EQ(doc["samples"], 5);
  EXPECT_EQ(doc["tokens"], 1200 + 64 + 8192 + 3000 + 17);
}

TEST(DcpCli, SyntheticWithGlobalBatch) {
  auto r = run_cli(
      "dcp --synthetic lognormal:1024:1.5:2000:8192 --seed 3 --dp 4 --cp 2 "
      "--max-seqlen-per-dp-cp-rank 2048 --global-batch 64 --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json doc = json::parse(r.out);
  EXPECT_EQ(doc["steps"], 31);
  EXPECT_EQ(doc["samples"], 31 * 64);
  int64_t total = 0;
  for (const auto& [cp, n] : doc["cp_size_histogram"].items())
    total += n.get<int64_t>();
  EXPECT_EQ(total, 31 * 64);
  EXPECT_TRUE(doc["estimated_speedup"].is_number());
}

TEST(DcpCli, RecipeAndWorldSize) {
  auto r = run_cli(
      "dcp llama3_8b_128k --world-size 64 --synthetic lognormal:16000:1.2:256:131072 "
      "--format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json doc = json::parse(r.out);
  EXPECT_EQ(doc["cp"], 16);
  EXPECT_EQ(doc["dp"], 4);
  EXPECT_EQ(doc["max_seqlen_per_dp_cp_rank"], 2048);  // ceil(131072 / 64)
  EXPECT_EQ(doc["global_batch"], 32);
}

struct BadInput {
  const char* args;
  const char* reason;
};

TEST(DcpCli, BadInputsExit2WithAReason) {
  const std::string knobs = " --dp 2 --cp 2 --max-seqlen-per-dp-cp-rank 2048";
  const BadInput cases[] = {
      {"--idx tests/fixtures/dcp/truncated.idx", "truncated"},
      {"--idx tests/fixtures/dcp/bad_magic.idx", "bad magic"},
      {"--idx tests/fixtures/dcp/negative_length.idx", "has length -3"},
      {"--lengths tests/fixtures/dcp/lengths_negative.txt", "sample 1 has length -5"},
      {"--lengths tests/fixtures/dcp/lengths_zero.txt", "must be > 0"},
      {"--lengths tests/fixtures/dcp/lengths_empty.txt", "no sequence lengths"},
      {"--lengths tests/fixtures/dcp/missing.txt", "no such file"},
      {"--synthetic uniform:1:2:3", "unknown distribution"},
      {"--synthetic lognormal:1024:1.5:10 --global-batch 20", "larger than"},
      {"", "exactly one of"},
      {"--lengths tests/fixtures/dcp/bridge_toy.json --idx tests/fixtures/dcp/valid.idx",
       "exactly one of"},
  };
  for (const BadInput& c : cases) {
    SCOPED_TRACE(c.args);
    auto r = run_cli(std::string("dcp ") + c.args + knobs);
    EXPECT_EQ(r.exit_code, 2) << r.out;
    EXPECT_NE(r.err.find(c.reason), std::string::npos) << r.err;
  }
}

TEST(DcpCli, BadKnobsExit2) {
  const std::string input = "dcp --lengths tests/fixtures/dcp/bridge_toy.json ";
  const BadInput cases[] = {
      {"--dp 2", "--dp D and --cp C"},
      {"--dp 3 --cp 1 --max-seqlen-per-dp-cp-rank 64", "odd"},
      {"--dp 2 --cp 2", "--max-seqlen-per-dp-cp-rank"},
      {"--dp 2 --cp 2 --max-seqlen-per-dp-cp-rank 64 --min-cp 3", "power of two"},
      {"--dp 2 --cp 2 --max-seqlen-per-dp-cp-rank 64 --variant dev", "--variant"},
      {"--dp 2 --cp 2 --max-seqlen-per-dp-cp-rank 16", "needs CP size 8"},
  };
  for (const BadInput& c : cases) {
    SCOPED_TRACE(c.args);
    auto r = run_cli(input + c.args);
    EXPECT_EQ(r.exit_code, 2) << r.out;
    EXPECT_NE(r.err.find(c.reason), std::string::npos) << r.err;
  }
}

}  // namespace
}  // namespace hcp::testing
