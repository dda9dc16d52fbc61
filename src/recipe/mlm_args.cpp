// Megatron-LM arguments -> Recipe. Flags are grouped into `--flag value...`, then the ones that
// matter for context parallelism are typed and stored under their Bridge names.
#include "hcp/mlm_args.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "hcp/edit_distance.h"
#include "hcp/file_input.h"
#include "hcp/schema.h"
#include "hcp/text_util.h"
#include "hcp/yaml_input.h"

namespace hcp {
namespace {

/// How a flag's values become a Value.
enum class FlagKind {
  kInt,          ///< One integer.
  kFloat,        ///< One number.
  kTrue,         ///< store_true: present means true ("--flag: false" in YAML means absent).
  kFalse,        ///< store_false: present means false (e.g. --no-rope-fusion).
  kString,       ///< One string.
  kIntOrString,  ///< An integer when it parses as one, else the string ("max").
  kIntList,      ///< nargs='+' integers: "2 2", "[2 2]", "[2,2]" or a YAML list.
  kStringList,   ///< nargs='+' strings; one value is stored as a string, several as a list.
  kStrings,      ///< nargs='+' strings, stored as a list however many.
  kIntPair,      ///< A tuple such as --window-size "(4096, 0)".
};

struct FlagSpec {
  std::string_view flag;
  FlagKind kind;
  std::string_view key;
  std::string_view second_key = {};  ///< Also set (e.g. dataset.seq_length).
};

/// The flags that split the layers over the pipeline stages (rules CP008, CP009).
std::vector<FlagSpec> pipeline_split_flags() {
  return {
      {"--decoder-first-pipeline-num-layers", FlagKind::kInt,
       "model.num_layers_in_first_pipeline_stage"},
      {"--decoder-last-pipeline-num-layers", FlagKind::kInt,
       "model.num_layers_in_last_pipeline_stage"},
      {"--account-for-embedding-in-pipeline-split", FlagKind::kTrue,
       "model.account_for_embedding_in_pipeline_split"},
      {"--account-for-loss-in-pipeline-split", FlagKind::kTrue,
       "model.account_for_loss_in_pipeline_split"},
      {"--pipeline-model-parallel-layout", FlagKind::kString,
       "model.pipeline_model_parallel_layout"},
  };
}

/// The flags of the data loader, the process groups and the distributed optimizer.
std::vector<FlagSpec> data_and_distribution_flags() {
  return {
      {"--dataloader-type", FlagKind::kString, "dataset.dataloader_type"},
      {"--use-packed-sequence", FlagKind::kTrue, "dataset.packed_sequence"},
      {"--varlen-sbhd-validation", FlagKind::kTrue, "dataset.varlen_sbhd_validation"},
      {"--use-megatron-fsdp", FlagKind::kTrue, "dist.use_megatron_fsdp"},
      {"--use-torch-fsdp2", FlagKind::kTrue, "dist.use_torch_fsdp2"},
      {"--use-tp-pp-dp-mapping", FlagKind::kTrue, "dist.use_tp_pp_dp_mapping"},
      {"--disable-gloo-process-groups", FlagKind::kFalse, "dist.use_gloo_process_groups"},
      {"--use-distributed-optimizer", FlagKind::kTrue, "ddp.use_distributed_optimizer"},
      {"--num-distributed-optimizer-instances", FlagKind::kInt,
       "ddp.num_distributed_optimizer_instances"},
  };
}

/// Activation recompute, from TransformerConfig's fields (Megatron-LM d98e8a64
/// megatron/core/transformer/transformer_config.py:532-560, via arguments.py:2373), read into the
/// keys a Bridge recipe sets, which the memory and time model prices. --recompute-activations is
/// applied after all flags (apply_recompute_activations).
constexpr FlagSpec kRecomputeFlags[] = {
    {"--recompute-granularity", FlagKind::kString, "model.recompute_granularity"},
    {"--recompute-method", FlagKind::kString, "model.recompute_method"},
    {"--recompute-num-layers", FlagKind::kInt, "model.recompute_num_layers"},
    {"--recompute-modules", FlagKind::kStrings, "model.recompute_modules"},
};

/// The Megatron-LM flags hcp-plan models (megatron/training/arguments.py names).
const std::vector<FlagSpec>& flag_table() {
  static const std::vector<FlagSpec> kFlags = [] {
    std::vector<FlagSpec> flags = pipeline_split_flags();
    std::vector<FlagSpec> rest = {
        {"--tensor-model-parallel-size", FlagKind::kInt, "model.tensor_model_parallel_size"},
        {"--pipeline-model-parallel-size", FlagKind::kInt, "model.pipeline_model_parallel_size"},
        {"--context-parallel-size", FlagKind::kInt, "model.context_parallel_size"},
        {"--expert-model-parallel-size", FlagKind::kInt, "model.expert_model_parallel_size"},
        {"--expert-tensor-parallel-size", FlagKind::kInt, "model.expert_tensor_parallel_size"},
        {"--virtual-pipeline-model-parallel-size", FlagKind::kInt,
         "model.virtual_pipeline_model_parallel_size"},
        {"--num-virtual-stages-per-pipeline-rank", FlagKind::kInt,
         "model.virtual_pipeline_model_parallel_size"},
        {"--sequence-parallel", FlagKind::kTrue, "model.sequence_parallel"},
        {"--cp-comm-type", FlagKind::kStringList, "model.cp_comm_type"},
        {"--hierarchical-context-parallel-sizes", FlagKind::kIntList,
         "model.hierarchical_context_parallel_sizes"},
        {"--seq-length", FlagKind::kInt, "model.seq_length", "dataset.seq_length"},
        {"--micro-batch-size", FlagKind::kInt, "train.micro_batch_size"},
        {"--global-batch-size", FlagKind::kInt, "train.global_batch_size"},
        {"--num-layers", FlagKind::kInt, "model.num_layers"},
        {"--hidden-size", FlagKind::kInt, "model.hidden_size"},
        {"--ffn-hidden-size", FlagKind::kInt, "model.ffn_hidden_size"},
        {"--num-attention-heads", FlagKind::kInt, "model.num_attention_heads"},
        {"--num-query-groups", FlagKind::kInt, "model.num_query_groups"},
        {"--group-query-attention", FlagKind::kTrue, "model.group_query_attention"},
        {"--kv-channels", FlagKind::kInt, "model.kv_channels"},
        {"--max-position-embeddings", FlagKind::kInt, "model.max_position_embeddings"},
        {"--vocab-size", FlagKind::kInt, "model.vocab_size"},
        {"--transformer-impl", FlagKind::kString, "model.transformer_impl"},
        {"--attention-backend", FlagKind::kString, "model.attention_backend"},
        {"--attention-dropout", FlagKind::kFloat, "model.attention_dropout"},
        {"--hidden-dropout", FlagKind::kFloat, "model.hidden_dropout"},
        {"--fp8-format", FlagKind::kString, "model.fp8"},
        {"--fp8-recipe", FlagKind::kString, "model.fp8_recipe"},
        {"--fp8-dot-product-attention", FlagKind::kTrue,
         "mixed_precision.fp8_dot_product_attention"},
        {"--num-experts", FlagKind::kInt, "model.num_moe_experts"},
        {"--moe-token-dispatcher-type", FlagKind::kString, "model.moe_token_dispatcher_type"},
        {"--overlap-moe-expert-parallel-comm", FlagKind::kTrue,
         "model.overlap_moe_expert_parallel_comm"},
        {"--multi-latent-attention", FlagKind::kTrue, "model.multi_latent_attention"},
        {"--qk-head-dim", FlagKind::kInt, "model.qk_head_dim"},
        {"--qk-pos-emb-head-dim", FlagKind::kInt, "model.qk_pos_emb_head_dim"},
        {"--v-head-dim", FlagKind::kInt, "model.v_head_dim"},
        {"--q-lora-rank", FlagKind::kInt, "model.q_lora_rank"},
        {"--kv-lora-rank", FlagKind::kInt, "model.kv_lora_rank"},
        {"--window-size", FlagKind::kIntPair, "model.window_size"},
        {"--window-attn-skip-freq", FlagKind::kInt, "model.window_attn_skip_freq"},
        {"--softmax-type", FlagKind::kString, "model.softmax_type"},
        {"--position-embedding-type", FlagKind::kString, "model.position_embedding_type"},
        {"--no-rope-fusion", FlagKind::kFalse, "model.apply_rope_fusion"},
        {"--calculate-per-token-loss", FlagKind::kTrue, "model.calculate_per_token_loss"},
        {"--deterministic-mode", FlagKind::kTrue, "model.deterministic_mode"},
        {"--batch-invariant-mode", FlagKind::kTrue, "model.batch_invariant_mode"},
        {"--experimental-attention-variant", FlagKind::kString,
         "model.experimental_attention_variant"},
        {"--linear-num-key-heads", FlagKind::kInt, "model.linear_num_key_heads"},
        {"--linear-num-value-heads", FlagKind::kInt, "model.linear_num_value_heads"},
        {"--linear-cp-mode", FlagKind::kString, "model.linear_cp_mode"},
        {"--mamba-num-heads", FlagKind::kInt, "model.mamba_num_heads"},
        {"--mamba-head-dim", FlagKind::kInt, "model.mamba_head_dim"},
        {"--mamba-num-groups", FlagKind::kInt, "model.mamba_num_groups"},
        {"--hybrid-layer-pattern", FlagKind::kString, "model.hybrid_layer_pattern"},
        {"--hybrid-override-pattern", FlagKind::kString, "model.hybrid_layer_pattern"},
        {"--mtp-num-layers", FlagKind::kInt, "model.mtp_num_layers"},
        {"--hybrid-context-parallel", FlagKind::kTrue, "model.hybrid_context_parallel"},
        {"--dynamic-context-parallel", FlagKind::kTrue, "model.dynamic_context_parallel"},
        {"--max-seqlen-per-dp-cp-rank", FlagKind::kInt, "model.max_seqlen_per_dp_cp_rank"},
        {"--min-dynamic-context-parallel-size", FlagKind::kInt,
         "model.min_dynamic_context_parallel_size"},
        {"--sequence-packing-scheduler", FlagKind::kString, "model.sequence_packing_scheduler"},
        {"--pad-packed-seq-alignment", FlagKind::kIntOrString, "model.pad_packed_seq_alignment"},
        {"--thd-max-packed-sequences", FlagKind::kInt, "model.thd_max_packed_sequences"},
        {"--thd-tail-padding-policy", FlagKind::kString, "model.thd_tail_padding_policy"},
        {"--cp-partition-mode", FlagKind::kString, "model.cp_partition_mode"},
        {"--cuda-graph-impl", FlagKind::kString, "model.cuda_graph_impl"},
        // TransformerConfig / ModelParallelConfig booleans that ArgumentGroupFactory turns into
        // store_true flags (Megatron-LM d98e8a64 megatron/training/argument_utils.py:189-191,
        // arguments.py:2373): fp16/bf16 (model_parallel_config.py:177, 180), qk_clip and
        // log_max_attention_logit (transformer_config.py:265, 274), enable_cuda_graph
        // (transformer_config.py:1049; also cuda_graph_impl=local, see recipe_from_mlm_arguments).
        {"--fp16", FlagKind::kTrue, "model.fp16"},
        {"--bf16", FlagKind::kTrue, "model.bf16"},
        {"--qk-clip", FlagKind::kTrue, "model.qk_clip"},
        {"--log-max-attention-logit", FlagKind::kTrue, "model.log_max_attention_logit"},
        {"--enable-cuda-graph", FlagKind::kTrue, "model.enable_cuda_graph"},
        {"--tp-comm-overlap", FlagKind::kTrue, "model.tp_comm_overlap"},
    };
    flags.insert(flags.begin(), rest.begin(), rest.end());
    std::vector<FlagSpec> data = data_and_distribution_flags();
    flags.insert(flags.end(), data.begin(), data.end());
    flags.insert(flags.end(), std::begin(kRecomputeFlags), std::end(kRecomputeFlags));
    return flags;
  }();
  return kFlags;
}

const FlagSpec* find_flag(std::string_view flag) {
  for (const FlagSpec& spec : flag_table()) {
    if (spec.flag == flag) return &spec;
  }
  return nullptr;
}

bool is_placeholder(std::string_view text) {
  return text.find("${") != std::string_view::npos;
}

/// Python's int() and float() accept one leading '+'; from_chars does not.
std::string_view without_plus(std::string_view text) {
  return text.size() > 1 && text[0] == '+' ? text.substr(1) : text;
}

/// The first code point of each run of ten decimal digits 0-9 (Unicode category Nd, which comes
/// only in such runs): Python 3.11's unicodedata (Unicode 14.0) plus the runs Unicode 15.0 added
/// (Kawi U+11F50, Nag Mundari U+1E4F0), the Python 3.12 of current NGC PyTorch containers.
constexpr uint32_t kDecimalZeros[] = {
    0x30,    0x660,   0x6f0,   0x7c0,   0x966,   0x9e6,   0xa66,   0xae6,   0xb66,   0xbe6,
    0xc66,   0xce6,   0xd66,   0xde6,   0xe50,   0xed0,   0xf20,   0x1040,  0x1090,  0x17e0,
    0x1810,  0x1946,  0x19d0,  0x1a80,  0x1a90,  0x1b50,  0x1bb0,  0x1c40,  0x1c50,  0xa620,
    0xa8d0,  0xa900,  0xa9d0,  0xa9f0,  0xaa50,  0xabf0,  0xff10,  0x104a0, 0x10d30, 0x11066,
    0x110f0, 0x11136, 0x111d0, 0x112f0, 0x11450, 0x114d0, 0x11650, 0x116c0, 0x11730, 0x118e0,
    0x11950, 0x11c50, 0x11d50, 0x11da0, 0x11f50, 0x16a60, 0x16ac0, 0x16b50, 0x1d7ce, 0x1d7d8,
    0x1d7e2, 0x1d7ec, 0x1d7f6, 0x1e140, 0x1e2f0, 0x1e4f0, 0x1e950, 0x1fbf0,
};

/// The digit a code point stands for in Python's int(), or -1.
int decimal_digit(uint32_t cp) {
  for (uint32_t zero : kDecimalZeros) {
    if (cp >= zero && cp < zero + 10) return static_cast<int>(cp - zero);
  }
  return -1;
}

/// The white space Python's int() strips around a number: ASCII space, \t \n \v \f \r, and
/// the non-ASCII characters str.isspace() is true for (U+001C-U+001F are not stripped by int()).
bool python_int_space(uint32_t cp) {
  constexpr uint32_t kSpaces[] = {0x85,   0xa0, 0x1680, 0x2028, 0x2029, 0x202f, 0x205f,
                                  0x3000, ' ',  '\t',   '\n',   '\v',   '\f',   '\r'};
  return (cp >= 0x2000 && cp <= 0x200a) ||
         std::find(std::begin(kSpaces), std::end(kSpaces), cp) != std::end(kSpaces);
}

/// What Python's int(text) accepts (argparse type=int), as ASCII "-16": white space around it,
/// one sign, decimal digits of any script (full-width "１６" is 16) and single underscores
/// between digits ("1_6"); nullopt for anything int() rejects ("1__6", "_16", "1 6", "0x10").
/// (CPython Objects/unicodeobject.c _PyUnicode_TransformDecimalAndSpaceToASCII, then
/// Objects/longobject.c PyLong_FromString.)
std::optional<std::string> python_int_text(std::string_view text) {
  std::string ascii;
  for (size_t i = 0; i < text.size();) {
    const size_t length = utf8_sequence_length(text, i);
    if (length == 0) return std::nullopt;
    const uint32_t cp = utf8_code_point(text, i, length);
    i += length;
    const int digit = decimal_digit(cp);
    if (python_int_space(cp)) {
      ascii.push_back(' ');
    } else if (digit >= 0) {
      ascii.push_back(static_cast<char>('0' + digit));
    } else if (cp < 0x80) {
      ascii.push_back(static_cast<char>(cp));
    } else {
      return std::nullopt;
    }
  }
  const size_t first = ascii.find_first_not_of(' ');
  if (first == std::string::npos) return std::nullopt;
  std::string_view body(ascii);
  body = body.substr(first, ascii.find_last_not_of(' ') - first + 1);
  std::string out;
  if (body[0] == '+' || body[0] == '-') {
    if (body[0] == '-') out.push_back('-');
    body.remove_prefix(1);
  }
  auto is_digit = [](char c) { return c >= '0' && c <= '9'; };
  for (size_t i = 0; i < body.size(); ++i) {
    if (is_digit(body[i])) {
      out.push_back(body[i]);
      continue;
    }
    const bool between = body[i] == '_' && i > 0 && is_digit(body[i - 1]) && i + 1 < body.size() &&
                         is_digit(body[i + 1]);
    if (!between) return std::nullopt;
  }
  if (out.empty() || out == "-") return std::nullopt;
  return out;
}

/// True when `text` is an integer as Python's int() reads it ("-12", "+4", "1_000", " 16 "),
/// whatever its size: such a value is a number, never a string of a flag that takes either.
bool integer_syntax(std::string_view text) {
  return python_int_text(text).has_value();
}

/// Split list values written as "2 2", "[2 2]", "[2, 2]", "(4096, 0)" or separate tokens.
/// nullopt when the brackets do not balance or a comma has no item after it ("[2,", "[2,,2]"):
/// such text is not a list, and reading "[2," as [2] would check a value the user did not write.
std::optional<std::vector<std::string>> list_items(const std::vector<std::string>& values) {
  std::vector<std::string> items;
  std::string joined;
  for (const std::string& value : values)
    joined += (joined.empty() ? "" : " ") + value;
  std::vector<char> open;
  bool item_needed = false;  // After a comma, until the next item.
  std::string current;
  auto flush = [&]() {
    if (!current.empty()) items.push_back(current);
    if (!current.empty()) item_needed = false;
    current.clear();
  };
  for (char c : joined) {
    if (c == '[' || c == '(') {
      flush();
      open.push_back(c == '[' ? ']' : ')');
    } else if (c == ']' || c == ')') {
      flush();
      if (open.empty() || open.back() != c || item_needed) return std::nullopt;
      open.pop_back();
    } else if (c == ',') {
      flush();
      if (item_needed || items.empty()) return std::nullopt;
      item_needed = true;
    } else if (c == ' ' || c == '\t' || c == '\'' || c == '"') {
      flush();
    } else {
      current.push_back(c);
    }
  }
  flush();
  if (!open.empty() || item_needed) return std::nullopt;
  return items;
}

Error bad_value(const MlmArgument& arg, const FlagSpec& spec, std::string_view expected) {
  std::string got;
  for (const std::string& v : arg.values)
    got += (got.empty() ? "" : " ") + v;
  return Error{arg.flag + " expects " + std::string(expected) + ", got '" + got + "'", arg.location,
               std::string(spec.key)};
}

/// One integer value of `arg` through the checked parse (checked.h) with the physical range of
/// the flag's field: an integer of another syntax is "expects an integer", one outside int64 or
/// the range an error naming the flag and the range.
Result<int64_t> checked_integer(const MlmArgument& arg, const FlagSpec& spec, std::string_view text,
                                std::string_view expected) {
  std::optional<std::string> ascii = python_int_text(text);
  if (!ascii) return bad_value(arg, spec, expected);
  Result<int64_t> v = parse_checked_count(*ascii, count_range_of(spec.key));
  if (!v) return Error{arg.flag + ": " + v.error().message, arg.location, std::string(spec.key)};
  return *v;
}

/// One number value of `arg` through the checked parse with the physical range of its field.
Result<double> checked_number(const MlmArgument& arg, const FlagSpec& spec, std::string_view text) {
  Result<double> v = parse_physical(without_plus(text), number_range_of(spec.key));
  if (!v) return Error{arg.flag + ": " + v.error().message, arg.location, std::string(spec.key)};
  return *v;
}

/// Return true when a YAML-form boolean value switches a store_true flag off.
bool is_false_text(const std::vector<std::string>& values) {
  return values.size() == 1 && (values[0] == "false" || values[0] == "False");
}

/// The argparse error of an argument written on a command line that Megatron-LM's parser
/// rejects: a value after a switch, or a bracketed or comma-separated list for nargs='+' ints.
std::optional<Error> argparse_error(const MlmArgument& arg, const FlagSpec& spec) {
  if (!arg.as_written) return std::nullopt;
  bool is_switch = spec.kind == FlagKind::kTrue || spec.kind == FlagKind::kFalse;
  if (is_switch && !arg.values.empty()) {
    return bad_value(arg, spec, "no value (a switch: Megatron-LM's argparse rejects a value)");
  }
  if (spec.kind != FlagKind::kIntList) return std::nullopt;
  for (const std::string& v : arg.values) {
    if (v.find_first_of("[],") == std::string::npos) continue;
    std::string items;
    for (const std::string& item : list_items(arg.values).value_or(std::vector<std::string>{}))
      items += " " + item;
    Error e =
        bad_value(arg, spec, "a list of integers, space-separated (argparse nargs='+', type=int)");
    e.message += "; write " + arg.flag + (items.empty() ? std::string(" 2 2") : items);
    return e;
  }
  return std::nullopt;
}

/// Type one argument; nullopt value (without error) means "leave the key unset".
Result<std::optional<Value>> typed_value(const MlmArgument& arg, const FlagSpec& spec) {
  const Location& at = arg.location;
  for (const std::string& v : arg.values) {
    if (is_placeholder(v)) return std::optional<Value>{};
  }
  if (auto e = argparse_error(arg, spec)) return *e;
  auto one = [&]() -> const std::string* {
    return arg.values.size() == 1 ? &arg.values[0] : nullptr;
  };
  switch (spec.kind) {
    case FlagKind::kInt: {
      const std::string* text = one();
      if (text == nullptr) return bad_value(arg, spec, "an integer");
      Result<int64_t> v = checked_integer(arg, spec, *text, "an integer");
      if (!v) return v.error();
      return std::optional<Value>(Value::integer(*v, at));
    }
    case FlagKind::kFloat: {
      const std::string* text = one();
      if (text == nullptr) return bad_value(arg, spec, "a number");
      Result<double> v = checked_number(arg, spec, *text);
      if (!v) return v.error();
      return std::optional<Value>(Value::real(*v, at));
    }
    case FlagKind::kTrue:
    case FlagKind::kFalse: {
      if (is_false_text(arg.values)) return std::optional<Value>{};
      bool ok = arg.values.empty() ||
                (arg.values.size() == 1 && (arg.values[0] == "true" || arg.values[0] == "True"));
      if (!ok) return bad_value(arg, spec, "no value");
      return std::optional<Value>(Value::boolean(spec.kind == FlagKind::kTrue, at));
    }
    case FlagKind::kString: {
      const std::string* text = one();
      if (text == nullptr) return bad_value(arg, spec, "one value");
      return std::optional<Value>(Value::string(*text, at));
    }
    case FlagKind::kIntOrString: {
      const std::string* text = one();
      if (text == nullptr) return bad_value(arg, spec, "one value");
      if (!integer_syntax(*text)) return std::optional<Value>(Value::string(*text, at));
      Result<int64_t> v = checked_integer(arg, spec, *text, "an integer");
      if (!v) return v.error();
      return std::optional<Value>(Value::integer(*v, at));
    }
    case FlagKind::kIntList:
    case FlagKind::kIntPair: {
      std::vector<Value> items;
      auto texts = list_items(arg.values);
      if (!texts) {
        return bad_value(arg, spec,
                         spec.kind == FlagKind::kIntPair ? "two integers" : "a list of integers");
      }
      for (const std::string& item : *texts) {
        Result<int64_t> v = checked_integer(arg, spec, item, "a list of integers");
        if (!v) return v.error();
        items.push_back(Value::integer(*v, at));
      }
      bool size_ok = spec.kind == FlagKind::kIntPair ? items.size() == 2 : !items.empty();
      if (!size_ok) {
        return bad_value(arg, spec,
                         spec.kind == FlagKind::kIntPair ? "two integers" : "a list of integers");
      }
      return std::optional<Value>(Value::list(std::move(items), at));
    }
    case FlagKind::kStringList:
    case FlagKind::kStrings: {
      auto texts = list_items(arg.values);
      if (!texts) return bad_value(arg, spec, "a list of values");
      std::vector<std::string> items = std::move(*texts);
      if (items.empty()) return bad_value(arg, spec, "at least one value");
      if (items.size() == 1 && spec.kind == FlagKind::kStringList)
        return std::optional<Value>(Value::string(items[0], at));
      std::vector<Value> list;
      list.reserve(items.size());
      for (const std::string& item : items)
        list.push_back(Value::string(item, at));
      return std::optional<Value>(Value::list(std::move(list), at));
    }
  }
  return std::optional<Value>{};
}

/// --recompute-activations: validate_args sets recompute_granularity to 'selective' whatever
/// --recompute-granularity says (Megatron-LM d98e8a64 megatron/training/arguments.py:607-608),
/// so it is applied after every other flag.
Status apply_recompute_activations(const std::vector<MlmArgument>& args, Recipe& recipe) {
  static const FlagSpec kSpec{"--recompute-activations", FlagKind::kTrue,
                              "model.recompute_granularity"};
  for (const MlmArgument& arg : args) {
    if (arg.flag != kSpec.flag) continue;
    auto on = typed_value(arg, kSpec);
    if (!on) return on.error();
    if (on->has_value()) recipe.set(kSpec.key, Value::string("selective", arg.location));
  }
  return Ok{};
}

/// MLM ignores --num-query-groups unless --group-query-attention is given.
void apply_group_query_semantics(Recipe& recipe) {
  bool gqa = recipe.bool_or("model.group_query_attention", false);
  if (!gqa) {
    if (Value* model = recipe.root.get("model")) model->erase("num_query_groups");
  }
  if (Value* model = recipe.root.get("model")) model->erase("group_query_attention");
}

/// A shell-like token with the column it starts at.
struct Token {
  std::string text;
  int column = 1;
};

/// Split one line into tokens (whitespace separated; single and double quotes; backslash
/// escapes outside single quotes). Return an error message for an unbalanced quote.
Result<std::vector<Token>> tokenize(std::string_view line, const Location& at) {
  std::vector<Token> tokens;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r'))
      ++i;
    if (i >= line.size()) break;
    Token token;
    token.column = static_cast<int>(i) + 1;
    char quote = 0;
    for (; i < line.size(); ++i) {
      char c = line[i];
      if (quote != 0) {
        if (c == quote) {
          quote = 0;
        } else if (c == '\\' && quote == '"' && i + 1 < line.size()) {
          token.text.push_back(line[++i]);
        } else {
          token.text.push_back(c);
        }
      } else if (c == '\'' || c == '"') {
        quote = c;
      } else if (c == ' ' || c == '\t' || c == '\r') {
        break;
      } else if (c == '\\' && i + 1 < line.size()) {
        token.text.push_back(line[++i]);
      } else {
        token.text.push_back(c);
      }
    }
    if (quote != 0) {
      return Error{"unbalanced quote in Megatron-LM arguments",
                   Location{at.file, at.line, token.column}, ""};
    }
    if (token.text != "\\") tokens.push_back(std::move(token));
  }
  return tokens;
}

/// argparse reads "--" as the end of the options (Python Lib/argparse.py, _parse_known_args:
/// "all args after -- are non-options") and removes it: a trailing "--" changes nothing, but
/// what follows one is positional, and Megatron-LM's parser has no positionals, so parse_args
/// stops with "unrecognized arguments" (arguments.py:119-131 at d98e8a64).
Status check_end_of_options(const std::vector<std::pair<Token, Location>>& toks, size_t at) {
  if (at + 1 >= toks.size()) return Ok{};
  std::string rest;
  for (size_t i = at + 1; i < toks.size(); ++i)
    rest += (rest.empty() ? "" : " ") + toks[i].first.text;
  return Error{"'--' ends the options (argparse): what follows it ('" +
                   neutralize_controls(utf8_prefix(rest, 60)) + (rest.size() > 60 ? "..." : "") +
                   "') is positional, and Megatron-LM's parser rejects it as unrecognized "
                   "arguments; remove the '--'",
               toks[at].second, "--"};
}

/// Group located tokens into flags with values. Tokens up to the last one ending in ".py" belong
/// to the launcher (torchrun ... pretrain_gpt.py) and are skipped.
Result<std::vector<MlmArgument>> group_tokens(const std::vector<std::pair<Token, Location>>& toks) {
  size_t first = 0;
  for (size_t i = 0; i < toks.size(); ++i) {
    const std::string& t = toks[i].first.text;
    if (t.size() > 3 && t.compare(t.size() - 3, 3, ".py") == 0) first = i + 1;
  }
  std::vector<MlmArgument> args;
  for (size_t i = first; i < toks.size(); ++i) {
    const auto& [token, at] = toks[i];
    const std::string& t = token.text;
    if (t == "--") {
      if (Status st = check_end_of_options(toks, i); !st) return st.error();
      break;
    }
    if (t.rfind("--", 0) == 0 && t.size() > 2) {
      MlmArgument arg;
      size_t eq = t.find('=');
      arg.flag = t.substr(0, eq);
      arg.location = at;
      arg.as_written = true;
      if (eq != std::string::npos) arg.values.push_back(t.substr(eq + 1));
      args.push_back(std::move(arg));
      continue;
    }
    if (args.empty()) {
      return Error{"expected a Megatron-LM flag such as --context-parallel-size, got '" + t + "'",
                   at, ""};
    }
    if (args.back().values.empty()) args.back().location = at;
    args.back().values.push_back(t);
  }
  return args;
}

/// Read a Megatron-LM YAML or argument file with the shared reader (size limit, directories,
/// BOM) and the same control-byte check as recipes.
Result<std::string> read_mlm_file(const std::string& path, InputKind kind) {
  Result<std::string> text = read_input_file(path, kind);
  if (!text) return text.error();
  const char* what = kind == InputKind::kArgs ? "a Megatron-LM argument file" : "a YAML file";
  if (Status s = check_no_control_bytes(*text, path, what); !s) return s.error();
  return text;
}

Location mark_location(const YAML::Mark& mark, const std::string& file) {
  return Location{file, mark.line + 1, mark.column + 1};
}

/// Flatten a YAML scalar or sequence into argument values.
std::vector<std::string> yaml_values(const YAML::Node& node) {
  std::vector<std::string> values;
  if (node.IsScalar()) {
    values.push_back(node.Scalar());
  } else if (node.IsSequence()) {
    for (const YAML::Node& item : node) {
      if (item.IsScalar()) values.push_back(item.Scalar());
    }
  }
  return values;
}

/// Most map entries collect_yaml_arguments visits for one section. yaml-cpp shares aliased nodes,
/// so `<<` merge keys repeated at every level expand exponentially (a 1.4 KB file nested 9 deep
/// never finished); real MODEL_ARGS maps have a few hundred entries.
constexpr size_t kMaxYamlArgumentEntries = 100'000;

/// The walk of one MODEL_ARGS section: entries visited so far and the maps on the current `<<`
/// path (a map merged into itself, directly or through others, has no finite expansion).
struct MergeWalk {
  const std::string& file;
  size_t visited = 0;
  std::vector<YAML::Node> path;
};

/// Collect the `--flag: value` entries of one MODEL_ARGS map, following `<<` merge keys first.
/// Errors: more entries than the budget, or a map that merges itself.
Status collect_yaml_arguments(const YAML::Node& map, MergeWalk& walk,
                              std::vector<MlmArgument>& out) {
  if (!map.IsMap() || walk.path.size() > 8) return Ok{};
  for (const YAML::Node& outer : walk.path) {
    if (outer.is(map)) {
      return Error{
          "a '<<' merge key merges a map into itself (the alias names a map that "
          "contains it): its expansion never ends",
          mark_location(map.Mark(), walk.file), "<<"};
    }
  }
  walk.visited += map.size();
  if (walk.visited > kMaxYamlArgumentEntries) {
    return Error{"more than " + std::to_string(kMaxYamlArgumentEntries) +
                     " entries in one argument section, counting what '<<' merge keys bring in",
                 mark_location(map.Mark(), walk.file), ""};
  }
  walk.path.push_back(map);
  for (const auto& entry : map) {
    if (!entry.first.IsScalar() || entry.first.Scalar() != "<<") continue;
    if (entry.second.IsSequence()) {
      // `<<: [*a, *b]`: the first map wins a key both set, so it is collected last.
      for (size_t i = entry.second.size(); i-- > 0;) {
        if (Status s = collect_yaml_arguments(entry.second[i], walk, out); !s) return s;
      }
    } else if (Status s = collect_yaml_arguments(entry.second, walk, out); !s) {
      return s;
    }
  }
  walk.path.pop_back();
  for (const auto& entry : map) {
    if (!entry.first.IsScalar()) continue;
    const std::string& flag = entry.first.Scalar();
    if (flag == "<<") continue;
    if (flag.rfind("--", 0) != 0) {
      // The run script passes each key to the training script as written: "hidden-size: 8"
      // becomes the argument "hidden-size=8", which Megatron-LM's parser rejects.
      return Error{"argument key '" + neutralize_controls(utf8_prefix(flag, 60)) +
                       "' is not a flag: each entry of a MODEL_ARGS section is '--name: value'",
                   mark_location(entry.first.Mark(), walk.file), flag};
    }
    MlmArgument arg;
    arg.flag = flag;
    arg.location = mark_location(entry.second.Mark(), walk.file);
    if (entry.second.IsNull()) arg.location = mark_location(entry.first.Mark(), walk.file);
    arg.values = yaml_values(entry.second);
    out.push_back(std::move(arg));
  }
  return Ok{};
}

/// A YAML map holds one value per key: of a flag collected more than once (merged from several
/// maps, or the same alias merged again) only its last occurrence, the one that wins, is kept, in
/// order. The same flag merged thousands of times is one argument, checked and reported once.
void keep_last_of_each_flag(std::vector<MlmArgument>& args) {
  std::unordered_set<std::string_view> seen;
  std::vector<bool> keep(args.size(), false);
  for (size_t i = args.size(); i-- > 0;)
    keep[i] = seen.insert(args[i].flag).second;
  size_t kept = 0;
  for (size_t i = 0; i < args.size(); ++i) {
    if (!keep[i]) continue;
    if (kept != i) args[kept] = std::move(args[i]);
    ++kept;
  }
  args.resize(kept);
}

bool is_section_name(const std::string& key) {
  if (key == "MODEL_ARGS") return true;
  if (key.rfind("MODEL_ARGS_", 0) != 0 || key.size() == 11) return false;
  for (size_t i = 11; i < key.size(); ++i) {
    if (key[i] < '0' || key[i] > '9') return false;
  }
  return true;
}

/// GPUS_PER_NODE of each MODEL_ENV_VARS entry, by section name (the first entry of a name wins, as
/// a yaml-cpp lookup finds it). Read once per file: a map lookup per section was quadratic in the
/// number of sections (yaml-cpp searches maps linearly). A count outside 1 to 2^20 is an error.
using SectionGpus = std::unordered_map<std::string, std::optional<int64_t>>;
Result<SectionGpus> section_gpus(const YAML::Node& root, const std::string& path) {
  SectionGpus out;
  YAML::Node env = root["MODEL_ENV_VARS"];
  if (!env || !env.IsMap()) return out;
  for (const auto& entry : env) {
    if (!entry.first.IsScalar() || out.contains(entry.first.Scalar())) continue;
    std::optional<int64_t> gpus;
    if (entry.second.IsMap()) {
      YAML::Node value = entry.second["GPUS_PER_NODE"];
      if (value && value.IsScalar()) {
        Result<int64_t> v = parse_checked_count(value.Scalar(), kParallelCount);
        if (!v) {
          return Error{
              "MODEL_ENV_VARS." + entry.first.Scalar() + ".GPUS_PER_NODE: " + v.error().message,
              mark_location(value.Mark(), path), "GPUS_PER_NODE"};
        }
        gpus = *v;
      }
    }
    out.emplace(entry.first.Scalar(), gpus);
  }
  return out;
}

std::string stem_of(const std::string& path) {
  size_t slash = path.find_last_of('/');
  std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  size_t dot = base.rfind('.');
  return dot == std::string::npos || dot == 0 ? base : base.substr(0, dot);
}

Result<YAML::Node> parse_yaml_text(const std::string& text, const std::string& path) {
  return parse_single_yaml(text, path, "a Megatron-LM config");
}

/// Every flag Megatron-LM's training parser registers (generated from upstream by
/// scripts/gen_mlm_flags.py, commit in the file), sorted: constant data, looked up by binary
/// search. (A list of std::string here took 38 CPU-s and 1 GiB to compile.)
constexpr std::string_view kUpstreamFlags[] = {
#include "mlm_known_flags.inc"
};
static_assert(std::is_sorted(std::begin(kUpstreamFlags), std::end(kUpstreamFlags)),
              "scripts/gen_mlm_flags.py writes the flags sorted");

/// The argparse choices of a Megatron-LM flag (generated with kUpstreamFlags): '|'-separated,
/// compared as int(value) when `integer`, and where upstream declares them.
struct UpstreamChoices {
  std::string_view flag;
  std::string_view choices;
  bool integer;
  std::string_view source;
};

constexpr UpstreamChoices kUpstreamChoices[] = {
#include "mlm_flag_choices.inc"
};
static_assert(std::is_sorted(std::begin(kUpstreamChoices), std::end(kUpstreamChoices),
                             [](const UpstreamChoices& a, const UpstreamChoices& b) {
                               return a.flag < b.flag;
                             }),
              "scripts/gen_mlm_flags.py writes the choices sorted by flag");

const UpstreamChoices* find_choices(std::string_view flag) {
  const auto* it =
      std::lower_bound(std::begin(kUpstreamChoices), std::end(kUpstreamChoices), flag,
                       [](const UpstreamChoices& c, std::string_view f) { return c.flag < f; });
  return it != std::end(kUpstreamChoices) && it->flag == flag ? it : nullptr;
}

std::vector<std::string> split_choices(std::string_view text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (true) {
    const size_t bar = text.find('|', start);
    out.emplace_back(text.substr(start, bar - start));
    if (bar == std::string_view::npos) return out;
    start = bar + 1;
  }
}

/// True when `value` is one of `choices`: as written, or for integer choices as int(value).
bool is_choice(const UpstreamChoices& choices, const std::vector<std::string>& names,
               const std::string& value) {
  if (!choices.integer) return std::find(names.begin(), names.end(), value) != names.end();
  const std::optional<std::string> number = python_int_text(value);
  // A leading zero does not change int()'s value: compare "02" as 2.
  std::string canonical = number.value_or("");
  while (canonical.size() > 1 && canonical[0] == '0')
    canonical.erase(0, 1);
  return number && std::find(names.begin(), names.end(), canonical) != names.end();
}

/// argparse rejects a value outside a flag's `choices` ("argument --fp8-format: invalid
/// choice: 'banana' (choose from ...)", Python Lib/argparse.py _check_value) and Megatron-LM stops
/// there: the same as one error naming the flag, the value, the choices and where upstream
/// declares them. Every value of a nargs='+' flag is checked; a ${...} placeholder is not.
std::optional<Error> choice_error(const MlmArgument& arg) {
  const UpstreamChoices* choices = find_choices(arg.flag);
  if (choices == nullptr) return std::nullopt;
  const FlagSpec* spec = find_flag(arg.flag);
  const std::vector<std::string> names = split_choices(choices->choices);
  for (const std::string& value : arg.values) {
    if (is_placeholder(value) || is_choice(*choices, names, value)) continue;
    std::string listed;
    for (const std::string& name : names)
      listed += (listed.empty() ? "'" : ", '") + name + "'";
    std::string near;
    for (const std::string& name : names) {
      if (near.empty() && name.size() == value.size() &&
          std::equal(name.begin(), name.end(), value.begin(), [](char a, char b) {
            return std::tolower(static_cast<unsigned char>(a)) ==
                   std::tolower(static_cast<unsigned char>(b));
          }))
        near = name;
    }
    if (near.empty() && !choices->integer) near = closest_match(value, names);
    return Error{arg.flag + ": invalid choice '" + neutralize_controls(utf8_prefix(value, 60)) +
                     "'" + did_you_mean(value, near) + "; Megatron-LM's argparse accepts only " +
                     listed + " (" + std::string(choices->source) + ")",
                 arg.location, spec == nullptr ? arg.flag : std::string(spec->key)};
  }
  return std::nullopt;
}

/// The upstream flags plus the flags of the mapping table above (some belong to other
/// Megatron-LM versions), sorted, as the candidates of a did-you-mean.
const std::vector<std::string>& known_flags() {
  static const std::vector<std::string> kKnown = [] {
    std::vector<std::string> all(std::begin(kUpstreamFlags), std::end(kUpstreamFlags));
    for (const FlagSpec& spec : flag_table())
      all.emplace_back(spec.flag);
    all.emplace_back("--enable-cuda-graph");
    std::sort(all.begin(), all.end());
    all.erase(std::unique(all.begin(), all.end()), all.end());
    return all;
  }();
  return kKnown;
}

/// Megatron-LM's parser is built with allow_abbrev=False (NVIDIA/Megatron-LM
/// megatron/training/arguments.py:119-120 at d98e8a64ddf34856e74b24714e3bedb2f5a39553), so an
/// unknown flag or a prefix of a known one stops the job with "unrecognized arguments". One error
/// per unknown flag (the first carries the rest in `more`), each with a did-you-mean.
Status check_known_flags(const std::vector<MlmArgument>& args) {
  const std::vector<std::string>& known = known_flags();
  std::vector<Error> unknown;
  for (const MlmArgument& arg : args) {
    if (std::binary_search(known.begin(), known.end(), arg.flag)) continue;
    std::string message = "unknown Megatron-LM argument '" + arg.flag + "'";
    std::string near = closest_match(arg.flag, known);
    message += did_you_mean(arg.flag, near);
    message += "; Megatron-LM's parser rejects it (no abbreviations)";
    Error e;
    e.message = std::move(message);
    e.location = arg.location;
    e.key = arg.flag;
    unknown.push_back(std::move(e));
  }
  if (unknown.empty()) return Ok{};
  Error first = std::move(unknown.front());
  for (size_t i = 1; i < unknown.size(); ++i)
    first.more.push_back(std::move(unknown[i]));
  return first;
}

/// True when the generated upstream list itself has `flag`.
bool mlm_flag_known_upstream(std::string_view flag) {
  return std::binary_search(std::begin(kUpstreamFlags), std::end(kUpstreamFlags), flag);
}

}  // namespace

const char* mlm_known_flags_commit() {
  return HCP_MLM_FLAGS_COMMIT;
}

bool mlm_flag_known(std::string_view flag) {
  const std::vector<std::string>& known = known_flags();
  return std::binary_search(known.begin(), known.end(), flag);
}

std::string mlm_flag_for_key(std::string_view key) {
  std::string found;
  for (const FlagSpec& spec : flag_table()) {
    if (spec.key != key && spec.second_key != key) continue;
    // Prefer a flag the current Megatron-LM still has (two flags set the VPP size).
    if (found.empty()) found = spec.flag;
    if (mlm_flag_known_upstream(spec.flag)) return std::string(spec.flag);
  }
  return found;
}

namespace {

/// The end of the value that starts at `start` of a fix hint: a bracketed list ("[8,2]") or the
/// text up to a space, comma, semicolon or closing parenthesis (a trailing full stop ends the
/// sentence).
size_t value_end_at(std::string_view text, size_t start) {
  if (start < text.size() && text[start] == '[') {
    size_t close = text.find(']', start);
    return close == std::string_view::npos ? text.size() : close + 1;
  }
  size_t end = start;
  while (end < text.size() && std::string_view(" ,;)").find(text[end]) == std::string_view::npos)
    ++end;
  while (end > start && text[end - 1] == '.')
    --end;
  return end;
}

/// `flag` given `value` as Megatron-LM's parser takes it: a switch alone or "without" it, a
/// list as space-separated items (nargs='+'; "[8,2]" is an argparse error there).
std::string flag_with_value(const std::string& flag, std::string_view value) {
  const FlagSpec* spec = find_flag(flag);
  bool is_true = value == "true" || value == "True";
  bool is_false = value == "false" || value == "False";
  if (spec != nullptr && (spec->kind == FlagKind::kTrue || spec->kind == FlagKind::kFalse) &&
      (is_true || is_false)) {
    bool present = is_true == (spec->kind == FlagKind::kTrue);
    return present ? flag : "without " + flag;
  }
  if (!value.empty() && value.front() == '[') {
    std::string items;
    for (const std::string& item :
         list_items({std::string(value)}).value_or(std::vector<std::string>{std::string(value)}))
      items += " " + item;
    return flag + items;
  }
  return flag + " " + std::string(value);
}

}  // namespace

std::string mlm_spelling(std::string_view text) {
  auto key_char = [](char c) {
    return std::islower(static_cast<unsigned char>(c)) ||
           std::isdigit(static_cast<unsigned char>(c)) || c == '_' || c == '.';
  };
  std::string out;
  size_t i = 0;
  while (i < text.size()) {
    bool starts = key_char(text[i]) && text[i] != '.' &&
                  (i == 0 || (!key_char(text[i - 1]) && text[i - 1] != '-'));
    if (!starts) {
      out += text[i++];
      continue;
    }
    size_t end = i;
    while (end < text.size() && key_char(text[end]))
      ++end;
    std::string_view word = text.substr(i, end - i);
    // A trailing full stop ends the sentence, not the key.
    size_t trimmed = word.size();
    while (trimmed > 0 && word[trimmed - 1] == '.')
      --trimmed;
    std::string_view bare = word.substr(0, trimmed);
    std::string flag = mlm_flag_for_key(bare);
    // Bare field names ("seq_length", "context_parallel_size"): an identifier with '_' and no
    // section, looked up in the sections MLM flags map to.
    if (flag.empty() && bare.find('.') == std::string_view::npos &&
        bare.find('_') != std::string_view::npos) {
      for (const char* section : {"model.", "train.", "dataset.", "dist."}) {
        flag = mlm_flag_for_key(std::string(section) + std::string(bare));
        if (!flag.empty()) break;
      }
    }
    if (flag.empty()) {
      out.append(word);
      i = end;
      continue;
    }
    i += trimmed;
    if (i < text.size() && text[i] == '=') {
      size_t value_end = value_end_at(text, i + 1);
      out += flag_with_value(flag, text.substr(i + 1, value_end - i - 1));
      i = value_end;
    } else {
      out += flag;
    }
  }
  return out;
}

std::string mlm_flag_key(std::string_view flag) {
  const FlagSpec* spec = find_flag(flag);
  return spec == nullptr ? std::string() : std::string(spec->key);
}

Result<std::vector<MlmArgument>> parse_mlm_argument_text(std::string_view text,
                                                         const std::string& origin, int line) {
  std::vector<std::pair<Token, Location>> located;
  size_t start = 0;
  int line_no = line;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view row = text.substr(start, end - start);
    if (line > 0) {
      size_t hash = row.find('#');
      bool comment = hash != std::string_view::npos &&
                     (hash == 0 || row[hash - 1] == ' ' || row[hash - 1] == '\t');
      if (comment) row = row.substr(0, hash);
    }
    Location at{origin, line_no, 0};
    auto tokens = tokenize(row, at);
    if (!tokens) return tokens.error();
    for (Token& token : *tokens) {
      Location token_at{origin, line_no, token.column};
      located.emplace_back(std::move(token), token_at);
    }
    start = end + 1;
    if (line > 0) ++line_no;
  }
  return group_tokens(located);
}

Result<Recipe> recipe_from_mlm_arguments(const std::vector<MlmArgument>& args,
                                         const std::string& name) {
  Recipe recipe;
  recipe.name = name;
  recipe.framework = Framework::kMlm;
  if (Status st = check_known_flags(args); !st) return st.error();
  for (const MlmArgument& arg : args) {
    if (auto e = choice_error(arg)) return *e;
    // validate_args turns the deprecated flag into --cuda-graph-impl=local (arguments.py:611-624).
    if (arg.flag == "--enable-cuda-graph" && !is_false_text(arg.values)) {
      recipe.set("model.cuda_graph_impl", Value::string("local", arg.location));
    }
    const FlagSpec* spec = find_flag(arg.flag);
    if (spec == nullptr) continue;  // Known to MLM (checked above) but not modelled: accepted.
    auto value = typed_value(arg, *spec);
    if (!value) return value.error();
    if (!value->has_value()) continue;
    // Same type and size bounds as a Bridge recipe (CP=0 or 2^40 is bad input, not a finding).
    if (Status st = check_field_value(spec->key, **value); !st) return st.error();
    if (!spec->second_key.empty()) recipe.set(spec->second_key, **value);
    recipe.set(spec->key, std::move(**value));
  }
  if (Status st = apply_recompute_activations(args, recipe); !st) return st.error();
  apply_group_query_semantics(recipe);
  // A launch's flags are all it has: without --fp16/--bf16, params_dtype stays torch.float and
  // the model runs in fp32 (arguments.py:1194-1206), which the precision rules (CP074) read.
  for (const char* key : {"model.fp16", "model.bf16"}) {
    if (!recipe.has(key)) recipe.set(key, Value::boolean(false, Location{name, 0, 0}));
  }
  if (Status st = check_parallel_product(recipe); !st) return st.error();
  return recipe;
}

bool is_mlm_test_config(const std::string& path) {
  try {
    Result<std::string> text = read_input_file(path, InputKind::kRecipe);
    if (!text) return false;
    // Without the key's name anywhere in the text there is no MODEL_ARGS key: spare the parse
    // (a Bridge recipe is parsed once more by its loader; `validate` runs on every start).
    if (text->find("MODEL_ARGS") == std::string::npos) return false;
    YAML::Node root = YAML::Load(*text);
    if (!root.IsMap()) return false;
    // The sections load_mlm_test_config reads: MODEL_ARGS or MODEL_ARGS_<n> (a file with only
    // numbered sections loads as a test config, so it is one).
    for (const auto& entry : root) {
      if (entry.first.IsScalar() && is_section_name(entry.first.Scalar())) return true;
    }
    return false;
  } catch (const YAML::Exception&) {
    return false;
  }
}

bool is_mlm_test_config_text(const std::string& text) {
  try {
    YAML::Node root = YAML::Load(text);
    return root.IsMap() && root["MODEL_ARGS"].IsDefined();
  } catch (const YAML::Exception&) {
    return false;
  }
}

Result<MlmConfig> load_mlm_test_config(const std::string& path) {
  Result<std::string> text = read_mlm_file(path, InputKind::kRecipe);
  if (!text) return text.error();
  return load_mlm_test_config_text(*text, path);
}

Result<MlmConfig> load_mlm_test_config_text(const std::string& text, const std::string& path) {
  if (Status s = check_no_control_bytes(text, path, "a YAML file"); !s) return s.error();
  auto parsed = parse_yaml_text(text, path);
  if (!parsed) return parsed.error();
  const YAML::Node& root = *parsed;
  if (!root.IsMap())
    return Error{"not a Megatron-LM test config (root is not a map)", Location{path, 1, 1}, ""};
  MlmConfig config;
  if (YAML::Node env = root["ENV_VARS"]; env && env.IsMap()) {
    for (const auto& entry : env) {
      if (entry.first.IsScalar() && entry.second.IsScalar()) {
        config.env_vars[entry.first.Scalar()] = entry.second.Scalar();
      }
    }
  }
  const Result<SectionGpus> gpus_of = section_gpus(root, path);
  if (!gpus_of) return gpus_of.error();
  for (const auto& entry : root) {
    if (!entry.first.IsScalar() || !is_section_name(entry.first.Scalar())) continue;
    const std::string section = entry.first.Scalar();
    if (!entry.second.IsMap()) {
      return Error{section + " must be a map of --flag: value",
                   mark_location(entry.second.Mark(), path), section};
    }
    std::vector<MlmArgument> args;
    MergeWalk walk{path, 0, {}};
    if (Status st = collect_yaml_arguments(entry.second, walk, args); !st) return st.error();
    keep_last_of_each_flag(args);
    auto recipe = recipe_from_mlm_arguments(args, stem_of(path));
    if (!recipe) return recipe.error();
    recipe->path = path;
    if (section != "MODEL_ARGS") recipe->name += "[" + section + "]";
    const auto gpus = gpus_of->find(section);
    config.sections.push_back(
        {section, std::move(*recipe), gpus == gpus_of->end() ? std::nullopt : gpus->second});
  }
  if (config.sections.empty()) {
    return Error{"no MODEL_ARGS section in Megatron-LM test config", Location{path, 1, 1}, ""};
  }
  return config;
}

Result<MlmConfig> load_mlm_args(std::string_view spec) {
  if (!spec.empty() && spec[0] == '@') {
    std::string path(spec.substr(1));
    Result<std::string> content = read_mlm_file(path, InputKind::kArgs);
    if (!content) return content.error();
    return load_mlm_args_text(*content, "@" + path, 1);
  }
  return load_mlm_args_text(spec, "<command line>", 0);
}

Result<MlmConfig> load_mlm_args_text(std::string_view text, const std::string& origin,
                                     int first_line) {
  if (first_line > 0) {
    if (Status s = check_no_control_bytes(std::string(text), origin, "a Megatron-LM argument file");
        !s) {
      return s.error();
    }
  }
  auto args = parse_mlm_argument_text(text, origin, first_line);
  if (!args) return args.error();
  if (args->empty()) return Error{"no Megatron-LM arguments given", Location{origin, 0, 0}, ""};
  auto recipe =
      recipe_from_mlm_arguments(*args, origin == "<command line>" ? "mlm-args" : stem_of(origin));
  if (!recipe) return recipe.error();
  recipe->path = origin;
  MlmConfig config;
  config.sections.push_back({origin, std::move(*recipe), std::nullopt});
  return config;
}

}  // namespace hcp
