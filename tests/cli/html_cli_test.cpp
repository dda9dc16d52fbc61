// End-to-end: plan --html writes one self-contained page; headless Chromium renders it.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <regex>
#include <string>

#include "cli/cli_runner.h"

namespace hcp {
namespace {

namespace fs = std::filesystem;
using testing::CliResult;
using testing::read_whole_file;
using testing::run_cli;

const char* kChromium = "/usr/bin/chromium";

/// A fresh empty directory under the temp dir, removed by the destructor.
struct TempDir {
  fs::path path;
  TempDir() {
    static int counter = 0;
    path = fs::temp_directory_path() /
           ("hcp_html_" + std::to_string(getpid()) + "_" + std::to_string(counter++));
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
};

int count(const std::string& text, const std::string& needle) {
  int n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1))
    ++n;
  return n;
}

/// Plan the default recipe on 4 x 8 GPUs into DIR/report.html; return the page.
std::string plan_html(const TempDir& dir) {
  std::string file = (dir.path / "report.html").string();
  CliResult r = run_cli(
      "plan recipes/llama3_8b_128k.yaml --nodes 4 --gpus-per-node 8 "
      "--cluster dgx-h100 --top 4 --html '" +
      file + "'");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("Option"), std::string::npos) << r.out;  // the text report still prints
  return read_whole_file(file);
}

TEST(HtmlCli, PageHasEveryPart) {
  TempDir dir;
  std::string html = plan_html(dir);
  ASSERT_FALSE(html.empty());
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(html.find("<table id=\"decision-table\">"), std::string::npos);
  EXPECT_EQ(count(html, "<tr class=\"option"), 4);
  EXPECT_EQ(count(html, "<tr class=\"option recommended\""), 1);
  EXPECT_NE(html.find("<svg id=\"step-time-chart\""), std::string::npos);
  EXPECT_EQ(count(html, "<g class=\"bar\""), 4);
  EXPECT_EQ(count(html, "data-seconds="), 4 * 5);                // five segments per bar
  EXPECT_EQ(count(html, "<rect class=\"seg-cp-comm\""), 4 + 1);  // and the legend
  EXPECT_EQ(count(html, "<rect class=\"mem-bar"), 4);
  EXPECT_EQ(count(html, "<line class=\"mem-capacity\""), 1);
  EXPECT_EQ(count(html, "<g class=\"node\""), 4);
  EXPECT_EQ(count(html, "<rect class=\"gpu\""), 32);
  EXPECT_NE(html.find("<section id=\"diagnostics\">"), std::string::npos);
}

TEST(HtmlCli, SelfContained) {
  TempDir dir;
  std::string html = plan_html(dir);
  ASSERT_FALSE(html.empty());
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("<link"), std::string::npos);
  EXPECT_EQ(html.find("src="), std::string::npos);
  EXPECT_EQ(html.find("url("), std::string::npos);
  EXPECT_EQ(html.find("http://"), html.find("http://www.w3.org/2000/svg"));
  EXPECT_EQ(html.find("https://"), std::string::npos);
}

TEST(HtmlCli, SegmentsAddUpToTheStepTime) {
  TempDir dir;
  std::string html = plan_html(dir);
  std::regex bar(R"re(<g class="bar" data-option="([A-Z]+)" data-step-s="([0-9.]+)")re");
  std::regex seg(R"re(data-seconds="([0-9.]+)")re");
  int bars = 0;
  for (std::sregex_iterator it(html.begin(), html.end(), bar), end; it != end; ++it) {
    ++bars;
    size_t from = static_cast<size_t>(it->position(0));
    size_t to = html.find("</g>", from);
    std::string body = html.substr(from, to - from);
    double sum = 0;
    for (std::sregex_iterator s(body.begin(), body.end(), seg); s != end; ++s)
      sum += std::stod((*s)[1]);
    EXPECT_NEAR(sum, std::stod((*it)[2]), 1e-4) << "option " << (*it)[1];
  }
  EXPECT_EQ(bars, 4);
}

TEST(HtmlCli, PlacementColoursCpGroups) {
  // The recommended layout's CP groups: each data-cp-group value names one group; a CP group
  // has cp members, so every group value appears the same number of times.
  TempDir dir;
  std::string html = plan_html(dir);
  std::regex gpu(R"re(<rect class="gpu" data-rank="(\d+)" data-cp-group="(\d+)")re");
  std::map<int, int> members;
  int ranks = 0;
  for (std::sregex_iterator it(html.begin(), html.end(), gpu), end; it != end; ++it) {
    EXPECT_EQ(std::stoi((*it)[1]), ranks++);
    ++members[std::stoi((*it)[2])];
  }
  ASSERT_EQ(ranks, 32);
  ASSERT_FALSE(members.empty());
  for (const auto& [group, size] : members)
    EXPECT_EQ(size * static_cast<int>(members.size()), 32);
}

TEST(HtmlCli, UnwritableFileIsBadInput) {
  CliResult r =
      run_cli("plan recipes/llama3_8b_128k.yaml --nodes 4 --html /nonexistent-dir/report.html");
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("cannot write /nonexistent-dir/report.html"), std::string::npos) << r.err;
}

/// Run headless Chromium on FILE with the given action flags; return its stdout.
CliResult run_chromium(const TempDir& profile, const std::string& flags, const std::string& file) {
  std::string command = std::string("cd / && '") + kChromium +
                        "' --headless --no-sandbox --disable-gpu --no-first-run "
                        "--disable-background-networking --disable-component-update "
                        "--disable-sync --user-data-dir='" +
                        profile.path.string() + "' " + flags + " 'file://" + file + "' 2>/dev/null";
  CliResult result;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return result;
  char buffer[4096];
  size_t n = 0;
  while ((n = fread(buffer, 1, sizeof buffer, pipe)) > 0)
    result.out.append(buffer, n);
  int status = pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128;
  return result;
}

TEST(HtmlBrowser, ChromiumRendersTheReport) {
  if (access(kChromium, X_OK) != 0)
    GTEST_SKIP() << kChromium << " is not installed (apt-get install chromium)";
  TempDir dir;
  std::string html = plan_html(dir);
  ASSERT_FALSE(html.empty());
  std::string file = (dir.path / "report.html").string();
  TempDir profile;
  CliResult dom = run_chromium(profile, "--dump-dom", file);
  ASSERT_EQ(dom.exit_code, 0);
  // The DOM after parsing: the elements survived as HTML/SVG elements.
  EXPECT_NE(dom.out.find("id=\"decision-table\""), std::string::npos) << dom.out.substr(0, 500);
  EXPECT_NE(dom.out.find("<svg id=\"step-time-chart\""), std::string::npos);
  EXPECT_NE(dom.out.find("<svg id=\"placement\""), std::string::npos);
  EXPECT_EQ(count(dom.out, "<rect class=\"gpu\""), 32);
  std::string png = (dir.path / "shot.png").string();
  TempDir profile2;
  CliResult shot =
      run_chromium(profile2, "--window-size=1000,1400 --screenshot='" + png + "'", file);
  ASSERT_EQ(shot.exit_code, 0);
  ASSERT_TRUE(fs::exists(png));
  std::string bytes = read_whole_file(png);
  ASSERT_GT(bytes.size(), 8u);
  EXPECT_EQ(bytes.substr(1, 3), "PNG");
  EXPECT_GT(bytes.size(), 10000u);  // a blank page compresses to a few hundred bytes
  if (const char* keep = std::getenv("HCP_KEEP_SCREENSHOT"))
    fs::copy_file(png, keep, fs::copy_options::overwrite_existing);
}

}  // namespace
}  // namespace hcp
