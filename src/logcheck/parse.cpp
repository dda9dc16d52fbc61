// The streaming log parser: one pass over each line, constant memory per kind of record.
//
// Formats, as upstream prints them (Megatron-LM d98e8a64ddf34856e74b24714e3bedb2f5a39553,
// Megatron-Bridge 067f987df03b8355b03192d88d70f1709fedf51a, NCCL
// 5067397c2676d5aed50042fc39e5c8ee96eb0027, PyTorch
// torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp):
// - Megatron-LM megatron/training/arguments.py:1990-2001 (_print_args): a line
//   "------------------------ arguments ------------------------", then one line per argument
//   "  {name} {'.' * (48 - len(name))} {value}" (value is Python str(): None, True, [2, 2],
//   ['a2a+p2p']), sorted, then "-------------------- end of arguments ---------------------".
// - Megatron-Bridge: before 2026-02 (commit b273cd371, #2184) setup.py called cfg.print_yaml()
//   (training/utils/config_utils.py:336-341: yaml.safe_dump of ConfigContainer.to_dict(), sorted
//   sections checkpoint:, dataset:, ddp:, dist:, ..., model:, ..., train:); since then
//   training/config.py:1809-1880 (log_non_default_values) prints "Configuration Summary
//   (Non-Default Values vs Megatron Core)" with "[model] Non-default values (vs Mcore ...):" and
//   "  {field}: {value!r}  (Mcore default: {default!r})", and "[train]:" "  {field}: {value!r}".
// - PyTorch ProcessGroupNCCL constructor: LOG(INFO) << logPrefix() << "ProcessGroupNCCL
//   initialization options: size: N, global rank: G, TIMEOUT(ms): ..., PG Name: GUID" where
//   createLogPrefix() is "[PG ID {local_id} PG GUID {uid}({desc}) Rank {rank}] " (the "(desc)"
//   only when a group_desc was given); older releases print "[PG {id} Rank {r}]" or "[Rank r]".
//   Megatron names its groups through group_desc (megatron/core/parallel_state.py:232-251
//   create_group; 1116-1141 CONTEXT_PARALLEL_GROUP and create_hierarchical_groups (378-432) with
//   f"HIERARCHICAL_{group_desc}_L{level}", i.e. HIERARCHICAL_CONTEXT_PARALLEL_GROUP_L0 / _L1).
//   The "ProcessGroupNCCL environments: NCCL version: X" line carries NCCL's version.
// - NCCL src/init.cc:695 "NCCL version X.Y.Z+cudaA.B" and :1945 "comm %p rank %d nranks %d cudaDev
//   %d nvmlDev %d busId %lx commId 0x%llx - Init COMPLETE", each after "host:pid:tid [dev] NCCL
//   INFO ".
// - Megatron-LM megatron/training/training.py:3567-3598 (training_log): " [date] iteration
//   {:8d}/{:8d} | consumed samples: ... | elapsed time per iteration (ms): {:.1f} | throughput per
//   GPU (TFLOP/s/GPU): {:.1f} | ..."; Bridge training/utils/train_utils.py:1088-1096 prints the
//   same.
// - Megatron-LM megatron/training/utils/common_utils.py:313-331 (report_memory): "[Rank {r}]
//   (after {N} iterations) memory (MB) | allocated: a | max allocated: b | reserved: c | max
//   reserved: d".
// - Python tracebacks ("Traceback (most recent call last):", '  File "p", line N, in f', the
//   code line, then "Type: message"); torch.OutOfMemoryError "CUDA out of memory. Tried to
//   allocate X GiB. GPU n has a total capacity of Y GiB ..."; the NCCL watchdog's "Watchdog caught
//   collective operation timeout: WorkNCCL(...) ran for N milliseconds before timing out."; a
//   CUDA kernel's device-side assert ("Indexing.cu:1141: indexSelectLargeIndex: block: [..],
//   thread: [..] Assertion `cond` failed."), the watchdog's "[PG n Rank r] Timeout at NCCL work: N,
//   last enqueued NCCL work: ..." and "CUDA error: device-side assert triggered" outside
//   a traceback (what():, ProcessGroupNCCL's "watchdog thread terminated with exception: ...")."
#include <algorithm>
#include <cctype>
#include <cmath>
#include <iterator>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "hcp/checked.h"
#include "hcp/gpu_specs.h"
#include "hcp/logcheck.h"
#include "hcp/mlm_args.h"
#include "text_scan.h"

namespace hcp {

using logscan::contains;
using logscan::find;
using logscan::starts_with;
using logscan::trim;
constexpr size_t npos = std::string_view::npos;

const char* log_failure_kind_name(LogFailureKind kind) {
  switch (kind) {
    case LogFailureKind::kAssertion:
      return "assertion";
    case LogFailureKind::kOutOfMemory:
      return "cuda-oom";
    case LogFailureKind::kNcclTimeout:
      return "nccl-timeout";
    case LogFailureKind::kNcclError:
      return "nccl-error";
    case LogFailureKind::kCudaError:
      return "cuda-error";
    case LogFailureKind::kOther:
      return "exception";
  }
  return "exception";
}

namespace {

/// "YYYY-MM-DD[T ]HH:MM:SS[.frac][Z|+hh:mm]" at the start of `s`; return its length or 0.
size_t timestamp_length(std::string_view s) {
  auto d = [&](size_t i) { return i < s.size() && logscan::is_digit(s[i]); };
  if (!(d(0) && d(1) && d(2) && d(3) && s.size() > 19 && s[4] == '-' && d(5) && d(6) &&
        s[7] == '-' && d(8) && d(9) && (s[10] == 'T' || s[10] == ' ') && d(11) && d(12) &&
        s[13] == ':' && d(14) && d(15) && s[16] == ':' && d(17) && d(18))) {
    return 0;
  }
  size_t i = 19;
  if (i < s.size() && (s[i] == '.' || s[i] == ',')) {
    ++i;
    while (d(i))
      ++i;
  }
  if (i < s.size() && s[i] == 'Z') {
    ++i;
  } else if (i + 5 < s.size() && (s[i] == '+' || s[i] == '-') && d(i + 1) && d(i + 2)) {
    i += 3;
    if (i < s.size() && s[i] == ':') ++i;
    while (d(i))
      ++i;
  }
  return i;
}

/// srun --label: "3: " (task number, maybe padded with spaces).
bool strip_srun_label(std::string_view& line, std::optional<int64_t>& rank) {
  size_t i = 0;
  while (i < line.size() && line[i] == ' ')
    ++i;
  size_t start = i;
  while (i < line.size() && logscan::is_digit(line[i]) && i - start < 7)
    ++i;
  if (i == start || i >= line.size() || line[i] != ':') return false;
  if (i + 1 != line.size() && line[i + 1] != ' ') return false;
  size_t pos = start;
  rank = logscan::parse_int_at(line, pos);
  line = line.substr(std::min(line.size(), i + 2));
  return true;
}

/// torchrun "[default3]:" and PyTorch "[rank3]:" (followed by one space in the latter).
bool strip_torchrun_rank(std::string_view& line, std::optional<int64_t>& rank) {
  for (std::string_view tag : {std::string_view("[default"), std::string_view("[rank")}) {
    if (!starts_with(line, tag)) continue;
    size_t pos = tag.size();
    auto r = logscan::parse_int_at(line, pos);
    if (!r || pos + 1 >= line.size() || line[pos] != ']' || line[pos + 1] != ':') continue;
    rank = r;
    std::string_view s = line.substr(pos + 2);
    if (tag == "[rank" && !s.empty() && s.front() == ' ') s.remove_prefix(1);
    line = s;
    return true;
  }
  return false;
}

/// Open MPI --tag-output "[job,rank]<stdout>:" / "<stderr>:".
bool strip_open_mpi_tag(std::string_view& line, std::optional<int64_t>& rank) {
  size_t pos = 1;
  auto job = logscan::parse_int_at(line, pos);
  if (!job || pos >= line.size() || line[pos] != ',') return false;
  ++pos;
  auto r = logscan::parse_int_at(line, pos);
  if (!r || pos >= line.size() || line[pos] != ']') return false;
  std::string_view rest = line.substr(pos + 1);
  for (std::string_view stream : {std::string_view("<stdout>:"), std::string_view("<stderr>:")}) {
    if (starts_with(rest, stream)) {
      rank = r;
      line = rest.substr(stream.size());
      return true;
    }
  }
  return false;
}

/// "[timestamp] " (the spaces after it go too).
bool strip_bracketed_timestamp(std::string_view& line) {
  size_t n = timestamp_length(line.substr(1));
  if (n == 0 || n + 1 >= line.size() || line[n + 1] != ']') return false;
  std::string_view s = line.substr(n + 2);
  while (!s.empty() && s.front() == ' ')
    s.remove_prefix(1);
  line = s;
  return true;
}

/// "timestamp " (only when a space follows; the spaces go too).
bool strip_plain_timestamp(std::string_view& line) {
  size_t n = timestamp_length(line);
  if (n == 0) return false;
  std::string_view s = line.substr(n);
  if (s.empty() || s.front() != ' ') return false;
  while (!s.empty() && s.front() == ' ')
    s.remove_prefix(1);
  line = s;
  return true;
}

/// Strip one launcher prefix or timestamp from the start of `line`; false when there is none.
bool strip_one_prefix(std::string_view& line, std::optional<int64_t>& rank) {
  if (strip_srun_label(line, rank)) return true;
  if (!line.empty() && line.front() == '[') {
    if (strip_torchrun_rank(line, rank) || strip_open_mpi_tag(line, rank) ||
        strip_bracketed_timestamp(line)) {
      return true;
    }
  }
  return strip_plain_timestamp(line);
}

}  // namespace

std::string_view strip_log_prefixes(std::string_view line, std::optional<int64_t>& rank) {
  for (int round = 0; round < 4; ++round) {
    if (!strip_one_prefix(line, rank)) break;
  }
  return line;
}

// --- The parser ----------------------------------------------------------------------------

namespace {

constexpr std::string_view kArgsBegin =
    "------------------------ arguments ------------------------";
constexpr std::string_view kArgsEnd = "-------------------- end of arguments ---------------------";
constexpr std::string_view kSummaryTitle =
    "Configuration Summary (Non-Default Values vs Megatron Core)";

/// ConfigContainer sections yaml.safe_dump prints at column 0 (Bridge training/config.py).
bool is_bridge_section(std::string_view name) {
  static const std::set<std::string_view> kSections = {"checkpoint",
                                                       "comm_overlap",
                                                       "dataset",
                                                       "ddp",
                                                       "dist",
                                                       "ft",
                                                       "inprocess_restart",
                                                       "logger",
                                                       "mixed_precision",
                                                       "model",
                                                       "nvrx_straggler",
                                                       "optimizer",
                                                       "peft",
                                                       "profiling",
                                                       "rerun_state_machine",
                                                       "rng",
                                                       "scheduler",
                                                       "straggler",
                                                       "tensor_inspect",
                                                       "tokenizer",
                                                       "train",
                                                       "validation"};
  return kSections.count(name) > 0;
}

/// "name:" or "name: value" at column 0 with name [a-z_0-9]+; return the name.
std::string_view top_level_key(std::string_view s) {
  size_t i = 0;
  while (i < s.size() && (std::islower(static_cast<unsigned char>(s[i])) || s[i] == '_' ||
                          logscan::is_digit(s[i]))) {
    ++i;
  }
  if (i == 0 || i >= s.size() || s[i] != ':') return {};
  if (i + 1 < s.size() && s[i + 1] != ' ') return {};
  return s.substr(0, i);
}

/// A block of configuration lines collected for the YAML loader, with the log line of each.
struct YamlBlock {
  std::string text;
  std::vector<int64_t> log_lines;  ///< YAML line i (1-based) -> log line log_lines[i-1].
  std::set<std::string> sections;
  Location begin;
  std::optional<int64_t> rank;
  std::optional<int64_t> cut_at;  ///< The first log line past kMaxConfigBlockBytes.

  void add(std::string_view line, int64_t log_line) {
    if (text.size() + line.size() + 1 > kMaxConfigBlockBytes) {
      if (!cut_at) cut_at = log_line;
      return;
    }
    text.append(line);
    text.push_back('\n');
    log_lines.push_back(log_line);
  }
};

/// Move every location in the tree from YAML lines to the log's lines.
void relocate(Value& v, const std::string& file, const std::vector<int64_t>& lines) {
  Location at = v.location();
  if (at.line > 0 && static_cast<size_t>(at.line) <= lines.size()) {
    at.line = static_cast<int>(lines[at.line - 1]);
  }
  at.file = file;
  v.set_location(at);
  for (Value& item : v.items())
    relocate(item, file, lines);
  for (size_t i = 0; i < v.entries().size(); ++i)
    relocate(v.value_at(i), file, lines);
}

/// Python repr (Bridge's "{value!r}") -> YAML flow text; nullopt when it is no literal.
std::optional<std::string> python_repr_to_yaml(std::string_view v) {
  v = trim(v);
  if (v.empty()) return std::nullopt;
  if (v == "None") return std::string("null");
  if (v == "True") return std::string("true");
  if (v == "False") return std::string("false");
  // <AttnBackend.auto: 5> -> auto
  if (v.front() == '<') {
    size_t dot = v.find('.');
    size_t colon = v.find(':');
    if (dot != npos && colon != npos && dot < colon) {
      return "'" + std::string(v.substr(dot + 1, colon - dot - 1)) + "'";
    }
    return std::nullopt;
  }
  if (v.front() == '\'' || v.front() == '"') return std::string(v);
  char first = v.front();
  if (logscan::is_digit(first) || first == '-' || first == '.') {
    for (char c : v) {
      if (!(logscan::is_digit(c) || c == '.' || c == '-' || c == '+' || c == 'e' || c == 'E'))
        return std::nullopt;
    }
    return std::string(v);
  }
  if (first == '[' || first == '(') {
    char close = first == '[' ? ']' : ')';
    if (v.back() != close) return std::nullopt;
    std::string out = "[";
    std::string_view inner = v.substr(1, v.size() - 2);
    size_t start = 0;
    bool any = false;
    int depth = 0;
    char quote = 0;
    for (size_t i = 0; i <= inner.size(); ++i) {
      char c = i < inner.size() ? inner[i] : ',';
      if (quote) {
        if (c == quote) quote = 0;
        continue;
      }
      if (c == '\'' || c == '"') quote = c;
      if (c == '[' || c == '(') ++depth;
      if (c == ']' || c == ')') --depth;
      if (c == ',' && depth == 0) {
        std::string_view item = trim(inner.substr(start, i - start));
        start = i + 1;
        if (item.empty()) continue;
        auto converted = python_repr_to_yaml(item);
        if (!converted) return std::nullopt;
        out += (any ? ", " : "") + *converted;
        any = true;
      }
    }
    return out + "]";
  }
  // A bare word such as torch.bfloat16: keep it as a string.
  for (char c : v) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-'))
      return std::nullopt;
  }
  return "'" + std::string(v) + "'";
}

/// Python str() of an argparse value -> the MLM argument values ("[2, 2]" -> {"2", "2"}).
std::optional<std::vector<std::string>> python_str_to_values(std::string_view v) {
  v = trim(v);
  if (v == "None" || v == "False" || v == "[]") return std::nullopt;
  if (v == "True") return std::vector<std::string>{};
  if (v.size() >= 2 && ((v.front() == '[' && v.back() == ']') ||
                        (v.front() == '(' && v.back() == ')' && v.find(',') == npos))) {
    std::vector<std::string> out;
    std::string_view inner = v.substr(1, v.size() - 2);
    size_t start = 0;
    for (size_t i = 0; i <= inner.size(); ++i) {
      if (i == inner.size() || inner[i] == ',') {
        std::string_view item = trim(inner.substr(start, i - start));
        if (item.size() >= 2 && (item.front() == '\'' || item.front() == '"'))
          item = item.substr(1, item.size() - 2);
        if (!item.empty()) out.emplace_back(item);
        start = i + 1;
      }
    }
    if (out.empty()) return std::nullopt;
    return out;
  }
  // Enum members print as "AttnBackend.auto": keep the member.
  size_t dot = v.find('.');
  if (dot != npos && dot > 0 && std::isupper(static_cast<unsigned char>(v.front())) &&
      v.find(' ') == npos) {
    return std::vector<std::string>{std::string(v.substr(dot + 1))};
  }
  return std::vector<std::string>{std::string(v)};
}

/// The printed arguments the groups and the CP rules are computed from. One that cannot be read
/// makes the log unreadable: left at its default, "context_parallel_size ... abc" was checked as
/// CP 1 against HCP groups of 16.
bool defines_layout(std::string_view flag) {
  static constexpr std::string_view kLayout[] = {"--tensor-model-parallel-size",
                                                 "--pipeline-model-parallel-size",
                                                 "--context-parallel-size",
                                                 "--expert-model-parallel-size",
                                                 "--expert-tensor-parallel-size",
                                                 "--virtual-pipeline-model-parallel-size",
                                                 "--num-virtual-stages-per-pipeline-rank",
                                                 "--cp-comm-type",
                                                 "--hierarchical-context-parallel-sizes",
                                                 "--seq-length",
                                                 "--micro-batch-size",
                                                 "--global-batch-size",
                                                 "--num-layers"};
  return std::find(std::begin(kLayout), std::end(kLayout), flag) != std::end(kLayout);
}

/// Argument dest names whose flag is spelled differently (megatron/training/arguments.py).
std::string flag_for_dest(std::string_view dest, std::string_view value) {
  if (dest == "fp8") return "--fp8-format";
  if (dest == "apply_rope_fusion") return value == "False" ? "--no-rope-fusion" : "";
  if (dest == "use_gloo_process_groups")
    return value == "False" ? "--disable-gloo-process-groups" : "";
  std::string flag = "--";
  for (char c : dest)
    flag.push_back(c == '_' ? '-' : c);
  return flag;
}

std::string normalised_failure_key(LogFailureKind kind, std::string_view message) {
  std::string key = std::to_string(static_cast<int>(kind)) + ":";
  // Every rank's watchdog reports the same hung collective in its own words: one failure.
  if (kind == LogFailureKind::kNcclTimeout) return key;
  for (char c : message.substr(0, 400))
    key.push_back(logscan::is_digit(c) ? '#' : c);
  return key;
}

/// The GPU model named on a line ("NVIDIA H100 80GB HBM3" -> "H100"): the hardware table's model
/// of the device name that follows "NVIDIA " (at most 24 characters, up to a "(UUID: ...)").
std::optional<std::string> gpu_model_in(std::string_view line) {
  size_t at = find(line, "NVIDIA ");
  if (at == npos) return std::nullopt;
  std::string_view name = line.substr(at + 7, 24);
  name = name.substr(0, name.find('('));
  const GpuSpec* spec = find_gpu_spec(name);
  if (spec == nullptr) return std::nullopt;
  return gpu_model(*spec);
}

}  // namespace

/// Memory figures of Megatron-LM's "memory (MB)" report: 0 (nothing allocated yet) up to 1 PB.
constexpr PhysicalRange kMemoryMb{"MB", 1e-6, 1e9, true};

struct LogParser::Impl {
  ParsedLog out;
  std::string file;
  int file_index = -1;

  // Megatron-LM arguments block.
  bool in_args = false;
  std::optional<int64_t> args_rank;
  Location args_begin;
  std::vector<MlmArgument> args;
  std::optional<int64_t> args_world;
  bool args_done = false;

  // Bridge YAML dump / summary.
  std::optional<YamlBlock> yaml;
  bool in_summary = false;
  std::string summary_section;
  bool summary_seen_section = false;
  std::optional<YamlBlock> summary;
  bool config_done = false;
  std::optional<Error> config_error;
  /// The first number of the log outside its physical range (checked.h): the log is bad input.
  std::optional<Error> number_error;

  // Process groups: names by (file, GUID), sizes waiting for a name.
  std::map<std::pair<int, std::string>, std::string> guid_desc;
  struct PendingGroup {
    int file;
    std::string guid;
    int64_t size;
    Location at;
    bool default_pg;
  };
  std::vector<PendingGroup> pending;
  std::map<std::pair<std::string, int64_t>, size_t> group_index;

  // Tracebacks per rank prefix.
  struct Traceback {
    bool active = false;
    std::string frame;
    std::string source;
    bool expect_source = false;
    Location start;
  };
  std::unordered_map<int64_t, Traceback> tracebacks;
  int64_t active_tracebacks = 0;  ///< Streams inside a traceback (skips the lookup otherwise).
  std::unordered_map<std::string, size_t> failure_index;

  // Iterations: every line up to the cap, then every k-th (k doubles) to stay bounded.
  int64_t keep_stride = 1;
  std::map<int64_t, size_t> memory_by_rank;

  Location at(int64_t line_no, int column = 0) const {
    return Location{file, static_cast<int>(line_no), column};
  }

  /// Keep the first bad number: `field` is the log's own label for it.
  void bad_number(int64_t line_no, const std::string& field, const std::string& why) {
    if (!number_error) number_error = Error{field + ": " + why, at(line_no), field};
  }

  /// `value` when it is a figure of `range`, else nullopt with the log marked bad at `line_no`.
  std::optional<double> physical(std::optional<double> value, const PhysicalRange& range,
                                 int64_t line_no, const std::string& field) {
    if (!value) return std::nullopt;
    if (auto why = physical_range_error(*value, range)) {
      bad_number(line_no, field, format_number_for_error(*value) + " is " + *why);
      return std::nullopt;
    }
    return value;
  }

  // --- Configuration ---------------------------------------------------------------------

  void args_line(std::string_view s, int64_t line_no) {
    // "  name ........ value"
    if (!starts_with(s, "  ")) return;
    size_t i = 2;
    size_t name_start = i;
    while (i < s.size() && s[i] != ' ')
      ++i;
    std::string_view name = s.substr(name_start, i - name_start);
    while (i < s.size() && s[i] == ' ')
      ++i;
    while (i < s.size() && s[i] == '.')
      ++i;
    if (i < s.size() && s[i] == ' ') ++i;
    std::string_view value = s.substr(std::min(i, s.size()));
    if (name.empty()) return;
    // "None" (not set yet) says nothing; a number must be a world size.
    if (name == "world_size" && !value.empty() &&
        (logscan::is_digit(value[0]) || value[0] == '-')) {
      Result<int64_t> world = parse_world_size(trim(value));
      if (world) {
        args_world = *world;
      } else {
        bad_number(line_no, "world_size", world.error().message);
      }
    }
    std::string flag = flag_for_dest(name, trim(value));
    if (flag.empty() || mlm_flag_key(flag).empty()) return;
    auto values = python_str_to_values(value);
    if (!values) return;
    MlmArgument arg;
    arg.flag = flag;
    arg.values = std::move(*values);
    arg.location = at(line_no, static_cast<int>(i + 1));
    args.push_back(std::move(arg));
  }

  void finish_args(int64_t end_line) {
    in_args = false;
    args_done = true;
    // Arguments hcp-plan cannot type are dropped one at a time and listed, but not those that
    // define the layout: dropped, their defaults (CP 1) were checked in their place.
    std::vector<std::string> ignored;
    for (int attempt = 0; attempt < 32; ++attempt) {
      auto recipe = recipe_from_mlm_arguments(args, file);
      if (recipe) {
        LogConfig config;
        config.recipe = std::move(*recipe);
        config.recipe.path = file;
        config.format = "megatron-lm arguments";
        config.begin = args_begin;
        config.end_line = end_line;
        config.world_size = args_world;
        config.ignored = std::move(ignored);
        set_config(std::move(config));
        return;
      }
      const Error& e = recipe.error();
      auto bad = std::find_if(args.begin(), args.end(), [&](const MlmArgument& a) {
        return a.location.line == e.location.line;
      });
      if (bad == args.end() || defines_layout(bad->flag)) {
        config_error = Error{"the Megatron-LM arguments block cannot be read: " + e.message,
                             e.location, e.key};
        return;
      }
      ignored.push_back(bad->flag + " (line " + std::to_string(bad->location.line) + ")");
      args.erase(bad);
    }
  }

  void set_config(LogConfig config) {
    if (out.config) return;  // Several ranks or files print it: the first one counts.
    if (config.world_size && !out.world_size) {
      out.world_size = config.world_size;
      out.world_size_at = config.begin;
    }
    out.config = std::move(config);
  }

  void finish_yaml_block(YamlBlock& block, const std::string& format) {
    auto recipe = load_recipe_text(block.text, file);
    if (!recipe) {
      Error e = recipe.error();
      if (e.location.line > 0 && static_cast<size_t>(e.location.line) <= block.log_lines.size())
        e.location.line = static_cast<int>(block.log_lines[e.location.line - 1]);
      e.location.file = file;
      e.message = "the printed Bridge configuration cannot be read: " + e.message;
      config_error = e;
      return;
    }
    relocate(recipe->root, file, block.log_lines);
    recipe->path = file;
    LogConfig config;
    config.recipe = std::move(*recipe);
    config.format = format;
    config.begin = block.begin;
    config.end_line = block.log_lines.empty() ? block.begin.line : block.log_lines.back();
    if (block.cut_at) {
      config.ignored.push_back("everything printed past 4 MiB (line " +
                               std::to_string(*block.cut_at) + " on)");
    }
    set_config(std::move(config));
  }

  /// Return true when the line belongs to a YAML dump (consumed).
  bool yaml_line(std::string_view s, int64_t line_no, std::optional<int64_t> rank) {
    if (yaml) {
      if (yaml->rank && rank && *yaml->rank != *rank) return false;  // another rank's output
      bool continues =
          (!s.empty() && (s.front() == ' ' || s.front() == '-')) || !top_level_key(s).empty();
      if (continues) {
        std::string_view key = top_level_key(s);
        if (!key.empty()) yaml->sections.emplace(key);
        yaml->add(s, line_no);
        return true;
      }
      close_yaml();
      return false;
    }
    if (config_done || out.config) return false;
    std::string_view key = top_level_key(s);
    if (key.empty() || key.size() != s.size() - 1 || !is_bridge_section(key)) return false;
    yaml.emplace();
    yaml->begin = at(line_no, 1);
    yaml->rank = rank;
    yaml->sections.emplace(key);
    yaml->add(s, line_no);
    return true;
  }

  void close_yaml() {
    if (!yaml) return;
    YamlBlock block = std::move(*yaml);
    yaml.reset();
    // A ConfigContainer dump has a model section and several others.
    if (block.sections.count("model") && block.sections.size() >= 3) {
      finish_yaml_block(block, "bridge config yaml");
      config_done = true;
    }
  }

  /// Bridge's non-default summary; return true when the line was consumed.
  bool summary_line(std::string_view s, int64_t line_no) {
    if (!in_summary) {
      if (config_done || out.config || !contains(s, kSummaryTitle)) return false;
      in_summary = true;
      summary.emplace();
      summary->begin = at(line_no, 1);
      return true;
    }
    std::string_view t = trim(s);
    if (t.empty() || starts_with(t, "-----") || t == "Other Configuration Values:") return true;
    if (starts_with(t, "=====")) {
      if (summary_seen_section) close_summary();
      return true;
    }
    if (t.front() == '[') {
      size_t close = t.find(']');
      if (close == npos) return true;
      summary_section = std::string(t.substr(1, close - 1));
      summary_seen_section = true;
      summary->add(summary_section + ":", line_no);
      return true;
    }
    if (!starts_with(s, "  ") || summary_section.empty()) {
      close_summary();
      return false;
    }
    size_t colon = t.find(": ");
    if (colon == npos) return true;
    std::string_view name = t.substr(0, colon);
    std::string_view value = t.substr(colon + 2);
    if (size_t d = find(value, "  (Mcore default:"); d != npos) value = value.substr(0, d);
    auto yaml_value = python_repr_to_yaml(value);
    if (!yaml_value) return true;
    summary->add("  " + std::string(name) + ": " + *yaml_value, line_no);
    return true;
  }

  void close_summary() {
    if (!in_summary) return;
    in_summary = false;
    if (summary && summary_seen_section) finish_yaml_block(*summary, "bridge config summary");
    summary.reset();
    config_done = true;
  }

  // --- Process groups, versions, NCCL ----------------------------------------------------

  void add_group(const std::string& name, int64_t size, const Location& where) {
    auto key = std::make_pair(name, size);
    auto it = group_index.find(key);
    if (it == group_index.end()) {
      group_index.emplace(key, out.groups.size());
      out.groups.push_back(LogGroup{name, size, 1, where});
    } else {
      ++out.groups[it->second].seen;
    }
  }

  /// Parse "[PG ID n PG GUID g(desc) Rank r]" (or "[PG n Rank r]"); return {guid, desc}.
  static std::pair<std::string, std::string> pg_prefix(std::string_view s, bool& default_pg) {
    std::string guid;
    std::string desc;
    size_t g = find(s, "PG GUID ");
    if (g != npos) {
      size_t i = g + 8;
      size_t start = i;
      while (i < s.size() && s[i] != '(' && s[i] != ' ' && s[i] != ']')
        ++i;
      guid = std::string(s.substr(start, i - start));
      if (i < s.size() && s[i] == '(') {
        size_t close = s.find(") Rank", i);
        if (close != npos) desc = std::string(s.substr(i + 1, close - i - 1));
      }
    }
    size_t id = find(s, "[PG ID ");
    size_t id_len = 7;
    if (id == npos) {
      id = find(s, "[PG ");
      id_len = 4;
    }
    if (id != npos) {
      size_t pos = id + id_len;
      auto local = logscan::parse_int_at(s, pos);
      default_pg = local && *local == 0;
      if (guid.empty() && local) guid = std::to_string(*local);
    }
    if (desc == "default_pg") default_pg = true;
    return {guid, desc};
  }

  void process_group_line(std::string_view s, int64_t line_no) {
    size_t init = find(s, "ProcessGroupNCCL initialization options:");
    bool default_pg = false;
    auto [guid, desc] = pg_prefix(s, default_pg);
    if (!guid.empty() && !desc.empty()) guid_desc[{file_index, guid}] = desc;
    if (init == npos) return;
    out.pg_logging = true;
    auto size = logscan::number_after(s.substr(init), "size: ");
    if (size &&
        (*size < 1 || *size > static_cast<double>(kMaxWorldGpus) || *size != std::floor(*size))) {
      bad_number(line_no, "ProcessGroupNCCL size",
                 format_number_for_error(*size) + " is not a count of GPUs from 1 to 2^20");
      size.reset();
    }
    int64_t n = size ? static_cast<int64_t>(*size) : 0;
    if (default_pg && n > 0 && !out.world_size) {
      out.world_size = n;
      out.world_size_at = at(line_no);
    }
    if (!desc.empty()) {
      add_group(desc, n, at(line_no));
    } else {
      pending.push_back(PendingGroup{file_index, guid, n, at(line_no), default_pg});
    }
  }

  void version(const std::string& name, std::string_view text, int64_t line_no) {
    if (out.versions.count(name)) return;
    size_t i = 0;
    while (i < text.size() && i < 24 && !logscan::is_digit(text[i]))
      ++i;
    if (i >= text.size() || !logscan::is_digit(text[i])) return;
    auto v = Version::parse(text.substr(i, 32));
    if (v) out.versions[name] = LogVersion{*v, at(line_no)};
  }

  void version_line(std::string_view s, int64_t line_no) {
    if (size_t n = find(s, "NCCL version"); n != npos) {
      version("nccl", s.substr(n + 12), line_no);
      return;
    }
    // TE's own assert prints "Transformer-Engine v{ver} must be >= ..." (MCore extensions).
    if (size_t te = find(s, "Transformer-Engine v"); te != npos) {
      version("te", s.substr(te + 20), line_no);
    }
    std::string lower(s.substr(0, 512));
    for (char& c : lower)
      c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    struct Token {
      const char* text;
      const char* name;
    };
    static const Token kTokens[] = {
        {"transformer_engine", "te"},  {"transformer-engine", "te"},
        {"transformer engine", "te"},  {"megatron-core", "mcore"},
        {"megatron_core", "mcore"},    {"megatron.core", "mcore"},
        {"megatron-bridge", "bridge"}, {"megatron_bridge", "bridge"},
        {"pytorch version", "torch"},  {"torch version", "torch"},
        {"torch==", "torch"},          {"torch.__version__", "torch"},
    };
    for (const Token& t : kTokens) {
      size_t p = lower.find(t.text);
      if (p == std::string::npos) continue;
      std::string_view rest = std::string_view(lower).substr(p + std::strlen(t.text));
      // Only "name version X", "name==X", "name: X", "name X" forms.
      size_t v = rest.find("version");
      if (v != std::string::npos && v < 4) rest = rest.substr(v + 7);
      size_t i = 0;
      while (i < rest.size() && (rest[i] == ' ' || rest[i] == ':' || rest[i] == '=' ||
                                 rest[i] == 'v' || rest[i] == '\t')) {
        ++i;
      }
      if (i < rest.size() && logscan::is_digit(rest[i])) version(t.name, rest.substr(i), line_no);
    }
  }

  // --- Iterations and memory ---------------------------------------------------------------

  void iteration_line(std::string_view s, int64_t line_no) {
    size_t it = find(s, "iteration ");
    size_t ms = find(s, "elapsed time per iteration (ms):");
    if (it == npos || ms == npos || it > ms) return;
    LogIteration rec;
    size_t pos = it + 10;
    auto n = logscan::parse_int_at(s, pos);
    if (!n) return;
    rec.iteration = *n;
    if (pos < s.size() && s[pos] == '/') {
      ++pos;
      rec.train_iters = logscan::parse_int_at(s, pos).value_or(0);
    }
    pos = ms + 32;
    auto step = physical(logscan::parse_double_at(s, pos), kMilliseconds, line_no,
                         "elapsed time per iteration (ms)");
    if (!step) return;
    rec.step_ms = *step;
    rec.tflops_per_gpu = physical(logscan::number_after(s, "throughput per GPU (TFLOP/s/GPU):"),
                                  or_zero(kTflops), line_no, "throughput per GPU (TFLOP/s/GPU)");
    rec.at = at(line_no);
    ++out.iterations_seen;
    if ((out.iterations_seen - 1) % keep_stride != 0) return;
    out.iterations.push_back(rec);
    if (out.iterations.size() >= kMaxIterationsKept) {
      // Keep every other one and halve the rate from now on: bounded, evenly spread.
      std::vector<LogIteration> kept;
      kept.reserve(kMaxIterationsKept / 2 + 1);
      for (size_t i = 0; i < out.iterations.size(); i += 2)
        kept.push_back(out.iterations[i]);
      out.iterations = std::move(kept);
      keep_stride *= 2;
    }
  }

  void memory_line(std::string_view s, int64_t line_no, std::optional<int64_t> prefix_rank) {
    LogMemory m;
    if (size_t r = find(s, "[Rank "); r != npos) {
      size_t pos = r + 6;
      m.rank = logscan::parse_int_at(s, pos).value_or(-1);
    } else if (prefix_rank) {
      m.rank = *prefix_rank;
    }
    if (size_t a = find(s, "(after "); a != npos) {
      size_t pos = a + 7;
      m.after_iterations = logscan::parse_int_at(s, pos).value_or(-1);
    }
    auto megabytes = [&](std::string_view label) {
      return physical(logscan::number_after(s, label), kMemoryMb, line_no,
                      "memory (MB) " + std::string(label.substr(2, label.size() - 3)));
    };
    auto alloc = megabytes("| allocated:");
    auto max_alloc = megabytes("| max allocated:");
    if (!alloc || !max_alloc) return;
    m.allocated_mb = *alloc;
    m.max_allocated_mb = *max_alloc;
    m.reserved_mb = megabytes("| reserved:").value_or(0);
    m.max_reserved_mb = megabytes("| max reserved:").value_or(0);
    m.at = at(line_no);
    auto it = memory_by_rank.find(m.rank);
    if (it == memory_by_rank.end()) {
      memory_by_rank.emplace(m.rank, out.memory.size());
      out.memory.push_back(m);
    } else if (m.max_allocated_mb >= out.memory[it->second].max_allocated_mb) {
      out.memory[it->second] = m;
    }
  }

  // --- Failures ------------------------------------------------------------------------------

  void add_failure(LogFailure f) {
    std::string key = normalised_failure_key(f.kind, f.message);
    auto it = failure_index.find(key);
    if (it != failure_index.end()) {
      ++out.failures[it->second].occurrences;
      return;
    }
    if (out.failures.size() >= kMaxFailuresKept) return;
    if (f.kind == LogFailureKind::kOutOfMemory) {
      f.tried_gib = logscan::number_after(f.message, "Tried to allocate");
      if (f.tried_gib && contains(f.message, "Tried to allocate") &&
          find(f.message, " MiB", find(f.message, "Tried to allocate")) <
              find(f.message, " GiB", find(f.message, "Tried to allocate"))) {
        *f.tried_gib /= 1024.0;
      }
      f.total_gib = logscan::number_after(f.message, "total capacity of");
      if (!f.total_gib) f.total_gib = logscan::number_after(f.message, "; ");
    }
    f.rule_id = rule_for_failure(f.message, f.source_line);
    failure_index.emplace(key, out.failures.size());
    out.failures.push_back(std::move(f));
  }

  static LogFailureKind kind_of(std::string_view exception, std::string_view message) {
    if (contains(exception, "OutOfMemoryError") || contains(message, "CUDA out of memory"))
      return LogFailureKind::kOutOfMemory;
    if (contains(message, "Watchdog caught collective operation timeout"))
      return LogFailureKind::kNcclTimeout;
    if (contains(exception, "AssertionError")) return LogFailureKind::kAssertion;
    if (contains(exception, "DistBackendError") || contains(message, "NCCL error"))
      return LogFailureKind::kNcclError;
    if (contains(message, "CUDA error")) return LogFailureKind::kCudaError;
    return LogFailureKind::kOther;
  }

  /// Return true when the line belonged to a traceback.
  bool traceback_line(std::string_view s, int64_t line_no, int64_t stream) {
    Traceback& tb = tracebacks[stream];
    if (starts_with(s, "Traceback (most recent call last):")) {
      if (!tb.active) ++active_tracebacks;
      tb = Traceback{};
      tb.active = true;
      tb.start = at(line_no);
      return true;
    }
    if (!tb.active) return false;
    if (starts_with(s, "  File \"")) {
      // '  File "path", line N, in func'
      std::string_view rest = s.substr(8);
      size_t q = rest.find('"');
      std::string path(rest.substr(0, q == npos ? rest.size() : q));
      std::string line_text;
      std::string func;
      if (size_t l = find(rest, ", line "); l != npos) {
        size_t pos = l + 7;
        if (auto n = logscan::parse_int_at(rest, pos)) line_text = std::to_string(*n);
        if (size_t in = find(rest, ", in ", pos); in != npos)
          func = std::string(rest.substr(in + 5));
      }
      tb.frame =
          path + (line_text.empty() ? "" : ":" + line_text) + (func.empty() ? "" : " in " + func);
      tb.source.clear();
      tb.expect_source = true;
      return true;
    }
    if (!s.empty() && s.front() == ' ') {
      if (tb.expect_source) {
        std::string_view code = trim(s);
        // Python 3.11+ carets under the code are not code.
        if (!code.empty() && code.find_first_not_of("^~ ") != npos) tb.source = std::string(code);
        tb.expect_source = false;
      }
      return true;
    }
    if (s.empty() || starts_with(s, "During handling of the above exception") ||
        starts_with(s, "The above exception was the direct cause")) {
      return true;
    }
    // The exception line: "Type: message" or a bare "Type".
    std::string_view t = trim(s);
    size_t colon = t.find(": ");
    std::string_view type = colon == npos ? t : t.substr(0, colon);
    bool is_type = !type.empty() && type.find(' ') == npos;
    tb.active = false;
    --active_tracebacks;
    if (!is_type) return false;
    LogFailure f;
    f.exception = std::string(type);
    f.message = colon == npos ? std::string() : std::string(t.substr(colon + 2, 2000));
    f.kind = kind_of(f.exception, f.message);
    f.frame = tb.frame;
    f.source_line = tb.source;
    f.at = at(line_no);
    add_failure(std::move(f));
    return true;
  }

  /// A CUDA kernel's device-side assert (PyTorch's CUDA_KERNEL_ASSERT): "path.cu:N: kernel:
  /// block: [x,y,z], thread: [x,y,z] Assertion `cond` failed." -- frame "path.cu:N in kernel".
  static void device_assert(std::string_view s, size_t assertion, LogFailure& f) {
    f.kind = LogFailureKind::kCudaError;
    std::string_view cond = s.substr(assertion);
    size_t close = cond.find('`', 11);
    f.message = "device-side assertion " +
                std::string(close == npos ? cond.substr(10, 400) : cond.substr(10, close - 9)) +
                " failed";
    size_t block = find(s, ": block: [");
    if (block == npos || block > assertion) return;
    std::string_view where = trim(s.substr(0, block));
    size_t kernel = where.rfind(": ");
    f.frame = kernel == npos ? std::string(where)
                             : std::string(where.substr(0, kernel)) + " in " +
                                   std::string(where.substr(kernel + 2));
  }

  void error_line(std::string_view s, int64_t line_no) {
    LogFailure f;
    f.at = at(line_no);
    if (size_t w = find(s, "Watchdog caught collective operation timeout"); w != npos) {
      size_t start = find(s, "[PG");
      if (start == npos || start > w) start = find(s, "[Rank");
      if (start == npos || start > w) start = w;
      f.kind = LogFailureKind::kNcclTimeout;
      f.message = std::string(s.substr(start, 1000));
    } else if (size_t t = find(s, "Timeout at NCCL work:"); t != npos) {
      size_t start = find(s, "[PG");
      f.kind = LogFailureKind::kNcclTimeout;
      f.message = std::string(s.substr(start != npos && start < t ? start : t, 1000));
    } else if (size_t oom = find(s, "CUDA out of memory"); oom != npos) {
      f.kind = LogFailureKind::kOutOfMemory;
      f.message = std::string(s.substr(oom, 1000));
    } else if (size_t assertion = find(s, "Assertion `"); assertion != npos) {
      device_assert(s, assertion, f);
    } else if (size_t cuda = find(s, "CUDA error: "); cuda != npos) {
      f.kind = LogFailureKind::kCudaError;
      f.message = std::string(s.substr(cuda, 1000));
    } else if (size_t w2 = find(s, " NCCL WARN "); w2 != npos) {
      std::string_view msg = s.substr(w2 + 11);
      if (!(contains(msg, "rror") || contains(msg, "ailed") || contains(msg, "imeout"))) return;
      f.kind = LogFailureKind::kNcclError;
      f.message = std::string(msg.substr(0, 1000));
    } else {
      return;
    }
    add_failure(std::move(f));
  }

  // --- One line ------------------------------------------------------------------------------

  void feed(std::string_view raw, int64_t line_no) {
    ++out.lines;
    out.bytes += static_cast<int64_t>(raw.size()) + 1;
    std::optional<int64_t> rank;
    std::string_view s = strip_log_prefixes(raw, rank);

    if (in_args) {
      bool same_rank = !rank || !args_rank || *rank == *args_rank;
      if (same_rank) {
        if (starts_with(trim(s), kArgsEnd.substr(0, 30)) && contains(s, "end of arguments")) {
          finish_args(line_no);
          return;
        }
        if (starts_with(s, "  ")) {
          args_line(s, line_no);
          return;
        }
      }
    } else if (!args_done && s.size() >= kArgsBegin.size() && s.front() == '-' &&
               trim(s) == kArgsBegin) {
      in_args = true;
      args_rank = rank;
      args_begin = at(line_no, 1);
      return;
    }
    if (!out.config && !args_done && !in_args) {
      if (summary_line(s, line_no)) return;
      if (yaml_line(s, line_no, rank)) return;
    } else if (yaml) {
      close_yaml();
    }

    int64_t stream = rank.value_or(-1);
    if ((active_tracebacks > 0 || starts_with(s, "Traceback")) &&
        traceback_line(s, line_no, stream)) {
      return;
    }

    // Keyword dispatch: one pass finds the anchors, each recognizer runs only on its lines.
    unsigned a = logscan::line_anchors(s);
    if (a == 0) return;
    if (a & logscan::kIteration) {
      iteration_line(s, line_no);
      return;
    }
    if (a & logscan::kMemory) {
      memory_line(s, line_no, rank);
      return;
    }
    if (a & logscan::kProcessGroup) {
      process_group_line(s, line_no);
      if (a & logscan::kVersion) version_line(s, line_no);
      if ((a & (logscan::kWatchdog | logscan::kCudaError)) || contains(s, "Timeout at NCCL work:"))
        error_line(s, line_no);
      return;
    }
    if (a & logscan::kNccl) {
      if (contains(s, "Init COMPLETE")) ++out.nccl_communicators;
      if (a & logscan::kVersion) version_line(s, line_no);
      if (contains(s, " NCCL WARN ") || contains(s, "Timeout at NCCL work:"))
        error_line(s, line_no);
      return;
    }
    if (a & logscan::kVersion) version_line(s, line_no);
    if (a & (logscan::kOom | logscan::kWatchdog | logscan::kCudaError | logscan::kDeviceAssert))
      error_line(s, line_no);
    if (!out.gpu_name && (a & logscan::kNvidia)) out.gpu_name = gpu_model_in(s);
  }

  void end_file() {
    if (yaml) close_yaml();
    if (in_summary) close_summary();
    tracebacks.clear();
    active_tracebacks = 0;
  }
};

LogParser::LogParser() : impl_(new Impl) {}
LogParser::~LogParser() {
  delete impl_;
}

void LogParser::begin_file(const std::string& name) {
  if (impl_->file_index >= 0) impl_->end_file();
  impl_->file = name;
  ++impl_->file_index;
  impl_->out.files.push_back(name);
}

void LogParser::feed(std::string_view line, int64_t line_no) {
  if (line.size() > kMaxLineBytes) line = line.substr(0, kMaxLineBytes);
  impl_->feed(line, line_no);
}

Result<ParsedLog> LogParser::finish() {
  Impl& p = *impl_;
  if (p.in_args) {
    return Error{
        "the Megatron-LM arguments block starting here has no \"end of arguments\" line: "
        "the log is truncated",
        p.args_begin, ""};
  }
  p.end_file();
  if (p.number_error) return *p.number_error;
  if (p.config_error) return *p.config_error;
  // Sizes logged without a name get it through their PG GUID.
  for (const Impl::PendingGroup& g : p.pending) {
    auto it = p.guid_desc.find({g.file, g.guid});
    std::string name = it != p.guid_desc.end() ? it->second : (g.default_pg ? "default_pg" : "");
    if (name.empty()) name = "unnamed (PG GUID " + g.guid + ")";
    p.add_group(name, g.size, g.at);
  }
  p.pending.clear();
  ParsedLog out = std::move(p.out);
  return out;
}

}  // namespace hcp
