// Recipes: Megatron-Bridge YAML (partial tree or full ConfigContainer dump), Hydra overrides on
// top, and typed access to the fields the rules and the planner read.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hcp/diagnostic.h"
#include "hcp/parallel_layout.h"
#include "hcp/value.h"

namespace hcp {

/// Whose semantics apply: Megatron-Bridge (ConfigContainer) or the Megatron-LM CLI.
enum class Framework { kBridge, kMlm };

/// Return "bridge" or "mlm".
const char* framework_name(Framework f);

/// A loaded recipe. Keys use Bridge's canonical spelling ("model.context_parallel_size");
/// aliases (model.transformer.X, dataset.sequence_length) are normalised by the loader.
struct Recipe {
  std::string path;  ///< The file it was read from ("" for recipes built in memory).
  std::string name;  ///< Display name (file stem, or the shipped recipe's name).
  Framework framework = Framework::kBridge;
  Value root = Value::map();  ///< Sections: model, train, dataset, dist, mixed_precision, ...
  /// The `_target_` class of each dataclass map of a full dump, by dotted path ("model" ->
  /// "megatron.bridge.models.gpt_provider.GPTModelProvider", "dataset.packed_sequence_specs" ->
  /// ...). The schema checks each such map against that class's fields.
  std::map<std::string, std::string> targets;
  /// Warnings found while loading (unknown keys of a class the schema does not know).
  std::vector<Diagnostic> load_notes;
  /// The loader copied an older dump's dataset.packed_sequence_specs into the keys today's Bridge
  /// reads (dataset.enable_offline_packing, dataset.offline_packing_specs): overrides of the
  /// dump's own key must reach the copy.
  bool packing_specs_copied = false;
  /// run_recipe.py --mode (pretrain, sft, lora, dora) when the command line gave it, else "".
  std::string run_mode;

  /// Return the value at a dotted key ("model.hierarchical_context_parallel_sizes"), or nullptr
  /// when absent. A null value is returned as a null Value, not nullptr.
  const Value* find(std::string_view dotted) const;
  /// Return true when the key is present and not null.
  bool has(std::string_view dotted) const;
  /// Return where the key was set; falls back to the recipe file when the key is absent.
  Location where(std::string_view dotted) const;

  /// Typed getters: return the value when present, non-null and of that type, else nullopt.
  std::optional<int64_t> get_int(std::string_view dotted) const;
  std::optional<double> get_double(std::string_view dotted) const;
  std::optional<bool> get_bool(std::string_view dotted) const;
  std::optional<std::string> get_string(std::string_view dotted) const;
  /// Return a list of ints (e.g. hierarchical_context_parallel_sizes); nullopt when absent, null
  /// or not a list of ints.
  std::optional<std::vector<int64_t>> get_int_list(std::string_view dotted) const;

  /// Getters with the upstream default applied when the key is absent or null.
  int64_t int_or(std::string_view dotted, int64_t fallback) const;
  bool bool_or(std::string_view dotted, bool fallback) const;

  /// Set a value at a dotted key, creating intermediate maps.
  void set(std::string_view dotted, Value v);
};

/// Read a recipe from a YAML file. Errors: missing/unreadable file, malformed YAML, nesting too
/// deep, wrong value types for known fields (with file:line:col).
Result<Recipe> load_recipe_file(const std::string& path);
/// Read a recipe from YAML text; name is used as the file in locations.
Result<Recipe> load_recipe_text(std::string_view text, const std::string& name);

/// Resolve RECIPE as given on the command line: a path, or the name of a shipped recipe
/// (searched in the recipes/ directories next to the binary and under the install prefix).
/// Errors: an unknown name, with a did-you-mean over the shipped recipe names.
Result<std::string> resolve_recipe_path(const std::string& name_or_path);

/// Return the names of the shipped recipes (file stems in the recipe search dirs), sorted.
std::vector<std::string> shipped_recipe_names();

/// The kind of a Hydra override (Hydra 1.3.2 OverrideParser.g4).
enum class OverrideKind {
  kChange,    ///< key=value
  kAdd,       ///< +key=value
  kForceAdd,  ///< ++key=value
  kDelete,    ///< ~key or ~key=value
};

/// One parsed override token.
struct Override {
  OverrideKind kind = OverrideKind::kChange;
  std::string key;             ///< Dotted key as written ("model.context_parallel_size").
  std::optional<Value> value;  ///< Typed value; absent for "~key". "key=" gives "".
  std::string text;            ///< The token as given.
  int index = 1;               ///< 1-based position among the overrides ("<override N>").
};

/// Parse one override token with Hydra's grammar and token typing (ints with '_', floats incl.
/// inf/nan, case-insensitive true/false/null, quoted strings, ${...} interpolations, [..] lists,
/// {a: 1} dicts, int()/float()/str()/bool() casts). Values are located at
/// "<override index>":1:<column of the value in the token>. Errors (one line, naming the override):
/// sweeps (a,b), unbalanced brackets or quotes, missing '=', bad key, unknown function.
Result<Override> parse_override(std::string_view text, int index = 1);

/// Apply Hydra-grammar overrides in order ("k=v", "+k=v", "++k=v", "~k", "~k=v"), including the
/// run_recipe.py shorthand flags ("-cp", "4") which are applied before positional overrides.
/// Each value is located as "<override N>" (1-based, in command-line order). Semantics follow
/// Hydra's struct mode as Bridge applies it (bridge.md §1.4): a missing key needs '+', '+' on a
/// set key is an error, '~' checks the key exists (and is then a no-op, as in Bridge). Beyond
/// Bridge, values are type-checked against the schema and unknown keys get a did-you-mean.
/// Afterwards model.seq_length := dataset.seq_length (run_recipe.py's sync step), and the model
/// section is checked (check_model_section()), with no overrides too.
Status apply_overrides(Recipe& recipe, const std::vector<std::string>& args);

/// The distributed-optimizer setting Bridge trains with: on when ddp or optimizer sets
/// use_distributed_optimizer (Megatron-Bridge 067f987d src/megatron/bridge/training/config.py:
/// 2100-2123, _validate_and_sync_distributed_optimizer_settings; apply_overrides writes it into
/// both sections of a Bridge recipe); nullopt when neither section says. Megatron-LM has the one
/// flag (ddp.use_distributed_optimizer).
std::optional<bool> distributed_optimizer_of(const Recipe& recipe);

/// Apply what Megatron-Bridge's scripts/training/run_recipe.py sets after the overrides and before
/// ConfigContainer.validate (recipe_runner.py sync_finetuning_cp_invariants and
/// sync_offline_packing_alignment): with a finetuning dataset and CP (or eval CP) > 1,
/// model.calculate_per_token_loss=true and ddp.average_in_collective=false; with offline packing,
/// packed_sequence_size := dataset.seq_length and pad_seq_to_mult raised to a multiple of 2*CP
/// (and TP*CP under sequence parallelism). Bridge recipes only; the CLI calls it for
/// --launcher run_recipe.
void sync_run_recipe(Recipe& recipe);

/// Return the run_recipe.py shorthand flags apply_overrides accepts ("-cp",
/// "--context_parallel_size", ...), so the CLI can tell them from mistyped options.
std::vector<std::string> override_flag_names();

/// For an option that older Bridge launch scripts had and today's run_recipe.py rejects
/// (--config-file), the one-line error that says so with its upstream commit; nullopt otherwise.
std::optional<std::string> removed_launcher_option(std::string_view name);

/// True when the command-line arguments hold one of run_recipe.py's own (--mode, --recipe,
/// --dataset, a shorthand flag such as -tp) or an option of train.sh's setup_experiment.py, which
/// forwards the rest to run_recipe.py: the command is launched through run_recipe.py.
bool has_run_recipe_arguments(const std::vector<std::string>& args);

/// The recipe run_recipe.py's `--recipe NAME` (or --recipe=NAME) names, or nullopt.
std::optional<std::string> run_recipe_named_recipe(const std::vector<std::string>& args);

/// True when `name` is a run_recipe.py flag that takes a value ("--context_parallel_size",
/// "--dataset", ...; false for "--deterministic" and for names that are no such flag).
bool override_flag_takes_value(std::string_view name);

/// Resolve OmegaConf interpolations "${a.b}" in string values against the recipe (a whole-value
/// interpolation takes the referenced value and type; embedded ones are substituted as text).
/// Errors: a reference to a missing key, or a cycle.
Status resolve_interpolations(Recipe& recipe);

/// Return the expert_tensor_parallel_size `framework` uses when the recipe leaves it unset:
/// Megatron-Bridge's finalize() sets it to 1 when EP > 1; otherwise nullopt, for MCore lets it
/// follow TP. The one place this default is decided.
std::optional<int64_t> default_expert_tp(Framework framework, int64_t ep);

/// Return model.cp_comm_type as written: one entry per layer when a list, one entry when a
/// string, none when absent or null. Non-string list items are given in their text form.
std::vector<std::string> cp_comm_type_texts(const Recipe& recipe);

/// Check what every command needs of the model section before it reads the recipe: a `model`
/// mapping (null or absent is an error: Megatron-Bridge cannot start without cfg.model; the
/// schema rejects other types), and model.recompute_granularity full, selective or null
/// (Megatron-Core raises for anything else, which the cost model would price as no recompute).
/// Run by apply_overrides() once the overrides are applied. Error: located at the key.
Status check_model_section(const Recipe& recipe);

/// Return a model.cp_comm_type entry as Transformer Engine takes it (p2p, all_gather, a2a or
/// a2a+p2p, exactly: the aliases parse_cp_comm_type() accepts in `--option` texts, allgather and
/// a2a_p2p, are CP010 errors in a recipe, not types to price). Error: the unknown text.
Result<CpCommType> recipe_cp_comm_type(std::string_view text);

/// Return the sentence that says how layout_of() priced a per-layer cp_comm_type list mixing
/// types within one kind of layer ("the per-layer cp_comm_type list mixes types (p2p on 3 and a2a
/// on 1 of 4 layers: priced as p2p on all of them); ..."), or "" when each kind of layer has one
/// type. The planner shows it wherever the recipe's own comm types are priced.
std::string cp_comm_type_pricing_note(const Recipe& recipe,
                                      const std::vector<bool>& windowed_layers = {});

/// Return the parallel layout a recipe describes (model.* parallel sizes, sequence_parallel and
/// dist.use_tp_pp_dp_mapping), with upstream defaults: ETP as default_expert_tp() says, VPP unset
/// unless given. dp is 1 (a recipe does not fix the world size; see data_parallel_size()).
/// comm is the most common of the model.cp_comm_type entries TE takes (p2p when none; the first
/// used on a tie); with a per-layer list and `windowed_layers` (true for each sliding-window
/// layer, as ModelDims::windowed), comm is the full-attention layers' most common type and
/// windowed_comm the sliding-window layers', when it differs. A list that mixes types inside one
/// kind of layer is priced as its most common type: cp_comm_type_pricing_note() says so.
Layout layout_of(const Recipe& recipe, const std::vector<bool>& windowed_layers = {});

/// Write a layout into a recipe: TP, CP, PP and sequence_parallel always; EP when it differs;
/// ETP when it differs from what the recipe has (explicitly or by default_expert_tp()); VPP
/// (null unless PP > 1 and more than one virtual stage); model.cp_comm_type (null at CP 1; a
/// per-layer list over `windowed_layers` when windowed_comm is set and they are given) and
/// hierarchical_context_parallel_sizes (Layout::hcp_sizes(), else null). dp and the rank order
/// are not written (the world size and dist.use_tp_pp_dp_mapping stay the recipe's). New values
/// are located at `origin`. layout_of(apply(L)) == L for a layout in this form (dp 1, vpp unset
/// or > 1 with PP > 1, etp unset only where the default leaves it unset, default rank order).
void apply(const Layout& layout, Recipe& recipe, const Location& origin = {},
           const std::vector<bool>& windowed_layers = {});

}  // namespace hcp
