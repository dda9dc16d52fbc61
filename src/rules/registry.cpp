// The rule registry: builds the catalog from the family files, runs it, and reports the inputs
// the rules could not use. Also the derived quantities of rules.md §0.3 shared by the families.
#include <algorithm>
#include <cctype>
#include <charconv>
#include <regex>
#include <sstream>
#include <stdexcept>

#include "families.h"
#include "hcp/checked.h"
#include "hcp/edit_distance.h"
#include "hcp/mlm_args.h"
#include "hcp/rules.h"

namespace hcp {

// --- Findings: severity and fix from the catalog entry -----------------------------------------

namespace {

const RuleCase* find_case(const Rule& rule, std::string_view name) {
  for (const RuleCase& c : rule.cases) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

/// Return `fix` with its "{}" slot (if any) filled with `value`.
std::string filled(std::string_view fix, const std::string& value) {
  std::string text(fix);
  if (size_t slot = text.find("{}"); slot != std::string::npos) text.replace(slot, 2, value);
  return text;
}

const Rule& catalog_entry(std::string_view id) {
  const Rule* rule = find_rule(id);
  if (rule == nullptr) {
    throw std::logic_error(std::string(id) + " is not in the rule catalog");
  }
  return *rule;
}

}  // namespace

/// The one maker of rule findings (Diagnostic's friend): ID, severity, fix and enforced_by come
/// from the rule's catalog entry, and only the functions below use it.
class CatalogFinding {
 public:
  /// The finding of `rule` in case `as`.
  static Diagnostic make(const Rule& rule, const FindingCase& as, std::string key,
                         std::string message) {
    const RuleCase* c = find_case(rule, as.name);
    if (c == nullptr && !as.name.empty()) {
      throw std::logic_error(std::string(rule.id) + " has no case '" + std::string(as.name) +
                             "' in the rule catalog");
    }
    Diagnostic d;
    d.id_ = std::string(rule.id);
    d.severity_ = c != nullptr ? c->severity : rule.severity;
    d.message = std::move(message);
    d.key = std::move(key);
    d.fix_ = filled(c != nullptr && c->fix ? *c->fix : rule.fix, as.fix_value);
    for (std::string_view who : rule.enforced_by)
      d.enforced_by_.emplace_back(who);
    return d;
  }
  /// `d` with the fix of `cause`, the rule that explains it (when that rule has one).
  static void take_fix_of(Diagnostic& d, const Rule& cause) {
    if (!cause.fix.empty()) d.fix_ = std::string(cause.fix);
  }
  /// `d` with its fix in Megatron-LM flag names.
  static void spell_for_mlm(Diagnostic& d) { d.fix_ = mlm_spelling(d.fix_); }
  /// A finding as another run recorded it.
  static Diagnostic recorded(std::string id, Severity severity, std::string fix) {
    Diagnostic d;
    d.id_ = std::move(id);
    d.severity_ = severity;
    d.fix_ = std::move(fix);
    return d;
  }
};

Diagnostic finding(std::string_view id, std::string key, std::string message,
                   const FindingCase& as) {
  return CatalogFinding::make(catalog_entry(id), as, std::move(key), std::move(message));
}

Diagnostic finding_explained_by(const Rule& cause, std::string_view id, std::string key,
                                std::string message) {
  Diagnostic d = finding(id, std::move(key), std::move(message));
  CatalogFinding::take_fix_of(d, cause);
  return d;
}

void spell_fix_for_mlm(Diagnostic& d) {
  CatalogFinding::spell_for_mlm(d);
}

namespace {

/// True when a finding of `rule` can have `severity`: the entry's or one of its cases'.
bool severity_of_rule(const Rule& rule, Severity severity) {
  return rule.severity == severity ||
         std::any_of(rule.cases.begin(), rule.cases.end(),
                     [&](const RuleCase& c) { return c.severity == severity; });
}

}  // namespace

Result<Diagnostic> recorded_finding(std::string id, Severity severity, std::string fix) {
  if (id.empty()) return Diagnostic::note(severity, {}, {}, {}, std::move(fix));
  const Rule* rule = find_rule(id);
  if (rule == nullptr) return Error{"finding " + id + " names no rule of the catalog", {}, {}};
  if (!severity_of_rule(*rule, severity)) {
    return Error{
        "finding " + id + " is never " + std::string(severity_name(severity)) + " in the catalog",
        {},
        {}};
  }
  return CatalogFinding::recorded(std::move(id), severity, std::move(fix));
}

// --- Reporter -------------------------------------------------------------------------------

void Reporter::report(std::string_view key, std::string message, const FindingCase& as) {
  Diagnostic d = CatalogFinding::make(rule_, as, std::string(key), std::move(message));
  d.location = key.empty() ? recipe_.where("") : recipe_.where(key);
  out_.push_back(std::move(d));
}

void Reporter::skipped(Input input) {
  if (missing_ != nullptr) missing_->uses[input].push_back({std::string(rule_.id), {}});
}

void Reporter::assumed(Input input, std::string assumption) {
  if (missing_ != nullptr) {
    missing_->uses[input].push_back({std::string(rule_.id), std::move(assumption)});
  }
}

// --- Registry -------------------------------------------------------------------------------

namespace {

std::vector<Rule> build_registry() {
  std::vector<Rule> rules;
  rules::add_topology_rules(rules);
  rules::add_hcp_rules(rules);
  rules::add_heads_rules(rules);
  rules::add_sequence_rules(rules);
  rules::add_backend_rules(rules);
  rules::add_dynamic_rules(rules);
  rules::add_variant_rules(rules);
  rules::add_env_rules(rules);
  rules::add_preflight_rules(rules);
  rules::add_probe_rules(rules);
  rules::add_logcheck_rules(rules);
  rules::add_input_rules(rules);
  std::stable_sort(rules.begin(), rules.end(),
                   [](const Rule& a, const Rule& b) { return a.id < b.id; });
  return rules;
}

bool same_id(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::toupper(static_cast<unsigned char>(x)) ==
                  std::toupper(static_cast<unsigned char>(y));
         });
}

bool location_less(const Location& a, const Location& b) {
  if (a.file != b.file) return a.file < b.file;
  if (a.line != b.line) return a.line < b.line;
  return a.column < b.column;
}

}  // namespace

LayoutFields layout_fields(std::initializer_list<LayoutField> fields) {
  LayoutFields out;
  for (LayoutField field : fields)
    out.set(static_cast<size_t>(field));
  return out;
}

LayoutFields variant_fields() {
  return layout_fields({LayoutField::kEp, LayoutField::kEtp, LayoutField::kVp});
}

const std::vector<Rule>& rule_registry() {
  static const std::vector<Rule> registry = build_registry();
  return registry;
}

const Rule* find_rule(std::string_view id) {
  for (const Rule& rule : rule_registry()) {
    if (same_id(rule.id, id)) return &rule;
  }
  return nullptr;
}

std::vector<Diagnostic> check_rules(const Recipe& recipe, const Environment& env) {
  std::vector<Diagnostic> out;
  MissingInputs missing;
  RuleContext ctx{recipe, env};
  for (const Rule& rule : rule_registry()) {
    if (rule.check == nullptr) continue;  // PF* / TOPO*: computed by preflight and probe
    Reporter reporter(rule, recipe, out, &missing);
    rule.check(ctx, reporter);
  }
  std::stable_sort(out.begin(), out.end(), [](const Diagnostic& a, const Diagnostic& b) {
    if (a.severity() != b.severity()) return a.severity() > b.severity();
    return location_less(a.location, b.location);
  });
  for (Diagnostic& d : missing_input_diagnostics(missing))
    out.push_back(std::move(d));
  // Megatron-LM inputs get fix hints in Megatron-LM flag names (--context-parallel-size).
  if (env.framework == Framework::kMlm || recipe.framework == Framework::kMlm) {
    for (Diagnostic& d : out)
      spell_fix_for_mlm(d);
  }
  return out;
}

std::optional<Error> model_error(const Recipe& recipe) {
  std::vector<Diagnostic> out;
  Environment env;
  env.framework = recipe.framework;
  RuleContext ctx{recipe, env};
  for (const Rule& rule : rule_registry()) {
    if (!rule.whole_model || rule.check == nullptr) continue;
    Reporter reporter(rule, recipe, out);
    rule.check(ctx, reporter);
    for (const Diagnostic& d : out) {
      if (d.severity() == Severity::kError) {
        return Error{"[" + d.id() + "] " + d.message, d.location, d.key};
      }
    }
  }
  return std::nullopt;
}

Summary summarize(const std::vector<Diagnostic>& diagnostics) {
  Summary s;
  for (const Diagnostic& d : diagnostics) {
    switch (d.severity()) {
      case Severity::kError:
        ++s.errors;
        break;
      case Severity::kWarning:
        ++s.warnings;
        break;
      case Severity::kInfo:
        ++s.infos;
        break;
    }
  }
  return s;
}

// --- Unknown inputs -------------------------------------------------------------------------

namespace {

/// The catalog entry of each input's note.
const char* input_rule_id(Input input) {
  switch (input) {
    case Input::kWorldSize:
      return "IN001";
    case Input::kGpusPerNode:
      return "IN002";
    case Input::kTeVersion:
      return "IN003";
    case Input::kMcoreVersion:
      return "IN004";
    case Input::kLaunchEnv:
      return "IN005";
    case Input::kGpuArch:
      return "IN006";
  }
  return "IN001";
}

std::string describe_uses(const std::vector<MissingInputs::Use>& uses) {
  std::vector<std::string> skipped;
  std::map<std::string, std::vector<std::string>> assumed;  // assumption -> rule IDs
  for (const auto& use : uses) {
    auto& ids = use.assumption.empty() ? skipped : assumed[use.assumption];
    if (std::find(ids.begin(), ids.end(), use.rule_id) == ids.end()) ids.push_back(use.rule_id);
  }
  std::vector<std::string> parts;
  if (!skipped.empty()) parts.push_back("skipped " + rules::join_names(skipped));
  for (const auto& [assumption, ids] : assumed) {
    parts.push_back("assumed " + assumption + " for " + rules::join_names(ids));
  }
  std::string text;
  for (size_t i = 0; i < parts.size(); ++i)
    text += (i == 0 ? "" : "; ") + parts[i];
  return text;
}

}  // namespace

std::vector<Diagnostic> missing_input_diagnostics(const MissingInputs& missing) {
  std::vector<Diagnostic> out;
  for (const auto& [input, uses] : missing.uses) {
    if (uses.empty()) continue;
    const char* id = input_rule_id(input);
    Diagnostic d = finding(id, {}, std::string(find_rule(id)->title) + ": " + describe_uses(uses));
    d.location = Location{"<command line>", 0, 0};
    out.push_back(std::move(d));
  }
  return out;
}

// --- Environment options --------------------------------------------------------------------

namespace {

Result<int64_t> parse_positive(std::string_view name, std::string_view text) {
  int64_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || v < 1 || v > (int64_t{1} << 31)) {
    return Error{"--" + std::string(name) + " expects a positive integer below 2^31, got '" +
                     std::string(text) + "'",
                 Location{"<command line>", 0, 0}, std::string(name)};
  }
  return v;
}

Result<Version> parse_version_option(std::string_view name, std::string_view text) {
  // X, X.Y or X.Y.Z (optional "v"), then only a PEP 440 pre/dev/post or local suffix: "1.x" or
  // "2.18.0abc!" are typos, not versions with a suffix.
  static const std::regex kVersion(
      R"((core_)?v?[0-9]+(\.[0-9]+){0,2}([.-]?(dev|rc|a|b|post)[0-9]*)*(\+[A-Za-z0-9.]+)?)");
  std::optional<Version> v = Version::parse(text);
  if (!v || !std::regex_match(std::string(text), kVersion)) {
    return Error{
        "--" + std::string(name) + " expects a version X.Y.Z, got '" + std::string(text) + "'",
        Location{"<command line>", 0, 0}, std::string(name)};
  }
  return *v;
}

}  // namespace

const std::vector<std::string>& environment_option_names() {
  static const std::vector<std::string> names = {"world-size",    "nodes",      "gpus-per-node",
                                                 "nvlink-domain", "te-version", "mcore-version",
                                                 "framework",     "gpu-sm",     "env"};
  return names;
}

Status set_environment_option(Environment& env, std::string_view name, std::string_view value) {
  if (name == "framework") {
    // megatron: the recipe's own semantics (what plan and compare take it to mean), so one
    // project config's framework serves every command.
    if (value == "bridge") {
      env.framework = Framework::kBridge;
    } else if (value == "mlm") {
      env.framework = Framework::kMlm;
    } else if (value != "megatron") {
      const std::string near = closest_match(value, {"megatron", "bridge", "mlm"});
      return Error{
          "--framework expects megatron (the recipe's own semantics), bridge or mlm, "
          "got '" +
              std::string(value) + "'" + did_you_mean(value, near),
          Location{"<command line>", 0, 0}, "framework"};
    }
    return Ok{};
  }
  if (name == "te-version" || name == "mcore-version") {
    auto v = parse_version_option(name, value);
    if (!v) return v.error();
    (name == "te-version" ? env.te_version : env.mcore_version) = *v;
    return Ok{};
  }
  if (name == "env") {
    size_t eq = value.find('=');
    if (eq == 0 || eq == std::string_view::npos) {
      return Error{"--env expects NAME=VALUE, got '" + std::string(value) + "'",
                   Location{"<command line>", 0, 0}, "env"};
    }
    env.process_env[std::string(value.substr(0, eq))] = std::string(value.substr(eq + 1));
    return Ok{};
  }
  if (name == "gpu-sm") {
    std::string digits;
    for (char c : value) {
      if (c != '.') digits.push_back(c);
    }
    auto sm = parse_positive(name, digits);
    if (!sm || *sm < 10 || *sm > 999) {
      return Error{"--gpu-sm expects a compute capability such as 90 or 9.0, got '" +
                       std::string(value) + "'",
                   Location{"<command line>", 0, 0}, "gpu-sm"};
    }
    env.gpu_sm = static_cast<int>(*sm);
    return Ok{};
  }
  std::optional<int64_t>* slot = nullptr;
  if (name == "world-size") slot = &env.world_size;
  if (name == "nodes") slot = &env.nodes;
  if (name == "gpus-per-node") slot = &env.gpus_per_node;
  if (name == "nvlink-domain") slot = &env.nvlink_domain;
  if (slot == nullptr) {
    return Error{"unknown option --" + std::string(name), Location{"<command line>", 0, 0},
                 std::string(name)};
  }
  auto v = parse_positive(name, value);
  if (!v) return v.error();
  if (*v > kMaxWorldGpus) {
    return Error{"--" + std::string(name) + " " + std::string(value) + " is more than " +
                     std::to_string(kMaxWorldGpus) + " (2^20) GPUs, the largest world accepted",
                 Location{"<command line>", 0, 0}, std::string(name)};
  }
  *slot = *v;
  return Ok{};
}

Status finalize_environment(Environment& env) {
  if (env.nodes && !env.gpus_per_node) {
    return Error{"--nodes needs --gpus-per-node", Location{"<command line>", 0, 0}, "nodes"};
  }
  if (env.nodes && env.gpus_per_node) {
    int64_t world = *env.nodes * *env.gpus_per_node;  // each at most 2^20: no overflow
    if (world > kMaxWorldGpus) {
      return Error{"--nodes " + std::to_string(*env.nodes) + " x --gpus-per-node " +
                       std::to_string(*env.gpus_per_node) + " = " + std::to_string(world) +
                       " GPUs is more than " + std::to_string(kMaxWorldGpus) +
                       " (2^20), the largest world accepted",
                   Location{"<command line>", 0, 0}, "world-size"};
    }
    if (env.world_size && *env.world_size != world) {
      return Error{"--world-size " + std::to_string(*env.world_size) + " contradicts --nodes " +
                       std::to_string(*env.nodes) + " x --gpus-per-node " +
                       std::to_string(*env.gpus_per_node) + " = " + std::to_string(world),
                   Location{"<command line>", 0, 0}, "world-size"};
    }
    env.world_size = world;
  }
  return Ok{};
}

// --- Examples -------------------------------------------------------------------------------

Status split_example(std::string_view text, std::vector<std::string>& overrides, Environment& env) {
  std::istringstream in{std::string(text)};
  std::vector<std::string> tokens;
  for (std::string token; in >> token;)
    tokens.push_back(token);
  const auto& names = environment_option_names();
  for (size_t i = 0; i < tokens.size(); ++i) {
    const std::string& token = tokens[i];
    bool is_option = token.rfind("--", 0) == 0 &&
                     std::find(names.begin(), names.end(), token.substr(2)) != names.end();
    if (!is_option) {
      overrides.push_back(token);
      continue;
    }
    if (i + 1 >= tokens.size()) {
      return Error{token + " needs a value", Location{"<example>", 0, 0}, token.substr(2)};
    }
    if (Status s = set_environment_option(env, token.substr(2), tokens[++i]); !s) return s;
  }
  return Ok{};
}

namespace {

/// Set every leaf of a YAML fragment into the recipe (maps are walked, lists are leaves).
void merge_leaves(Recipe& recipe, const Value& node, const std::string& prefix) {
  if (node.is_map() && !node.entries().empty()) {
    for (const auto& [key, child] : node.entries()) {
      merge_leaves(recipe, child, prefix.empty() ? key : prefix + "." + key);
    }
    return;
  }
  if (!prefix.empty()) recipe.set(prefix, node);
}

}  // namespace

namespace {

/// kExampleRecipe, read and parsed once per process (every rule's examples start from it: the
/// catalog tests and `rules --examples` run it about 200 times). Each run gets its own copy.
const Result<Recipe>& example_recipe() {
  static const Result<Recipe> kRecipe = []() -> Result<Recipe> {
    auto path = resolve_recipe_path(std::string(kExampleRecipe));
    if (!path) return path.error();
    return load_recipe_file(*path);
  }();
  return kRecipe;
}

}  // namespace

Result<ExampleRun> run_rule_example(const Rule& rule, bool failing) {
  Result<Recipe> recipe = example_recipe();
  if (!recipe) return recipe.error();
  if (failing && !rule.bad_example_yaml.empty()) {
    auto fragment = load_recipe_text(rule.bad_example_yaml, "<example yaml>");
    if (!fragment) return fragment.error();
    merge_leaves(*recipe, fragment->root, "");
  }
  ExampleRun run;
  run.env.framework = recipe->framework;
  if (Status s = split_example(rule.example_args, run.overrides, run.env); !s) return s.error();
  std::string_view example = failing ? rule.bad_example : rule.good_example;
  if (Status s = split_example(example, run.overrides, run.env); !s) return s.error();
  if (Status s = finalize_environment(run.env); !s) return s.error();
  if (Status s = apply_overrides(*recipe, run.overrides); !s) return s.error();
  run.diagnostics = check_rules(*recipe, run.env);
  run.recipe = std::move(*recipe);
  return run;
}

// --- Derived quantities (rules.md §0.3) -----------------------------------------------------

namespace rules {

bool megatron_fsdp(const Recipe& recipe) {
  return recipe.bool_or("dist.use_megatron_fsdp", false) ||
         recipe.bool_or("ddp.use_megatron_fsdp", false);
}

std::vector<std::string> layer_comm_types(const Recipe& recipe) {
  std::vector<std::string> texts = cp_comm_type_texts(recipe);
  std::optional<int64_t> layers = recipe.get_int("model.num_layers");
  const Value* comm = recipe.find("model.cp_comm_type");
  bool is_list = comm != nullptr && comm->is_list();
  if (is_list) return texts;
  std::string type = texts.empty() ? "p2p" : texts.front();
  if (layers && *layers > 0 && *layers <= 100000) {
    return std::vector<std::string>(static_cast<size_t>(*layers), type);
  }
  return {type};
}

bool uses_comm_type(const Recipe& recipe, const std::string& type) {
  // Same answer as searching layer_comm_types(), without building the per-layer list.
  const Value* comm = recipe.find("model.cp_comm_type");
  if (comm == nullptr || comm->is_null()) return type == "p2p";
  if (comm->is_string()) return comm->as_string() == type;
  if (!comm->is_list()) return false;
  return std::any_of(comm->items().begin(), comm->items().end(), [&](const Value& item) {
    return item.is_string() ? item.as_string() == type : item.str() == type;
  });
}

std::optional<int64_t> query_groups(const Recipe& recipe) {
  if (auto g = recipe.get_int("model.num_query_groups")) return g;
  return recipe.get_int("model.num_attention_heads");
}

std::optional<LocalHeads> local_heads(const Recipe& recipe) {
  auto hq = recipe.get_int("model.num_attention_heads");
  auto g = query_groups(recipe);
  int64_t tp = layout_of(recipe).tp;
  if (!hq || !g || tp < 1 || *hq < 1 || *g < 1) return std::nullopt;
  return LocalHeads{*hq / tp, *g >= tp ? *g / tp : 1};
}

std::optional<int64_t> data_parallel_size(const Recipe& recipe, const Environment& env) {
  if (!env.world_size) return std::nullopt;
  Layout p = layout_of(recipe);
  if (p.tp < 1 || p.pp < 1 || p.cp < 1) return std::nullopt;
  auto model = checked_product({p.tp, p.pp, p.cp});
  if (!model || *env.world_size % *model != 0) return std::nullopt;
  return *env.world_size / *model;
}

std::optional<int64_t> sequence_length(const Recipe& recipe) {
  if (auto s = recipe.get_int("model.seq_length")) return s;
  return recipe.get_int("dataset.seq_length");
}

std::string packing_key(const Recipe& recipe) {
  if (recipe.bool_or("dataset.enable_offline_packing", false)) {
    return "dataset.enable_offline_packing";
  }
  if (recipe.bool_or("dataset.enable_in_batch_packing", false)) {
    return "dataset.enable_in_batch_packing";
  }
  if (recipe.int_or("dataset.packing_buffer_size", 0) > 0) return "dataset.packing_buffer_size";
  if (recipe.has("model.sequence_packing_scheduler")) return "model.sequence_packing_scheduler";
  return "";
}

bool uses_packed_sequences(const Recipe& recipe) {
  return !packing_key(recipe).empty();
}

bool is_finetuning_dataset(const Recipe& recipe) {
  if (uses_packed_sequences(recipe)) return true;
  // A dump names its dataset class: Bridge's CP SFT check is an isinstance test on the SFT
  // classes (config.py:1576-1596 @ 067f987d; FinetuningDatasetConfig and its HFDatasetConfig at
  // 1180 @ a9497c6).
  if (auto target = recipe.targets.find("dataset"); target != recipe.targets.end()) {
    std::string_view cls = target->second;
    cls = cls.substr(cls.rfind('.') == std::string_view::npos ? 0 : cls.rfind('.') + 1);
    for (const char* sft :
         {"FinetuningDatasetConfig", "HFDatasetConfig", "GPTSFTDatasetConfig",
          "DirectHFSFTDatasetConfig", "EnergonDatasetConfig", "MockVLMSFTDatasetConfig"}) {
      if (cls == sft) return true;
    }
  }
  for (const char* key : {"dataset.dataset_type", "dataset.type", "dataset.target"}) {
    if (auto type = recipe.get_string(key)) {
      for (const char* kind : {"SFT", "Energon", "sft"}) {
        if (type->find(kind) != std::string::npos) return true;
      }
    }
  }
  return false;
}

std::string join_names(const std::vector<std::string>& names) {
  std::string text;
  for (size_t i = 0; i < names.size(); ++i) {
    if (i > 0) text += (i + 1 == names.size()) ? " and " : ", ";
    text += names[i];
  }
  return text;
}

}  // namespace rules
}  // namespace hcp
