// Megatron-LM command-line arguments as recipes: the functional-test `model_config.yaml` form
// (`MODEL_ARGS:` with `--flag: value`) and raw argument lists ("--context-parallel-size 4 ...",
// or "@args.txt"). The flags that matter for context parallelism are mapped to Bridge names
// (`--context-parallel-size` -> `model.context_parallel_size`); every other flag Megatron-LM knows
// is accepted, and a flag it does not know is an error (its parser does not abbreviate).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hcp/diagnostic.h"
#include "hcp/recipe.h"

namespace hcp {

/// One `--flag value...` occurrence with where it was written.
struct MlmArgument {
  std::string flag;                 ///< "--context-parallel-size" (with the dashes).
  std::vector<std::string> values;  ///< Zero (store_true flag) or more values.
  Location location;                ///< Where the first value (or the flag) was written.
  /// Written on a command line or in an @file: argparse sees the tokens as they are, so a list
  /// is space-separated integers and a switch takes no value ("[2,2]" and "--flag true" are
  /// argparse errors). YAML test configs are not: their harness writes lists and booleans out.
  bool as_written = false;
};

/// One argument section of a functional-test config (MODEL_ARGS, MODEL_ARGS_2, ...).
struct MlmSection {
  std::string name;  ///< "MODEL_ARGS", "MODEL_ARGS_2", or "<command line>" for raw lists.
  Recipe recipe;     ///< framework = kMlm, keys mapped to Bridge names.
  /// GPUs this section runs on when the config says so (MODEL_ENV_VARS.<name>.GPUS_PER_NODE).
  std::optional<int64_t> gpus_per_node;
};

/// A loaded Megatron-LM argument config.
struct MlmConfig {
  std::vector<MlmSection> sections;             ///< In file order; at least one.
  std::map<std::string, std::string> env_vars;  ///< ENV_VARS of the functional-test config.
};

/// Return true when the YAML file at `path` has a top-level MODEL_ARGS key (the Megatron-LM
/// functional-test form). Return false for unreadable or malformed files (the recipe loader
/// reports those).
bool is_mlm_test_config(const std::string& path);

/// Load a functional-test `model_config.yaml`: one section per MODEL_ARGS* key (YAML merge keys
/// `<<: *ANCHOR` are followed), ENV_VARS kept. Return an Error with file:line:col for unreadable
/// files, malformed YAML, no MODEL_ARGS section, or a mapped flag with a value of the wrong type.
Result<MlmConfig> load_mlm_test_config(const std::string& path);

/// Load a raw argument list: `spec` is the text itself ("--tensor-model-parallel-size 2 ...",
/// located as `<command line>` with the column of each token) or "@FILE" (tokens located as
/// "@FILE:line:col"; `#` starts a comment). Return an Error for an unreadable file, an
/// unbalanced quote, a token that is not a flag where a flag is expected, or a bad value.
Result<MlmConfig> load_mlm_args(std::string_view spec);

/// load_mlm_test_config() of text already read (standard input); `path` names it in locations.
Result<MlmConfig> load_mlm_test_config_text(const std::string& text, const std::string& path);
/// is_mlm_test_config() of text already read.
bool is_mlm_test_config_text(const std::string& text);
/// load_mlm_args() of an argument list already read: `origin` names it ("@<stdin>"), lines count
/// from `first_line` (0: one command line, no `#` comments).
Result<MlmConfig> load_mlm_args_text(std::string_view text, const std::string& origin,
                                     int first_line);

/// Split an argument list into flags and their values. `origin` names the source in locations;
/// `line` is the line the text starts on (0 for the command line).
Result<std::vector<MlmArgument>> parse_mlm_argument_text(std::string_view text,
                                                         const std::string& origin, int line);

/// Build a recipe from parsed arguments, applying MLM's own argument semantics: `--seq-length`
/// sets both model and dataset lengths, `--num-query-groups` counts only with
/// `--group-query-attention`, one `--cp-comm-type` value is a string and several a per-layer
/// list, `--hierarchical-context-parallel-sizes` accepts "2 2" (and, from YAML, "[2,2]" or a
/// list). An argument as_written with a bracketed list or a switch with a value is an Error, as
/// it is to Megatron-LM's argparse.
Result<Recipe> recipe_from_mlm_arguments(const std::vector<MlmArgument>& args,
                                         const std::string& name);

/// True when Megatron-LM's training parser knows `flag` ("--context-parallel-size"): the list
/// generated from upstream (scripts/gen_mlm_flags.py, src/recipe/mlm_known_flags.inc) plus the
/// mapped flags. recipe_from_mlm_arguments() rejects any other flag with a did-you-mean.
bool mlm_flag_known(std::string_view flag);
/// The Megatron-LM commit the known-flag list was generated from.
const char* mlm_known_flags_commit();

/// Return the Megatron-LM flag that sets a Bridge key ("model.context_parallel_size" ->
/// "--context-parallel-size"), or "" when no mapped flag sets it.
std::string mlm_flag_for_key(std::string_view key);

/// Rewrite the Bridge keys of a fix hint in Megatron-LM's spelling: "set
/// model.context_parallel_size=2" -> "set --context-parallel-size 2". Keys no mapped flag sets are
/// left as they are. The one place MLM inputs get MLM wording (check_rules() calls it).
std::string mlm_spelling(std::string_view text);

/// Return the Bridge key a Megatron-LM flag maps to (the first one when it sets several), or ""
/// when hcp-plan does not model it.
std::string mlm_flag_key(std::string_view flag);

}  // namespace hcp
