// Tests for the calibration JSON loader and writer.
#include "hcp/calibration.h"

#include <gtest/gtest.h>

#include <filesystem>

namespace hcp {
namespace {

const std::string kFixtures = HCP_FIXTURES_DIR "/calibration/";

TEST(Calibration, LoadsTheCheckedInNodeFile) {
  auto c = load_calibration(kFixtures + "h100_node.json");
  ASSERT_TRUE(c) << c.error().str();
  EXPECT_EQ(c->gpus, 8);
  EXPECT_EQ(c->nccl_version, "2.28.9");
  ASSERT_TRUE(c->summary.inter_node_p2p_gbps);
  EXPECT_DOUBLE_EQ(*c->summary.inter_node_p2p_gbps, 48.0);
  ASSERT_EQ(c->attention.size(), 1u);
  EXPECT_EQ(c->attention[0].head_dim, 128);
  EXPECT_TRUE(c->attention[0].causal);
  ASSERT_EQ(c->collectives.size(), 2u);
  EXPECT_EQ(c->collectives[1].op, "sendrecv");
}

TEST(Calibration, SlowNicFileHasOnlyASummary) {
  auto c = load_calibration(kFixtures + "slow_nic.json");
  ASSERT_TRUE(c) << c.error().str();
  EXPECT_TRUE(c->attention.empty());
  EXPECT_LT(*c->summary.inter_node_p2p_gbps, 10.0);
  EXPECT_TRUE(c->nccl_version.empty());
}

TEST(Calibration, RoundTripsThroughAFile) {
  Calibration c;
  c.source = "test";
  c.device = "GPU X";
  c.gpus = 4;
  c.option = "tp=2,cp=2,cp_comm_type=p2p";
  c.summary.attention_tflops = 123.5;
  c.summary.intra_node_p2p_gbps = 77.25;
  AttentionMeasurement a;
  a.dtype = "fp16";
  a.head_dim = 64;
  a.causal = false;
  a.heads = 16;
  a.kv_heads = 4;
  a.seq_q = 2048;
  a.seq_kv = 1024;
  a.time_ms = 0.5;
  a.tflops = 110.0;
  a.max_abs_error = 0.002;
  a.kernel = "wgmma-sm90a";
  c.attention.push_back(a);
  c.collectives.push_back({"alltoall", "intra_node", 4, 1 << 20, 12.5, 83.9, 62.9});
  std::string path = (std::filesystem::temp_directory_path() / "hcp_calibration_rt.json").string();
  ASSERT_TRUE(save_calibration(c, path));
  auto back = load_calibration(path);
  std::filesystem::remove(path);
  ASSERT_TRUE(back) << back.error().str();
  EXPECT_EQ(calibration_to_json(*back), calibration_to_json(c));
  EXPECT_EQ(back->attention[0].dtype, "fp16");
  EXPECT_DOUBLE_EQ(*back->attention[0].max_abs_error, 0.002);
  EXPECT_EQ(back->attention[0].kernel, "wgmma-sm90a");
  EXPECT_FALSE(back->summary.inter_node_a2a_gbps.has_value());
  EXPECT_EQ(back->collectives[0].bytes, 1 << 20);
}

struct BadCalibration {
  const char* text;
  const char* message_part;
};

class CalibrationBad : public ::testing::TestWithParam<BadCalibration> {};

TEST_P(CalibrationBad, IsAnErrorValue) {
  auto c = parse_calibration(GetParam().text, "bad.json");
  ASSERT_FALSE(c) << GetParam().text;
  EXPECT_NE(c.error().message.find(GetParam().message_part), std::string::npos)
      << c.error().message;
  EXPECT_EQ(c.error().location.file, "bad.json");
}

INSTANTIATE_TEST_SUITE_P(
    All, CalibrationBad,
    ::testing::Values(
        BadCalibration{"{\"schema_version\": 1,", "malformed calibration JSON"},
        BadCalibration{"[1, 2]", "must be a JSON object"},
        BadCalibration{"{}", "no schema_version"},
        BadCalibration{"{\"schema_version\": 7}", "unsupported version 7"},
        BadCalibration{"{\"schema_version\": \"1\"}", "expected an integer"},
        BadCalibration{"{\"schema_version\": 1, \"summary\": {\"attention_tflops\": -3}}",
                       "'attention_tflops': must be positive"},
        BadCalibration{"{\"schema_version\": 1, \"summary\": {\"intra_node_a2a_gbps\": \"fast\"}}",
                       "expected a number"},
        BadCalibration{"{\"schema_version\": 1, \"attention\": {}}", "expected a list"},
        BadCalibration{"{\"schema_version\": 1, \"attention\": [{\"dtype\": \"fp64\"}]}",
                       "'attention[0].dtype': expected bf16 or fp16"},
        BadCalibration{"{\"schema_version\": 1, \"attention\": [{\"kernel\": 3}]}",
                       "'attention[0].kernel': expected a string"},
        BadCalibration{"{\"schema_version\": 1, \"collectives\": [{\"op\": \"allreduce\", "
                       "\"scope\": \"intra_node\"}]}",
                       "expected alltoall or sendrecv"}));

TEST(Calibration, MalformedJsonIsLocated) {
  auto c = parse_calibration("{\n  \"schema_version\": 1,\n  oops\n}", "x.json");
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error().location.line, 3);
}

TEST(Calibration, MisspeltKeyIsAnErrorWithADidYouMean) {
  auto top = parse_calibration("{\"schema_version\": 1, \"sumary\": {}}", "x.json");
  ASSERT_FALSE(top);
  EXPECT_NE(top.error().message.find("'sumary': unknown key (did you mean 'summary'?)"),
            std::string::npos)
      << top.error().message;
  auto nested = parse_calibration(
      "{\"schema_version\": 1, \"summary\": {\"attention_tflop\": 400}}", "x.json");
  ASSERT_FALSE(nested);
  EXPECT_NE(nested.error().message.find("'summary.attention_tflop'"), std::string::npos)
      << nested.error().message;
  auto item = parse_calibration(
      "{\"schema_version\": 1, \"collectives\": [{\"op\": \"sendrecv\", \"scope\": "
      "\"intra_node\", \"ranks\": 2, \"bytes\": 8, \"algbw_gbs\": 1}]}",
      "x.json");
  ASSERT_FALSE(item);
  EXPECT_NE(item.error().message.find("did you mean 'algbw_gbps'"), std::string::npos)
      << item.error().message;
  // What the writer writes reads back.
  auto good = load_calibration(kFixtures + "h100_node.json");
  ASSERT_TRUE(good) << good.error().str();
  EXPECT_TRUE(parse_calibration(calibration_to_json(*good), "round.json"));
}

TEST(Calibration, MissingFileIsAnError) {
  auto c = load_calibration(kFixtures + "does_not_exist.json");
  ASSERT_FALSE(c);
  EXPECT_NE(c.error().str().find("no such file"), std::string::npos);
}

}  // namespace
}  // namespace hcp
