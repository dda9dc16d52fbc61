// check-log: read what a Megatron-LM / Megatron-Bridge training job actually did from its log
// (rank 0 or several ranks' stdout/stderr, plain or gzip, with srun / torchrun / mpirun prefixes)
// and hold it against the rules, the groups the configuration needs and the plan's prediction.
//
// The log formats read here are upstream's own print statements (cited where each is parsed in
// src/logcheck/): Megatron-LM's `arguments` block, Bridge's printed ConfigContainer, PyTorch's
// ProcessGroupNCCL INFO lines, NCCL_DEBUG=INFO lines, Megatron's training_log iteration lines and
// report_memory lines, Python tracebacks, NCCL watchdog and CUDA out-of-memory errors.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hcp/calibration.h"
#include "hcp/diagnostic.h"
#include "hcp/model.h"
#include "hcp/recipe.h"
#include "hcp/rules.h"
#include "hcp/version.h"

namespace hcp {

/// The effective configuration a job printed at start-up.
struct LogConfig {
  Recipe recipe;       ///< Keys in Bridge spelling, every value located at its log line.
  std::string format;  ///< "megatron-lm arguments", "bridge config yaml", "bridge config summary".
  Location begin;      ///< The block's first line.
  int64_t end_line = 0;
  std::optional<int64_t> world_size;  ///< Megatron-LM's `world_size` argument, when printed.
  /// What the job printed that hcp-plan could not read and left at its defaults: arguments it
  /// could not type, "--name (line N)" (never the layout's own: an unreadable one is the log's
  /// error), and a printed configuration's part past 4 MiB.
  std::vector<std::string> ignored;
};

/// One process group the job created (one entry per name and size).
struct LogGroup {
  std::string name;  ///< group_desc, e.g. "HIERARCHICAL_CONTEXT_PARALLEL_GROUP_L0".
  int64_t size = 0;  ///< Ranks in the group (0 when no size was logged).
  int64_t seen = 0;  ///< Creations logged (over every rank and file).
  Location first;    ///< Where it was first logged.
};

/// One version the job printed.
struct LogVersion {
  Version version;
  Location at;
};

/// One Megatron training_log line.
struct LogIteration {
  int64_t iteration = 0;
  int64_t train_iters = 0;
  double step_ms = 0;                    ///< elapsed time per iteration (ms)
  std::optional<double> tflops_per_gpu;  ///< throughput per GPU (TFLOP/s/GPU)
  Location at;
};

/// One report_memory line ("[Rank r] (after N iterations) memory (MB) | allocated: ...").
struct LogMemory {
  int64_t rank = -1;              ///< -1: the line names no rank.
  int64_t after_iterations = -1;  ///< -1: the line names no iteration.
  double allocated_mb = 0;
  double max_allocated_mb = 0;
  double reserved_mb = 0;
  double max_reserved_mb = 0;
  Location at;
};

enum class LogFailureKind {
  kAssertion,
  kOutOfMemory,
  kNcclTimeout,
  kNcclError,
  kCudaError,
  kOther
};
/// Return "assertion", "cuda-oom", "nccl-timeout", "nccl-error", "cuda-error" or "exception".
const char* log_failure_kind_name(LogFailureKind kind);

/// One failure (deduplicated over ranks by its message).
struct LogFailure {
  LogFailureKind kind = LogFailureKind::kOther;
  std::string exception;    ///< "AssertionError", "torch.OutOfMemoryError", ... ("" for log lines).
  std::string message;      ///< The exception text or the error line.
  std::string frame;        ///< Innermost traceback frame "path:line in func" ("" when none).
  std::string source_line;  ///< The code line the traceback shows for that frame.
  std::string rule_id;      ///< Catalog rule whose upstream check raised it ("" when none).
  Location at;              ///< First occurrence.
  int64_t occurrences = 1;  ///< Over ranks and files.
  std::optional<double> tried_gib;  ///< CUDA OOM: "Tried to allocate X".
  std::optional<double> total_gib;  ///< CUDA OOM: "GPU n has a total capacity of X".
};

/// Everything read from the logs.
struct ParsedLog {
  std::vector<std::string> files;
  int64_t lines = 0;
  int64_t bytes = 0;
  std::optional<LogConfig> config;
  std::optional<int64_t> world_size;  ///< From the arguments block or the default PG's size.
  Location world_size_at;
  bool pg_logging = false;                     ///< ProcessGroupNCCL INFO lines were present.
  std::vector<LogGroup> groups;                ///< In order of first creation.
  int64_t nccl_communicators = 0;              ///< NCCL "Init COMPLETE" lines.
  std::map<std::string, LogVersion> versions;  ///< "te", "mcore", "torch", "nccl".
  std::vector<LogIteration> iterations;        ///< Up to kMaxIterationsKept, evenly sampled.
  int64_t iterations_seen = 0;                 ///< Iteration lines read (all of them).
  std::vector<LogMemory> memory;               ///< The highest report of each rank.
  std::vector<LogFailure> failures;            ///< Up to kMaxFailuresKept distinct messages.
  std::optional<std::string> gpu_name;         ///< A GPU model named in the log ("H100").
};

/// Bounds that keep memory constant however long the log is.
inline constexpr size_t kMaxIterationsKept = 65536;
inline constexpr size_t kMaxFailuresKept = 64;
inline constexpr size_t kMaxLineBytes = size_t{64} * 1024;  ///< Longer lines are cut.
inline constexpr size_t kMaxConfigBlockBytes = 4 << 20;     ///< A printed config larger is cut.

/// Strip the launcher prefixes of one line: srun --label ("3: "), torchrun ("[default3]:",
/// "[rank3]:"), Open MPI --tag-output ("[1,3]<stdout>:") and leading timestamps ("2026-01-02
/// 03:04:05 ", "[2026-01-02T03:04:05.123Z] "), repeatedly. `rank` is set from a rank prefix.
std::string_view strip_log_prefixes(std::string_view line, std::optional<int64_t>& rank);

/// Streaming parser: feed lines in order (one file after another), then finish().
class LogParser {
 public:
  LogParser();
  ~LogParser();
  LogParser(const LogParser&) = delete;
  LogParser& operator=(const LogParser&) = delete;
  /// Start a new file (locations name it; rank prefixes are per file).
  void begin_file(const std::string& name);
  /// Read one line (without its newline). `line_no` is 1-based.
  void feed(std::string_view line, int64_t line_no);
  /// End of input. Error when a printed configuration was cut off by the end of a file, or the
  /// printed configuration cannot be read as a recipe.
  Result<ParsedLog> finish();

 private:
  struct Impl;
  Impl* impl_;
};

/// Read the log files (plain or gzip, detected by content) with LogParser, streaming in bounded
/// memory. Errors (one line each, bad input): unreadable file, binary content, truncated gzip
/// stream, a configuration block cut off, or logs with nothing hcp-plan recognises.
Result<ParsedLog> parse_logs(const std::vector<std::string>& paths);

// --- Checks ------------------------------------------------------------------------------------

/// The plan's uncertainty about a predicted step time: the measured time is expected to lie in
/// [low_factor, high_factor] x predicted. Supplied by the planner-fidelity error bands.
struct PredictionBand {
  double low_factor = 1.0;
  double high_factor = 1.0;
  std::string source;  ///< Where the band comes from (shown in the report).
};

/// The band check-log uses when no fidelity data is given: symmetric `tolerance` around 1.
/// `origin` names where the tolerance comes from in the band's source ("default",
/// "--tolerance").
PredictionBand default_prediction_band(double tolerance, const std::string& origin = "default");

/// The cost model's view of the run, when the model could price it.
struct LogPrediction {
  Layout layout;
  Estimate estimate;         ///< The layout as configured.
  double cp_off_step_s = 0;  ///< Same with attention / CP and no CP communication.
  PredictionBand band;
  std::string cluster;             ///< Profile name (or topology file) used.
  std::vector<std::string> notes;  ///< Assumptions (GPU inferred, comm type substituted, ...).
};

/// The measured speed after warm-up.
struct MeasuredSpeed {
  double median_step_ms = 0;
  int64_t samples = 0;
  int64_t skipped_warmup = 0;
  std::optional<double> median_tflops_per_gpu;
};

/// Return the median step time of the iteration lines after `warmup` iterations (the first line
/// logged is always dropped when later ones exist: it includes start-up). nullopt when none.
std::optional<MeasuredSpeed> measured_speed(const ParsedLog& log, int64_t warmup);

/// The speed verdict: measured vs the band around the prediction.
enum class SpeedVerdict { kWithin, kFaster, kSlower };
struct SpeedCheck {
  SpeedVerdict verdict = SpeedVerdict::kWithin;
  double measured_s = 0;
  double predicted_s = 0;
  double low_s = 0;
  double high_s = 0;
  double cp_off_s = 0;          ///< Prediction with attention / CP and no CP communication.
  bool matches_cp_off = false;  ///< measured inside the band around cp_off_s.
  std::string largest_term;     ///< Name of the largest step-time term.
  double largest_term_s = 0;
};
/// Compare a measured step time with a prediction and its band.
SpeedCheck check_speed(double measured_s, const TimeBreakdown& predicted, double cp_off_s,
                       const PredictionBand& band);

/// Return the step time with attention computed over local chunks only (attention / CP) and
/// every CP communication term removed: what a job whose CP communication is off would take.
double cp_off_step_time(const TimeBreakdown& t, int64_t cp);

/// The hardware the prediction assumes: --topology FILE, --cluster NAME, else the GPU the log
/// names (or the capacity an out-of-memory message gives), else dgx-h100; priced with the
/// shipped fitted constants as `plan` does, then --calibration.
struct LogHardware {
  Hardware hardware;
  int gpus_per_node = 8;
  std::string label;               ///< Profile name or topology file.
  std::vector<std::string> notes;  ///< How it was chosen.
};
Result<LogHardware> hardware_for_log(const ParsedLog& log, const std::string& cluster,
                                     const std::string& topology, const std::string& calibration);

/// The band of a prediction from the planner-fidelity fit (accuracy::band_for of the layout's
/// regime: the corpus residuals' 10th-90th percentile); nullopt when no fit is shipped.
std::optional<PredictionBand> fitted_prediction_band(const ModelDims& model, const Layout& layout,
                                                     const Estimate& estimate);

/// Price the configuration's layout on `world` GPUs with the cost model. a2a+p2p without
/// hierarchical sizes (the layout the job asked for has no hierarchy) is priced as p2p, noted.
/// The band is `band` when given, else the fitted band, else default_prediction_band(0.25).
/// Error when the model lacks dimensions or the layout does not divide the world.
Result<LogPrediction> predict_run(const Recipe& config, int64_t world, const LogHardware& hardware,
                                  const std::optional<PredictionBand>& band);

/// Inputs of the log checks besides the parsed log.
struct LogCheckInputs {
  std::optional<Recipe> recipe;  ///< RECIPE with overrides (before the log's configuration).
  Environment env;               ///< From the command line (versions, sizes).
  std::optional<LogPrediction> prediction;
  std::string prediction_error;  ///< Why there is no prediction (shown as LOG033).
  std::optional<MeasuredSpeed> speed;
  double memory_tolerance = kMemoryBand;  ///< Relative band of the memory comparison.
};

/// Which configuration the checks use: the log's (truth) with the recipe filling absent keys, or
/// the recipe alone. nullopt when neither exists.
std::optional<Recipe> effective_recipe(const ParsedLog& log, const std::optional<Recipe>& recipe);

/// Return the rule environment: the command line's, completed with the world size and versions
/// the log printed (the command line wins).
Environment log_environment(const ParsedLog& log, const Environment& given, Framework framework);

/// Run every check: the rule registry on the effective configuration, the process groups (LOG001
/// to LOG003), speed (LOG004 to LOG006), memory (LOG007), failures (LOG020 to LOG024, LOG025
/// naming the first of several) and the
/// notes on what was read (LOG030 to LOG033). Diagnostics come errors first. The LOG entries
/// (severity, rationale, source, fix) are in the rule registry: `hcp-plan explain LOG001`.
std::vector<Diagnostic> check_log(const ParsedLog& log, const LogCheckInputs& inputs);

/// The rule whose upstream check prints this failure text or source line ("" when none). The
/// table is of upstream messages only; every ID it returns is in the rule registry.
std::string rule_for_failure(std::string_view message, std::string_view source_line);

/// Calibration from a run: attention TFLOP/s fitted so that the model's step time for the run's
/// layout equals the measured one (the other figures stay the model's). Error when the model
/// cannot price the layout or no attention rate reproduces the measurement.
Result<Calibration> calibration_from_run(const ModelDims& model, const LogPrediction& prediction,
                                         const Hardware& hardware, const TrainingSetup& setup,
                                         double measured_step_s, const std::string& tool_version);

// --- Report ------------------------------------------------------------------------------------

/// What the report shows.
struct LogCheckReport {
  ParsedLog log;
  std::vector<Diagnostic> diagnostics;
  std::optional<MeasuredSpeed> speed;
  std::optional<LogPrediction> prediction;
  std::optional<SpeedCheck> speed_check;
  std::string config_source;  ///< "log", "recipe" or "" (none).
};

/// One-line verdict: "check-log: FAIL: <first error> (2 errors, 1 warning)" or "check-log: OK ...".
std::string log_verdict(const LogCheckReport& report);
/// Text report: verdict, what was read, speed and memory, then the diagnostics in compiler form.
std::string format_log_report_text(const LogCheckReport& report);
/// JSON report: {"verdict", "files", "config", "groups", "versions", "iterations", "speed",
/// "memory", "failures", "diagnostics", "summary"}.
std::string format_log_report_json(const LogCheckReport& report);
/// The report in one of check-log's --format values: "text" (the default), "json", or the CI
/// formats of validate ("sarif", "junit", "github", "gcc"; `tool_version` goes into SARIF).
std::string format_log_check(const std::string& format, const LogCheckReport& report,
                             const std::string& tool_version);

// --- The whole check ---------------------------------------------------------------------------

/// What check-log was given besides the logs: the command line's options, parsed.
struct LogCheckRun {
  std::optional<Recipe> recipe;     ///< RECIPE with overrides, when given.
  Environment env;                  ///< From the command line, finalized.
  std::string cluster;              ///< --cluster NAME ("" for the GPU the log names).
  std::string topology;             ///< --topology FILE.
  std::string calibration;          ///< --calibration FILE.
  std::optional<double> tolerance;  ///< --tolerance; default: the fitted band.
  double memory_tolerance = kMemoryBand;
  int64_t warmup = 3;
  std::string save_calibration;  ///< --save-calibration FILE ("" for none).
  std::string tool_version;      ///< Written into a saved calibration.
};

/// Check a parsed log: choose the hardware (hardware_for_log), price the effective configuration
/// (predict_run), measure the speed, run check_log and the speed check, and save the run as a
/// calibration when asked. Error (bad input) when the hardware cannot be read or the calibration
/// cannot be made or saved.
Result<LogCheckReport> run_log_check(ParsedLog log, const LogCheckRun& run);

}  // namespace hcp
