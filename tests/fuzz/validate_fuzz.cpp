// The whole validate path: a recipe, then (after a line "%%") one override per line and
// environment options as "--name=value" lines; every rule runs and the report is written in
// every output format (the JSON and SARIF writers must cope with any bytes the input carries).
#include <cstdint>
#include <string>
#include <vector>

#include "fuzz_util.h"
#include "hcp/recipe.h"
#include "hcp/report.h"
#include "hcp/rules.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto parts = hcp::fuzz::split_parts(hcp::fuzz::as_text(data, size));
  auto recipe = hcp::load_recipe_text(parts.head, "fuzz.yaml");
  if (!recipe) return 0;
  std::vector<std::string> overrides;
  hcp::Environment env;
  env.framework = recipe->framework;
  for (const std::string& line : parts.lines) {
    if (line.rfind("--", 0) == 0 && line.find('=') != std::string::npos) {
      size_t eq = line.find('=');
      if (!hcp::set_environment_option(env, line.substr(2, eq - 2), line.substr(eq + 1))) return 0;
    } else {
      overrides.push_back(line);
    }
  }
  if (!hcp::finalize_environment(env)) return 0;
  if (!hcp::apply_overrides(*recipe, overrides)) return 0;
  hcp::DiagnosticsReport report;
  report.recipe = "fuzz.yaml";
  report.framework = hcp::framework_name(recipe->framework);
  report.diagnostics = hcp::check_rules(*recipe, env);
  (void)hcp::summarize(report.diagnostics);
  (void)hcp::format_diagnostics_text(report);
  (void)hcp::format_diagnostics_json(report);
  (void)hcp::format_diagnostics_sarif({report}, "fuzz");
  (void)hcp::format_diagnostics_junit({report});
  (void)hcp::format_diagnostics_github({report});
  (void)hcp::format_diagnostics_gcc({report});
  return 0;
}
