// Internal to the rules module: the rule families (one file each, one section of the catalog) and
// the derived quantities of the catalog's §0.3 that several families read.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "hcp/rules.h"

namespace hcp::rules {

// --- Families: each appends its rules to the registry ------------------------------------------
// In a family file each rule is a check function followed by its catalog entry, `Rule cpNNN()`,
// and add_<family>_rules lists the entries. A check reports r.report(key, message), or
// r.report(key, message, "case") for a finding whose severity or fix differs: the entry's
// `cases` state each case's severity and fix (a check never passes them). Its tests are
// tests/rules/rules_<family>_test.cpp (helpers in tests/rules/rule_test_util.h). To add a family:
// declare its function here, define it in its rules_<family>.cpp, and call it from build_registry()
// in registry.cpp.

/// §1 Topology and process groups (CP001–CP007) and the pipeline split (CP008, CP009).
void add_topology_rules(std::vector<Rule>& out);
/// §2 cp_comm_type and hierarchical CP (CP010–CP023).
void add_hcp_rules(std::vector<Rule>& out);
/// §3 Attention heads, GQA and all-to-all (CP030–CP035), and heads divisible by the query groups
/// (CP116, a whole-model rule).
void add_heads_rules(std::vector<Rule>& out);
/// §4 Sequence length, sequence parallel, packing and THD (CP040–CP049).
void add_sequence_rules(std::vector<Rule>& out);
/// §4–§5 TE backend availability under CP (CP050–CP071), rules_backend.cpp.
void add_backend_rules(std::vector<Rule>& out);
/// §6 Hybrid CP (main) and dynamic CP (dev) (CP080–CP096), rules_dynamic.cpp.
void add_dynamic_rules(std::vector<Rule>& out);
/// §7 Model variants: DSA, Gated DeltaNet, Mamba, batch-invariant mode (CP100–CP103).
void add_variant_rules(std::vector<Rule>& out);
/// §8 Bridge-specific and environment rules (CP110–CP114), rules_env.cpp; with them the catalog
/// entry of validate's memory finding (CP115, family "memory": computed with plan's memory model
/// in src/planner/memory_fit.cpp, tested in tests/planner/memory_fit_test.cpp).
void add_env_rules(std::vector<Rule>& out);
/// Preflight's node and cluster checks (PF101–PF305), catalog entries only (rules_launch.cpp).
void add_preflight_rules(std::vector<Rule>& out);
/// The probe's topology findings (TOPO001–TOPO005), catalog entries only (rules_launch.cpp).
void add_probe_rules(std::vector<Rule>& out);
/// check-log's checks on a job's log (LOG001–LOG033), catalog entries only (rules_launch.cpp).
void add_logcheck_rules(std::vector<Rule>& out);
/// The notes on inputs a rule needed and nobody gave (IN001–IN006), rules_launch.cpp.
void add_input_rules(std::vector<Rule>& out);

// --- Keys and helpers several families share -------------------------------------------------

inline constexpr const char* kCommKey = "model.cp_comm_type";
inline constexpr const char* kHcpKey = "model.hierarchical_context_parallel_sizes";

/// A count as a finding's message writes it.
inline std::string str(int64_t v) {
  return std::to_string(v);
}

/// Return true when Megatron-FSDP shards the model (dist. or ddp.use_megatron_fsdp).
bool megatron_fsdp(const Recipe& recipe);

// --- Derived quantities (rules.md §0.3) ---------------------------------------------------------

/// The comm types allowed for standard attention.
inline const std::vector<std::string>& known_comm_types() {
  static const std::vector<std::string> types = {"p2p", "all_gather", "a2a", "a2a+p2p"};
  return types;
}

/// Return comm(l) for every layer l = 1..num_layers: the list entry when cp_comm_type is a list,
/// the string when it is a string, "p2p" when unset. When num_layers is unknown (or the list
/// length differs), return the list as given, or one entry for a string/unset value.
std::vector<std::string> layer_comm_types(const Recipe& recipe);
/// Return true when some layer uses `type`.
bool uses_comm_type(const Recipe& recipe, const std::string& type);

/// Heads of one TP rank as TE attention sees them.
struct LocalHeads {
  int64_t q = 0;   ///< Hq_loc = Hq / TP.
  int64_t kv = 0;  ///< Hkv_loc = G / TP when G >= TP, else 1 (MCore replicates KV heads).
};
/// Return the heads per TP rank, or nullopt when num_attention_heads is unknown or TP < 1.
std::optional<LocalHeads> local_heads(const Recipe& recipe);

/// Return num_query_groups with its default (num_attention_heads), or nullopt when unknown.
std::optional<int64_t> query_groups(const Recipe& recipe);

/// Return DP = WORLD / (TP*PP*CP) when the world size is known and divisible, else nullopt.
std::optional<int64_t> data_parallel_size(const Recipe& recipe, const Environment& env);

/// Return S = model.seq_length (with dataset.seq_length as a fallback), or nullopt.
std::optional<int64_t> sequence_length(const Recipe& recipe);

/// Return true when the recipe feeds packed (THD) batches: offline packing, in-batch packing,
/// Energon online packing or the dev sequence-packing scheduler.
bool uses_packed_sequences(const Recipe& recipe);
/// Return the key that turns packing on (for locations), or "" when none does.
std::string packing_key(const Recipe& recipe);

/// Return true when the dataset is a finetuning (SFT) dataset: a packed SFT path, or a dataset
/// type/target naming GPTSFT, DirectHFSFT, Energon or MockVLMSFT.
bool is_finetuning_dataset(const Recipe& recipe);

// --- Shared by the backend, dynamic, variant and env families (defined in rules_backend.cpp) --

/// Return true when attention sees THD (packed) input: any packing of uses_packed_sequences, MLM
/// --use-packed-sequence (dataset.packed_sequence), or hybrid/dynamic CP (always packed).
bool uses_thd_input(const Recipe& recipe);
/// Return the key that makes the input THD (for locations), or "" when it is not THD.
std::string thd_key(const Recipe& recipe);
/// Return true when hybrid CP (main) or dynamic CP (dev) is on.
bool uses_dynamic_cp(const Recipe& recipe);
/// Return true when the model's attention layers run TE's DotProductAttention (false for the
/// DSA / DSv4 variants with their own attention, and hybrid patterns without attention layers).
bool uses_te_core_attention(const Recipe& recipe);
/// Return the TE version, or the newest release (recording the assumption) when unknown.
Version te_version_or_latest(const RuleContext& ctx, Reporter& r);
/// Return the MCore version, or core_v0.19.0 (recording the assumption) when unknown.
Version mcore_version_or_latest(const RuleContext& ctx, Reporter& r);
/// The newest MCore release the catalog was checked against (rules.md §0.1: core_v0.19.0).
inline Version catalog_mcore_version() {
  return Version{0, 19, 0, {}};
}
/// True when the user said --mcore-version newer than catalog_mcore_version(): a value the
/// catalog does not know may be one that version added.
inline bool mcore_newer_than_catalog(const Environment& env) {
  return env.mcore_version && *env.mcore_version > catalog_mcore_version();
}
/// Return the value of a launch environment variable when the environment is known.
std::optional<std::string> env_var(const Environment& env, const std::string& name);

/// Return "a, b and c" for a list of names.
std::string join_names(const std::vector<std::string>& names);

}  // namespace hcp::rules
