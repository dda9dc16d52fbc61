// The log parser on upstream's line formats (fixtures: tests/fixtures/logs/README.md).
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "../../src/logcheck/text_scan.h"
#include "hcp/logcheck.h"

namespace hcp {
namespace {

const std::string kLogs = std::string(HCP_FIXTURES_DIR) + "/logs/";

ParsedLog parse_lines(const std::vector<std::string>& lines) {
  LogParser parser;
  parser.begin_file("mem.log");
  int64_t n = 0;
  for (const std::string& line : lines)
    parser.feed(line, ++n);
  auto log = parser.finish();
  EXPECT_TRUE(log.ok()) << (log.ok() ? "" : log.error().str());
  return log.ok() ? std::move(*log) : ParsedLog{};
}

const LogGroup* group(const ParsedLog& log, const std::string& name) {
  for (const LogGroup& g : log.groups) {
    if (g.name == name) return &g;
  }
  return nullptr;
}

TEST(LogPrefixes, SrunTorchrunMpirunAndTimestampsAreStripped) {
  std::optional<int64_t> rank;
  EXPECT_EQ(strip_log_prefixes("12: hello", rank), "hello");
  EXPECT_EQ(rank, 12);
  rank.reset();
  EXPECT_EQ(strip_log_prefixes("[default3]:  iteration", rank), "  iteration");
  EXPECT_EQ(rank, 3);
  rank.reset();
  EXPECT_EQ(strip_log_prefixes("[rank5]:   File \"x.py\"", rank), "  File \"x.py\"");
  EXPECT_EQ(rank, 5);
  rank.reset();
  EXPECT_EQ(strip_log_prefixes("[1,7]<stderr>:text", rank), "text");
  EXPECT_EQ(rank, 7);
  rank.reset();
  EXPECT_EQ(strip_log_prefixes("2026-11-20T10:00:00.000Z [default0]:x", rank), "x");
  EXPECT_EQ(rank, 0);
  rank.reset();
  EXPECT_EQ(strip_log_prefixes("[2026-11-20 10:00:00] 4: y", rank), "y");
  EXPECT_EQ(rank, 4);
}

TEST(LogPrefixes, TextThatOnlyLooksLikeAPrefixIsKept) {
  std::optional<int64_t> rank;
  EXPECT_EQ(strip_log_prefixes("10:00:05 elapsed", rank), "10:00:05 elapsed");
  EXPECT_EQ(strip_log_prefixes("[Rank 0] (after 2 iterations)", rank),
            "[Rank 0] (after 2 iterations)");
  EXPECT_EQ(strip_log_prefixes("  model:", rank), "  model:");
  EXPECT_FALSE(rank.has_value());
}

TEST(LogParse, MegatronArgumentsBlockBecomesTheConfiguration) {
  auto log = parse_logs({kLogs + "mlm_hcp_ok.log"});
  ASSERT_TRUE(log.ok()) << log.error().str();
  ASSERT_TRUE(log->config.has_value());
  EXPECT_EQ(log->config->format, "megatron-lm arguments");
  const Recipe& r = log->config->recipe;
  EXPECT_EQ(r.framework, Framework::kMlm);
  EXPECT_EQ(r.get_int("model.context_parallel_size"), 16);
  EXPECT_EQ(r.get_string("model.cp_comm_type"), "a2a+p2p");
  EXPECT_EQ(r.get_int_list("model.hierarchical_context_parallel_sizes"),
            (std::vector<int64_t>{8, 2}));
  EXPECT_EQ(r.get_int("model.num_query_groups"), 8);
  // Values are located at their log line (srun "0: " prefix stripped, line 5 is cp_comm_type).
  Location at = r.where("model.cp_comm_type");
  EXPECT_EQ(at.file, kLogs + "mlm_hcp_ok.log");
  EXPECT_EQ(at.line, 5);
  EXPECT_EQ(log->world_size, 16);
}

TEST(LogParse, ProcessGroupsAreNamedAndSized) {
  auto log = parse_logs({kLogs + "mlm_hcp_ok.log"});
  ASSERT_TRUE(log.ok()) << log.error().str();
  EXPECT_TRUE(log->pg_logging);
  const LogGroup* cp = group(*log, "CONTEXT_PARALLEL_GROUP");
  const LogGroup* l0 = group(*log, "HIERARCHICAL_CONTEXT_PARALLEL_GROUP_L0");
  const LogGroup* l1 = group(*log, "HIERARCHICAL_CONTEXT_PARALLEL_GROUP_L1");
  ASSERT_NE(cp, nullptr);
  ASSERT_NE(l0, nullptr);
  ASSERT_NE(l1, nullptr);
  EXPECT_EQ(cp->size, 16);
  EXPECT_EQ(l0->size, 8);
  EXPECT_EQ(l1->size, 2);
  EXPECT_EQ(cp->seen, 2);  // ranks 0 and 1
  EXPECT_EQ(log->nccl_communicators, 2);
  ASSERT_TRUE(log->versions.count("nccl"));
  EXPECT_EQ(log->versions.at("nccl").version, *Version::parse("2.21.5"));
}

TEST(LogParse, SizeWithoutANameIsJoinedThroughThePgGuid) {
  // Releases whose init line carries no "(desc)": the GUID ties it to a named line.
  ParsedLog log = parse_lines({
      "[PG ID 3 PG GUID 5 Rank 0] ProcessGroupNCCL initialization options: size: 4, global rank: "
      "0, TIMEOUT(ms): 600000, USE_HIGH_PRIORITY_STREAM: 0, SPLIT_FROM: 0, SPLIT_COLOR: 0, PG "
      "Name: 5",
      "[PG ID 3 PG GUID 5(CONTEXT_PARALLEL_GROUP) Rank 0] Using non-blocking mode: 0",
      "[PG ID 4 PG GUID 7 Rank 0] ProcessGroupNCCL initialization options: size: 2, global rank: "
      "0, PG Name: 7",
  });
  const LogGroup* cp = group(log, "CONTEXT_PARALLEL_GROUP");
  ASSERT_NE(cp, nullptr);
  EXPECT_EQ(cp->size, 4);
  EXPECT_NE(group(log, "unnamed (PG GUID 7)"), nullptr);
}

TEST(LogParse, IterationsMemoryAndTheRealExcerpt) {
  auto log = parse_logs({kLogs + "real_mlm756_iterations.log"});
  ASSERT_TRUE(log.ok()) << log.error().str();
  ASSERT_EQ(log->iterations.size(), 3u);
  EXPECT_EQ(log->iterations[0].iteration, 71);
  EXPECT_EQ(log->iterations[0].train_iters, 100);
  EXPECT_DOUBLE_EQ(log->iterations[0].step_ms, 5361.6);
  EXPECT_DOUBLE_EQ(*log->iterations[2].tflops_per_gpu, 224.0);
  auto ok = parse_logs({kLogs + "mlm_hcp_ok.log"});
  ASSERT_TRUE(ok.ok());
  ASSERT_EQ(ok->memory.size(), 1u);
  EXPECT_EQ(ok->memory[0].rank, 0);
  EXPECT_EQ(ok->memory[0].after_iterations, 2);
  EXPECT_DOUBLE_EQ(ok->memory[0].max_allocated_mb, 66112.31);
}

TEST(LogParse, MeasuredSpeedDropsWarmup) {
  ParsedLog log = parse_lines({
      " [t] iteration        1/      10 | elapsed time per iteration (ms): 900.0 |",
      " [t] iteration        2/      10 | elapsed time per iteration (ms): 110.0 |",
      " [t] iteration        3/      10 | elapsed time per iteration (ms): 100.0 |",
      " [t] iteration        4/      10 | elapsed time per iteration (ms): 102.0 |",
      " [t] iteration        5/      10 | elapsed time per iteration (ms): 104.0 |",
  });
  auto s = measured_speed(log, 2);
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->samples, 3);
  EXPECT_EQ(s->skipped_warmup, 2);
  EXPECT_DOUBLE_EQ(s->median_step_ms, 102.0);
  EXPECT_FALSE(measured_speed(log, 10).has_value());
}

TEST(LogParse, BridgeYamlDumpAndSummaryBecomeTheConfiguration) {
  auto yaml = parse_logs({kLogs + "bridge_hcp_ok.log"});
  ASSERT_TRUE(yaml.ok()) << yaml.error().str();
  ASSERT_TRUE(yaml->config.has_value());
  EXPECT_EQ(yaml->config->format, "bridge config yaml");
  EXPECT_EQ(yaml->config->recipe.get_int_list("model.hierarchical_context_parallel_sizes"),
            (std::vector<int64_t>{8, 2}));
  EXPECT_GT(yaml->config->recipe.where("model.context_parallel_size").line, 1);
  EXPECT_EQ(yaml->world_size, 16);  // default_pg's size

  auto summary = parse_logs({kLogs + "bridge_summary_hcp_ok.log"});
  ASSERT_TRUE(summary.ok()) << summary.error().str();
  ASSERT_TRUE(summary->config.has_value());
  EXPECT_EQ(summary->config->format, "bridge config summary");
  const Recipe& r = summary->config->recipe;
  EXPECT_EQ(r.get_string("model.cp_comm_type"), "a2a+p2p");
  EXPECT_EQ(r.get_int_list("model.hierarchical_context_parallel_sizes"),
            (std::vector<int64_t>{8, 2}));
  EXPECT_EQ(r.get_int("train.global_batch_size"), 8);
  EXPECT_EQ(r.get_bool("model.share_embeddings_and_output_weights"), false);
}

TEST(LogParse, TracebacksBecomeFailuresWithTheirRule) {
  auto a = parse_logs({kLogs + "mlm_cp012_assert.log"});
  ASSERT_TRUE(a.ok()) << a.error().str();
  ASSERT_EQ(a->failures.size(), 1u);
  EXPECT_EQ(a->failures[0].kind, LogFailureKind::kAssertion);
  EXPECT_EQ(a->failures[0].occurrences, 4);  // one per rank
  EXPECT_EQ(a->failures[0].rule_id, "CP012");
  EXPECT_NE(a->failures[0].frame.find("arguments.py:584 in validate_args"), std::string::npos);

  auto bare = parse_logs({kLogs + "mlm_cp013_assert.log"});
  ASSERT_TRUE(bare.ok()) << bare.error().str();
  ASSERT_EQ(bare->failures.size(), 1u);
  EXPECT_EQ(bare->failures[0].message, "");
  EXPECT_EQ(bare->failures[0].source_line,
            "assert args.context_parallel_size == prod(args.hierarchical_context_parallel_sizes)");
  EXPECT_EQ(bare->failures[0].rule_id, "CP013");
}

TEST(LogParse, OutOfMemoryAndWatchdogTimeouts) {
  auto oom = parse_logs({kLogs + "real_verl5840_oom.log"});
  ASSERT_TRUE(oom.ok()) << oom.error().str();
  ASSERT_EQ(oom->failures.size(), 1u);
  EXPECT_EQ(oom->failures[0].kind, LogFailureKind::kOutOfMemory);
  EXPECT_DOUBLE_EQ(*oom->failures[0].tried_gib, 23.93);
  EXPECT_DOUBLE_EQ(*oom->failures[0].total_gib, 95.08);

  auto timeout = parse_logs({kLogs + "real_llamafactory6269_watchdog.log"});
  ASSERT_TRUE(timeout.ok()) << timeout.error().str();
  ASSERT_EQ(timeout->failures.size(), 1u);
  EXPECT_EQ(timeout->failures[0].kind, LogFailureKind::kNcclTimeout);
  EXPECT_EQ(timeout->failures[0].occurrences, 2);
}

TEST(LogParse, GzipAndPlainGiveTheSameResult) {
  auto plain = parse_logs({kLogs + "mlm_hcp_ok.log"});
  auto gz = parse_logs({kLogs + "mlm_hcp_ok.log.gz"});
  ASSERT_TRUE(plain.ok());
  ASSERT_TRUE(gz.ok()) << gz.error().str();
  EXPECT_EQ(plain->lines, gz->lines);
  EXPECT_EQ(plain->groups.size(), gz->groups.size());
  EXPECT_EQ(plain->iterations_seen, gz->iterations_seen);
}

TEST(LogParse, SeveralRanksFilesAreRead) {
  auto log = parse_logs({kLogs + "mlm_hcp_ok_torchrun.log", kLogs + "mlm_hcp_ok_mpirun.log"});
  ASSERT_TRUE(log.ok()) << log.error().str();
  EXPECT_EQ(log->files.size(), 2u);
  ASSERT_TRUE(log->config.has_value());
  EXPECT_EQ(log->config->begin.file, kLogs + "mlm_hcp_ok_torchrun.log");
  EXPECT_EQ(group(*log, "CONTEXT_PARALLEL_GROUP")->seen, 2);
}

/// The error of a log made of `lines` (fed in order), or "" when it parses.
std::string parse_error_of(const std::vector<std::string>& lines) {
  LogParser parser;
  parser.begin_file("t.log");
  int64_t line_no = 0;
  for (const std::string& line : lines)
    parser.feed(line, ++line_no);
  auto log = parser.finish();
  return log ? std::string() : log.error().str();
}

TEST(LogParse, NumbersOutsideTheirPhysicalRangeAreErrors) {
  // Issue 28: NaN and negative step times gave a NaN median and verdict OK; a 19-digit world
  // size was cut to 18 digits; world size 0 reached a division.
  const std::string step =
      " iteration        1/     100 | consumed samples:    8 | elapsed time per iteration (ms): ";
  const std::string args = "------------------------ arguments ------------------------";
  const std::string end = "-------------------- end of arguments ---------------------";
  const std::string world = "  world_size ...................................... ";
  struct Case {
    std::vector<std::string> lines;
    std::string error;
  };
  const std::vector<Case> cases = {
      {{step + "nan |"}, "t.log:1: elapsed time per iteration (ms): nan is not a finite number"},
      {{step + "-5.0 |"}, "t.log:1: elapsed time per iteration (ms): -5 is below"},
      {{step + "inf |"}, "t.log:1: elapsed time per iteration (ms): inf is not a finite number"},
      {{step + "5e-324 |"}, "t.log:1: elapsed time per iteration (ms): 5e-324 is a denormal"},
      {{args, world + "1234567890123456789", end},
       "t.log:2: world_size: world size '1234567890123456789' is not a count of GPUs"},
      {{args, world + "0", end}, "t.log:2: world_size: world size '0' is not a count of GPUs"},
  };
  for (const Case& c : cases) {
    std::string error = parse_error_of(c.lines);
    EXPECT_EQ(error.rfind(c.error, 0), 0U) << c.lines.front() << "\n" << error;
  }
  EXPECT_EQ(parse_error_of({step + "1234.5 |"}), "") << "a step time in range is no error";
}

TEST(LogParse, AnUnreadableLayoutArgumentIsAnErrorAndOthersAreListed) {
  // "context_parallel_size ... abc" was dropped and checked as CP 1 against HCP groups of 16.
  const std::string args = "------------------------ arguments ------------------------";
  const std::string end = "-------------------- end of arguments ---------------------";
  auto arg = [](const std::string& name, const std::string& value) {
    return "  " + name + " " + std::string(40 - name.size(), '.') + " " + value;
  };
  struct Case {
    std::string name;
    std::string value;
    std::string error;  ///< empty: the block is read, the argument listed as ignored
  };
  const std::vector<Case> cases = {
      {"context_parallel_size", "abc", "--context-parallel-size expects an integer, got 'abc'"},
      {"context_parallel_size", "nan", "--context-parallel-size expects an integer, got 'nan'"},
      {"hierarchical_context_parallel_sizes", "[8, 2, 0, -1]",
       "--hierarchical-context-parallel-sizes: '0' is below the physical range"},
      {"tensor_model_parallel_size", "1e400", "--tensor-model-parallel-size"},
      {"attention_dropout", "abc", ""},
  };
  for (const Case& c : cases) {
    LogParser parser;
    parser.begin_file("t.log");
    int64_t line_no = 0;
    for (const std::string& line :
         {args, arg("context_parallel_size", "2"), arg(c.name, c.value), end})
      parser.feed(line, ++line_no);
    auto log = parser.finish();
    if (c.error.empty()) {
      ASSERT_TRUE(log.ok()) << c.name << ": " << log.error().str();
      ASSERT_TRUE(log->config);
      EXPECT_EQ(log->config->ignored, (std::vector<std::string>{"--attention-dropout (line 3)"}));
      continue;
    }
    ASSERT_FALSE(log.ok()) << c.name << " " << c.value;
    EXPECT_EQ(log.error().str().rfind("t.log:3:", 0), 0U) << log.error().str();
    EXPECT_NE(log.error().str().find(c.error), std::string::npos) << log.error().str();
  }
}

TEST(LogParse, AConfigurationCutAt4MiBSaysWhereItWasCut) {
  // The cut was a note nothing printed: the part past 4 MiB was left out without a word.
  std::ifstream in(kLogs + "bridge_hcp_ok.log");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string train = "train:\n";
  size_t at = text.find(train);
  ASSERT_NE(at, std::string::npos);
  const int64_t train_line = 1 + std::count(text.begin(), text.begin() + at, '\n');
  std::string padding;
  const std::string value(60, 'x');
  for (int i = 0; padding.size() <= kMaxConfigBlockBytes; ++i)
    padding += "  # padding " + std::to_string(i) + ": " + value + "\n";
  text.insert(at + train.size(), padding);
  const std::string path = ::testing::TempDir() + "/hcp_cut_config.log";
  std::ofstream(path) << text;
  auto log = parse_logs({path});
  ASSERT_TRUE(log.ok()) << log.error().str();
  ASSERT_TRUE(log->config);
  EXPECT_EQ(log->config->recipe.get_int_list("model.hierarchical_context_parallel_sizes"),
            (std::vector<int64_t>{8, 2}));  // printed before the cut
  ASSERT_EQ(log->config->ignored.size(), 1U);
  EXPECT_EQ(log->config->ignored.front().rfind("everything printed past 4 MiB (line ", 0), 0U);
  const int64_t cut = std::stoll(log->config->ignored.front().substr(36));
  EXPECT_GT(cut, train_line);
  auto whole = parse_logs({kLogs + "bridge_hcp_ok.log"});
  ASSERT_TRUE(whole.ok() && whole->config);
  EXPECT_TRUE(whole->config->ignored.empty());
}

TEST(LogParse, BadInputsAreOneLineErrors) {
  auto truncated = parse_logs({kLogs + "truncated.log.gz"});
  ASSERT_FALSE(truncated.ok());
  EXPECT_NE(truncated.error().message.find("truncated"), std::string::npos);
  auto cut = parse_logs({kLogs + "truncated_args.log"});
  ASSERT_FALSE(cut.ok());
  EXPECT_NE(cut.error().message.find("end of arguments"), std::string::npos);
  auto binary = parse_logs({kLogs + "binary.log"});
  ASSERT_FALSE(binary.ok());
  EXPECT_NE(binary.error().message.find("binary"), std::string::npos);
  auto missing = parse_logs({kLogs + "no_such.log"});
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("no such file"), std::string::npos);
  auto nothing = parse_logs({kLogs + "not_a_training_log.log"});
  ASSERT_FALSE(nothing.ok());
  EXPECT_NE(nothing.error().message.find("no Megatron-LM"), std::string::npos);
  for (const auto* r : {&truncated, &cut, &binary, &missing, &nothing})
    EXPECT_EQ(r->error().str().find('\n'), std::string::npos);
}

TEST(LogParse, LongLinesAreCutAndIterationsStayBounded) {
  LogParser parser;
  parser.begin_file("big.log");
  std::string long_line(kMaxLineBytes * 3, 'x');
  parser.feed(long_line, 1);
  // Half again past the cap: one thinning has happened and iterations kept after it.
  const auto fed = static_cast<int64_t>(kMaxIterationsKept + kMaxIterationsKept / 2);
  std::string line;  // one buffer for every line
  for (int64_t i = 1; i <= fed; ++i) {
    line.assign(" [t] iteration ");
    line += std::to_string(i);
    line += "/ 1 | elapsed time per iteration (ms): 5.0 |";
    parser.feed(line, i + 1);
  }
  auto log = parser.finish();
  ASSERT_TRUE(log.ok());
  EXPECT_EQ(log->iterations_seen, fed);
  EXPECT_LT(log->iterations.size(), kMaxIterationsKept);
  EXPECT_GT(log->iterations.size(), kMaxIterationsKept / 4);
}

}  // namespace
}  // namespace hcp

namespace hcp {
namespace {

TEST(LogParse, CrashTailWithoutTrainingOutputIsReadAsItsFailures) {
  // A device-side assert, the CUDA error it raises, and the watchdog timeout it leaves on the
  // other ranks: no arguments block and no iteration line, still a log to check.
  auto log = parse_logs({kLogs + "real_crash_tail_device_assert.log"});
  ASSERT_TRUE(log.ok()) << log.error().str();
  ASSERT_EQ(log->failures.size(), 3u);
  EXPECT_EQ(log->failures[0].kind, LogFailureKind::kCudaError);
  EXPECT_EQ(log->failures[0].message, "device-side assertion `srcIndex < srcSelectDimSize` failed");
  EXPECT_EQ(log->failures[0].frame,
            "../aten/src/ATen/native/cuda/Indexing.cu:1141 in indexSelectLargeIndex");
  EXPECT_EQ(log->failures[0].at.line, 1);
  EXPECT_EQ(log->failures[1].kind, LogFailureKind::kCudaError);
  EXPECT_EQ(log->failures[1].message, "CUDA error: device-side assert triggered");
  EXPECT_EQ(log->failures[2].kind, LogFailureKind::kNcclTimeout);
  EXPECT_EQ(log->failures[2].message.rfind("[PG 1 Rank 0] Timeout at NCCL work: 7753", 0), 0u);
}

TEST(LogParse, EveryRanksDeviceAssertAndTimeoutIsOneFailure) {
  const std::string kernel =
      "../aten/src/ATen/native/cuda/Indexing.cu:1141: indexSelectLargeIndex: ";
  const std::string assertion = " Assertion `srcIndex < srcSelectDimSize` failed.";
  const std::string pg_error =
      std::string("[rank11]:[E318 09:26:18.141499142 ProcessGroupNCCL.cpp:2068] ") +
      "[PG ID 0 PG GUID 0(default_pg) Rank 11] Process group watchdog " +
      "thread terminated with exception: CUDA error: device-side assert triggered";
  const std::string watchdog =
      std::string("[rank0]:[E1206 18:44:12.715298746 ProcessGroupNCCL.cpp:607] ") +
      "[Rank 0] Watchdog caught collective operation timeout: " +
      "WorkNCCL(SeqNum=7753, OpType=_REDUCE_SCATTER_BASE) ran for 600061 " +
      "milliseconds before timing out.";
  const std::string timeout =
      std::string("[rank2]:[E1206 18:44:16.994961143 ProcessGroupNCCL.cpp:1709] ") +
      "[PG 1 Rank 2] Timeout at NCCL work: 7753, last enqueued NCCL work: " +
      "7755, last completed NCCL work: 7752.";
  ParsedLog log = parse_lines({kernel + "block: [615,0,0], thread: [31,0,0]" + assertion,
                               kernel + "block: [118,0,0], thread: [0,0,0]" + assertion, pg_error,
                               watchdog, timeout});
  ASSERT_EQ(log.failures.size(), 3u);
  EXPECT_EQ(log.failures[0].occurrences, 2);  // The assert of two CUDA threads.
  EXPECT_EQ(log.failures[1].message, "CUDA error: device-side assert triggered");
  EXPECT_EQ(log.failures[2].kind, LogFailureKind::kNcclTimeout);
  EXPECT_EQ(log.failures[2].occurrences, 2);  // Two ranks' watchdogs, two wordings.
  // Text that only mentions an assertion or a CUDA error in passing is no failure.
  const std::string asynchronous =
      "CUDA kernel errors might be asynchronously reported at some other API call";
  EXPECT_TRUE(parse_lines({asynchronous, "the Assertion is checked later"}).failures.empty());
}

TEST(LogAnchors, FoundAtEveryOffsetAcrossTheVectorBlocks) {
  // The scan skips 16 bytes at a time: an anchor must be found wherever it starts.
  for (size_t pad = 0; pad < 40; ++pad) {
    std::string line = std::string(pad, 'x') + " NCCL INFO comm";
    EXPECT_TRUE(logscan::line_anchors(line) & logscan::kNccl) << pad;
    line = std::string(pad, 'a') + "elapsed time per iteration (ms): 5.0";
    EXPECT_TRUE(logscan::line_anchors(line) & logscan::kIteration) << pad;
    line = std::string(pad, 'b') + "torch==2.5.1";
    EXPECT_TRUE(logscan::line_anchors(line) & logscan::kVersion) << pad;
    EXPECT_EQ(logscan::line_anchors(std::string(pad, 'y') + " lm loss: 2.3 |"), 0u) << pad;
    line = std::string(pad, 'c') + "] Assertion `i < n` failed.";
    EXPECT_TRUE(logscan::line_anchors(line) & logscan::kDeviceAssert) << pad;
    line = std::string(pad, 'd') + "RuntimeError: CUDA error: an illegal memory access";
    EXPECT_TRUE(logscan::line_anchors(line) & logscan::kCudaError) << pad;
  }
  EXPECT_TRUE(logscan::line_anchors("[Rank 0] (after 2 iterations) memory (MB) | allocated: 1") &
              logscan::kMemory);
  EXPECT_EQ(logscan::line_anchors("memory (MB) alone"), 0u);
}

}  // namespace
}  // namespace hcp

namespace hcp {
namespace {

/// The notes hardware_for_log gives, one string.
std::string notes_of(const LogHardware& hw) {
  std::string all;
  for (const std::string& n : hw.notes)
    all += n + "\n";
  return all;
}

TEST(LogParse, TheGpuALogNamesComesFromTheHardwareTableAndPicksItsProfile) {
  // Longer names first (GB200 vs B200, L40S vs L40, H800 vs H100); variants keep their model
  // name; GPUs the table cannot price or does not know, and lines without "NVIDIA <name>", name
  // none (model "") and leave check-log on its default profile.
  struct Case {
    const char* line;
    const char* model;
    const char* cluster;
  };
  for (Case c : {
           Case{"0: GPU 0: NVIDIA GB200 (UUID: GPU-1234)", "GB200", "gb200-nvl72"},
           Case{"0: GPU 0: NVIDIA B200 (UUID: GPU-1234)", "B200", "dgx-b200"},
           Case{"0: GPU 0: NVIDIA GB300 (UUID: GPU-1234)", "GB300", "dgx-h100"},
           Case{"0: GPU 0: NVIDIA B300 SXM6 AC (UUID: GPU-1)", "B300", "dgx-h100"},
           Case{"0: GPU 0: NVIDIA H200 (UUID: GPU-1234)", "H200", "dgx-h200"},
           Case{"0: GPU 0: NVIDIA H800 (UUID: GPU-1234)", "H800", "dgx-h100"},
           Case{"0: GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-1)", "H100", "dgx-h100"},
           Case{"0: GPU 0: NVIDIA H100 PCIe (UUID: GPU-1234)", "H100", "dgx-h100"},
           Case{"0: GPU 0: NVIDIA H100 (UUID: GPU-b200c0de)", "H100", "dgx-h100"},
           Case{"0: GPU 0: NVIDIA A100-SXM4-40GB (UUID: GPU-1)", "A100", "dgx-a100"},
           Case{"0: GPU 0: NVIDIA A800-SXM4-80GB (UUID: GPU-1)", "A800", "dgx-h100"},
           Case{"0: GPU 0: NVIDIA L40S (UUID: GPU-1234)", "L40S", "dgx-h100"},
           Case{"0: GPU 0: NVIDIA L40 (UUID: GPU-1234)", "L40", "dgx-h100"},
           Case{"0: GPU 0: Tesla V100-SXM2-32GB (UUID: GPU-1)", "", "dgx-h100"},
           Case{"0: GPU 0: NVIDIA Tesla V100-SXM2-32GB (UUID: 1)", "", "dgx-h100"},
           Case{"0: GPU 0: NVIDIA MI300X (UUID: GPU-1234)", "", "dgx-h100"},
           Case{"0: Copyright (c) NVIDIA CORPORATION.", "", "dgx-h100"},
           Case{"0: GPU 0: H200 (UUID: GPU-1234)", "", "dgx-h100"},
       }) {
    ParsedLog log = parse_lines({c.line});
    EXPECT_EQ(log.gpu_name.value_or(""), c.model) << c.line;
    auto hw = hardware_for_log(log, "", "", "");
    ASSERT_TRUE(hw.ok()) << c.line << ": " << hw.error().str();
    EXPECT_EQ(hw->label, c.cluster) << c.line;
    bool from_the_log = notes_of(*hw).find("from the GPU the log names (" + std::string(c.model) +
                                           ")") != std::string::npos;
    EXPECT_EQ(from_the_log, std::string(c.cluster) != "dgx-h100" || std::string(c.model) == "H100")
        << c.line << "\n"
        << notes_of(*hw);
  }
}

TEST(LogParse, VersionsAndTheGpuTheJobPrints) {
  LogParser parser;
  parser.begin_file("v.log");
  const char* lines[] = {
      "0: transformer_engine version: 2.8.0",
      "0: megatron-core==0.14.0",
      "0: torch version: 2.7.1+cu128",
      "0: GPU 0: NVIDIA H200 (UUID: GPU-1234)",
      "0: [Rank 0] (after 1 iterations) memory (MB) | allocated: 1.0 | max allocated: 2.0",
  };
  int64_t n = 0;
  for (const char* line : lines)
    parser.feed(line, ++n);
  auto log = parser.finish();
  ASSERT_TRUE(log.ok());
  EXPECT_EQ(log->versions.at("te").version, *Version::parse("2.8.0"));
  EXPECT_EQ(log->versions.at("mcore").version, *Version::parse("0.14.0"));
  EXPECT_EQ(log->versions.at("torch").version, *Version::parse("2.7.1"));
  EXPECT_EQ(log->versions.at("te").at.line, 1);
  EXPECT_EQ(log->gpu_name, "H200");
  auto hw = hardware_for_log(*log, "", "", "");
  ASSERT_TRUE(hw.ok()) << hw.error().str();
  EXPECT_EQ(hw->label, "dgx-h200");
  // The log's TE version reaches the rules (the command line would win).
  Environment env = log_environment(*log, Environment{}, Framework::kMlm);
  EXPECT_EQ(env.te_version, *Version::parse("2.8.0"));
}

}  // namespace
}  // namespace hcp
