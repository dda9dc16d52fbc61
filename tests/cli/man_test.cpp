// The man page documents every subcommand the binary registers, every option each subcommand's
// --help lists, and every rule ID of the registry.
#include <gtest/gtest.h>

#include <filesystem>
#include <regex>
#include <set>
#include <sstream>

#include "cli/cli_runner.h"
#include "hcp/rules.h"

namespace hcp {
namespace {

using testing::read_whole_file;
using testing::registered_subcommands;
using testing::run_cli;

/// The man page as plain text: font escapes removed, "\-" turned into "-".
std::string man_text() {
  std::string roff = read_whole_file(HCP_SOURCE_DIR "/man/hcp-plan.1");
  roff = std::regex_replace(roff, std::regex(R"(\\f[BIRP])"), "");
  roff = std::regex_replace(roff, std::regex(R"(\\-)"), "-");
  roff = std::regex_replace(roff, std::regex(R"(\\&)"), "");
  return roff;
}

/// Return the option names ("--world-size", "-o") that `hcp-plan SUB --help` lists.
std::set<std::string> help_options(const std::string& sub) {
  auto help = run_cli(sub + " --help");
  std::set<std::string> options;
  std::istringstream in(help.out);
  std::regex option(R"((^|[\s,])(--?[A-Za-z][A-Za-z0-9-]*))");
  for (std::string line; std::getline(in, line);) {
    // Option lines start with whitespace and a dash; descriptions may mention other flags.
    std::smatch first;
    if (!std::regex_search(line, first, std::regex(R"(^\s+-)"))) continue;
    std::string head = line.substr(0, line.find("  ", line.find_first_not_of(' ')));
    for (std::sregex_iterator it(head.begin(), head.end(), option), end; it != end; ++it) {
      options.insert((*it)[2]);
    }
  }
  return options;
}

TEST(ManPage, ListsEverySubcommand) {
  std::string man = man_text();
  auto subs = registered_subcommands();
  ASSERT_FALSE(subs.empty()) << "could not read the subcommands from hcp-plan --help";
  for (const std::string& sub : subs) {
    EXPECT_NE(man.find(".SS \"hcp-plan " + sub), std::string::npos)
        << "man/hcp-plan.1 has no section for subcommand '" << sub << "'";
  }
}

TEST(ManPage, DocumentsEveryOptionOfEverySubcommand) {
  std::string man = man_text();
  for (const std::string& sub : registered_subcommands()) {
    auto options = help_options(sub);
    EXPECT_FALSE(options.empty()) << sub << " --help lists no options";
    for (const std::string& option : options) {
      std::regex word("(^|[^A-Za-z0-9-])" + std::regex_replace(option, std::regex("-"), "\\-") +
                      "($|[^A-Za-z0-9-])");
      EXPECT_TRUE(std::regex_search(man, word))
          << "option " << option << " of 'hcp-plan " << sub << "' is missing from man/hcp-plan.1";
    }
  }
}

TEST(ManPage, ListsEveryRuleId) {
  std::string man = man_text();
  for (const Rule& rule : rule_registry()) {
    EXPECT_NE(man.find(".B " + std::string(rule.id) + "\n"), std::string::npos)
        << "rule " << rule.id << " is missing from the RULES section of man/hcp-plan.1";
  }
}

TEST(ManPage, HasTheStandardSections) {
  std::string man = man_text();
  for (const char* section : {".SH NAME", ".SH SYNOPSIS", ".SH DESCRIPTION", ".SH EXIT STATUS",
                              ".SH RULES", ".SH FILES", ".SH EXAMPLES"}) {
    EXPECT_NE(man.find(section), std::string::npos) << section;
  }
}

/// The golden output of `hcp-plan accuracy` (tests/golden/expected/NNN.out, which the golden test
/// holds to the binary), found by its first line: the numbering moves when fixtures are added.
std::string accuracy_golden() {
  for (const auto& entry :
       std::filesystem::directory_iterator(HCP_SOURCE_DIR "/tests/golden/expected")) {
    std::string text = read_whole_file(entry.path().string());
    if (text.starts_with("$ hcp-plan accuracy\n")) return text;
  }
  return "";
}

/// The Megatron-family row of one section of `accuracy`'s report: the section starts with a line
/// beginning `title`.
std::string megatron_row(const std::string& report, const std::string& title) {
  size_t section = report.find("\n" + title);
  if (section == std::string::npos) return "";
  size_t row = report.find("  Megatron-family ", section);
  return row == std::string::npos ? "" : report.substr(row, report.find('\n', row) - row);
}

TEST(ManPage, AccuracyFiguresAreTheOnesTheToolPrints) {
  // The man page quotes the shipped fit's figures per slice; a refit that changes them must
  // change the page too (it once said 157 rows were predicted where the tool predicted 154).
  const std::string man = man_text();
  const std::string report = accuracy_golden();
  ASSERT_FALSE(report.empty()) << "no golden output of `hcp-plan accuracy`";
  struct Slice {
    const char* man_prefix;    ///< The man page's sentence for the slice.
    const char* report_title;  ///< The report section's first line.
  };
  const Slice slices[] = {
      {"in-sample (", "In-sample"},
      {"leave-one-model-out: ", "Leave-one-model-out"},
      {"leave-one-source-out: ", "Leave-one-source-out"},
      {"validation set (", "Validation set"},
      {"held out, ", "Held out"},
  };
  const std::regex figures(
      R"(MAPE\s+([0-9.]+)%,\s+median\s+([0-9.]+)%,\s+tau\s+([0-9.]+)[\s\S]*?coverage\s+([0-9.]+)%)");
  for (const Slice& s : slices) {
    size_t at = man.find(std::string("\n") + s.man_prefix);
    ASSERT_NE(at, std::string::npos) << s.man_prefix;
    std::string sentence = man.substr(at, man.find(".br", at) - at);
    std::smatch m;
    ASSERT_TRUE(std::regex_search(sentence, m, figures)) << sentence;
    const std::string row = megatron_row(report, s.report_title);
    ASSERT_FALSE(row.empty()) << s.report_title;
    for (int i = 1; i <= 4; ++i) {
      const std::string figure = m[i].str() + (i == 3 ? " " : "%");
      EXPECT_NE((row + " ").find(" " + figure), std::string::npos)
          << s.man_prefix << ": the man page says " << m[i] << ", accuracy prints\n"
          << row;
    }
  }
  // The tie rule checked on the validation set: pairs, pairs inside, layout pairs and those
  // inside, pairs apart and those ordered.
  std::smatch said;
  ASSERT_TRUE(std::regex_search(
      man, said,
      std::regex(R"(tie rule on the validation set \(([0-9]+) Megatron-family pairs[\s\S]*?band )"
                 R"(holds ([0-9]+);[\s\S]*?of the ([0-9]+) pairs whose[\s\S]*?holds ([0-9]+);)"
                 R"([\s\S]*?of the ([0-9]+) pairs predicted[\s\S]*?band,\s+([0-9]+) ran)")));
  std::smatch printed;
  ASSERT_TRUE(std::regex_search(
      report, printed,
      std::regex(R"(([0-9]+) of ([0-9]+) inside[\s\S]*?of the ([0-9]+) pairs whose[\s\S]*?)"
                 R"(DP, ([0-9]+)\s+inside[\s\S]*?([0-9]+) of the ([0-9]+) pairs\s+predicted)")));
  EXPECT_EQ(said[1].str(), printed[2].str());  // pairs
  EXPECT_EQ(said[2].str(), printed[1].str());  // inside
  EXPECT_EQ(said[3].str(), printed[3].str());  // layout pairs
  EXPECT_EQ(said[4].str(), printed[4].str());  // layout pairs inside
  EXPECT_EQ(said[5].str(), printed[6].str());  // apart
  EXPECT_EQ(said[6].str(), printed[5].str());  // apart and ordered
  std::smatch predicted;
  ASSERT_TRUE(std::regex_search(man, predicted, std::regex(R"(; ([0-9]+) are predicted)")));
  EXPECT_NE(megatron_row(report, "In-sample").find(" " + predicted[1].str() + " "),
            std::string::npos)
      << predicted[1];
}

}  // namespace
}  // namespace hcp
