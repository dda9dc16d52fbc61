// Malformed inputs of every kind, end to end: each is bad input (exit 2) reported on ONE line of
// stderr that names the file (and the line where there is one); nothing crashes, hangs or answers
// wrongly. Fixtures are written into a temporary directory by the tests themselves. The probe
// captures (hwloc, NCCL, nvidia-smi) have their own file; the regressions of issue #17 are here.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>

#include "cli/cli_runner.h"
#include "support/unprivileged.h"

namespace hcp {
namespace {

namespace fs = std::filesystem;
using testing::CliResult;
using testing::run_cli;
using testing::run_shell;

const std::string kTopo = "tests/fixtures/topologies/";
const std::string kSmi = " --nvidia-smi-topo tests/fixtures/preflight/dgx_h100_healthy.txt";

/// A temporary directory for one test's fixtures, removed afterwards.
class Scratch {
 public:
  Scratch() {
    static int counter = 0;
    path_ = fs::temp_directory_path() /
            ("hcp_malformed_" + std::to_string(getpid()) + "_" + std::to_string(counter++));
    fs::create_directories(path_);
  }
  ~Scratch() {
    std::error_code ec;
    fs::permissions(path_, fs::perms::owner_all, fs::perm_options::add, ec);
    fs::remove_all(path_, ec);
  }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;

  /// Write `bytes` to NAME in the directory; return its absolute path.
  std::string file(const std::string& name, const std::string& bytes) const {
    fs::path p = path_ / name;
    fs::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << bytes;
    return p.string();
  }
  std::string dir(const std::string& name) const {
    fs::create_directories(path_ / name);
    return (path_ / name).string();
  }

 private:
  fs::path path_;
};

int line_count(const std::string& text) {
  int n = 0;
  for (char c : text)
    n += c == '\n';
  return n;
}

/// Exit 2, nothing on stdout, exactly one line on stderr holding `where` ("FILE" or "FILE:LINE").
void expect_bad_input(const CliResult& r, const std::string& where,
                      const std::string& message_part = "") {
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(line_count(r.err), 1) << r.err;
  EXPECT_EQ(r.err.rfind("hcp-plan: error: ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find(where), std::string::npos) << "expected '" << where << "' in: " << r.err;
  if (!message_part.empty()) {
    EXPECT_NE(r.err.find(message_part), std::string::npos)
        << "expected '" << message_part << "' in: " << r.err;
  }
  EXPECT_EQ(r.err.find("internal error"), std::string::npos) << r.err;
}

/// `text` with every `from` replaced by `to` (of the same length: the lines wrap alike).
std::string replace_all(std::string text, const std::string& from, const std::string& to) {
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
  return text;
}

/// A small recipe that loads and validates.
const std::string kRecipe =
    "model:\n"
    "  num_layers: 4\n"
    "  hidden_size: 256\n"
    "  num_attention_heads: 8\n"
    "  seq_length: 4096\n"
    "  tensor_model_parallel_size: 1\n"
    "  context_parallel_size: 2\n"
    "train:\n"
    "  global_batch_size: 8\n"
    "  micro_batch_size: 1\n"
    "dataset:\n"
    "  seq_length: 4096\n";

std::string recipe_with(const std::string& model_line) {
  std::string text = kRecipe;
  text.insert(text.find("train:"), "  " + model_line + "\n");
  return text;
}

// ---------------------------------------------------------------------------------------------
// Recipes (validate RECIPE)

TEST(MalformedRecipe, EmptyFile) {
  Scratch s;
  auto f = s.file("empty.yaml", "");
  expect_bad_input(run_cli("validate " + f), f, "empty recipe");
}

TEST(MalformedRecipe, OnlyCommentsAndWhitespace) {
  Scratch s;
  auto f = s.file("blank.yaml", "# nothing\n\n   \n");
  expect_bad_input(run_cli("validate " + f), f);
}

TEST(MalformedRecipe, TruncatedFlowList) {
  Scratch s;
  auto f = s.file("trunc.yaml", "model:\n  hierarchical_context_parallel_sizes: [8, 2\n");
  expect_bad_input(run_cli("validate " + f), f + ":", "malformed YAML");
}

TEST(MalformedRecipe, TruncatedInTheMiddleOfAFlowMap) {
  Scratch s;
  auto f = s.file("flowmap.yaml", "model: {num_layers: 4, hidden_size:");
  expect_bad_input(run_cli("validate " + f), f + ":", "malformed YAML");
}

TEST(MalformedRecipe, WrongTypeNamesLine) {
  Scratch s;
  auto f = s.file("type.yaml", recipe_with("pipeline_model_parallel_size: many"));
  expect_bad_input(run_cli("validate " + f), f + ":8:", "wrong type");
}

TEST(MalformedRecipe, SizeOfTwoToThe63) {
  Scratch s;
  auto f = s.file("big.yaml", recipe_with("pipeline_model_parallel_size: 9223372036854775808"));
  expect_bad_input(run_cli("validate " + f), f + ":8:");
}

TEST(MalformedRecipe, ZeroSize) {
  Scratch s;
  auto f = s.file("zero.yaml", recipe_with("pipeline_model_parallel_size: 0"));
  expect_bad_input(run_cli("validate " + f), f + ":8:", "positive");
}

TEST(MalformedRecipe, NegativeSize) {
  Scratch s;
  auto f = s.file("neg.yaml", recipe_with("pipeline_model_parallel_size: -4"));
  expect_bad_input(run_cli("validate " + f), f + ":8:", "positive");
}

TEST(MalformedRecipe, NanSize) {
  Scratch s;
  auto f = s.file("nan.yaml", recipe_with("pipeline_model_parallel_size: .nan"));
  expect_bad_input(run_cli("validate " + f), f + ":8:", "wrong type");
}

TEST(MalformedRecipe, DuplicateKey) {
  Scratch s;
  auto f = s.file("dup.yaml", recipe_with("context_parallel_size: 4"));
  expect_bad_input(run_cli("validate " + f), f + ":8:", "duplicate key");
}

TEST(MalformedRecipe, AliasBomb) {
  Scratch s;
  std::string text = "a: &a [x, x, x, x, x, x, x, x, x, x]\n";
  for (char c = 'b'; c <= 'j'; ++c) {
    std::string prev(1, static_cast<char>(c - 1));
    text += std::string(1, c) + ": &" + c + " [*" + prev + ", *" + prev + ", *" + prev + ", *" +
            prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev +
            ", *" + prev + "]\n";
  }
  auto f = s.file(
      "bomb.yaml", "optimizer:\n  " + [&] {
        std::string indented;
        for (char c : text) {
          indented += c;
          if (c == '\n') indented += "  ";
        }
        return indented;
      }());
  expect_bad_input(run_cli("validate " + f), f, "nodes");
}

TEST(MalformedRecipe, DeepNesting) {
  Scratch s;
  auto f = s.file("deep.yaml", "optimizer: " + std::string(5000, '[') + std::string(5000, ']'));
  expect_bad_input(run_cli("validate " + f), f, "deep");
}

TEST(MalformedRecipe, BinaryGarbage) {
  Scratch s;
  std::string garbage = "model:\n  num_layers: 4\n";
  garbage += std::string(
      "\x7f"
      "ELF\x02\x01\x01\0\0\0",
      10);
  auto f = s.file("garbage.yaml", garbage);
  expect_bad_input(run_cli("validate " + f), f + ":3:1:", "binary data");
}

TEST(MalformedRecipe, ControlByteInAValue) {
  Scratch s;
  auto f = s.file("ctl.yaml", "model:\n  cp_comm_type: a2a\x01p2p\n");
  expect_bad_input(run_cli("validate " + f), f + ":2:", "binary data (byte 0x01)");
}

TEST(MalformedRecipe, TopLevelList) {
  Scratch s;
  auto f = s.file("list.yaml", "- model\n- train\n");
  expect_bad_input(run_cli("validate " + f), f, "must be a map");
}

TEST(MalformedRecipe, Directory) {
  Scratch s;
  auto d = s.dir("recipe_dir.yaml");
  expect_bad_input(run_cli("validate " + d), d, "is a directory");
}

TEST(MalformedRecipe, EndlessDeviceEndsFast) {
  // Issue #17: `validate /dev/zero` read the stream without limit.
  if (!fs::exists("/dev/zero")) GTEST_SKIP() << "no /dev/zero";
  expect_bad_input(run_cli("validate /dev/zero"), "/dev/zero", "is a device, not a regular file");
}

/// Run `hcp-plan ARGS` as `nobody` when this process is root (else as this user), from a copy of
/// the binary in `scratch` and with `scratch` as the working directory: a checkout under a private
/// directory (/root) is neither executable nor readable by `nobody`.
CliResult run_cli_unprivileged(const std::string& scratch, const std::string& args) {
  const std::string binary = scratch + "/hcp-plan";
  fs::copy_file(HCP_BINARY, binary, fs::copy_options::overwrite_existing);
  fs::permissions(binary, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                              fs::perms::others_read | fs::perms::others_exec);
  fs::permissions(scratch, fs::perms::group_exec | fs::perms::others_exec, fs::perm_options::add);
  return testing::run_shell("cd '" + scratch + "' && " + testing::unprivileged_command_prefix() +
                            "'" + binary + "' " + args);
}

TEST(MalformedRecipe, UnreadableFile) {
  // As root (CI) hcp-plan runs as `nobody`: root reads a file without permissions.
  Scratch s;
  auto f = s.file("secret.yaml", kRecipe);
  fs::permissions(f, fs::perms::none);
  expect_bad_input(run_cli_unprivileged(fs::path(f).parent_path().string(), "validate " + f), f,
                   "Permission denied");
}

TEST(MalformedRecipe, ParallelSizesWhoseProductWraps) {
  // Issue #17: 2^22 * 2^21 * 2^21 wrapped to 0 and `world % 0` raised SIGFPE in CP001.
  Scratch s;
  std::string text = kRecipe;
  text.replace(text.find("tensor_model_parallel_size: 1"), 29,
               "tensor_model_parallel_size: 4194304\n  pipeline_model_parallel_size: 2097152");
  text.replace(text.find("context_parallel_size: 2"), 24, "context_parallel_size: 2097152");
  auto f = s.file("wrap.yaml", text);
  expect_bad_input(run_cli("validate " + f + " --world-size 64"), f,
                   "1048576 GPUs, the largest world");
}

TEST(MalformedRecipe, BomIsAcceptedLikeThePlainFile) {
  Scratch s;
  auto plain = s.file("a/r.yaml", kRecipe);
  auto bom = s.file("b/r.yaml", "\xEF\xBB\xBF" + kRecipe);
  CliResult p = run_cli("validate " + plain + " --world-size 8");
  CliResult b = run_cli("validate " + bom + " --world-size 8");
  EXPECT_EQ(p.exit_code, 0) << p.out << p.err;
  EXPECT_EQ(b.exit_code, p.exit_code) << b.out << b.err;
  EXPECT_EQ(b.out, replace_all(p.out, "/a/r.yaml", "/b/r.yaml"));
}

TEST(MalformedRecipe, CrlfIsAcceptedLikeThePlainFile) {
  Scratch s;
  std::string crlf;
  for (char c : kRecipe)
    crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
  auto plain = s.file("a/r.yaml", kRecipe);
  auto f = s.file("c/r.yaml", crlf);
  CliResult p = run_cli("validate " + plain + " --world-size 8");
  CliResult r = run_cli("validate " + f + " --world-size 8");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.out, replace_all(p.out, "/a/r.yaml", "/c/r.yaml"));
}

TEST(MalformedRecipe, InvalidUtf8IsEchoedAsValidJsonAndSarif) {
  // Issue #17: invalid UTF-8 from an input echoed into JSON or SARIF made the writer throw.
  // Issue #28: a recipe file that is not UTF-8 is refused at its line and column; bytes that are
  // not UTF-8 still reach the writers through an override, and come out as valid JSON.
  Scratch s;
  auto f = s.file("utf8.yaml", recipe_with("cp_comm_type: \"p2p\xff\xfe\""));
  for (const char* format : {"json", "sarif"}) {
    CliResult r = run_cli("validate " + f + " --world-size 8 --format " + format);
    EXPECT_EQ(r.exit_code, 2) << format << ": " << r.out << r.err;
    EXPECT_NE(r.err.find("invalid UTF-8 (byte 0xff)"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("internal error"), std::string::npos) << r.err;
    auto doc = nlohmann::json::parse(r.out, nullptr, false);
    EXPECT_FALSE(doc.is_discarded()) << format << ": " << r.out;
    CliResult o = run_cli("validate recipes/llama3_8b_128k.yaml --world-size 8 --format " +
                          std::string(format) + " 'model.cp_comm_type=p2p\xff\xfe'");
    EXPECT_EQ(o.err.find("internal error"), std::string::npos) << o.err;
    auto echoed = nlohmann::json::parse(o.out, nullptr, false);
    EXPECT_FALSE(echoed.is_discarded()) << format << ": " << o.out;
  }
}

// ---------------------------------------------------------------------------------------------
// Overrides

TEST(MalformedOverride, EightThousandNestedBrackets) {
  // Issue #17: recursive parse_list/parse_element overflowed the stack (SIGSEGV).
  CliResult r = run_cli("validate llama3_8b_128k 'optimizer.x=" + std::string(8000, '[') + "'");
  expect_bad_input(r, "<override 1>", "nested deeper than 64 levels");
}

TEST(MalformedOverride, WeightShardsOfTwoToThe62) {
  // Issue #17: TP x PP x CP x shards/TP wrapped and CP001 divided by zero.
  CliResult r = run_cli(
      "validate llama3_8b_128k ++model.tensor_parallel_num_weight_shards=4611686018427387904 "
      "--world-size 32");
  expect_bad_input(r, "<override 1>", "1048576 GPUs, the largest world");
}

TEST(MalformedOverride, SizeOfTwoToThe64) {
  CliResult r = run_cli("validate llama3_8b_128k model.context_parallel_size=18446744073709551616");
  expect_bad_input(r, "<override 1>", "64 bits");
}

TEST(MalformedOverride, UnbalancedQuote) {
  CliResult r = run_cli("validate llama3_8b_128k 'model.cp_comm_type=\"a2a'");
  expect_bad_input(r, "<override 1>", "unbalanced quote");
}

TEST(MalformedOverride, VocabMultipleOfTwoToThe63) {
  // Issue #17: make_vocab_size_divisible_by=2^63-1 overflowed the padded vocabulary (UB).
  CliResult r = run_cli(
      "plan llama3_8b_128k --nodes 4 model.make_vocab_size_divisible_by=9223372036854775807");
  expect_bad_input(r, "make_vocab_size_divisible_by", "overflows");
}

// ---------------------------------------------------------------------------------------------
// Hugging Face config.json (validate --hf-config)

const std::string kHf =
    "{\"num_hidden_layers\": 4, \"hidden_size\": 256, \"num_attention_heads\": 8, "
    "\"max_position_embeddings\": 4096";

TEST(MalformedHfConfig, NumberOutOfRange) {
  // Issue #17: 1e400 escaped as "internal error" with no file named.
  Scratch s;
  auto f = s.file("config.json", kHf + ", \"rope_theta\": 1e400}");
  expect_bad_input(run_cli("validate --hf-config " + f), f, "1e400");
}

TEST(MalformedHfConfig, KvHeadsOfTwoToThe63NotMisprinted) {
  // Issue #17: 2^63 was printed as -9223372036854775808.
  Scratch s;
  auto f = s.file("config.json", kHf + ", \"num_key_value_heads\": 9223372036854775808}");
  CliResult r = run_cli("validate --hf-config " + f);
  expect_bad_input(r, f + ":1:", "9223372036854775808");
  EXPECT_EQ(r.err.find("-9223372036854775808"), std::string::npos) << r.err;
}

TEST(MalformedHfConfig, Truncated) {
  Scratch s;
  auto f = s.file("config.json", "{\n  \"num_hidden_layers\": 4,\n  \"hidden_size\": ");
  expect_bad_input(run_cli("validate --hf-config " + f), f + ":3:", "malformed JSON");
}

TEST(MalformedHfConfig, WrongType) {
  Scratch s;
  auto f = s.file("config.json", kHf + ", \"num_key_value_heads\": \"eight\"}");
  expect_bad_input(run_cli("validate --hf-config " + f), f + ":1:", "must be an integer");
}

TEST(MalformedHfConfig, NegativeHeads) {
  Scratch s;
  auto f = s.file("config.json", kHf + ", \"num_key_value_heads\": -8}");
  expect_bad_input(run_cli("validate --hf-config " + f), f);
}

TEST(MalformedHfConfig, NanLiteral) {
  Scratch s;
  auto f = s.file("config.json", kHf + ", \"rope_theta\": NaN}");
  expect_bad_input(run_cli("validate --hf-config " + f), f + ":1:", "malformed JSON");
}

TEST(MalformedHfConfig, DuplicateKey) {
  Scratch s;
  auto f = s.file("config.json", kHf + ", \"hidden_size\": 512}");
  expect_bad_input(run_cli("validate --hf-config " + f), f, "duplicate key 'hidden_size'");
}

TEST(MalformedHfConfig, Directory) {
  Scratch s;
  auto d = s.dir("hf_dir");
  expect_bad_input(run_cli("validate --hf-config " + d), d, "is a directory");
}

TEST(MalformedHfConfig, EmptyFile) {
  Scratch s;
  auto f = s.file("config.json", "");
  expect_bad_input(run_cli("validate --hf-config " + f), f, "empty file");
}

TEST(MalformedHfConfig, DeepNesting) {
  Scratch s;
  auto f = s.file("config.json", kHf + ", \"x\": " + std::string(100000, '[') + "}");
  expect_bad_input(run_cli("validate --hf-config " + f), f, "deeper than");
}

TEST(MalformedHfConfig, BinaryGarbage) {
  Scratch s;
  auto f = s.file("config.json", std::string("\x89PNG\r\n\x1a\n\0\0\0\rIHDR", 16));
  expect_bad_input(run_cli("validate --hf-config " + f), f + ":2:1:", "binary data (byte 0x1a)");
}

TEST(MalformedHfConfig, BomIsAccepted) {
  Scratch s;
  auto f = s.file("config.json", "\xEF\xBB\xBF" + kHf + "}");
  CliResult r = run_cli("validate --hf-config " + f + " --world-size 8");
  EXPECT_NE(r.exit_code, 2) << r.out << r.err;
  EXPECT_EQ(r.err, "");
}

// ---------------------------------------------------------------------------------------------
// Calibration JSON (plan --calibration)

std::string plan_with_calibration(const std::string& file) {
  return "plan llama3_8b_128k --nodes 4 --top 1 --calibration " + file;
}

TEST(MalformedCalibration, NumberOutOfRange) {
  // Issue #17: 1e400 escaped as "internal error" with no file named.
  Scratch s;
  auto f =
      s.file("cal.json", "{\"schema_version\": 1, \"summary\": {\"attention_tflops\": 1e400}}");
  expect_bad_input(run_cli(plan_with_calibration(f)), f, "1e400");
}

TEST(MalformedCalibration, Truncated) {
  Scratch s;
  auto f = s.file("cal.json", "{\n  \"schema_version\": 1,\n  \"summary\": {");
  expect_bad_input(run_cli(plan_with_calibration(f)), f + ":3:", "malformed calibration JSON");
}

TEST(MalformedCalibration, WrongType) {
  Scratch s;
  auto f = s.file("cal.json", "{\"schema_version\": 1, \"gpus\": \"eight\"}");
  expect_bad_input(run_cli(plan_with_calibration(f)), f, "'gpus': expected an integer");
}

TEST(MalformedCalibration, ZeroBandwidth) {
  Scratch s;
  auto f = s.file("cal.json", "{\"schema_version\": 1, \"summary\": {\"intra_node_a2a_gbps\": 0}}");
  expect_bad_input(run_cli(plan_with_calibration(f)), f, "must be positive");
}

TEST(MalformedCalibration, NegativeCount) {
  Scratch s;
  auto f = s.file("cal.json", "{\"schema_version\": 1, \"gpus\": -8}");
  expect_bad_input(run_cli(plan_with_calibration(f)), f, "must be positive");
}

TEST(MalformedCalibration, CountOfTwoToThe63) {
  Scratch s;
  auto f = s.file("cal.json", "{\"schema_version\": 1, \"gpus\": 9223372036854775808}");
  expect_bad_input(run_cli(plan_with_calibration(f)), f, "out of range: 9223372036854775808");
}

TEST(MalformedCalibration, NanLiteral) {
  Scratch s;
  auto f = s.file("cal.json", "{\"schema_version\": 1, \"summary\": {\"attention_tflops\": NaN}}");
  expect_bad_input(run_cli(plan_with_calibration(f)), f + ":1:", "malformed calibration JSON");
}

TEST(MalformedCalibration, DuplicateKey) {
  Scratch s;
  auto f = s.file("cal.json", "{\"schema_version\": 1, \"schema_version\": 1}");
  expect_bad_input(run_cli(plan_with_calibration(f)), f, "duplicate key 'schema_version'");
}

TEST(MalformedCalibration, Directory) {
  Scratch s;
  auto d = s.dir("cal_dir");
  expect_bad_input(run_cli(plan_with_calibration(d)), d, "is a directory");
}

TEST(MalformedCalibration, EmptyFile) {
  Scratch s;
  auto f = s.file("cal.json", "");
  expect_bad_input(run_cli(plan_with_calibration(f)), f, "empty file");
}

TEST(MalformedCalibration, BinaryGarbage) {
  Scratch s;
  auto f = s.file("cal.json", std::string("\x1f\x8b\x08\0\0\0\0\0\0\x03", 10));
  expect_bad_input(run_cli(plan_with_calibration(f)), f + ":1:1:", "binary data (byte 0x1f)");
}

TEST(MalformedCalibration, BomIsAccepted) {
  Scratch s;
  auto f = s.file("cal.json", "\xEF\xBB\xBF{\"schema_version\": 1}");
  CliResult r = run_cli(plan_with_calibration(f));
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("\ncalibration: " + f + "\n"), std::string::npos) << r.out;
}

// ---------------------------------------------------------------------------------------------
// Cluster profiles (plan --topology)

const std::string kProfile =
    "name: t\ngpus_per_node: 8\nnvlink_domain: 8\nnvlink_gbps_per_gpu: 450\n"
    "pcie_gbps_per_gpu: 48\nnics_per_node: 8\nnic_gbits: 400\ngpu_memory_gib: 80\n"
    "bf16_dense_tflops: 989\n";

std::string plan_with_topology(const std::string& file) {
  return "plan llama3_8b_128k --nodes 4 --top 1 --topology " + file;
}

TEST(MalformedClusterProfile, Directory) {
  Scratch s;
  auto d = s.dir("profile.yaml");
  expect_bad_input(run_cli(plan_with_topology(d)), d, "is a directory");
}

TEST(MalformedClusterProfile, GpusOfTwoToThe63) {
  Scratch s;
  std::string text = kProfile;
  text.replace(text.find("gpus_per_node: 8"), 16, "gpus_per_node: 9223372036854775808");
  auto f = s.file("p.yaml", text);
  expect_bad_input(run_cli(plan_with_topology(f)), f + ":2:", "expected an integer");
}

TEST(MalformedClusterProfile, ZeroGpus) {
  Scratch s;
  std::string text = kProfile;
  text.replace(text.find("gpus_per_node: 8"), 16, "gpus_per_node: 0");
  auto f = s.file("p.yaml", text);
  expect_bad_input(run_cli(plan_with_topology(f)), f + ":2:", "must be >=");
}

TEST(MalformedClusterProfile, NanBandwidth) {
  Scratch s;
  auto f = s.file("p.yaml", kProfile + "bf16_dense_tflops: .nan\n");
  CliResult r = run_cli(plan_with_topology(f));
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find(f + ":"), std::string::npos) << r.err;
}

TEST(MalformedClusterProfile, BinaryGarbage) {
  Scratch s;
  auto f = s.file("p.yaml", std::string("gpus_per_node: 8\n\0\0\0\x04", 21));
  expect_bad_input(run_cli(plan_with_topology(f)), f + ":2:1:", "binary data");
}

TEST(MalformedClusterProfile, Truncated) {
  Scratch s;
  auto f = s.file("p.yaml", "name: t\ngpus_per_node: [8\n");
  expect_bad_input(run_cli(plan_with_topology(f)), f + ":", "malformed YAML");
}

// ---------------------------------------------------------------------------------------------
// Megatron-LM arguments (--mlm-args, @FILE) and functional-test YAML

const std::string kMlm =
    "--num-layers 4 --hidden-size 256 --num-attention-heads 8 --seq-length 4096 "
    "--micro-batch-size 1 --global-batch-size 8 --context-parallel-size 2 --bf16";

TEST(MalformedMlmArgs, UnclosedHierarchicalList) {
  // Issue #17: "[2," was read as [2].
  CliResult r =
      run_cli("validate --mlm-args '" + kMlm + " --hierarchical-context-parallel-sizes [2,'");
  expect_bad_input(r, "<command line>", "a list of integers");
}

TEST(MalformedMlmArgs, DoubleCommaInList) {
  CliResult r =
      run_cli("validate --mlm-args '" + kMlm + " --hierarchical-context-parallel-sizes [2,,1]'");
  expect_bad_input(r, "<command line>", "a list of integers");
}

TEST(MalformedMlmArgs, SizeOfTwoToThe63) {
  CliResult r = run_cli("validate --mlm-args '" + kMlm +
                        " --pipeline-model-parallel-size 9223372036854775808'");
  expect_bad_input(r, "<command line>", "--pipeline-model-parallel-size");
}

TEST(MalformedMlmArgs, ArgumentFileIsADirectory) {
  Scratch s;
  auto d = s.dir("args_dir");
  expect_bad_input(run_cli("validate --mlm-args @" + d), d, "is a directory");
}

TEST(MalformedMlmArgs, ArgumentFileWithControlBytes) {
  Scratch s;
  auto f = s.file("args.txt", kMlm + "\n--cp-comm-type p2p\x02\n");
  expect_bad_input(run_cli("validate --mlm-args @" + f), f + ":2:", "binary data (byte 0x02)");
}

TEST(MalformedMlmArgs, ArgumentFileWithBomIsAccepted) {
  Scratch s;
  auto f = s.file("args.txt", "\xEF\xBB\xBF" + kMlm + "\n");
  CliResult r = run_cli("validate --mlm-args @" + f + " --world-size 8");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find(": 0 errors, 0 warnings"), std::string::npos) << r.out;
}

TEST(MalformedMlmArgs, ParallelProductWraps) {
  // Each parallel size is at most 2^20, so their product (2^60 here) cannot wrap; it is still
  // above the largest world.
  CliResult r = run_cli("validate --mlm-args '" + kMlm +
                        " --tensor-model-parallel-size 1048576 --pipeline-model-parallel-size "
                        "1048576 --context-parallel-size 1048576' --world-size 64");
  expect_bad_input(r, "<command line>", "1048576 GPUs, the largest world");
  CliResult one = run_cli("validate --mlm-args '" + kMlm +
                          " --tensor-model-parallel-size 4194304' --world-size 64");
  expect_bad_input(one, "<command line>",
                   "--tensor-model-parallel-size: '4194304' is above the physical range [1, "
                   "1048576] (a parallel size)");
}

TEST(MalformedMlmYaml, RepeatedMergeKeysNineDeep) {
  // Issue #17: a 1.4 KB file with `<<` merges at every level never finished.
  Scratch s;
  std::string text = "l0: &l0\n  --num-layers: 4\n";
  for (int i = 1; i <= 9; ++i) {
    std::string prev = "*l" + std::to_string(i - 1);
    text += "l" + std::to_string(i) + ": &l" + std::to_string(i) + "\n";
    for (int k = 0; k < 12; ++k)
      text += "  <<: " + prev + "\n";
  }
  text += "MODEL_ARGS:\n";
  for (int k = 0; k < 12; ++k)
    text += "  <<: *l9\n";
  text += "  --hidden-size: 256\n";
  auto f = s.file("model_config.yaml", text);
  CliResult r = run_cli("validate " + f);
  // yaml-cpp rejects repeated `<<` keys as duplicates, or the merge budget stops the walk:
  // either way one line naming the file, fast.
  expect_bad_input(r, f);
}

TEST(MalformedMlmYaml, MergeKeyBombWithinOneKeyPerMap) {
  Scratch s;
  // One `<<` per map (no duplicate keys) but each merges a list of ten aliases of the level below.
  std::string text = "l0: &l0\n  --num-layers: 4\n";
  for (int i = 1; i <= 8; ++i) {
    std::string prev = "*l" + std::to_string(i - 1);
    text += "l" + std::to_string(i) + ": &l" + std::to_string(i) + "\n  <<: [";
    for (int k = 0; k < 10; ++k)
      text += (k ? ", " : "") + prev;
    text += "]\n";
  }
  text += "MODEL_ARGS:\n  <<: *l8\n  --hidden-size: 256\n";
  auto f = s.file("model_config.yaml", text);
  expect_bad_input(run_cli("validate " + f), f,
                   "entries in one argument section, counting what '<<' merge keys bring in");
}

TEST(MalformedMlmYaml, MapMergedIntoItself) {
  // Found by fuzz_mlm_test_config (a timeout): the alias of a map inside that map, merged three
  // times, printed 49,205 error lines in 2.6 s.
  Scratch s;
  auto f = s.file("model_config.yaml",
                  "MODEL_ARGS: &args\n"
                  "  --context-parallel-size: 2\n"
                  "  --contel-size: 2\n"
                  "  <<: *args\n"
                  "  --carallel-size: 4\n"
                  "  <<: *args\n"
                  "  <<: *args\n");
  expect_bad_input(run_cli("validate " + f), f + ":1:", "merges a map into itself");
}

TEST(MalformedMlmYaml, ControlBytesRejectedAsInRecipes) {
  // Issue #17: control bytes passed in Megatron-LM YAML but not in recipes.
  Scratch s;
  auto f =
      s.file("model_config.yaml", "MODEL_ARGS:\n  --num-layers: 4\n  --cp-comm-type: p2p\x01\n");
  expect_bad_input(run_cli("validate " + f), f + ":3:", "binary data (byte 0x01)");
}

TEST(MalformedMlmYaml, SectionIsNotAMap) {
  Scratch s;
  auto f = s.file("model_config.yaml", "MODEL_ARGS: [--num-layers, 4]\n");
  expect_bad_input(run_cli("validate " + f), f + ":1:", "must be a map");
}

TEST(MalformedMlmYaml, BomIsAccepted) {
  Scratch s;
  auto f = s.file("model_config.yaml",
                  "\xEF\xBB\xBFMODEL_ARGS:\n  --num-layers: 4\n  --hidden-size: 256\n"
                  "  --num-attention-heads: 8\n  --seq-length: 4096\n");
  CliResult r = run_cli("validate " + f + " --world-size 8");
  EXPECT_NE(r.exit_code, 2) << r.out << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_NE(r.out.find(f + ": 0 errors, 0 warnings, 0 infos\n"), std::string::npos) << r.out;
}

// ---------------------------------------------------------------------------------------------
// Launcher environment files and variables (preflight)

std::string preflight_env(const std::string& env_file, const std::string& extra = "") {
  return "preflight llama3_8b_128k --env-file " + env_file + kSmi + " " + extra;
}

TEST(MalformedEnvFile, DirectoryIsBadInput) {
  // Issue #17: a directory was read as an empty environment (NO-GO instead of exit 2).
  Scratch s;
  auto d = s.dir("env_dir");
  expect_bad_input(run_cli(preflight_env(d)), d, "is a directory");
}

TEST(MalformedEnvFile, CountOfTwoToThe63NamesFileAndLine) {
  // Issue #17: counts near 2^63 were signed overflow; value errors named neither file nor line.
  Scratch s;
  auto f = s.file("job.env", "# job\nSLURM_JOB_ID=1\nSLURM_NNODES=9223372036854775807\n");
  expect_bad_input(run_cli(preflight_env(f)), f + ":3:", "SLURM_NNODES");
}

TEST(MalformedEnvFile, NodesTimesGpusOverflow) {
  // Issue #17: nodes x GPUs per node wrapped to 0 and CP002 divided by zero.
  Scratch s;
  auto f = s.file("job.env", "SLURM_JOB_ID=1\nSLURM_NNODES=1048576\nSLURM_GPUS_ON_NODE=1048576\n");
  expect_bad_input(run_cli(preflight_env(f)), "1048576", "larger than 1048576 GPUs");
}

TEST(MalformedEnvFile, NotANumber) {
  Scratch s;
  auto f = s.file("job.env", "WORLD_SIZE=32\nLOCAL_WORLD_SIZE=eight\n");
  expect_bad_input(run_cli(preflight_env(f)), f + ":2:", "not a positive integer");
}

TEST(MalformedEnvFile, ZeroCount) {
  Scratch s;
  auto f = s.file("job.env", "WORLD_SIZE=0\n");
  expect_bad_input(run_cli(preflight_env(f)), f + ":1:", "not a positive integer");
}

TEST(MalformedEnvFile, NegativeCount) {
  Scratch s;
  auto f = s.file("job.env", "OMPI_COMM_WORLD_SIZE=-8\n");
  expect_bad_input(run_cli(preflight_env(f)), f + ":1:", "not a positive integer");
}

TEST(MalformedEnvFile, LineWithoutEquals) {
  Scratch s;
  auto f = s.file("job.env", "SLURM_JOB_ID=1\nthis is not an assignment\n");
  expect_bad_input(run_cli(preflight_env(f)), f + ":2:", "expected KEY=VALUE");
}

TEST(MalformedEnvFile, BinaryGarbage) {
  Scratch s;
  auto f = s.file("job.env", std::string("SLURM_JOB_ID=1\n\0\0\0\0", 19));
  expect_bad_input(run_cli(preflight_env(f)), f + ":2:1:", "binary data");
}

TEST(MalformedEnvFile, BomAndCrlfAreAccepted) {
  // Issue #17: a valid env file with a UTF-8 BOM was rejected.
  Scratch s;
  std::string body = "SLURM_JOB_ID=1\nSLURM_NNODES=4\nSLURM_GPUS_ON_NODE=8\n";
  auto plain = s.file("plain.env", body);
  std::string crlf;
  for (char c : body)
    crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
  auto bom = s.file("bom.env", "\xEF\xBB\xBF" + crlf);
  CliResult p = run_cli(preflight_env(plain, "--format json"));
  CliResult b = run_cli(preflight_env(bom, "--format json"));
  EXPECT_NE(p.exit_code, 2) << p.err;
  EXPECT_EQ(b.exit_code, p.exit_code) << b.err;
  auto pj = nlohmann::json::parse(p.out, nullptr, false);
  auto bj = nlohmann::json::parse(b.out, nullptr, false);
  ASSERT_FALSE(pj.is_discarded()) << p.out;
  ASSERT_FALSE(bj.is_discarded()) << b.out;
  EXPECT_EQ(bj["launch"]["world_size"], 32);
  EXPECT_EQ(bj["launch"], pj["launch"]);
}

TEST(MalformedEnvFile, EnvironmentCountOfTwoToThe63OnTheCommandLine) {
  CliResult r = run_cli(preflight_env("/dev/null", "--env WORLD_SIZE=9223372036854775807"));
  expect_bad_input(r, "WORLD_SIZE", "larger than 1048576");
}

TEST(MalformedEnvFile, NodesOptionTimesGpusOptionTooLarge) {
  CliResult r =
      run_cli(preflight_env("/dev/null", "--nodes 1073741824 --gpus-per-node 1073741824"));
  expect_bad_input(r, "<command line>", "'1073741824' is above the physical range [1, 1048576]");
  // Each in range, their product (2^21 GPUs) is not.
  CliResult product = run_cli(preflight_env("/dev/null", "--nodes 4096 --gpus-per-node 512"));
  expect_bad_input(product, "<command line>", "1048576");
}

// ---------------------------------------------------------------------------------------------
// Planner, compare and dcp options

TEST(MalformedPlannerOption, CompareOptionOfTwoToThe63) {
  // Issue #17: tp=2^63-1 overflowed tp*cp*pp (UB).
  CliResult r = run_cli("compare llama3_8b_128k --nodes 4 --option tp=9223372036854775807,cp=16");
  expect_bad_input(r, "tp=9223372036854775807", "larger than 1048576");
}

TEST(MalformedPlannerOption, CompareHcpProductOverflow) {
  CliResult r = run_cli(
      "compare llama3_8b_128k --nodes 4 --option 'cp=16,hcp=[1048576,1048576,1048576,1048576]'");
  expect_bad_input(r, "<command line>: --option", "larger than 1048576");
}

TEST(MalformedPlannerOption, PlanMaxPpOfTwoToThe63Returns) {
  // Issue #17: the PP search ran from 1 to --max-pp and never returned. 2^63 - 1 is now out of
  // the range of a parallel size; the largest one taken still returns at once.
  expect_bad_input(run_cli("plan llama3_8b_128k --nodes 4 --max-pp 9223372036854775807"),
                   "<command line>", "--max-pp: '9223372036854775807' is above");
  CliResult r = run_cli("plan llama3_8b_128k --nodes 4 --top 1 --max-pp 1048576");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.out.rfind("hcp-plan plan: llama3_8b_128k on 4 x 8 ", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("\nsearched "), std::string::npos) << r.out;
}

TEST(MalformedPlannerOption, PlanWorldOfTwoToThe60) {
  // Issue #17: a 2^60-GPU world was planned for 49 s.
  CliResult r = run_cli("plan llama3_8b_128k --nodes 1073741824 --gpus-per-node 1073741824");
  expect_bad_input(r, "<command line>", "--nodes: '1073741824' is above the physical range");
}

TEST(MalformedPlannerOption, PlanNodesTimesProfileGpusTooLarge) {
  CliResult r = run_cli("plan llama3_8b_128k --nodes 4611686018427387904");
  expect_bad_input(r, "<command line>", "--nodes: '4611686018427387904' is above");
  // 2^18 nodes are a parallel size; times the profile's 8 GPUs they are no world.
  CliResult product = run_cli("plan llama3_8b_128k --nodes 262144");
  expect_bad_input(product, "<command line>", "larger than 1048576 GPUs");
}

TEST(MalformedPlannerOption, TeVersionThatIsNotAVersion) {
  // Issue #17: --te-version 1.x.y was accepted.
  CliResult r = run_cli("plan llama3_8b_128k --nodes 4 --te-version 1.x.y");
  expect_bad_input(r, "1.x.y");
  CliResult v = run_cli("validate llama3_8b_128k --world-size 32 --te-version 1.x.y");
  expect_bad_input(v, "1.x.y");
}

TEST(MalformedDcpOption, MaxSeqlenOfTwoToThe63) {
  // Issue #17: m * CP overflowed in dp_balanced (UB).
  CliResult r = run_cli(
      "dcp --synthetic lognormal:4096:1:64 --dp 2 --cp 2 "
      "--max-seqlen-per-dp-cp-rank 9223372036854775807");
  expect_bad_input(r, "--max-seqlen-per-dp-cp-rank", "above the physical range [1, 2147483647]");
}

TEST(MalformedDcpOption, WorldSizeOfTwoToThe63) {
  CliResult r = run_cli(
      "dcp llama3_8b_128k --synthetic lognormal:4096:1:64 "
      "--world-size 9223372036854775807");
  expect_bad_input(r, "--world-size", "above the physical range [1, 1048576]");
}

TEST(MalformedDcpOption, SeqLengthOfTwoToThe63) {
  CliResult r = run_cli(
      "dcp --synthetic lognormal:4096:1:64 --dp 2 --cp 2 --max-seqlen-per-dp-cp-rank 4096 "
      "--seq-length 9223372036854775807");
  expect_bad_input(r, "--seq-length", "2147483647");
}

// ---------------------------------------------------------------------------------------------
// Sequence-length files (dcp --lengths): the loader is the dcp module's; these pin the CLI
// contract (exit 2, one line, the file named).

TEST(MalformedLengths, Directory) {
  Scratch s;
  auto d = s.dir("lengths_dir");
  CliResult r = run_cli("dcp --lengths " + d + " --dp 2 --cp 2 --max-seqlen-per-dp-cp-rank 4096");
  expect_bad_input(r, d);
}

TEST(MalformedLengths, NegativeLength) {
  Scratch s;
  auto f = s.file("lens.txt", "4096\n-5\n");
  CliResult r = run_cli("dcp --lengths " + f + " --dp 2 --cp 2 --max-seqlen-per-dp-cp-rank 4096");
  expect_bad_input(r, f);
}

TEST(MalformedLengths, EmptyFile) {
  Scratch s;
  auto f = s.file("lens.txt", "");
  CliResult r = run_cli("dcp --lengths " + f + " --dp 2 --cp 2 --max-seqlen-per-dp-cp-rank 4096");
  expect_bad_input(r, f);
}

/// The options of `hcp-plan SUB --help` that take a value (a type word after the names).
std::vector<std::string> value_options_of(const std::string& sub) {
  std::vector<std::string> names;
  std::istringstream help(run_cli(sub + " --help").out);
  const std::regex option(R"(^  (?:-\w,)?(--[a-z][a-z0-9_-]*)(?:,[^ ]+)? [A-Z][A-Z]+)");
  for (std::string line; std::getline(help, line);) {
    std::smatch m;
    if (std::regex_search(line, m, option)) names.push_back(m[1]);
  }
  return names;
}

// An empty value ("--cluster ''") is bad input for every option of every command, never taken
// for the option left out (plan used to run on the default cluster).
TEST(MalformedCli, AnEmptyValueOfEveryOptionIsBadInput) {
  size_t checked = 0;
  for (const std::string& sub : testing::registered_subcommands()) {
    for (const std::string& opt : value_options_of(sub)) {
      CliResult r = run_cli(sub + " " + opt + " ''");
      const std::string what = sub + " " + opt + " ''";
      EXPECT_EQ(r.exit_code, 2) << what << "\n" << r.err;
      EXPECT_EQ(r.err.rfind("hcp-plan: error: ", 0), 0U) << what << "\n" << r.err;
      EXPECT_NE(r.err.substr(0, r.err.find('\n')).find(opt), std::string::npos)
          << what << ": the option is not named\n"
          << r.err;
      EXPECT_EQ(r.err.find("internal error"), std::string::npos) << what;
      ++checked;
    }
  }
  EXPECT_GT(checked, 100U);  // the help listing was read: every command has several
}

TEST(MalformedCli, TheEmptyValueMessageNamesTheOption) {
  CliResult r = run_cli("plan llama3_8b_128k --nodes 4 --gpus-per-node 8 --cluster ''");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err.substr(0, r.err.find('\n')),
            "hcp-plan: error: <command line>: --cluster: an empty value");
  EXPECT_EQ(run_cli("plan llama3_8b_128k --nodes 4 --gpus-per-node 8 --cluster dgx-h100").exit_code,
            0);
}

// Line breaks, tabs, carriage returns, escape sequences and invalid UTF-8 in a command-line value
// are echoed escaped: the message stays one line and nothing reaches the terminal raw.
TEST(MalformedCli, ControlCharactersInAValueKeepTheMessageOnOneLine) {
  // Single-quoted for the shell (/bin/sh, which has no $'...'): any byte but ' stands as it is.
  const std::vector<std::string> values = {"'a\nb'", "'a\tb'", "'a\rb'", "'\x1b[2Jx'",
                                           "'\xff\xfe'"};
  const std::vector<std::string> commands = {
      "validate {}",
      "validate llama3_8b_128k model.context_parallel_size={}",
      "plan llama3_8b_128k --nodes 4 --gpus-per-node 8 --cluster {}",
      "plan llama3_8b_128k --nodes 4 --gpus-per-node 8 --te-version {}",
      "compare llama3_8b_128k --nodes 4 --gpus-per-node 8 --option {}",
      "explain {}",
  };
  for (const std::string& command : commands) {
    for (const std::string& value : values) {
      std::string line = command;
      line.replace(line.find("{}"), 2, value);
      CliResult r = run_shell("cd '" HCP_SOURCE_DIR "' && '" HCP_BINARY "' " + line);
      EXPECT_EQ(r.exit_code, 2) << line << "\n" << r.err;
      ASSERT_FALSE(r.err.empty()) << line;
      EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << line << ": more than one line:\n" << r.err;
      for (char raw : {'\r', '\t', '\x1b'})
        EXPECT_EQ(r.err.find(raw), std::string::npos) << line << ": a raw control\n" << r.err;
    }
  }
}

// A recipe, a skipped file or a training log whose path holds a line break: every report names it
// on one line (validate's summary line and skip note, preflight's "recipe ... on" line,
// check-log's "Config:" line), so the path cannot add a line of its own.
TEST(MalformedCli, ALineBreakInARecipePathAddsNoLine) {
  Scratch dir;
  std::ifstream in(std::string(HCP_SOURCE_DIR) + "/recipes/llama3_8b_128k.yaml");
  std::string recipe((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string path = dir.file("a\nverdict: GO/r.yaml", recipe);
  // A workflow beside it, skipped with a note that names it.
  dir.file("a\nverdict: GO/w\nverdict: GO.yaml", "name: CI\non: push\njobs: {}\n");
  const std::string folder = path.substr(0, path.rfind('/'));
  CliResult skipped = run_cli("validate '" + folder + "' --nodes 4 --gpus-per-node 8");
  EXPECT_NE(skipped.err.find("skipped, not a recipe"), std::string::npos) << skipped.err;
  for (const std::string& text : {skipped.out, skipped.err})
    EXPECT_EQ(text.find("\nverdict: GO"), std::string::npos) << text;
  std::ifstream log_in(std::string(HCP_SOURCE_DIR) + "/tests/fixtures/logs/bridge_hcp_ok.log");
  std::string log((std::istreambuf_iterator<char>(log_in)), std::istreambuf_iterator<char>());
  const std::string log_path = dir.file("a\nverdict: GO/train.log", log);
  CliResult checked = run_cli("check-log '" + log_path + "'");
  EXPECT_EQ(checked.exit_code, 0) << checked.err;
  EXPECT_NE(checked.out.find("Config:    "), std::string::npos) << checked.out;
  for (const std::string& text : {checked.out, checked.err})
    EXPECT_EQ(text.find("\nverdict: GO"), std::string::npos) << text;
  const std::vector<std::string> commands = {
      "validate {} --nodes 4 --gpus-per-node 8",
      "validate {} --nodes 4 --gpus-per-node 8 --format gcc",
      "preflight {} --nvidia-smi-topo tests/fixtures/preflight/dgx_h100_healthy.txt",
      "plan {} --nodes 4 --gpus-per-node 8 --cluster dgx-h100",
      "groups {} --world-size 32",
  };
  for (const std::string& command : commands) {
    std::string line = command;
    line.replace(line.find("{}"), 2, "'" + path + "'");
    CliResult r = run_cli(line);
    EXPECT_NE(r.exit_code, 2) << line << "\n" << r.err;  // the recipe itself is fine
    for (const std::string& text : {r.out, r.err})
      EXPECT_EQ(text.find("\nverdict: GO"), std::string::npos) << line << "\n" << text;
  }
}

}  // namespace
}  // namespace hcp
