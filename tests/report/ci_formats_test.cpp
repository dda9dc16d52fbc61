// SARIF, JUnit, GitHub and gcc forms of validate's diagnostics, checked on hand-made reports.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <pugixml.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "hcp/report.h"
#include "hcp/rules.h"
#include "hcp/text_util.h"

namespace hcp {
namespace {

using nlohmann::json;

/// A note without a rule ID.
Diagnostic make_note(Severity severity, std::string message, Location at) {
  return Diagnostic::note(severity, std::move(message), "model.context_parallel_size",
                          std::move(at));
}

/// A finding of rule `id` (severity and fix from its catalog entry).
Diagnostic make_finding(std::string_view id, std::string message, Location at) {
  Diagnostic d = finding(id, "model.context_parallel_size", std::move(message));
  d.location = std::move(at);
  return d;
}

/// The catalog's first rule (an error) and an info rule of the same family.
const Rule& first_rule() {
  return rule_registry().front();
}
const char* kInfoRule = "CP006";  // "mlm" case: info; family "topology" like CP001.

std::string first_fix() {
  return std::string(first_rule().fix);
}

/// Two recipes: one with an error, a warning and an override-located info; one clean.
std::vector<DiagnosticsReport> sample_reports() {
  DiagnosticsReport bad{"recipes/bad.yaml", "bridge", {}};
  bad.diagnostics.push_back(
      make_finding(first_rule().id, "cp 3 does not divide", {"recipes/bad.yaml", 12, 5}));
  bad.diagnostics.push_back(
      make_note(Severity::kWarning, "50% of a, b: c\nnext", {"recipes/bad.yaml", 3, 0}));
  Diagnostic info =
      finding(kInfoRule, "model.context_parallel_size", "from the command line", "mlm");
  info.location = {"<override 1>", 0, 0};
  bad.diagnostics.push_back(info);
  DiagnosticsReport good{"recipes/good.yaml", "mlm", {}};
  return {bad, good};
}

// --- a small JSON-schema checker for the keywords the SARIF subset schema uses ----------------

void check_schema(const json& value, const json& schema, const std::string& path,
                  std::vector<std::string>& errors) {
  if (schema.contains("type")) {
    const std::string type = schema["type"];
    bool ok = (type == "object" && value.is_object()) || (type == "array" && value.is_array()) ||
              (type == "string" && value.is_string()) ||
              (type == "integer" && value.is_number_integer());
    if (!ok) {
      errors.push_back(path + ": expected " + type);
      return;
    }
  }
  if (schema.contains("enum")) {
    bool found = false;
    for (const json& allowed : schema["enum"])
      found = found || allowed == value;
    if (!found) errors.push_back(path + ": " + value.dump() + " not in enum");
  }
  if (schema.contains("minimum") && value.get<long>() < schema["minimum"].get<long>())
    errors.push_back(path + ": below minimum");
  if (schema.contains("required")) {
    for (const json& key : schema["required"]) {
      if (!value.contains(key.get<std::string>()))
        errors.push_back(path + ": missing " + key.get<std::string>());
    }
  }
  if (schema.contains("properties")) {
    for (const auto& [key, sub] : schema["properties"].items()) {
      if (value.contains(key)) check_schema(value[key], sub, path + "." + key, errors);
    }
  }
  if (schema.contains("minItems") && value.size() < schema["minItems"].get<size_t>())
    errors.push_back(path + ": too few items");
  if (schema.contains("items")) {
    for (size_t i = 0; i < value.size(); ++i)
      check_schema(value[i], schema["items"], path + "[" + std::to_string(i) + "]", errors);
  }
}

std::vector<std::string> sarif_schema_errors(const json& log) {
  std::ifstream in(HCP_FIXTURES_DIR "/report/sarif-2.1.0-subset.schema.json");
  json schema = json::parse(in);
  std::vector<std::string> errors;
  check_schema(log, schema, "$", errors);
  return errors;
}

TEST(SchemaChecker, RejectsBrokenLogs) {
  json log = json::parse(format_diagnostics_sarif(sample_reports(), "1.2.3"));
  log["runs"][0]["results"][0]["level"] = "fatal";
  log["runs"][0]["results"][1]["locations"][0]["physicalLocation"]["region"]["startLine"] = 0;
  log["runs"][0]["tool"]["driver"].erase("name");
  EXPECT_EQ(sarif_schema_errors(log).size(), 3u);
}

TEST(SarifFormat, MatchesTheSchemaSubset) {
  json log = json::parse(format_diagnostics_sarif(sample_reports(), "1.2.3"));
  EXPECT_EQ(sarif_schema_errors(log), std::vector<std::string>{});
  EXPECT_EQ(log["version"], "2.1.0");
  ASSERT_EQ(log["runs"].size(), 1u);
}

TEST(SarifFormat, DriverCarriesTheCatalog) {
  json driver = json::parse(format_diagnostics_sarif({}, "1.2.3"))["runs"][0]["tool"]["driver"];
  EXPECT_EQ(driver["name"], "hcp-plan");
  EXPECT_EQ(driver["version"], "1.2.3");
  const auto& rules = rule_registry();
  ASSERT_EQ(driver["rules"].size(), rules.size());
  EXPECT_EQ(driver["rules"][0]["id"], std::string(rules[0].id));
  EXPECT_EQ(driver["rules"][0]["shortDescription"]["text"], std::string(rules[0].title));
  EXPECT_NE(driver["rules"][0]["help"]["text"].get<std::string>().find(rules[0].rationale),
            std::string::npos);
}

TEST(SarifFormat, OneResultPerDiagnosticWithLocation) {
  json results = json::parse(format_diagnostics_sarif(sample_reports(), "1"))["runs"][0]["results"];
  ASSERT_EQ(results.size(), 3u);
  EXPECT_EQ(results[0]["ruleId"], std::string(rule_registry().front().id));
  EXPECT_EQ(results[0]["ruleIndex"], 0);
  EXPECT_EQ(results[0]["level"], "error");
  EXPECT_EQ(results[0]["message"]["text"], "cp 3 does not divide Fix: " + first_fix());
  json physical = results[0]["locations"][0]["physicalLocation"];
  EXPECT_EQ(physical["artifactLocation"]["uri"], "recipes/bad.yaml");
  EXPECT_EQ(physical["region"]["startLine"], 12);
  EXPECT_EQ(physical["region"]["startColumn"], 5);
  EXPECT_EQ(results[1]["level"], "warning");
  EXPECT_EQ(results[1]["ruleId"], "hcp-plan");  // No catalog rule: code scanning needs an ID.
  EXPECT_FALSE(results[1]["locations"][0]["physicalLocation"]["region"].contains("startColumn"));
  // An override is no file: the result points at the recipe without a region.
  EXPECT_EQ(results[2]["level"], "note");
  EXPECT_FALSE(results[2]["locations"][0]["physicalLocation"].contains("region"));
}

// SARIF's run declares columnKind unicodeCodePoints: a reader's code-point column goes out, not
// the byte column (the same only on a line of ASCII); gcc keeps the byte column.
TEST(SarifFormat, ColumnsCountCodePoints) {
  DiagnosticsReport r{"s.yaml", "bridge", {}};
  Location multibyte{"s.yaml", 1, 126};
  multibyte.code_point_column = 120;  // "é€😀" before it: 9 bytes, 3 code points
  r.diagnostics.push_back(make_finding(first_rule().id, "cp 3 does not divide", multibyte));
  r.diagnostics.push_back(make_note(Severity::kWarning, "ascii", {"s.yaml", 2, 7}));
  json log = json::parse(format_diagnostics_sarif({r}, "1"));
  EXPECT_EQ(log["runs"][0]["columnKind"], "unicodeCodePoints");
  json results = log["runs"][0]["results"];
  EXPECT_EQ(results[0]["locations"][0]["physicalLocation"]["region"]["startColumn"], 120);
  EXPECT_EQ(results[1]["locations"][0]["physicalLocation"]["region"]["startColumn"], 7);
  EXPECT_EQ(format_diagnostics_gcc({r}).rfind("s.yaml:1:126: error: ", 0), 0u);
}

TEST(SarifFormat, EncodesPathsAsUriReferences) {
  DiagnosticsReport r{"my dir/x.yaml", "bridge", {}};
  r.diagnostics.push_back(make_note(Severity::kError, "m", {"my dir/x.yaml", 1, 1}));
  json results = json::parse(format_diagnostics_sarif({r}, "1"))["runs"][0]["results"];
  EXPECT_EQ(results[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
            "my%20dir/x.yaml");
}

TEST(JunitFormat, ParsesBackWithOneCasePerRecipeAndFamily) {
  std::string xml = format_diagnostics_junit(sample_reports());
  pugi::xml_document doc;
  ASSERT_TRUE(doc.load_string(xml.c_str())) << xml;
  pugi::xml_node suites = doc.child("testsuites");
  std::vector<pugi::xml_node> suite_list;
  for (pugi::xml_node s : suites.children("testsuite"))
    suite_list.push_back(s);
  ASSERT_EQ(suite_list.size(), 2u);
  size_t families = 0;
  for (pugi::xml_node c : suite_list[0].children("testcase")) {
    (void)c;
    ++families;
  }
  EXPECT_GT(families, 1u);
  EXPECT_EQ(suite_list[0].attribute("tests").as_uint(), families);
  EXPECT_EQ(suites.attribute("tests").as_uint(), 2 * families);
  EXPECT_EQ(suites.attribute("failures").as_int(), 1);
  EXPECT_EQ(suite_list[1].attribute("failures").as_int(), 0);
  EXPECT_EQ(suite_list[1].select_nodes("testcase/failure").size(), 0u);
}

TEST(JunitFormat, FailuresCarryTheErrors) {
  std::string xml = format_diagnostics_junit(sample_reports());
  pugi::xml_document doc;
  ASSERT_TRUE(doc.load_string(xml.c_str()));
  const std::string family(rule_registry().front().family);
  pugi::xpath_node failed = doc.select_node(
      ("//testsuite[@name='recipes/bad.yaml']/testcase[@name='" + family + "']").c_str());
  ASSERT_TRUE(failed);
  std::string failure = failed.node().child("failure").text().get();
  EXPECT_NE(failure.find("recipes/bad.yaml:12:5: error: ["), std::string::npos) << failure;
  EXPECT_NE(failure.find("cp 3 does not divide"), std::string::npos);
  EXPECT_EQ(failure.find("from the command line"), std::string::npos);  // info: not a failure
  std::string out = failed.node().child("system-out").text().get();
  EXPECT_NE(out.find("from the command line"), std::string::npos);
  // The rule-less warning lands in "general", which does not fail.
  pugi::xpath_node general =
      doc.select_node("//testsuite[@name='recipes/bad.yaml']/testcase[@name='general']");
  ASSERT_TRUE(general);
  EXPECT_FALSE(general.node().child("failure"));
  EXPECT_NE(std::string(general.node().child("system-out").text().get()).find("50% of a, b"),
            std::string::npos);
}

TEST(JunitFormat, EscapesMarkup) {
  DiagnosticsReport r{"a<b>&\".yaml", "bridge", {}};
  r.diagnostics.push_back(make_note(Severity::kError, "x < y && z", {"f", 1, 1}));
  pugi::xml_document doc;
  std::string xml = format_diagnostics_junit({r});
  ASSERT_TRUE(doc.load_string(xml.c_str())) << xml;
  EXPECT_STREQ(doc.child("testsuites").child("testsuite").attribute("name").value(),
               "a<b>&\".yaml");
}

TEST(JunitFormat, InvalidUtf8FromTheInputStaysWellFormed) {
  // Issue 28: bytes that are not UTF-8 (an override value, a key) made the JUnit file
  // ill-formed XML; they are written as U+FFFD, control bytes as '?'.
  DiagnosticsReport r{"r\xff.yaml", "bridge", {}};
  r.diagnostics.push_back(make_note(Severity::kError, "bad \xC0\xAF value \x1b[31m", {"f", 1, 1}));
  std::string xml = format_diagnostics_junit({r});
  pugi::xml_document doc;
  ASSERT_TRUE(doc.load_buffer(xml.data(), xml.size(), pugi::parse_default, pugi::encoding_utf8))
      << xml;
  EXPECT_EQ(first_invalid_utf8(xml), std::string_view::npos) << xml;
  EXPECT_EQ(xml.find('\x1b'), std::string::npos) << xml;
  EXPECT_STREQ(doc.child("testsuites").child("testsuite").attribute("name").value(),
               "r\xEF\xBF\xBD.yaml");
}

/// The fix of kInfoRule's "mlm" case, the one the sample finding is: the case's own, else the
/// entry's.
std::string info_fix() {
  const Rule* rule = find_rule(kInfoRule);
  for (const RuleCase& c : rule->cases) {
    if (c.name == "mlm" && c.fix) return std::string(*c.fix);
  }
  return std::string(rule->fix);
}

TEST(GithubFormat, ExactLines) {
  const std::string id(rule_registry().front().id);
  std::string expected =
      "::error file=recipes/bad.yaml,line=12,col=5,title=" + id +
      "::cp 3 does not divide%0Afix: " + first_fix() +
      "\n"
      "::warning file=recipes/bad.yaml,line=3,title=hcp-plan::50%25 of a, b: c%0Anext\n"
      "::notice file=recipes/bad.yaml,title=" +
      kInfoRule + "::from the command line%0Afix: " + info_fix() + "\n";
  EXPECT_EQ(format_diagnostics_github(sample_reports()), expected);
}

TEST(GithubFormat, EscapesPropertyValues) {
  DiagnosticsReport r{"C:/a,b%\r\n.yaml", "bridge", {}};
  r.diagnostics.push_back(make_note(Severity::kError, "m", {"C:/a,b%\r\n.yaml", 2, 1}));
  EXPECT_EQ(format_diagnostics_github({r}),
            "::error file=C%3A/a%2Cb%25%0D%0A.yaml,line=2,col=1,title=hcp-plan::m\n");
}

TEST(GccFormat, OneLinePerDiagnostic) {
  const std::string id(rule_registry().front().id);
  std::string expected = "recipes/bad.yaml:12:5: error: cp 3 does not divide [" + id +
                         "]\n"
                         "recipes/bad.yaml:3: warning: 50% of a, b: c\\nnext\n"
                         "<override 1>: info: from the command line [" +
                         kInfoRule + "]\n";
  EXPECT_EQ(format_diagnostics_gcc(sample_reports()), expected);
}

// A finding that quotes a line break (a YAML key "x\nresult: PASS", a file named so) stays one
// line in every line-oriented form: quoted text cannot add lines that read as the tool's own.
TEST(CiFormats, AQuotedLineBreakAddsNoLine) {
  DiagnosticsReport r{"recipes/x.yaml", "bridge", {}};
  r.diagnostics.push_back(
      make_note(Severity::kWarning, "unknown key 'a\nresult: PASS'", {"dir\nfake.yaml", 2, 1}));
  const std::string text = format_diagnostics_text(r);
  EXPECT_NE(text.find("dir\\nfake.yaml:2:1: warning: unknown key 'a\\nresult: PASS'\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("\nresult"), std::string::npos) << text;
  EXPECT_EQ(format_diagnostics_gcc({r}),
            "dir\\nfake.yaml:2:1: warning: unknown key 'a\\nresult: PASS'\n");
  EXPECT_EQ(format_diagnostics_junit({r}).find("\nresult"), std::string::npos);
}

TEST(CiFormats, EmptyReportsGiveNoFindings) {
  EXPECT_EQ(format_diagnostics_github({}), "");
  EXPECT_EQ(format_diagnostics_gcc({}), "");
  json log = json::parse(format_diagnostics_sarif({}, "1"));
  EXPECT_TRUE(log["runs"][0]["results"].empty());
}

/// One recipe with `n` findings of the catalog's first rule (an error), one per line.
DiagnosticsReport repeated_report(int n) {
  DiagnosticsReport r{"recipes/many.yaml", "bridge", {}};
  for (int i = 0; i < n; ++i) {
    r.diagnostics.push_back(make_finding(first_rule().id, "finding " + std::to_string(i),
                                         {"recipes/many.yaml", i + 1, 1}));
  }
  return r;
}

size_t count_of(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
    ++n;
  return n;
}

// Issue #28: repeats fold in every format (kFoldAfter kept, then one "... and N more" note) while
// the summaries count every finding; at the limit nothing folds.
TEST(CiFormats, RepeatedFindingsFoldInEveryFormatAndTheSummaryCountsThemAll) {
  const int n = 1000;
  const std::vector<DiagnosticsReport> many = {repeated_report(n)};
  const std::string fold = "... and " + std::to_string(n - kFoldAfter) + " more [" +
                           std::string(first_rule().id) + "] errors like the above";
  const std::string text = format_diagnostics_text(many.front());
  EXPECT_EQ(count_of(text, "] finding "), kFoldAfter);
  EXPECT_EQ(count_of(text, fold), 1u) << text;
  EXPECT_NE(text.find("recipes/many.yaml: 1000 errors, 0 warnings, 0 infos"), std::string::npos)
      << text.substr(text.size() - 200);
  json j = json::parse(format_diagnostics_json(many));
  EXPECT_EQ(j["diagnostics"].size(), kFoldAfter + 1);
  EXPECT_EQ(j["recipes"][0]["diagnostics"].size(), kFoldAfter + 1);
  EXPECT_EQ(j["summary"]["errors"], n);
  EXPECT_EQ(j["recipes"][0]["summary"]["errors"], n);
  json sarif = json::parse(format_diagnostics_sarif(many, "1"));
  EXPECT_EQ(sarif["runs"][0]["results"].size(), kFoldAfter + 1);
  for (const std::string& lines : {format_diagnostics_github(many), format_diagnostics_gcc(many)}) {
    EXPECT_EQ(count_of(lines, "finding "), kFoldAfter) << lines.substr(0, 300);
    EXPECT_EQ(count_of(lines, fold), 1u) << lines.substr(0, 300);
  }
  // JUnit lists each kept error twice (its failure and the case's output), the fold note once.
  const std::string junit = format_diagnostics_junit(many);
  EXPECT_EQ(count_of(junit, "finding "), 2 * kFoldAfter);
  EXPECT_EQ(count_of(junit, fold), 1u);
  // JUnit still counts every error of the failing family.
  EXPECT_NE(format_diagnostics_junit(many).find("message=\"1000 errors in family"),
            std::string::npos);
  const std::vector<DiagnosticsReport> at_limit = {repeated_report(static_cast<int>(kFoldAfter))};
  EXPECT_EQ(count_of(format_diagnostics_gcc(at_limit), "finding "), kFoldAfter);
  EXPECT_EQ(count_of(format_diagnostics_gcc(at_limit), "... and"), 0u);
}

}  // namespace
}  // namespace hcp
