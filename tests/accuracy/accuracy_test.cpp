// The validation corpus, the metrics, the fitter and the error bands.
#include <gtest/gtest.h>

#include <unistd.h>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "hcp/accuracy.h"

namespace hcp::accuracy {
namespace {

namespace fs = std::filesystem;

const std::string kCorpus = HCP_RECIPES_DIR "/corpus/measured_runs.json";

/// The shipped corpus, validation runs and fit, each read once per process: the tests that use
/// them only read them (reading the JSON is most of what they cost).
const Result<Corpus>& shipped_corpus() {
  static const Result<Corpus> corpus = load_corpus(kCorpus);
  return corpus;
}
const Result<Corpus>& shipped_validation() {
  static const Result<Corpus> validation =
      load_validation(HCP_RECIPES_DIR "/corpus/validation_runs.json", kCorpus);
  return validation;
}
const Result<FittedModel>& shipped_fit_json() {
  static const Result<FittedModel> fit = load_fit(HCP_RECIPES_DIR "/corpus/fitted_constants.json");
  return fit;
}
/// predict() of the shipped corpus with the shipped fit (empty when either does not load).
const std::vector<Prediction>& shipped_corpus_predictions() {
  static const std::vector<Prediction> predictions =
      shipped_corpus() && shipped_fit_json() ? predict(*shipped_corpus(), &*shipped_fit_json())
                                             : std::vector<Prediction>{};
  return predictions;
}

class TempFile {
 public:
  explicit TempFile(const std::string& text) {
    static int n = 0;
    path_ = (fs::temp_directory_path() /
             ("hcp_accuracy_" + std::to_string(::getpid()) + "_" + std::to_string(n++) + ".json"))
                .string();
    std::ofstream(path_) << text;
  }
  ~TempFile() { fs::remove(path_); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

/// A corpus of one model, "M" (Llama-3-8B dimensions), with the given rows (a JSON array body).
std::string corpus_of_m(const std::string& rows) {
  return R"({"models": {"M": {"num_layers": 32, "hidden_size": 4096,
  "ffn_hidden_size": 14336, "num_attention_heads": 32, "num_query_groups": 8,
  "kv_channels": 128, "vocab_size": 128256, "gated_linear_unit": true}},
 "rows": [)" +
         rows + "]}";
}

const std::string kTinyCorpus = corpus_of_m(R"(
  {"id": "a", "kind": "bridge_summary", "model": "M", "system": "DGX-H100", "cluster": "dgx-h100",
   "precision": "BF16", "num_gpus": 8, "global_batch": 128, "micro_batch": 1, "seq_length": 8192,
   "tp": 1, "pp": 1, "cp": 1, "measured": {"tokens_per_s_per_gpu": 12000}},
  {"id": "b", "kind": "bridge_summary", "model": "M", "system": "DGX-H100", "cluster": "dgx-h100",
   "precision": "BF16", "num_gpus": 16, "global_batch": 128, "micro_batch": 1, "seq_length": 8192,
   "tp": 2, "pp": 1, "cp": 1, "measured": {"tokens_per_s_per_gpu": 10000}},
  {"id": "c", "kind": "nemo_long_sequence", "model": "M", "system": "DGX-H100",
   "cluster": "dgx-h100", "precision": "BF16", "num_gpus": 16, "global_batch": 8,
   "micro_batch": 1, "seq_length": 65536, "tp": 2, "pp": 1, "cp": 4,
   "measured": {"model_tflops_per_gpu": 400}},
  {"id": "d", "model": null, "excluded": "no dimensions", "measured": {}}
 )");

/// Load kTinyCorpus (through a file, as users give one).
Result<Corpus> tiny_corpus() {
  TempFile f(kTinyCorpus);
  return load_corpus(f.path());
}

TEST(Corpus, ShippedCorpusLoadsWithSourcesAndDims) {
  const auto& corpus = shipped_corpus();
  ASSERT_TRUE(corpus) << corpus.error().str();
  EXPECT_GE(corpus->rows.size(), 220u);
  int used = 0;
  for (const CorpusRow& row : corpus->rows) {
    EXPECT_FALSE(row.source.empty()) << row.id;
    if (!row.excluded.empty()) continue;
    ++used;
    EXPECT_GT(row.measured_tokens, 0) << row.id;
    EXPECT_GT(row.dims.num_layers, 0) << row.id;
    EXPECT_EQ(row.layout.world() % 1, 0);
    EXPECT_FALSE(row.cluster.empty()) << row.id;
  }
  EXPECT_GE(used, 150);
}

TEST(Corpus, TflopsRowsAreConvertedThroughModelFlops) {
  auto corpus = tiny_corpus();
  ASSERT_TRUE(corpus) << corpus.error().str();
  ASSERT_EQ(corpus->rows.size(), 4u);
  const CorpusRow& c = corpus->rows[2];
  EXPECT_TRUE(c.tflops_metric);
  EXPECT_NEAR(c.measured_tokens * model_flops_per_token(c.dims), 400e12, 1e6);
  EXPECT_EQ(c.layout.dp, 2);
  EXPECT_FALSE(corpus->rows[3].excluded.empty());
}

// A publication that counts causal attention as half (Megatron-LM since 2025-03) gives more tokens
// for the same TFLOP/s than one that counts the whole score matrix (NeMo until 2025-08).
TEST(Corpus, TflopsRowsUseThePublicationsAttentionCount) {
  std::string row = R"({"id": "ID", "kind": "megatron_moe_model_zoo", "model": "M",
   "system": "DGX-H100", "cluster": "dgx-h100", "precision": "BF16", "num_gpus": 16,
   "global_batch": 8, "micro_batch": 1, "seq_length": 65536, "tp": 2, "pp": 1, "cp": 4,
   "measured": {"model_tflops_per_gpu": 400 COUNT}})";
  auto with = [&](const std::string& id, const std::string& count) {
    std::string r = row;
    r.replace(r.find("ID"), 2, id);
    r.replace(r.find(" COUNT"), 6, count);
    return r;
  };
  TempFile f(corpus_of_m(with("unset", "") + "," + with("full", R"(, "attention_flops": "full")") +
                         "," + with("causal", R"(, "attention_flops": "causal")")));
  auto corpus = load_corpus(f.path());
  ASSERT_TRUE(corpus) << corpus.error().str();
  const auto& rows = corpus->rows;
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].measured_tokens, rows[1].measured_tokens);
  EXPECT_NEAR(
      rows[2].measured_tokens * model_flops_per_token(rows[2].dims, AttentionFlops::kCausal),
      400e12, 1e6);
  // Llama-3-8B at 64K: attention is two thirds of the full count (103 of 151 GFLOP per token),
  // so the causal row has about 1.5x the tokens.
  EXPECT_GT(rows[2].measured_tokens, 1.45 * rows[1].measured_tokens);
  EXPECT_LT(rows[2].measured_tokens, 1.6 * rows[1].measured_tokens);

  TempFile bad(corpus_of_m(with("bad", R"(, "attention_flops": "sliding")")));
  auto refused = load_corpus(bad.path());
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().key, "rows.bad.measured.attention_flops");
  EXPECT_NE(refused.error().str().find("row bad: measured.attention_flops must be"),
            std::string::npos)
      << refused.error().str();
}

// Token drop as NeMo's MegatronTokenDropCallback sets it: capacity factor 1.0, padded.
TEST(Corpus, RowsReadTokenDrop) {
  auto row = [](const std::string& id, const std::string& settings) {
    return R"({"id": ")" + id + R"(", "kind": "nemo_perf_summary", "model": "M",
     "system": "DGX-H100", "cluster": "dgx-h100", "precision": "BF16", "num_gpus": 8,
     "global_batch": 128, "micro_batch": 1, "seq_length": 8192, "tp": 1, "pp": 1, "cp": 1,
     "measured": {"tokens_per_s_per_gpu": 12000}, "settings": {)" +
           settings + "}}";
  };
  TempFile f(corpus_of_m(row("drop", R"("moe_expert_capacity_factor": 1.0,
                                        "moe_pad_expert_input_to_capacity": true)") +
                         "," + row("dropless", "") + "," +
                         row("forced", R"("moe_router_force_load_balancing": true)")));
  auto corpus = load_corpus(f.path());
  ASSERT_TRUE(corpus) << corpus.error().str();
  ASSERT_EQ(corpus->rows.size(), 3u);
  EXPECT_EQ(corpus->rows[0].dims.moe_capacity_factor, 1.0);
  EXPECT_TRUE(corpus->rows[0].dims.moe_pad_to_capacity);
  EXPECT_EQ(corpus->rows[1].dims.moe_capacity_factor, 0.0);
  EXPECT_FALSE(corpus->rows[1].dims.moe_pad_to_capacity);
  EXPECT_FALSE(corpus->rows[1].dims.moe_force_balance);
  EXPECT_TRUE(corpus->rows[2].dims.moe_force_balance);
}

TEST(Corpus, BridgeRowsReadOffloadAndBf16GradientReduce) {
  TempFile f(corpus_of_m(R"(
    {"id": "a", "kind": "bridge_summary", "model": "M", "system": "DGX-H100",
     "cluster": "dgx-h100", "precision": "BF16", "num_gpus": 8, "global_batch": 128,
     "micro_batch": 1, "seq_length": 8192, "tp": 1, "pp": 1, "cp": 1,
     "settings": {"cpu_offloading_num_layers": 20, "cuda_graph_impl": "full_iteration",
                  "moe_a2a_overlap": true}, "measured": {"tokens_per_s_per_gpu": 1}},
    {"id": "b", "kind": "nemo_long_sequence", "model": "M", "system": "DGX-H100",
     "cluster": "dgx-h100", "precision": "BF16", "num_gpus": 8, "global_batch": 8,
     "micro_batch": 1, "seq_length": 8192, "tp": 1, "pp": 1, "cp": 1,
     "measured": {"tokens_per_s_per_gpu": 1}})"));
  auto corpus = load_corpus(f.path());
  ASSERT_TRUE(corpus) << corpus.error().str();
  EXPECT_EQ(corpus->rows[0].setup.activation_offload_layers, 20);
  EXPECT_FALSE(corpus->rows[0].setup.grad_reduce_in_fp32);  // Bridge perf scripts
  EXPECT_TRUE(corpus->rows[0].setup.cuda_graph_full_iteration);
  EXPECT_TRUE(corpus->rows[0].setup.moe_a2a_overlap);
  EXPECT_EQ(corpus->rows[1].setup.activation_offload_layers, 0);
  EXPECT_FALSE(corpus->rows[1].setup.cuda_graph_full_iteration);
  EXPECT_FALSE(corpus->rows[1].setup.moe_a2a_overlap);
  EXPECT_TRUE(corpus->rows[1].setup.grad_reduce_in_fp32);  // not a Bridge perf row
}

TEST(Corpus, ATransformerEngineScopeOfSomeModulesIsAPartialGraph) {
  TempFile f(corpus_of_m(R"(
    {"id": "a", "kind": "bridge_summary", "model": "M", "system": "DGX-H100",
     "cluster": "dgx-h100", "precision": "BF16", "num_gpus": 8, "global_batch": 128,
     "micro_batch": 1, "seq_length": 8192, "tp": 1, "pp": 1, "cp": 1,
     "settings": {"cuda_graph_impl": "transformer_engine",
                  "cuda_graph_scope": ["attn", "moe_router", "moe_preprocess"]},
     "measured": {"tokens_per_s_per_gpu": 1}},
    {"id": "b", "kind": "bridge_summary", "model": "M", "system": "DGX-H100",
     "cluster": "dgx-h100", "precision": "BF16", "num_gpus": 8, "global_batch": 128,
     "micro_batch": 1, "seq_length": 8192, "tp": 1, "pp": 1, "cp": 1,
     "settings": {"cuda_graph_impl": "transformer_engine", "cuda_graph_scope": []},
     "measured": {"tokens_per_s_per_gpu": 1}})"));
  auto corpus = load_corpus(f.path());
  ASSERT_TRUE(corpus) << corpus.error().str();
  EXPECT_TRUE(corpus->rows[0].setup.cuda_graphs);
  EXPECT_TRUE(corpus->rows[0].setup.cuda_graph_partial_scope);
  EXPECT_TRUE(corpus->rows[1].setup.cuda_graphs);
  EXPECT_FALSE(corpus->rows[1].setup.cuda_graph_partial_scope);  // empty: the whole layer
}

TEST(Corpus, RunsWithKnownSettingsFitInMemory) {
  const auto& corpus = shipped_corpus();
  ASSERT_TRUE(corpus) << corpus.error().str();
  const auto& fit = shipped_fit_json();
  ASSERT_TRUE(fit) << fit.error().str();
  int checked = 0;
  for (const Prediction& p : shipped_corpus_predictions()) {
    if (!p.row->settings_found) continue;
    ++checked;
    EXPECT_TRUE(p.fits_memory) << p.row->id << ": " << p.memory.total / (1 << 30) << " GiB > "
                               << p.memory_limit_gib;
  }
  EXPECT_GE(checked, 80);
}

/// One row of model M on a DGX-H100 with the given kind and settings (a JSON object body).
std::string row_of_m(const std::string& id, const std::string& kind, const std::string& settings) {
  return R"({"id": ")" + id + R"(", "kind": ")" + kind + R"(", "model": "M",
     "system": "DGX-H100", "cluster": "dgx-h100", "precision": "BF16", "num_gpus": 8,
     "global_batch": 8, "micro_batch": 1, "seq_length": 8192, "tp": 1, "pp": 1, "cp": 1,
     "settings": {)" +
         settings + R"(}, "measured": {"tokens_per_s_per_gpu": 1}})";
}

TEST(Corpus, RowsReadThePrintedRecomputeGranularity) {
  struct Case {
    const char* settings;
    Recompute expected;
  };
  const Case cases[] = {
      {R"("recompute": "full")", Recompute::kFull},
      {R"("recompute": "selective")", Recompute::kSelective},
      {R"("recompute_num_layers": 4)", Recompute::kFull},
      {R"("recompute_modules": ["core_attn"])", Recompute::kSelective},
      {R"("recompute": "partial")", Recompute::kNone},
      {"", Recompute::kNone},
  };
  for (const Case& c : cases) {
    TempFile f(corpus_of_m(row_of_m("r", "paper", c.settings)));
    auto corpus = load_corpus(f.path());
    ASSERT_TRUE(corpus) << corpus.error().str();
    EXPECT_EQ(corpus->rows[0].setup.recompute, c.expected) << c.settings;
  }
}

TEST(Corpus, RowsReadMemorySettingsAndNemoPerformanceTablesReduceInBf16) {
  struct Case {
    const char* kind;
    const char* settings;
    bool fp32_grads;
    double optimizer_bytes;  ///< 0: the model's fp32 default
  };
  const Case cases[] = {
      {"nemo_perf_summary", "", false, 0},  // NeMo 2 performance scripts: bf16 gradients
      {"dgxc_benchmarking", "", false, 0},
      {"nemo_long_sequence", "", true, 0},  // not a performance table
      {"paper", "", true, 0},
      // NeMo 1 launcher configs: Apex's grad_sync_dtype defaults to the state dtype.
      {"nemo_perf_summary", R"("optimizer": "distributed_fused_adam")", true, 10},
      {"dgxc_benchmarking", R"("optimizer": "distributed_fused_adam", "grad_sync_dtype": "bf16")",
       false, 10},
      {"dgxc_benchmarking",
       R"("optimizer": "distributed_fused_adam", "grad_sync_dtype": "bf16",
          "optimizer_dtype": "bf16")",
       false, 4},
      {"dgxc_benchmarking", R"("optimizer": "mcore_distributed_optim")", true, 0},
  };
  for (const Case& c : cases) {
    TempFile f(corpus_of_m(row_of_m("r", c.kind, c.settings)));
    auto corpus = load_corpus(f.path());
    ASSERT_TRUE(corpus) << corpus.error().str();
    const TrainingSetup& s = corpus->rows[0].setup;
    EXPECT_EQ(s.grad_reduce_in_fp32, c.fp32_grads) << c.kind << " " << c.settings;
    EXPECT_DOUBLE_EQ(s.optimizer_bytes_per_param, c.optimizer_bytes) << c.kind << " " << c.settings;
    EXPECT_TRUE(s.offload_modules.empty());
  }
  TempFile f(corpus_of_m(row_of_m(
      "mz", "paper", R"("fine_grained_activation_offloading": ["expert_fc1", "moe_act"])")));
  auto corpus = load_corpus(f.path());
  ASSERT_TRUE(corpus) << corpus.error().str();
  EXPECT_EQ(corpus->rows[0].setup.offload_modules,
            (std::vector<std::string>{"expert_fc1", "moe_act"}));
}

TEST(Corpus, NoShippedRowThatRanIsPredictedOutOfMemory) {
  const auto& corpus = shipped_corpus();
  ASSERT_TRUE(corpus) << corpus.error().str();
  const auto& validation = shipped_validation();
  ASSERT_TRUE(validation) << validation.error().str();
  const auto& fit = shipped_fit_json();
  ASSERT_TRUE(fit) << fit.error().str();
  int checked = 0;
  const std::vector<Prediction> validation_predictions = predict(*validation, &*fit);
  for (const std::vector<Prediction>* set :
       {&shipped_corpus_predictions(), &validation_predictions}) {
    for (const Prediction& p : *set) {
      if (p.predicted_tokens <= 0) continue;  // unpriced (no cluster profile)
      ++checked;
      EXPECT_TRUE(p.fits_memory) << p.row->id << ": " << p.memory.total / (1 << 30)
                                 << " GiB, limit " << p.memory_limit_gib;
    }
  }
  EXPECT_GE(checked, 154 + 234);
}

TEST(Corpus, AttentionFlopsGrowWithSequence) {
  ModelDims m;
  m.num_layers = 2;
  m.hidden = 64;
  m.heads = 4;
  m.kv_heads = 4;
  m.head_dim = 16;
  m.ffn = 256;
  m.vocab = 128;
  m.seq_length = 1000;
  double short_seq = model_flops_per_token(m);
  m.seq_length = 2000;
  // 12 * layers * seq * width more per token; half of it when attention is counted causal.
  EXPECT_NEAR(model_flops_per_token(m) - short_seq, 12.0 * 2 * 1000 * 64, 1e-6);
  EXPECT_NEAR(model_flops_per_token(m) - model_flops_per_token(m, AttentionFlops::kCausal),
              6.0 * 2 * 2000 * 64, 1e-6);
}

TEST(Corpus, BadInputs) {
  EXPECT_FALSE(load_corpus("/nonexistent/corpus.json"));
  TempFile not_json("{ not json");
  auto r = load_corpus(not_json.path());
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("malformed corpus JSON"), std::string::npos) << r.error().str();
  TempFile no_rows(R"({"models": {}})");
  ASSERT_FALSE(load_corpus(no_rows.path()));
  TempFile unknown(R"({"models": {}, "rows": [{"id": "x", "model": "Nope"}]})");
  auto u = load_corpus(unknown.path());
  ASSERT_FALSE(u);
  EXPECT_NE(u.error().message.find("Nope"), std::string::npos);
  TempFile no_id(R"({"rows": [{"model": "M"}]})");
  ASSERT_FALSE(load_corpus(no_id.path()));
}

TEST(Corpus, MeasurementsPastAnyGpuAreErrorsNamingTheRow) {
  // 1e308 tokens/s/GPU once printed a 309-digit measured value and a 62-digit band.
  struct Case {
    const char* measured;
    const char* names;  ///< empty when the row loads
  };
  const Case cases[] = {
      {R"({"tokens_per_s_per_gpu": 1e308})", "rows.a.measured.tokens_per_s_per_gpu"},
      {R"({"tokens_per_s_per_gpu": 2e7})", "rows.a.measured.tokens_per_s_per_gpu"},
      {R"({"model_tflops_per_gpu": 2e6})", "rows.a.measured.model_tflops_per_gpu"},
      {R"({"tokens_per_s_per_gpu": 5e-324})", "rows.a.measured.tokens_per_s_per_gpu"},
      {R"({"tokens_per_s_per_gpu": 9000000})", ""},
      {R"({"model_tflops_per_gpu": 2000})", ""},
  };
  for (const Case& c : cases) {
    TempFile f(corpus_of_m(std::string(R"(
  {"id": "a", "kind": "bridge_summary", "model": "M", "system": "DGX-H100", "cluster": "dgx-h100",
   "precision": "BF16", "num_gpus": 8, "global_batch": 128, "micro_batch": 1, "seq_length": 8192,
   "tp": 1, "pp": 1, "cp": 1, "measured": )") +
                           c.measured + "}"));
    auto corpus = load_corpus(f.path());
    if (std::string(c.names).empty()) {
      EXPECT_TRUE(corpus) << c.measured << ": " << corpus.error().str();
      continue;
    }
    ASSERT_FALSE(corpus) << c.measured;
    EXPECT_EQ(corpus.error().key, c.names) << corpus.error().str();
    EXPECT_EQ(corpus.error().str().find('\n'), std::string::npos) << corpus.error().str();
  }
}

Prediction made(const CorpusRow* row, double predicted) {
  Prediction p;
  p.row = row;
  p.predicted_tokens = predicted;
  return p;
}

/// Rows of model M from two publications: a Bridge table released as 26.04 and re-run as
/// 26.04.01 (one publication) and a page with a title.
const std::string kTwoSources = corpus_of_m(R"(
  {"id": "a", "kind": "bridge_summary", "model": "M", "system": "DGX-H100", "cluster": "dgx-h100",
   "source": {"repo": "R", "path": "p.md", "container": "26.04"},
   "precision": "BF16", "num_gpus": 8, "global_batch": 128, "micro_batch": 1, "seq_length": 8192,
   "tp": 1, "pp": 1, "cp": 1, "measured": {"tokens_per_s_per_gpu": 12000}},
  {"id": "b", "kind": "bridge_summary", "model": "M", "system": "DGX-H100", "cluster": "dgx-h100",
   "source": {"repo": "R", "path": "p.md", "container": "26.04.01"},
   "precision": "BF16", "num_gpus": 16, "global_batch": 128, "micro_batch": 1, "seq_length": 8192,
   "tp": 2, "pp": 1, "cp": 1, "measured": {"tokens_per_s_per_gpu": 10000}},
  {"id": "c", "kind": "paper", "framework": "torchtitan", "model": "M", "system": "DGX-H100",
   "cluster": "dgx-h100", "source": {"title": "T", "url": "https://example.org/t"},
   "precision": "BF16", "num_gpus": 8, "global_batch": 64, "micro_batch": 1, "seq_length": 8192,
   "tp": 1, "pp": 1, "cp": 1, "measured": {"tokens_per_s_per_gpu": 9000}}
 )");

TEST(Corpus, PublicationAndFrameworkOfEachRow) {
  TempFile f(kTwoSources);
  auto corpus = load_corpus(f.path());
  ASSERT_TRUE(corpus) << corpus.error().str();
  ASSERT_EQ(corpus->rows.size(), 3u);
  EXPECT_EQ(corpus->rows[0].publication, "R p.md 26.04");
  EXPECT_EQ(corpus->rows[1].publication, corpus->rows[0].publication);  // a re-run of 26.04
  EXPECT_EQ(corpus->rows[2].publication, "T");
  EXPECT_EQ(corpus->rows[0].framework, "megatron-bridge");
  EXPECT_EQ(corpus->rows[2].framework, "torchtitan");
  EXPECT_FALSE(corpus->rows[0].validation);
}

TEST(Corpus, ATitledSourceRepublishedPerReleaseIsOnePublicationPerRelease) {
  // dgxc-benchmarking's READMEs: one title, a table per release.
  TempFile f(corpus_of_m(R"(
  {"id": "a", "kind": "dgxc_benchmarking", "model": "M", "system": "DGX-H100",
   "cluster": "dgx-h100", "source": {"title": "Recipe", "repo": "R", "release": "v25.03"},
   "precision": "BF16", "num_gpus": 8, "global_batch": 128, "micro_batch": 1, "seq_length": 8192,
   "tp": 1, "pp": 1, "cp": 1, "measured": {"tokens_per_s_per_gpu": 12000}},
  {"id": "b", "kind": "dgxc_benchmarking", "model": "M", "system": "DGX-H100",
   "cluster": "dgx-h100", "source": {"title": "Recipe", "repo": "R", "release": "v25.04.01"},
   "precision": "BF16", "num_gpus": 8, "global_batch": 128, "micro_batch": 1, "seq_length": 8192,
   "tp": 2, "pp": 1, "cp": 1, "measured": {"tokens_per_s_per_gpu": 11000}}
 )"));
  auto corpus = load_corpus(f.path());
  ASSERT_TRUE(corpus) << corpus.error().str();
  ASSERT_EQ(corpus->rows.size(), 2u);
  EXPECT_EQ(corpus->rows[0].publication, "Recipe v25.03");
  EXPECT_EQ(corpus->rows[1].publication, "Recipe v25.04.01");
  // Two layouts of one GPU count under two releases are not two layouts of one job.
  std::vector<Prediction> p = {made(&corpus->rows[0], 12000), made(&corpus->rows[1], 6000)};
  std::vector<RegimeBand> bands = {{"dense_nocp", 4, -0.3, 0.3, 0.1, 3}};
  EXPECT_EQ(check_difference_band(p, bands).pairs, 0);
  corpus->rows[1].publication = corpus->rows[0].publication;
  EXPECT_EQ(check_difference_band(p, bands).pairs, 1);
}

TEST(Corpus, MegatronFamilyFrameworks) {
  struct Case {
    const char* framework;
    bool megatron;
  };
  for (const Case& c :
       {Case{"megatron-bridge", true}, Case{"nemo", true}, Case{"megatron-lm", true},
        Case{"torchtitan", false}, Case{"mosaic", false}, Case{"", false}}) {
    CorpusRow row;
    row.framework = c.framework;
    EXPECT_EQ(megatron_family(row), c.megatron) << c.framework;
  }
}

// The Megatron MoE Model Zoo rows name their dispatcher as Megatron-LM does
// (moe_token_dispatcher_type flex + a backend, or alltoall); Bridge rows name only the backend.
// Both must reach the model, and the Model Zoo's TFLOP/s-only rows count attention causally.
TEST(Corpus, ModelZooRowsReadTheirDispatcherAndAttentionCount) {
  const auto& validation = shipped_validation();
  ASSERT_TRUE(validation) << validation.error().str();
  std::map<std::string, const CorpusRow*> by_id;
  for (const CorpusRow& row : validation->rows)
    by_id[row.id] = &row;
  for (const char* flex :
       {"mz-qwen3-h100-235b-256g-crossnode-ep32", "mz-qwen3-gb200-235b-256g-bf16"}) {
    ASSERT_TRUE(by_id.count(flex)) << flex;
    EXPECT_TRUE(by_id[flex]->setup.moe_deepep) << flex;
  }
  ASSERT_TRUE(by_id.count("mz-qwen3-h100-235b-256g-intranode-ep8-pp32-a2a"));
  EXPECT_FALSE(by_id["mz-qwen3-h100-235b-256g-intranode-ep8-pp32-a2a"]->setup.moe_deepep);
  // The table prints a dropless and a forced-balance figure for each long-context cell.
  ASSERT_TRUE(by_id.count("mz-qwen3-h100-235b-256g-128k-cp8-forced"));
  EXPECT_TRUE(by_id["mz-qwen3-h100-235b-256g-128k-cp8-forced"]->dims.moe_force_balance);
  EXPECT_TRUE(by_id["mz-qwen3-gb200-235b-256g-bf16"]->dims.moe_force_balance);
  const CorpusRow* long_context = by_id["mz-qwen3-h100-235b-256g-128k-cp8"];
  ASSERT_NE(long_context, nullptr);
  EXPECT_FALSE(long_context->dims.moe_force_balance);
  EXPECT_TRUE(long_context->tflops_metric);
  EXPECT_EQ(long_context->attention_flops, AttentionFlops::kCausal);
  EXPECT_NEAR(long_context->measured_tokens *
                  model_flops_per_token(long_context->dims, AttentionFlops::kCausal),
              357e12, 1e6);
}

TEST(Corpus, ValidationRowsNameTheCorpusModelsAndAreNeverFitted) {
  TempFile models(kTwoSources);
  // The validation file defines no models: M comes from the corpus file.
  TempFile v(R"({"rows": [
    {"id": "v", "kind": "paper", "framework": "nemo", "model": "M", "system": "DGX-H100",
     "cluster": "dgx-h100", "source": {"title": "V"}, "precision": "BF16", "num_gpus": 8,
     "global_batch": 128, "micro_batch": 1, "seq_length": 8192, "tp": 1, "pp": 1, "cp": 1,
     "measured": {"tokens_per_s_per_gpu": 11000}}]})");
  EXPECT_FALSE(load_corpus(v.path()));  // alone it names an unknown model
  auto validation = load_validation(v.path(), models.path());
  ASSERT_TRUE(validation) << validation.error().str();
  ASSERT_EQ(validation->rows.size(), 1u);
  EXPECT_TRUE(validation->rows[0].validation);
  EXPECT_EQ(validation->rows[0].dims.hidden, 4096);
  // A fit on validation rows alone moves nothing.
  FitOptions o;
  o.max_rounds = 1;
  FittedModel fitted = fit(*validation, nullptr, o);
  for (const FittedConstant& c : fitted.constants)
    EXPECT_TRUE(c.fitted_on.empty()) << c.qualified();
  EXPECT_EQ(predict(*validation, &fitted).size(), 1u);  // but it is predicted
}

TEST(Fit, LeaveOneSourceOutHoldsOutEachPublicationWhole) {
  TempFile f(kTwoSources);
  auto corpus = load_corpus(f.path());
  ASSERT_TRUE(corpus) << corpus.error().str();
  FitOptions o;
  o.max_rounds = 1;
  auto loso = leave_one_source_out(*corpus, nullptr, o);
  ASSERT_EQ(loso.size(), 3u);  // every row once
  // The refit that predicts the Bridge rows saw only row c.
  o.exclude_publication = "R p.md 26.04";
  for (const FittedConstant& c : fit(*corpus, nullptr, o).constants) {
    if (c.fitted_on.empty()) continue;
    EXPECT_EQ(c.fitted_on, std::vector<std::string>{"c"}) << c.qualified();
  }
}

struct UnpricedCase {
  const char* what;
  std::string cluster_fields;  ///< The row's "cluster" / "cluster_missing" keys.
  std::string reason;          ///< What the prediction's error must contain.
};

class UnpricedRow : public ::testing::TestWithParam<UnpricedCase> {};

TEST_P(UnpricedRow, SaysWhyItIsNotPriced) {
  const UnpricedCase& c = GetParam();
  TempFile f(corpus_of_m(R"({"id": "u", "kind": "validation", "model": "M", "system": "X-1",
    "precision": "BF16", "num_gpus": 8, "global_batch": 64, "micro_batch": 1,
    "seq_length": 8192, "tp": 1, "pp": 1, "cp": 1, "measured": {"tokens_per_s_per_gpu": 9000})" +
                         c.cluster_fields + "}"));
  auto corpus = load_corpus(f.path());
  ASSERT_TRUE(corpus) << corpus.error().message;
  auto p = predict(*corpus, nullptr);
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0].predicted_tokens, 0);
  EXPECT_NE(p[0].error.find(c.reason), std::string::npos) << p[0].error;
  EXPECT_EQ(metrics_of(p).unpriced, 1);
}

INSTANTIATE_TEST_SUITE_P(
    Clusters, UnpricedRow,
    ::testing::Values(
        UnpricedCase{"no_profile_and_the_row_says_why",
                     R"(, "cluster": null, "cluster_missing": "X-1 at 500 W: no profile")",
                     "not priced: X-1 at 500 W: no profile"},
        UnpricedCase{"no_profile_and_no_reason", "",
                     "not priced: the row names no cluster profile"},
        UnpricedCase{"a_profile_that_does_not_exist", R"(, "cluster": "dgx-h999")",
                     "cluster profile dgx-h999: "}),
    [](const ::testing::TestParamInfo<UnpricedCase>& info) { return info.param.what; });

TEST(Metrics, ApeMedianWithinAndTau) {
  std::vector<CorpusRow> rows(4);
  double measured[] = {100, 200, 300, 400};
  for (int i = 0; i < 4; ++i) {
    rows[i].id = std::to_string(i);
    rows[i].model = "M";
    rows[i].system = "S";
    rows[i].measured_tokens = measured[i];
    rows[i].setup.global_batch = int64_t{64} * (i + 1);  // four different jobs
  }
  // Same order, errors 10 %, 20 %, 0 %, 50 %.
  std::vector<Prediction> p = {made(&rows[0], 110), made(&rows[1], 240), made(&rows[2], 300),
                               made(&rows[3], 600)};
  Metrics m = metrics_of(p);
  EXPECT_NEAR(m.mape, (0.1 + 0.2 + 0.0 + 0.5) / 4, 1e-9);
  EXPECT_NEAR(m.median_ape, 0.15, 1e-9);
  EXPECT_NEAR(m.within_15, 0.5, 1e-9);
  EXPECT_EQ(m.tau_groups, 1);
  EXPECT_NEAR(m.kendall_tau, 1.0, 1e-9);
  // Reversed order: tau = -1.
  std::vector<Prediction> rev = {made(&rows[0], 400), made(&rows[1], 300), made(&rows[2], 200),
                                 made(&rows[3], 100)};
  EXPECT_NEAR(metrics_of(rev).kendall_tau, -1.0, 1e-9);
  // All predictions equal: tau undefined, no group counted.
  std::vector<Prediction> flat = {made(&rows[0], 5), made(&rows[1], 5), made(&rows[2], 5)};
  EXPECT_EQ(metrics_of(flat).tau_groups, 0);
  // Unpriced rows are counted, not averaged.
  std::vector<Prediction> unpriced = {made(&rows[0], 0), made(&rows[1], 200)};
  Metrics u = metrics_of(unpriced);
  EXPECT_EQ(u.unpriced, 1);
  EXPECT_NEAR(u.mape, 0, 1e-12);
}

TEST(Metrics, TauLeavesOutPairsOfRowsWithTheSameInputs) {
  // Rows 0-1 and 2-3 are one job each, measured twice (two container releases): the model gives
  // both rows of a job one prediction, and their measured order is the runs' noise.
  std::vector<CorpusRow> rows(4);
  double measured[] = {100, 104, 300, 290};
  for (int i = 0; i < 4; ++i) {
    rows[i].id = std::to_string(i);
    rows[i].model = "M";
    rows[i].system = "S";
    rows[i].measured_tokens = measured[i];
    rows[i].setup.global_batch = i < 2 ? 64 : 128;
  }
  std::vector<Prediction> p = {made(&rows[0], 110), made(&rows[1], 110), made(&rows[2], 280),
                               made(&rows[3], 280)};
  Metrics m = metrics_of(p);
  EXPECT_EQ(m.tau_groups, 1);
  EXPECT_NEAR(m.kendall_tau, 1.0, 1e-9);  // the four pairs across the two jobs are concordant
  // The same rows as four jobs: the two repeated pairs count, as ties of the prediction.
  rows[1].setup.global_batch = 32;
  rows[3].setup.global_batch = 256;
  EXPECT_LT(metrics_of(p).kendall_tau, 0.9);
}

TEST(Metrics, TauInsideOnePublicationRanksEachPublicationOnItsOwn) {
  // Two releases measured the same three layouts; the second ran 10 % slower across the board,
  // which the model (no release among its inputs) cannot see. Inside each release the order is
  // the predicted one; across them, pairs such as (A, release 2) vs (B, release 1) are not.
  std::vector<CorpusRow> rows(6);
  const double measured[] = {300, 200, 100, 270, 180, 90};
  for (int i = 0; i < 6; ++i) {
    rows[i].id = std::to_string(i);
    rows[i].model = "M";
    rows[i].system = "S";
    rows[i].publication = i < 3 ? "release 1" : "release 2";
    rows[i].measured_tokens = measured[i];
    rows[i].setup.global_batch = int64_t{64} * (i + 1);  // six different inputs
  }
  const double predicted[] = {310, 205, 95, 300, 200, 100};
  std::vector<Prediction> p(6);
  for (int i = 0; i < 6; ++i)
    p[i] = made(&rows[i], predicted[i]);
  Metrics m = metrics_of(p);
  EXPECT_EQ(m.tau_groups, 1);
  EXPECT_LT(m.kendall_tau, 0.9);
  EXPECT_EQ(m.tau_one_publication_groups, 2);
  EXPECT_NEAR(m.kendall_tau_one_publication, 1.0, 1e-9);
  // A publication with fewer than three rows is no group of its own.
  rows[5].publication = "release 3";
  p[5] = made(&rows[5], predicted[5]);
  EXPECT_EQ(metrics_of(p).tau_one_publication_groups, 1);
}

TEST(Fit, ReducesTheLogErrorAndNamesItsRows) {
  auto corpus = tiny_corpus();
  ASSERT_TRUE(corpus);
  auto before = predict(*corpus, nullptr);
  FitOptions o;
  o.max_rounds = 3;
  FittedModel fitted = fit(*corpus, nullptr, o);
  auto after = predict(*corpus, &fitted);
  auto msle = [](const std::vector<Prediction>& v) {
    double s = 0;
    for (const Prediction& p : v)
      s += p.residual() * p.residual();
    return s;
  };
  EXPECT_LT(msle(after), msle(before));
  // Every constant of every generation, each once: the fit file holds every value that runs.
  EXPECT_EQ(fitted.constants.size(), ModelConstants::fit_start().names(true).size());
  int moved = 0;
  for (const FittedConstant& c : fitted.constants) {
    if (c.fitted_on.empty()) {
      // Not moved by the fit: its fit_start value, with that value's source.
      EXPECT_EQ(*ModelConstants::fit_start().get(c.qualified()), c.value) << c.qualified();
      EXPECT_EQ(c.source, ModelConstants::fit_start().source(c.qualified())) << c.qualified();
      continue;
    }
    // Moved: Hopper's own constants, and the shared ones in every generation of their group.
    ++moved;
    auto gen = parse_generation(c.generation);
    ASSERT_TRUE(gen.has_value()) << c.generation;
    if (fit_group(c.name, *gen) != "all") {
      EXPECT_EQ(c.generation, "hopper") << c.name;
    }
    EXPECT_EQ(c.fitted_on.size(), 3u) << c.name;
    EXPECT_NE(*ModelConstants::fit_start().get(c.qualified()), c.value) << c.name;
  }
  EXPECT_GT(moved, 0);
  // Written and read back unchanged.
  TempFile out(fit_to_json(fitted));
  auto back = load_fit(out.path());
  ASSERT_TRUE(back) << back.error().str();
  ASSERT_EQ(back->constants.size(), fitted.constants.size());
  EXPECT_DOUBLE_EQ(back->constants[0].value, fitted.constants[0].value);
}

TEST(Fit, SharedConstantsTakeOneValueInEveryGenerationOfTheirGroup) {
  // One row on each of Hopper, Blackwell and Blackwell Ultra.
  TempFile f(corpus_of_m(R"(
    {"id": "h", "kind": "bridge_summary", "model": "M", "system": "DGX-H100",
     "cluster": "dgx-h100", "precision": "BF16", "num_gpus": 8, "global_batch": 128,
     "micro_batch": 1, "seq_length": 8192, "tp": 1, "pp": 1, "cp": 1,
     "measured": {"tokens_per_s_per_gpu": 9000}},
    {"id": "b", "kind": "bridge_summary", "model": "M", "system": "DGX-B200",
     "cluster": "dgx-b200", "precision": "BF16", "num_gpus": 8, "global_batch": 128,
     "micro_batch": 1, "seq_length": 8192, "tp": 1, "pp": 1, "cp": 1,
     "measured": {"tokens_per_s_per_gpu": 15000}},
    {"id": "u", "kind": "bridge_summary", "model": "M", "system": "DGX-B300",
     "cluster": "dgx-b300", "precision": "BF16", "num_gpus": 8, "global_batch": 128,
     "micro_batch": 1, "seq_length": 8192, "tp": 1, "pp": 1, "cp": 1,
     "measured": {"tokens_per_s_per_gpu": 21000}})"));
  auto corpus = load_corpus(f.path());
  ASSERT_TRUE(corpus) << corpus.error().str();
  FitOptions o;
  o.max_rounds = 4;
  o.from_priors = true;
  FittedModel fitted = fit(*corpus, nullptr, o);
  ModelConstants c = ModelConstants::fit_start();
  apply_fit(c, fitted);
  // The BF16 rate is one value for both Blackwell generations, fitted on both rows; Hopper's
  // is its own, fitted on its row.
  EXPECT_DOUBLE_EQ(*c.get("blackwell.gemm_eff_bf16"), *c.get("blackwell_ultra.gemm_eff_bf16"));
  EXPECT_NE(*c.get("hopper.gemm_eff_bf16"), *c.get("blackwell.gemm_eff_bf16"));
  bool saw_shared = false;
  for (const FittedConstant& k : fitted.constants) {
    auto gen = parse_generation(k.generation);
    ASSERT_TRUE(gen.has_value());
    std::string_view group = fit_group(k.name, *gen);
    size_t rows = group == "all" ? 3u : group == "blackwell_family" ? 2u : 1u;
    if (!k.fitted_on.empty()) {
      EXPECT_EQ(k.fitted_on.size(), rows) << k.qualified();
    }
    if (group != "all") continue;
    saw_shared = true;
    // A software constant has the same value in all five generations, those without rows too.
    for (const char* g : {"ampere", "ada", "hopper", "blackwell", "blackwell_ultra"})
      EXPECT_DOUBLE_EQ(*c.get(std::string(g) + "." + k.name), k.value) << g << " " << k.name;
  }
  EXPECT_TRUE(saw_shared);
}

TEST(Fit, HoldsTheFp8OverBf16RateRatioToItsComponentRange) {
  // FP8 measured 3x faster than BF16 on one layout: unbounded, the fit would give FP8 a rate
  // ratio far above what cuBLAS measures; bounded, the ratio stays inside 0.75-0.95 of the
  // peaks' ratio.
  TempFile f(corpus_of_m(R"(
    {"id": "bf16", "kind": "bridge_summary", "model": "M", "system": "DGX-H100",
     "cluster": "dgx-h100", "precision": "BF16", "num_gpus": 8, "global_batch": 128,
     "micro_batch": 1, "seq_length": 8192, "tp": 1, "pp": 1, "cp": 1,
     "measured": {"tokens_per_s_per_gpu": 5000}},
    {"id": "fp8", "kind": "bridge_summary", "model": "M", "system": "DGX-H100",
     "cluster": "dgx-h100", "precision": "FP8-CS", "num_gpus": 8, "global_batch": 128,
     "micro_batch": 1, "seq_length": 8192, "tp": 1, "pp": 1, "cp": 1,
     "measured": {"tokens_per_s_per_gpu": 15000}})"));
  auto corpus = load_corpus(f.path());
  ASSERT_TRUE(corpus) << corpus.error().str();
  ASSERT_EQ(rate_ratio_bounds().front().numerator, "gemm_eff_fp8_tensor");
  FitOptions o;
  o.max_rounds = 4;
  ModelConstants c = ModelConstants::fit_start();
  apply_fit(c, fit(*corpus, nullptr, o));
  double ratio = *c.get("hopper.gemm_eff_fp8_tensor") / *c.get("hopper.gemm_eff_bf16");
  EXPECT_GE(ratio, 0.75 - 1e-9);
  EXPECT_LE(ratio, 0.95 + 1e-9);
}

TEST(Fit, ShippedStartAndPriorRatesKeepTheirRatioBounds) {
  struct Case {
    const char* what;
    const ModelConstants* constants;
  };
  for (const Case& c :
       {Case{"shipped", &shipped_constants()}, Case{"fit_start", &ModelConstants::fit_start()},
        Case{"priors", &ModelConstants::priors()}}) {
    for (const char* g : {"hopper", "blackwell", "blackwell_ultra"}) {
      for (const RateRatioBound& b : rate_ratio_bounds()) {
        double ratio = *c.constants->get(std::string(g) + "." + std::string(b.numerator)) /
                       *c.constants->get(std::string(g) + "." + std::string(b.denominator));
        EXPECT_GE(ratio, b.min - 1e-9) << c.what << " " << g << " " << b.numerator;
        EXPECT_LE(ratio, b.max + 1e-9) << c.what << " " << g << " " << b.numerator;
      }
    }
  }
}

TEST(Fit, LeaveOneModelOutPredictsEveryRowOfEachModel) {
  auto corpus = tiny_corpus();
  ASSERT_TRUE(corpus);
  FitOptions o;
  o.max_rounds = 1;
  auto lomo = leave_one_model_out(*corpus, nullptr, o);
  EXPECT_EQ(lomo.size(), 3u);
}

TEST(Fit, ApplyFitSetsQualifiedConstantsWithTheirSource) {
  FittedModel fit;
  fit.corpus = "c.json";
  fit.constants = {{"gemm_eff_bf16", "hopper", 0.42, {"a"}, ""},
                   {"gemm_eff_bf16", "blackwell", 0.33, {"b", "c"}, ""},
                   {"gemm_eff_bf16", "hopper", 7.0, {"a"}, ""},  // outside the bounds: skipped
                   {"attn_fwd_eff", "hopper", 0.5, {}, "prior: a kernel benchmark"}};
  ModelConstants k = ModelConstants::fit_start();
  EXPECT_EQ(apply_fit(k, fit), 3);
  EXPECT_DOUBLE_EQ(*k.get("hopper.gemm_eff_bf16"), 0.42);
  EXPECT_EQ(k.source("hopper.attn_fwd_eff"), "prior: a kernel benchmark");
  EXPECT_DOUBLE_EQ(*k.get("blackwell.gemm_eff_bf16"), 0.33);
  EXPECT_NE(k.source("blackwell.gemm_eff_bf16").find("fitted on 2 rows of c.json"),
            std::string::npos);
}

TEST(Fit, GenerationOfAProfile) {
  auto h100 = find_cluster_profile(HCP_RECIPES_DIR "/clusters/dgx-h100.yaml");
  ASSERT_TRUE(h100);
  EXPECT_EQ(generation_of(*h100), "hopper");
  auto gb300 = find_cluster_profile(HCP_RECIPES_DIR "/clusters/gb300-nvl72.yaml");
  ASSERT_TRUE(gb300);
  EXPECT_EQ(generation_of(*gb300), "blackwell_ultra");
}

TEST(Priors, CorpusFittedConstantsHaveASpecOrAssumptionPrior) {
  const ModelConstants& prior = ModelConstants::priors();
  const ModelConstants& shipped = ModelConstants::fit_start();
  // The fit start is an earlier corpus fit; the prior is what the catalogue cites.
  EXPECT_DOUBLE_EQ(*prior.get("hopper.gemm_eff_bf16"), 0.70);
  EXPECT_DOUBLE_EQ(*prior.get("blackwell.attn_fwd_eff"), 0.545);
  EXPECT_NE(*shipped.get("hopper.gemm_eff_bf16"), *prior.get("hopper.gemm_eff_bf16"));
  EXPECT_NE(shipped.source("hopper.gemm_eff_bf16").find("fitted on measured_runs.json"),
            std::string::npos);
  for (const std::string& q : prior.names(true)) {
    std::string src = prior.source(q);
    EXPECT_FALSE(src.empty()) << q;
    EXPECT_EQ(src.find("fitted on"), std::string::npos) << q << ": " << src;
  }
  // Constants that were never corpus-fitted have the same prior and default.
  EXPECT_DOUBLE_EQ(*prior.get("hopper.nvlink_eff"), *shipped.get("hopper.nvlink_eff"));
}

TEST(Fit, FromPriorsKeepsUnfittedPriorsWithTheirSourceAndSaysHowItWasMade) {
  auto corpus = tiny_corpus();
  ASSERT_TRUE(corpus);
  FitOptions o;
  o.max_rounds = 1;
  o.from_priors = true;
  o.prior_weight = 0.05;
  FittedModel fitted = fit(*corpus, nullptr, o);
  const FittedConstant* attn = nullptr;
  for (const FittedConstant& c : fitted.constants) {
    if (c.qualified() == "hopper.attn_fwd_eff") attn = &c;
  }
  // attn_fwd_eff is kept out of fitting: the fit used its prior, so the file must carry it.
  ASSERT_NE(attn, nullptr);
  EXPECT_DOUBLE_EQ(attn->value, *ModelConstants::priors().get("hopper.attn_fwd_eff"));
  EXPECT_TRUE(attn->fitted_on.empty());
  EXPECT_NE(attn->source.find("FA3"), std::string::npos) << attn->source;
  TempFile out(fit_to_json(fitted));
  auto back = load_fit(out.path());
  ASSERT_TRUE(back) << back.error().str();
  EXPECT_TRUE(back->from_priors);
  EXPECT_DOUBLE_EQ(back->prior_weight, 0.05);
  EXPECT_EQ(back->rounds, 1);
  ModelConstants k = ModelConstants::fit_start();
  apply_fit(k, *back);
  EXPECT_DOUBLE_EQ(*k.get("hopper.attn_fwd_eff"), attn->value);
  EXPECT_EQ(k.source("hopper.attn_fwd_eff"), attn->source);
}

TEST(Fit, PriorWeightKeepsConstantsNearTheirPriors) {
  auto corpus = tiny_corpus();
  ASSERT_TRUE(corpus);
  auto distance = [](const FittedModel& m) {
    double s = 0;
    for (const FittedConstant& c : m.constants) {
      double p = *ModelConstants::priors().get(c.qualified());
      if (p > 0 && c.value > 0) s += std::pow(std::log(c.value / p), 2);
    }
    return s;
  };
  FitOptions free;
  free.max_rounds = 3;
  free.from_priors = true;
  FitOptions pulled = free;
  pulled.prior_weight = 5;
  double d_free = distance(fit(*corpus, nullptr, free));
  double d_pulled = distance(fit(*corpus, nullptr, pulled));
  EXPECT_GT(d_free, 0);
  EXPECT_LT(d_pulled, d_free);
}

TEST(Fit, EveryTrialIsPricedFromTheSameStartingTotal) {
  // The objective after a fit never exceeds the one it started from, and refitting a fit's
  // own result with no rounds to spare changes nothing it could not improve.
  auto corpus = tiny_corpus();
  ASSERT_TRUE(corpus);
  auto msle = [&](const FittedModel* m) {
    double s = 0;
    for (const Prediction& p : predict(*corpus, m))
      s += p.residual() * p.residual();
    return s;
  };
  FitOptions o;
  o.from_priors = true;
  double previous = 1e300;
  for (int rounds : {1, 2, 4}) {
    o.max_rounds = rounds;
    FittedModel m = fit(*corpus, nullptr, o);
    double now = msle(&m);
    EXPECT_LE(now, previous + 1e-9) << rounds << " rounds";
    previous = now;
  }
}

TEST(FitFile, BadInputs) {
  TempFile unknown(
      R"({"constants": [{"name": "warp_speed", "generation": "hopper", "value": 1}]})");
  auto u = load_fit(unknown.path());
  ASSERT_FALSE(u);
  EXPECT_NE(u.error().message.find("warp_speed"), std::string::npos);
  TempFile no_value(R"({"constants": [{"name": "gemm_eff_bf16", "generation": "hopper"}]})");
  EXPECT_FALSE(load_fit(no_value.path()));
  TempFile inverted(
      R"({"constants": [], "bands": [{"regime": "dense_cp", "low": 0.2, "high": -0.1}]})");
  EXPECT_FALSE(load_fit(inverted.path()));
  EXPECT_FALSE(load_fit("/nonexistent/fit.json"));
  TempFile bad_rounds(R"({"constants": [], "protocol": {"from_priors": true, "rounds": 0}})");
  auto r = load_fit(bad_rounds.path());
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().str().find("protocol"), std::string::npos) << r.error().str();
  TempFile bad_kind(R"({"constants": [], "protocol": {"from_priors": "yes"}})");
  EXPECT_FALSE(load_fit(bad_kind.path()));
  TempFile not_object(R"({"constants": [], "protocol": 3})");
  EXPECT_FALSE(load_fit(not_object.path()));
  // A value outside the catalogue's range, or a range that is not the catalogue's.
  TempFile out_of_range(
      R"({"constants": [{"name": "gemm_eff_bf16", "generation": "hopper", "value": 1.5}]})");
  auto o = load_fit(out_of_range.path());
  ASSERT_FALSE(o);
  EXPECT_NE(o.error().str().find("outside its range [0.2, 0.95]"), std::string::npos)
      << o.error().str();
  TempFile other_range(R"({"constants": [{"name": "gemm_eff_bf16", "generation": "hopper",
                           "value": 0.5, "range": [0, 1]}]})");
  auto d = load_fit(other_range.path());
  ASSERT_FALSE(d);
  EXPECT_NE(d.error().str().find("range differs"), std::string::npos) << d.error().str();
}

TEST(FitFile, MalformedBandsAreOneLineErrorsNamingTheField) {
  struct Case {
    const char* band;
    const char* names;
  };
  const Case cases[] = {
      {R"({"low": -0.1, "high": 0.1})", "each band needs a regime"},
      {R"({"regime": 3})", "each band needs a regime"},
      {R"({"regime": "dense_cp", "rows": "x"})", "bands.dense_cp.rows"},
      {R"({"regime": "dense_cp", "rows": 1e30})", "bands.dense_cp.rows"},
      {R"({"regime": "dense_cp", "pairs": 2.5})", "bands.dense_cp.pairs"},
      {R"({"regime": "dense_cp", "sources": "three"})", "bands.dense_cp.sources"},
      {R"({"regime": "dense_cp", "sources": -7})", "sources >= -1"},
      {R"({"regime": "dense_cp", "rows": -1})", "rows and pairs must be >= 0"},
      {R"({"regime": "dense_cp", "low": "x"})", "bands.dense_cp.low"},
      {R"({"regime": "dense_cp", "relative": -0.1})", "bands.dense_cp.relative"},
      // A band is log ratios around 0, 100x at most: 1e308 once printed as "+inf%".
      {R"({"regime": "dense_cp", "relative": 1e308})", "bands.dense_cp.relative"},
      {R"({"regime": "dense_cp", "low": -0.1, "high": 1e308})", "bands.dense_cp.high"},
      {R"({"regime": "dense_cp", "low": -0.1, "high": 4.7})", "bands.dense_cp.high"},
      {R"({"regime": "dense_cp", "low": -4.7, "high": 0.1})", "bands.dense_cp.low"},
      {R"({"regime": "dense_cp", "relative": 9.3})", "bands.dense_cp.relative"},
      {R"({"regime": "dense_cp", "low": 0.1, "high": 0.2})", "bands.dense_cp.low"},
      {R"({"regime": "dense_cp", "cp_comm_types": "p2p"})", "bands.dense_cp.cp_comm_types"},
      {R"({"regime": "dense_cp", "cp_comm_types": ["ring"]})", "a cp_comm_type name"},
      {R"({"regime": "dense_cp", "cp_comm_types": [2]})", "a cp_comm_type name"},
  };
  for (const Case& c : cases) {
    TempFile file(std::string(R"({"constants": [], "bands": [)") + c.band + "]}");
    auto fit = load_fit(file.path());
    ASSERT_FALSE(fit) << c.band;
    EXPECT_NE(fit.error().str().find(c.names), std::string::npos) << fit.error().str();
    EXPECT_EQ(fit.error().str().find('\n'), std::string::npos) << fit.error().str();
  }
  TempFile good(
      R"({"constants": [], "bands": [{"regime": "dense_cp", "rows": 4, "low": -0.1,
          "high": 0.1, "relative": 0.05, "pairs": 2, "sources": 3}]})");
  auto fit = load_fit(good.path());
  ASSERT_TRUE(fit) << fit.error().str();
  ASSERT_EQ(fit->bands.size(), 1u);
  EXPECT_EQ(fit->bands[0].sources, 3);
  EXPECT_FALSE(fit->bands[0].cp_comm_types);  // not said
  TempFile with_types(
      R"({"constants": [], "bands": [{"regime": "dense_cp", "rows": 4, "low": -0.1,
          "high": 0.1, "cp_comm_types": ["p2p", "a2a+p2p"]}]})");
  auto typed = load_fit(with_types.path());
  ASSERT_TRUE(typed) << typed.error().str();
  ASSERT_TRUE(typed->bands[0].cp_comm_types);
  EXPECT_EQ(*typed->bands[0].cp_comm_types, (std::vector<std::string>{"p2p", "a2a+p2p"}));
}

// The shipped fit file is the one source of the values that run.

nlohmann::json shipped_fit_file() {
  std::ifstream in(HCP_RECIPES_DIR "/corpus/fitted_constants.json");
  return nlohmann::json::parse(in);
}

TEST(ShippedFit, NamesEveryConstantOfEveryGenerationOnceInsideItsRange) {
  // Every constant of every generation is in the file, once: no fit_start value (the catalogue's)
  // reaches `plan`, and no constant has two values.
  std::map<std::string, int> seen;
  const nlohmann::json file = shipped_fit_file();
  for (const auto& c : file["constants"]) {
    std::string q = c["generation"].get<std::string>() + "." + c["name"].get<std::string>();
    ++seen[q];
    const ConstantInfo* info = ModelConstants::info(q);
    ASSERT_NE(info, nullptr) << q;
    double v = c["value"].get<double>();
    EXPECT_GE(v, info->min) << q;
    EXPECT_LE(v, info->max) << q;
    EXPECT_EQ(c["range"], nlohmann::json({info->min, info->max})) << q;
    // Where the value comes from: the rows it was fitted on, or a source.
    EXPECT_TRUE(c.contains("fitted_on") || !c.value("source", "").empty()) << q;
  }
  for (const std::string& q : ModelConstants::fit_start().names(true))
    EXPECT_EQ(seen[q], 1) << q;
  EXPECT_EQ(seen.size(), ModelConstants::fit_start().names(true).size());
}

TEST(ShippedFit, ShippedConstantsAreTheFileValues) {
  // shipped_constants() reads the fit compiled in at build time; the file is read here as JSON.
  const ModelConstants& shipped = shipped_constants();
  const nlohmann::json file = shipped_fit_file();
  for (const auto& c : file["constants"]) {
    std::string q = c["generation"].get<std::string>() + "." + c["name"].get<std::string>();
    EXPECT_EQ(*shipped.get(q), c["value"].get<double>()) << q;
    std::string source = c.value("source", "");
    if (!source.empty()) {
      EXPECT_EQ(shipped.source(q), source) << q;
    } else {
      EXPECT_NE(shipped.source(q).find("fitted on " + std::to_string(c["fitted_on"].size())),
                std::string::npos)
          << q;
    }
  }
}

TEST(ShippedFit, WrittenAgainItReadsBackToTheSameValues) {
  // `accuracy --fit --write` writes what load_fit reads: the round trip keeps every value.
  ASSERT_NE(shipped_fit(), nullptr);
  TempFile out(fit_to_json(*shipped_fit()));
  auto back = load_fit(out.path());
  ASSERT_TRUE(back) << back.error().str();
  ModelConstants k = ModelConstants::fit_start();
  EXPECT_EQ(apply_fit(k, *back), static_cast<int>(k.names(true).size()));
  for (const std::string& q : k.names(true)) {
    EXPECT_EQ(*k.get(q), *shipped_constants().get(q)) << q;
    EXPECT_EQ(k.source(q), shipped_constants().source(q)) << q;
  }
}

const RegimeBand* band_named(const std::vector<RegimeBand>& bands, const std::string& key) {
  for (const RegimeBand& b : bands)
    if (b.regime == key) return &b;
  return nullptr;
}

TEST(Bands, EnclosePredictionAndFallBack) {
  FittedModel fit;
  fit.bands = {{"dense_cp", 10, -0.2, 0.1, 0.05}, {"moe_nocp", 10, -0.4, 0.3, 0.1}};
  Estimate e;
  e.tokens_per_s_per_gpu = 1000;
  e.time.step_s = 2;
  Band b = band_for(fit, Regime{Family::kDense, true}, e);
  EXPECT_NEAR(b.tokens_per_s_per_gpu_low, 1000 * std::exp(-0.2), 1e-9);
  EXPECT_NEAR(b.tokens_per_s_per_gpu_high, 1000 * std::exp(0.1), 1e-9);
  EXPECT_LT(b.step_s_low, 2);
  EXPECT_GT(b.step_s_high, 2);
  EXPECT_DOUBLE_EQ(b.relative, 0.05);
  // MoE with CP has no band of its own: the MoE CP-off band is used.
  Band m = band_for(fit, Regime{Family::kMoe, true}, e);
  EXPECT_NEAR(m.tokens_per_s_per_gpu_low, 1000 * std::exp(-0.4), 1e-9);
  // Hybrid has none at all: the widest band.
  Band h = band_for(fit, Regime{Family::kHybrid, false}, e);
  EXPECT_NEAR(h.tokens_per_s_per_gpu_high, 1000 * std::exp(0.3), 1e-9);
}

TEST(Bands, ShippedBandEnclosesTheEstimate) {
  // The shipped fit is compiled in (CMakeLists.txt) and has bands.
  ASSERT_NE(shipped_fit(), nullptr);
  ModelDims m;
  Layout l;
  l.cp = 2;
  Estimate e;
  e.tokens_per_s_per_gpu = 1000;
  e.time.step_s = 4;
  Band b = shipped_band(m, l, e);
  EXPECT_EQ(b.regime, "dense, CP>1");
  EXPECT_LT(b.tokens_per_s_per_gpu_low, b.tokens_per_s_per_gpu_high);
  EXPECT_GT(b.relative, 0);
  EXPECT_NEAR(b.step_s_low * b.tokens_per_s_per_gpu_high, 4000, 1e-6);
}

TEST(Bands, FromResidualsPerRegime) {
  std::vector<CorpusRow> rows(5);
  std::vector<Prediction> p;
  for (int i = 0; i < 5; ++i) {
    rows[i].id = std::to_string(i);
    rows[i].model = "M";
    rows[i].system = "S";
    rows[i].measured_tokens = 100;
    rows[i].layout.cp = 2;
    rows[i].layout.tp = i + 1;                 // five layouts: their inputs differ
    p.push_back(made(&rows[i], 80 + 10 * i));  // 80 .. 120
  }
  auto bands = bands_from({&p});
  // One band per regime, per family and over every row; here all three hold the same rows.
  ASSERT_EQ(bands.size(), 3u);
  for (const char* key : {"dense_cp", "dense", "all"}) {
    const RegimeBand* b = band_named(bands, key);
    ASSERT_NE(b, nullptr) << key;
    EXPECT_EQ(b->rows, 5);
    EXPECT_EQ(b->sources, 1);  // every row has the same (empty) publication
    EXPECT_LT(b->low, 0);
    EXPECT_GT(b->high, 0);
    EXPECT_GT(b->relative, 0);
    EXPECT_EQ(b->pairs, 10);  // 5 rows of one model, system and precision in one table
  }
}

TEST(Bands, StopAtAHundredfoldSoThatAWrittenFitReloads) {
  std::vector<CorpusRow> rows(4);
  std::vector<Prediction> p;
  const double predicted[] = {1e-3, 1e-2, 1e6, 1e7};  // 1e5x too slow .. 1e5x too fast
  for (int i = 0; i < 4; ++i) {
    rows[i].id = std::to_string(i);
    rows[i].measured_tokens = 100;
    rows[i].layout.tp = i + 1;
    p.push_back(made(&rows[i], predicted[i]));
  }
  const std::vector<RegimeBand> bands = bands_from({&p});
  const RegimeBand* all = band_named(bands, "all");
  ASSERT_NE(all, nullptr);
  EXPECT_EQ(all->low, -kMaxBandLogRatio);
  EXPECT_EQ(all->high, kMaxBandLogRatio);
  EXPECT_LE(all->relative, 2 * kMaxBandLogRatio);
}

TEST(Bands, RecordTheCpExchangesTheirRowsRan) {
  std::vector<CorpusRow> rows(4);
  std::vector<Prediction> p;
  for (int i = 0; i < 4; ++i) {
    rows[i].id = std::to_string(i);
    rows[i].measured_tokens = 100;
    rows[i].layout.tp = i + 1;
    rows[i].layout.cp = i < 3 ? 2 : 1;  // three CP rows, one without CP
    p.push_back(made(&rows[i], 90 + 5 * i));
  }
  rows[1].layout.comm = CpCommType::kAllGather;
  rows[3].layout.comm = CpCommType::kA2a;  // CP 1: its type is never run
  auto bands = bands_from({&p});
  const RegimeBand* cp = band_named(bands, "dense_cp");
  ASSERT_NE(cp, nullptr);
  ASSERT_TRUE(cp->cp_comm_types);
  EXPECT_EQ(*cp->cp_comm_types, (std::vector<std::string>{"all_gather", "p2p"}));
  const RegimeBand* all = band_named(bands, "all");
  ASSERT_NE(all, nullptr);
  EXPECT_EQ(*all->cp_comm_types, (std::vector<std::string>{"all_gather", "p2p"}));
}

TEST(Bands, NameTheCpExchangesOfALayoutNoRowRan) {
  Band band;
  band.cp_comm_types = std::vector<std::string>{"p2p"};
  Layout l;
  l.cp = 4;
  EXPECT_TRUE(cp_comm_types_without_runs(band, l).empty());  // p2p ran
  l.comm = CpCommType::kA2aP2p;
  l.windowed_comm = CpCommType::kAllGather;
  EXPECT_EQ(cp_comm_types_without_runs(band, l),
            (std::vector<std::string>{"a2a+p2p", "all_gather"}));
  l.windowed_comm = CpCommType::kA2aP2p;  // named once
  EXPECT_EQ(cp_comm_types_without_runs(band, l), (std::vector<std::string>{"a2a+p2p"}));
  l.cp = 1;  // no CP: no exchange
  EXPECT_TRUE(cp_comm_types_without_runs(band, l).empty());
  l.cp = 4;
  band.cp_comm_types = std::vector<std::string>{};  // a band of rows without CP
  EXPECT_EQ(cp_comm_types_without_runs(band, l), (std::vector<std::string>{"a2a+p2p"}));
  band.cp_comm_types.reset();  // the fit file does not say
  EXPECT_TRUE(cp_comm_types_without_runs(band, l).empty());
}

TEST(Bands, TheShippedCpBandsRanP2pOnly) {
  // Every CP row of the corpus runs p2p: a shipped band of a2a or a2a+p2p would claim more than
  // any run showed.
  ASSERT_NE(shipped_fit(), nullptr);
  ModelDims m;
  Layout l;
  l.cp = 8;
  l.comm = CpCommType::kA2aP2p;
  Estimate e;
  e.tokens_per_s_per_gpu = 1000;
  e.time.step_s = 4;
  Band b = shipped_band(m, l, e);
  ASSERT_TRUE(b.cp_comm_types);
  EXPECT_EQ(*b.cp_comm_types, (std::vector<std::string>{"p2p"}));
  EXPECT_EQ(b.cp_comm_types_without_runs, (std::vector<std::string>{"a2a+p2p"}));
}

TEST(Bands, HoldThePredictionEvenWhenEveryRowErrsOneWay) {
  std::vector<CorpusRow> rows(4);
  std::vector<Prediction> p;
  for (int i = 0; i < 4; ++i) {
    rows[i].id = std::to_string(i);
    rows[i].model = "M";
    rows[i].system = "S";
    rows[i].measured_tokens = 100;
    p.push_back(made(&rows[i], 120 + 10 * i));  // every prediction too fast
  }
  std::vector<RegimeBand> bands = bands_from({&p});
  const RegimeBand* b = band_named(bands, "dense_nocp");
  ASSERT_NE(b, nullptr);
  EXPECT_LT(b->low, std::log(100.0 / 130.0));
  EXPECT_EQ(b->high, 0);  // widened to hold the prediction itself
}

TEST(Bands, ARegimeFromFewerThanThreePublicationsUsesItsFamilysBand) {
  // CP rows from one publication, CP-off rows from three: the CP band is not used; the dense
  // band, which pools both, is.
  std::vector<CorpusRow> rows(8);
  std::vector<Prediction> p;
  for (int i = 0; i < 8; ++i) {
    rows[i].id = std::to_string(i);
    rows[i].model = "M" + std::to_string(i);
    rows[i].system = "S";
    rows[i].measured_tokens = 100;
    rows[i].layout.cp = i < 4 ? 2 : 1;
    rows[i].publication = i < 4 ? "one table" : "table " + std::to_string(i % 3);
    p.push_back(made(&rows[i], i < 4 ? 80 : 100 + 5 * i));
  }
  FittedModel fit;
  fit.bands = bands_from({&p});
  const RegimeBand* cp = band_named(fit.bands, "dense_cp");
  const RegimeBand* dense = band_named(fit.bands, "dense");
  ASSERT_NE(cp, nullptr);
  ASSERT_NE(dense, nullptr);
  EXPECT_EQ(cp->sources, 1);
  EXPECT_EQ(dense->sources, 4);
  Estimate e;
  e.tokens_per_s_per_gpu = 1000;
  e.time.step_s = 2;
  Band used = band_for(fit, Regime{Family::kDense, true}, e);
  EXPECT_NEAR(used.tokens_per_s_per_gpu_low, 1000 * std::exp(dense->low), 1e-9);
  EXPECT_NEAR(used.tokens_per_s_per_gpu_high, 1000 * std::exp(dense->high), 1e-9);
  EXPECT_DOUBLE_EQ(used.relative, dense->relative);
  // With a third publication of CP rows the regime's own band is used.
  for (int i = 0; i < 4; ++i)
    rows[i].publication = "cp table " + std::to_string(i % 3);
  fit.bands = bands_from({&p});
  cp = band_named(fit.bands, "dense_cp");
  ASSERT_NE(cp, nullptr);
  EXPECT_EQ(cp->sources, 3);
  used = band_for(fit, Regime{Family::kDense, true}, e);
  EXPECT_NEAR(used.tokens_per_s_per_gpu_high, 1000 * std::exp(cp->high), 1e-9);
}

TEST(Bands, DifferenceBandIsNarrowWhenOneJobIsOffByOneFactor) {
  // Two jobs, each predicted 30 % too fast and 30 % too slow at every layout: the absolute band
  // is wide, the difference between two layouts of one job is predicted exactly.
  std::vector<CorpusRow> rows(6);
  std::vector<Prediction> p;
  for (int i = 0; i < 6; ++i) {
    rows[i].id = std::to_string(i);
    rows[i].model = i < 3 ? "A" : "B";
    rows[i].system = "S";
    rows[i].measured_tokens = 100.0 * (i + 1);
    rows[i].layout.tp = i + 1;
    p.push_back(made(&rows[i], rows[i].measured_tokens * (i < 3 ? 1.3 : 0.7)));
  }
  auto bands = bands_from({&p});
  const RegimeBand* b = band_named(bands, "dense_nocp");
  ASSERT_NE(b, nullptr);
  EXPECT_LT(b->low, std::log(1 / 1.3) + 1e-9);
  EXPECT_GT(b->high, std::log(1 / 0.7) - 1e-9);
  EXPECT_EQ(b->pairs, 6);  // 3 + 3 pairs inside the jobs, none across them
  EXPECT_NEAR(b->relative, 0, 1e-12);
  // The same rows in a second held-out set add their own pairs, never pairs across the sets.
  auto twice = bands_from({&p, &p});
  EXPECT_EQ(band_named(twice, "dense_nocp")->pairs, 12);
  EXPECT_EQ(band_named(twice, "dense_nocp")->rows, 12);
  EXPECT_EQ(band_named(twice, "all")->pairs, 12);
}

TEST(Bands, CoverageCountsRowsInsideTheirBand) {
  std::vector<CorpusRow> rows(4);
  std::vector<Prediction> p;
  double predicted[] = {100, 80, 125, 50};  // residuals 0, +0.22, -0.22, +0.69
  for (int i = 0; i < 4; ++i) {
    rows[i].id = std::to_string(i);
    rows[i].model = "M";
    rows[i].system = "S";
    rows[i].measured_tokens = 100;
    p.push_back(made(&rows[i], predicted[i]));
  }
  std::vector<RegimeBand> bands = {{"dense_nocp", 4, -0.3, 0.3, 0.1, 1}};
  EXPECT_TRUE(inside_band(p[0], bands));
  EXPECT_TRUE(inside_band(p[1], bands));
  EXPECT_TRUE(inside_band(p[2], bands));
  EXPECT_FALSE(inside_band(p[3], bands));
  auto slices = slices_of(p, &bands);
  ASSERT_FALSE(slices.empty());
  EXPECT_EQ(slices[0].name, "all");
  EXPECT_EQ(slices[0].metrics.band_rows, 4);
  EXPECT_NEAR(slices[0].metrics.coverage, 0.75, 1e-12);
  // Without bands no coverage is claimed.
  EXPECT_EQ(slices_of(p)[0].metrics.band_rows, 0);
}

/// `n` rows of model M on system S, with ids 0 .. n-1.
std::vector<CorpusRow> rows_of_m(int n) {
  std::vector<CorpusRow> rows(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    rows[i].id = std::to_string(i);
    rows[i].model = "M";
    rows[i].system = "S";
  }
  return rows;
}

TEST(DifferenceCheck, CountsPairsOfOneJobInsideTheBandAndTheOrderOfThoseApart) {
  // One job of 8 GPUs at four layouts, a band of +-10 % between two layouts of one job.
  std::vector<RegimeBand> bands = {{"dense_nocp", 4, -0.3, 0.3, std::log(1.10), 3}};
  std::vector<CorpusRow> rows = rows_of_m(4);
  const double measured[] = {100, 105, 100, 200};
  const double predicted[] = {100, 100, 150, 160};
  std::vector<Prediction> p;
  for (int i = 0; i < 4; ++i) {
    rows[i].publication = "T";
    rows[i].layout.tp = int64_t{1} << i;
    rows[i].layout.dp = 8 >> i;
    rows[i].measured_tokens = measured[i];
    p.push_back(made(&rows[i], predicted[i]));
  }
  DifferenceCheck d = check_difference_band(p, bands);
  EXPECT_EQ(d.pairs, 6);
  // Only (0, 1) errs by less than the band: 5 % against 10 %.
  EXPECT_EQ(d.inside, 1);
  // (0, 1) and (2, 3) are predicted within 10 % of each other (a tie); the other four apart,
  // and of those (0, 3) and (1, 3) ran in the predicted order, (0, 2) and (1, 2) did not.
  EXPECT_EQ(d.apart, 4);
  EXPECT_EQ(d.apart_ordered, 2);
  // Every pair differs in TP as well as DP: all six are layout pairs, and (0, 1) lies inside.
  EXPECT_EQ(d.layout_pairs, 6);
  EXPECT_EQ(d.layout_inside, 1);
  // One layout at two GPU counts differs in DP alone: a pair, but not a layout pair.
  rows[1].layout = rows[0].layout;
  rows[1].layout.dp = 16;
  d = check_difference_band(p, bands);
  EXPECT_EQ(d.pairs, 6);
  EXPECT_EQ(d.layout_pairs, 5);
  EXPECT_EQ(d.layout_inside, 0);
}

TEST(DifferenceCheck, LeavesOutPairsOfOtherJobsAndJobsMeasuredTwice) {
  std::vector<RegimeBand> bands = {{"dense_nocp", 4, -0.3, 0.3, std::log(1.10), 3}};
  std::vector<CorpusRow> rows = rows_of_m(4);
  std::vector<Prediction> p;
  for (int i = 0; i < 4; ++i) {
    rows[i].measured_tokens = 100.0 + 50 * i;
    p.push_back(made(&rows[i], 100));
  }
  // Rows 0 and 1: one layout in two tables (two jobs); rows 2 and 3: one layout twice in one
  // table (the same inputs, measured twice).
  rows[0].publication = "T1";
  rows[1].publication = "T2";
  rows[2].publication = rows[3].publication = "T3";
  EXPECT_EQ(check_difference_band(p, bands).pairs, 0);
  // Two layouts of one job in T3: a pair.
  rows[3].layout.tp = 2;
  rows[3].layout.dp = 1;
  rows[2].layout.dp = 2;
  DifferenceCheck d = check_difference_band(p, bands);
  EXPECT_EQ(d.pairs, 1);
  EXPECT_EQ(d.inside, 0);  // 250 against 200 measured for one prediction: 25 % apart
  EXPECT_EQ(d.apart, 0);   // predicted the same: a tie, no order claimed
}

TEST(DifferenceCheck, TheTieRuleIsTheWiderBandOfTheTwo) {
  Band a;
  Band b;
  a.relative = 0.05;
  b.relative = 0.2;
  EXPECT_DOUBLE_EQ(difference_band(a, b), 0.2);
  EXPECT_DOUBLE_EQ(difference_band(b, a), 0.2);
  EXPECT_TRUE(within_difference_band(100, 120, 0.2));                  // log 1.2 = 0.18
  EXPECT_FALSE(within_difference_band(100, 125, 0.2));                 // log 1.25 = 0.22
  EXPECT_TRUE(within_difference_band(100 * std::exp(0.2), 100, 0.2));  // the bound ties
  EXPECT_FALSE(within_difference_band(0, 100, 0.2));  // an unpriced option ties with nothing
}

TEST(Bands, AJobMeasuredTwiceAddsNoPairToTheDifferenceBand) {
  // Rows 0 and 1 are one job measured twice (a table and its re-run): their ratio says how runs
  // vary, not how the model errs between two configurations, so only (0, 2) and (1, 2) count.
  std::vector<CorpusRow> rows = rows_of_m(3);
  std::vector<Prediction> p;
  const double measured[] = {100, 140, 100};
  for (int i = 0; i < 3; ++i) {
    rows[i].measured_tokens = measured[i];
    p.push_back(made(&rows[i], 100));
  }
  rows[2].layout.tp = 2;
  auto bands = bands_from({&p});
  const RegimeBand* b = band_named(bands, "dense_nocp");
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->pairs, 2);
  // |log(100 / 100) - log(140 / 100)| and 0: the 90th percentile lies between them.
  EXPECT_LT(b->relative, std::log(1.4));
  EXPECT_GT(b->relative, 0);
}

TEST(Regime, FromModelAndLayout) {
  ModelDims m;
  Layout l;
  EXPECT_EQ(regime_of(m, l).key(), "dense_nocp");
  m.num_experts = 8;
  l.cp = 2;
  EXPECT_EQ(regime_of(m, l).key(), "moe_cp");
  EXPECT_EQ(regime_of(m, l).name(), "moe, CP>1");
}

}  // namespace
}  // namespace hcp::accuracy
