// hcp-plan rules (the catalog) and hcp-plan explain ID (one rule in full, its examples run).
#include <memory>
#include <string>
#include <vector>

#include "command.h"
#include "hcp/edit_distance.h"
#include "hcp/report.h"
#include "hcp/rules.h"
#include "output.h"

namespace hcp::cli {
namespace {

// --- rules ------------------------------------------------------------------------------------

struct RulesOptions {
  std::string family;
  OutputOptions output;
};

int run_rules(const RulesOptions& opts) {
  std::vector<Rule> selected;
  for (const Rule& rule : rule_registry()) {
    if (opts.family.empty() || rule.family == opts.family) selected.push_back(rule);
  }
  if (selected.empty()) {
    print_error("no rule belongs to family '" + opts.family + "'");
    return kExitBadInput;
  }
  std::string text;
  if (opts.output.format == "ids") {  // One ID a line, for shell completion and scripts.
    for (const Rule& rule : selected)
      text += std::string(rule.id) + "\n";
  } else {
    text = opts.output.format == "json" ? format_rule_list_json(selected)
                                        : format_rule_list_text(selected);
  }
  return emit(opts.output, text) ? kExitOk : kExitBadInput;
}

std::function<int()> setup_rules(CLI::App& sub) {
  auto opts = std::make_shared<RulesOptions>();
  sub.add_option("--family", opts->family,
                 "Only the rules of one family (topology, hcp, heads, sequence, ...)");
  add_output_options(sub, opts->output, {"text", "json", "ids"});
  return [opts]() { return run_rules(*opts); };
}

const CommandRegistration kRules{"rules", "List the rule catalog (ID, severity, family, title)",
                                 setup_rules};

// --- explain ----------------------------------------------------------------------------------

struct ExplainOptions {
  std::string id;
  OutputOptions output;
};

/// The validate command line that reproduces an example.
std::string example_command(const Rule& rule, bool failing) {
  std::string command = "hcp-plan validate " + std::string(kExampleRecipe);
  for (std::string_view part :
       {rule.example_args, failing ? rule.bad_example : rule.good_example}) {
    if (!part.empty()) command += " " + std::string(part);
  }
  if (failing && !rule.bad_example_yaml.empty()) {
    command += "   # with the recipe edited: " + std::string(rule.bad_example_yaml);
  }
  return command;
}

/// Run one example and keep the rule's own findings. Preflight, probe and check-log rules read a
/// node, a launch or a job's log, not a recipe: their examples are described, not run.
ExampleReport run_example(const Rule& rule, bool failing) {
  ExampleReport report;
  if (rule.check == nullptr) {
    report.command = "hcp-plan " + std::string(rule.runs_in) +
                     "   # on: " + std::string(failing ? rule.bad_example : rule.good_example);
    report.error = std::string("described, not run: ") + std::string(rule.id) +
                   (failing ? " reports on these inputs" : " stays quiet on these inputs") +
                   " (explain runs recipe rules only; run hcp-plan " + std::string(rule.runs_in) +
                   (rule.runs_in == "check-log"  ? " on such a log)"
                    : rule.runs_in == "validate" ? " with such a recipe)"
                                                 : " on such a node)");
    report.fired = failing;
    return report;
  }
  report.command = example_command(rule, failing);
  auto run = run_rule_example(rule, failing);
  if (!run) {
    report.error = (failing && rule.loader_rejects_bad_example)
                       ? "the loader rejects it before any rule runs (exit 2): " + run.error().str()
                       : run.error().str();
    report.fired = failing && rule.loader_rejects_bad_example;
    return report;
  }
  for (const Diagnostic& d : run->diagnostics) {
    if (d.id() == rule.id) report.diagnostics.push_back(d);
  }
  report.fired = !report.diagnostics.empty();
  return report;
}

int run_explain(const ExplainOptions& opts) {
  const Rule* rule = find_rule(opts.id);
  if (rule == nullptr) {
    std::vector<std::string> ids;
    for (const Rule& r : rule_registry())
      ids.emplace_back(r.id);
    std::string upper = opts.id;
    for (char& c : upper)
      c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    print_error("unknown rule '" + opts.id + "'" +
                did_you_mean(opts.id, closest_match(upper, ids)) + "; 'hcp-plan rules' lists them");
    return kExitBadInput;
  }
  ExampleReport failing = run_example(*rule, true);
  ExampleReport passing = run_example(*rule, false);
  std::string text = opts.output.format == "json"
                         ? format_rule_explain_json(*rule, failing, passing)
                         : format_rule_explain_text(*rule, failing, passing);
  return emit(opts.output, text) ? kExitOk : kExitBadInput;
}

std::function<int()> setup_explain(CLI::App& sub) {
  auto opts = std::make_shared<ExplainOptions>();
  sub.add_option("id", opts->id, "Rule ID, e.g. CP013")->required();
  add_output_options(sub, opts->output);
  return [opts]() { return run_explain(*opts); };
}

const CommandRegistration kExplain{
    "explain", "Show one rule in full, with a failing and a passing example run through validate",
    setup_explain};

}  // namespace
}  // namespace hcp::cli
