// End-to-end: plan / compare write one self-contained HTML page (--html FILE or --format html);
// headless Chromium renders it at 800 px, the charts have extents and the screenshot is not blank.
#include <gtest/gtest.h>
#include <unistd.h>
#include <zlib.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "cli/cli_runner.h"

namespace hcp {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using testing::CliResult;
using testing::read_whole_file;
using testing::run_cli;

const char* kChromium = "/usr/bin/chromium";
const std::string kPlan =
    "plan recipes/llama3_8b_128k.yaml --nodes 4 --gpus-per-node 8 --cluster dgx-h100 ";
/// A fixed date for the page (the tool honours SOURCE_DATE_EPOCH).
const std::string kEpoch = "SOURCE_DATE_EPOCH=86400 ";

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

/// The text of the element that starts with `open` up to the next `close`.
std::string element(const std::string& html, const std::string& open, const std::string& close) {
  size_t from = html.find(open);
  if (from == std::string::npos) return "";
  size_t to = html.find(close, from);
  return html.substr(from, to == std::string::npos ? std::string::npos : to - from);
}

/// Plan the default recipe on 4 x 8 GPUs into DIR/report.html with `extra` options; return the
/// page.
std::string plan_html(const TempDir& dir, const std::string& extra = "--top 4") {
  std::string file = (dir.path / "report.html").string();
  CliResult r = run_cli(kPlan + extra + " --html '" + file + "'", kEpoch);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("Option"), std::string::npos) << r.out;  // the text report still prints
  return read_whole_file(file);
}

json plan_json(const std::string& extra) {
  CliResult r = run_cli(kPlan + extra + " --format json");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return json::parse(r.out, nullptr, false);
}

TEST(HtmlCli, PageHasEveryPart) {
  TempDir dir;
  std::string html = plan_html(dir);
  ASSERT_FALSE(html.empty());
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(html.find("<p id=\"provenance\">"), std::string::npos);
  EXPECT_NE(html.find("<section id=\"your-layout\">"), std::string::npos);
  EXPECT_NE(html.find("<table id=\"decision-table\">"), std::string::npos);
  // --top 4 and the recipe's own layout (AV), which ranks below them.
  EXPECT_EQ(count(html, "<tr class=\"option"), 5);
  EXPECT_EQ(count(html, "<tr class=\"option recommended"), 1);
  EXPECT_EQ(count(html, "<tr class=\"option own"), 1);
  EXPECT_NE(html.find("<section id=\"how-to-read\">"), std::string::npos);
  EXPECT_NE(html.find("<svg id=\"throughput-memory-chart\""), std::string::npos);
  EXPECT_EQ(count(html, "<g class=\"point"), 5);
  std::string steps = element(html, "<svg id=\"step-time-chart\"", "</svg>");
  EXPECT_EQ(count(steps, "<g class=\"bar\""), 5);
  EXPECT_EQ(count(steps, "data-value="), 5 * 9);       // nine terms per bar
  EXPECT_EQ(count(steps, "<rect class=\"t-cp\""), 1);  // the legend
  EXPECT_EQ(count(steps, "<g class=\"tick\">"), count(steps, "<line class=\"grid\""));
  EXPECT_GE(count(steps, "<g class=\"tick\">"), 3);
  std::string memory = element(html, "<svg id=\"memory-chart\"", "</svg>");
  EXPECT_EQ(count(memory, "<g class=\"bar\""), 5);
  EXPECT_EQ(count(memory, "<line class=\"mem-limit\""), 1);
  EXPECT_EQ(count(html, "<g class=\"node\""), 4);
  EXPECT_EQ(count(html, "<rect class=\"gpu\""), 32);
  EXPECT_NE(html.find("<section id=\"diagnostics\">"), std::string::npos);
}

TEST(HtmlCli, ProvenanceNamesVersionCommitCommandAndDate) {
  TempDir dir;
  // A file name with a space and a quote: the command line shows it shell-quoted, HTML-escaped.
  std::string file = (dir.path / "it's here.html").string();
  CliResult r = run_cli(kPlan + "--top 2 --html \"" + file + "\"", kEpoch);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string html = read_whole_file(file);
  CliResult version = run_cli("--version");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(version.out, m, std::regex(R"(hcp-plan (\S+) \(commit (\S+)\))")))
      << version.out;
  // The commit is read at build time: the source tree's HEAD (when it is a git checkout).
  CliResult head = testing::run_shell("git -C '" HCP_SOURCE_DIR "' rev-parse --short=12 HEAD");
  if (head.exit_code == 0) {
    EXPECT_EQ(m[2].str() + "\n", head.out);
  }
  EXPECT_NE(html.find("Written by hcp-plan " + m[1].str() + " (commit <code>" + m[2].str() +
                      "</code>) on 1970-01-02 00:00 UTC with:"),
            std::string::npos)
      << element(html, "<p id=\"provenance\">", "</pre>");
  std::string quoted = "&apos;" + dir.path.string() + "/it&apos;\\&apos;&apos;s here.html&apos;";
  EXPECT_NE(html.find("<pre id=\"command-line\">hcp-plan " + kPlan + "--top 2 --html " + quoted +
                      "</pre>"),
            std::string::npos)
      << element(html, "<pre id=\"command-line\">", "</pre>");
}

// SOURCE_DATE_EPOCH past the year 9999 overflowed into year -2147481749; a malformed value
// quietly became today's date. The reproducible-builds convention asks for an error.
TEST(HtmlCli, SourceDateEpochIsReadOrRefused) {
  for (const char* bad : {"67768036191676799", "253402300800", "abc", "-1", "1e9", "86400.5",
                          " 86400", "+86400", "0x10"}) {
    CliResult r =
        run_cli(kPlan + "--top 2 --format html", std::string("SOURCE_DATE_EPOCH='") + bad + "' ");
    EXPECT_EQ(r.exit_code, 2) << bad;
    EXPECT_EQ(r.out, "") << bad;
    EXPECT_EQ(r.err, std::string("hcp-plan: error: SOURCE_DATE_EPOCH: expected whole seconds "
                                 "since 1970 from 0 to 253402300799, got '") +
                         bad + "'\n")
        << bad;
  }
  CliResult last = run_cli(kPlan + "--top 2 --format html", "SOURCE_DATE_EPOCH=253402300799 ");
  ASSERT_EQ(last.exit_code, 0) << last.err;
  EXPECT_NE(last.out.find("on 9999-12-31 23:59 UTC with:"), std::string::npos);
  CliResult empty = run_cli(kPlan + "--top 2 --format html", "SOURCE_DATE_EPOCH= ");
  EXPECT_EQ(empty.exit_code, 0) << empty.err;  // empty is unset, as the convention says
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

/// Every g.bar of one chart: its segments add up to its data-total.
void expect_bars_add_up(const std::string& chart, int bars) {
  std::regex bar(R"re(<g class="bar" data-option="([A-Z]+)" data-total="([0-9.]+)")re");
  std::regex seg(R"re(data-value="([0-9.]+)")re");
  int seen = 0;
  for (std::sregex_iterator it(chart.begin(), chart.end(), bar), end; it != end; ++it) {
    ++seen;
    size_t from = static_cast<size_t>(it->position(0));
    std::string body = chart.substr(from, chart.find("</g>", from) - from);
    double sum = 0;
    for (std::sregex_iterator s(body.begin(), body.end(), seg); s != end; ++s)
      sum += std::stod((*s)[1]);
    EXPECT_NEAR(sum, std::stod((*it)[2]), 1e-4) << "option " << (*it)[1];
  }
  EXPECT_EQ(seen, bars);
}

TEST(HtmlCli, TermsAddUpToStepTimeAndMemory) {
  TempDir dir;
  std::string html = plan_html(dir);
  expect_bars_add_up(element(html, "<svg id=\"step-time-chart\"", "</svg>"), 5);
  expect_bars_add_up(element(html, "<svg id=\"memory-chart\"", "</svg>"), 5);
}

/// The rank of an option letter: A = 0, ..., Z = 25, AA = 26, ...
size_t letter_rank(const std::string& letters) {
  size_t rank = 0;
  for (char c : letters)
    rank = rank * 26 + static_cast<size_t>(c - 'A' + 1);
  return rank - 1;
}

TEST(HtmlCli, ScatterPointsAreThePlansOptions) {
  TempDir dir;
  std::string html = plan_html(dir);
  json plan = plan_json("--top 0");
  ASSERT_TRUE(plan.is_object());
  std::regex point(
      R"re(<g class="point[^"]*" data-option="([A-Z]+)" data-gib="([0-9.]+)" data-tokens="([0-9.]+)" data-low="([0-9.]+)" data-high="([0-9.]+)")re");
  size_t i = 0;
  for (std::sregex_iterator it(html.begin(), html.end(), point), end; it != end; ++it, ++i) {
    size_t rank = letter_rank((*it)[1]);
    ASSERT_LT(rank, plan["options"].size());
    EXPECT_EQ(rank < 4, i < 4) << "the first four and the recipe's own layout";
    const json& o = plan["options"][rank];
    EXPECT_NEAR(std::stod((*it)[2]), o["memory_gib_per_gpu"].get<double>(), 1e-3);
    EXPECT_NEAR(std::stod((*it)[3]), o["tokens_per_s_per_gpu"].get<double>(), 0.06);
    EXPECT_NEAR(std::stod((*it)[4]), o["tokens_per_s_per_gpu_low"].get<double>(), 0.06);
    EXPECT_NEAR(std::stod((*it)[5]), o["tokens_per_s_per_gpu_high"].get<double>(), 0.06);
    EXPECT_LT(std::stod((*it)[4]), std::stod((*it)[5])) << "a band has width";
  }
  EXPECT_EQ(i, 5u);
  std::string scatter = element(html, "<svg id=\"throughput-memory-chart\"", "</svg>");
  EXPECT_EQ(count(scatter, "<line class=\"err-bar\""), 5);
  EXPECT_NE(
      scatter.find("<line class=\"mem-limit\" data-gib=\"" +
                   std::to_string(plan["options"][0]["memory_limit_gib"].get<int>()) + ".000\""),
      std::string::npos);
  EXPECT_NE(scatter.find(">Memory per GPU (GiB)</text>"), std::string::npos);
  EXPECT_NE(scatter.find(">Tokens/s/GPU</text>"), std::string::npos);
}

TEST(HtmlCli, BandsAndTieRuleInWords) {
  TempDir dir;
  std::string html = plan_html(dir);
  std::string words = element(html, "<section id=\"how-to-read\">", "</section>");
  EXPECT_NE(words.find("<p id=\"order\">Rows are ranked: the recommended option first"),
            std::string::npos)
      << words;
  EXPECT_NE(words.find("<p id=\"tie-rule\">Two options are a tie (within model error) when their "
                       "throughput error bands overlap."),
            std::string::npos)
      << words;
  // One line per regime of the listed options, with its low and high ends in percent.
  std::regex band(R"re(<p class="band">dense, CP&gt;1: -\d+% to \+\d+% of the predicted)re");
  EXPECT_TRUE(std::regex_search(words, band)) << words;
  // The listed a2a+p2p options: no CP run behind the bands used that exchange (they ran p2p).
  EXPECT_NE(words.find("<p id=\"unmeasured-exchange\">No published run behind these bands used "
                       "cp_comm_type a2a+p2p"),
            std::string::npos)
      << words;
}

TEST(HtmlCli, TheRecipesOwnLayoutIsAlwaysListed) {
  json plan = plan_json("--top 0");
  ASSERT_TRUE(plan.is_object());
  size_t own = 0;
  while (own < plan["options"].size() && !plan["options"][own]["recipe_layout"].get<bool>())
    ++own;
  ASSERT_LT(own, plan["options"].size()) << "the recipe's layout passes the rules";
  ASSERT_GT(own, 0u) << "the recipe's layout is not the first option";
  TempDir dir;
  std::string html = plan_html(dir, "--top 1");
  EXPECT_EQ(count(html, "<tr class=\"option"), 2);
  std::string row = element(html, "<tr class=\"option own", "</tr>");
  std::string label = plan["options"][own]["label"].get<std::string>();
  EXPECT_NE(row.find("(your layout)"), std::string::npos) << row;
  EXPECT_NE(row.find(label), std::string::npos) << row;
  std::string mine = element(html, "<section id=\"your-layout\">", "</section>");
  EXPECT_NE(mine.find("The recipe's own layout, " + label + ", is option "), std::string::npos)
      << mine;
  EXPECT_EQ(count(html, "<g class=\"point"), 2);
  EXPECT_EQ(count(html, "<g class=\"point own"), 1);
  EXPECT_NE(html.find(">your layout</text>"), std::string::npos);
}

TEST(HtmlCli, ARejectedRecipeLayoutSaysWhy) {
  TempDir dir;
  std::string html = plan_html(dir, "--top 2 'model.hierarchical_context_parallel_sizes=[4,2]'");
  std::string mine = element(html, "<section id=\"your-layout\">", "</section>");
  EXPECT_NE(mine.find("was rejected (CP013)"), std::string::npos) << mine;
  EXPECT_EQ(count(html, "<tr class=\"option own"), 0);
}

TEST(HtmlCli, TextIsEscaped) {
  TempDir dir;
  fs::path recipe = dir.path / "a<b>&c.yaml";
  fs::copy_file(HCP_RECIPES_DIR "/llama3_8b_128k.yaml", recipe);
  std::string file = (dir.path / "r.html").string();
  CliResult r = run_cli("plan '" + recipe.string() + "' --nodes 4 --top 2 --html '" + file + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string html = read_whole_file(file);
  EXPECT_EQ(html.find("a<b>&c"), std::string::npos);
  EXPECT_NE(html.find("<title>hcp-plan plan: a&lt;b&gt;&amp;c on 4 x 8 GPUs</title>"),
            std::string::npos)
      << element(html, "<title>", "</title>");
}

TEST(HtmlCli, FormatHtmlPrintsThePage) {
  TempDir dir;
  std::string file_page = plan_html(dir);
  CliResult r = run_cli(kPlan + "--top 4 --format html", kEpoch);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // The same page but for the command line that wrote it.
  std::regex command(R"(<pre id="command-line">[^<]*</pre>)");
  EXPECT_EQ(std::regex_replace(r.out, command, ""), std::regex_replace(file_page, command, ""));
}

TEST(HtmlCli, CompareChartsOnlyPricedLayouts) {
  TempDir dir;
  std::string file = (dir.path / "compare.html").string();
  CliResult r = run_cli(
      "compare recipes/llama3_8b_128k.yaml --nodes 4 --gpus-per-node 8 --option "
      "\"tp=2,cp=4,cp_comm_type=a2a\" --option \"tp=1,cp=32,cp_comm_type=a2a\" "
      "--html '" +
      file + "'");
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;  // CP032 rejects the second
  std::string html = read_whole_file(file);
  EXPECT_NE(html.find("<title>hcp-plan compare: "), std::string::npos);
  EXPECT_NE(html.find("<p id=\"order\">Rows are in the order of the --option arguments."),
            std::string::npos);
  EXPECT_EQ(count(html, "<tr class=\"option"), 2);
  std::string second = element(html, "<tr class=\"option", "</tr>");
  second = element(html.substr(html.find(second) + second.size()), "<tr class=\"option", "</tr>");
  EXPECT_NE(second.find("rejected [CP032]"), std::string::npos) << second;
  EXPECT_NE(second.find("<td colspan=\"4\" class=\"text\">not priced</td>"), std::string::npos)
      << second;
  EXPECT_EQ(count(html, "<g class=\"point"), 1);  // only the priced layout is charted
  EXPECT_EQ(html.find("<section id=\"your-layout\">"), std::string::npos);
  EXPECT_EQ(html.find(">your layout</text>"), std::string::npos);  // nor in the scatter's key
}

TEST(HtmlCli, UnwritableFileIsBadInput) {
  CliResult r =
      run_cli("plan recipes/llama3_8b_128k.yaml --nodes 4 --html /nonexistent-dir/report.html");
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("/nonexistent-dir/report.html: cannot write"), std::string::npos) << r.err;
}

// --- headless Chromium ------------------------------------------------------------------------

/// Run headless Chromium (800 px wide) on FILE with the given action flags; return its stdout.
CliResult run_chromium(const std::string& flags, const std::string& file) {
  TempDir profile;
  return testing::run_shell(
      std::string("cd / && timeout 120 '") + kChromium +
      "' --headless --no-sandbox --disable-gpu --disable-quic --no-first-run "
      "--disable-background-networking --disable-component-update --disable-sync "
      "--user-data-dir='" +
      profile.path.string() + "' --window-size=800,1200 " + flags + " 'file://" + file + "'");
}

/// The page with a measuring script at its end: the extents of every chart and of the page, as
/// JSON in pre#extents, read back with --dump-dom.
constexpr const char* kMeasure = R"JS(<script>
const box = e => { const r = e.getBoundingClientRect();
  return {left: r.left, right: r.right, width: r.width, height: r.height}; };
const out = {page_width: document.documentElement.scrollWidth, charts: {}};
for (const id of ["throughput-memory-chart", "step-time-chart", "memory-chart", "placement",
                  "decision-table"]) {
  const e = document.getElementById(id);
  if (e) out.charts[id] = box(e);
}
out.points = [...document.querySelectorAll("#throughput-memory-chart g.point:not(.key) circle")]
  .map(box);
out.err_bars = [...document.querySelectorAll("#throughput-memory-chart line.err-bar")].map(box);
out.bars = [...document.querySelectorAll("#step-time-chart g.bar")].map(box);
const pre = document.createElement("pre"); pre.id = "extents";
pre.textContent = JSON.stringify(out); document.body.appendChild(pre);
</script>)JS";

json measure_in_chromium(const TempDir& dir, const std::string& html) {
  std::string measured = html;
  measured.insert(measured.rfind("</body>"), kMeasure);
  fs::path file = dir.path / "measured.html";
  { std::ofstream(file) << measured; }
  CliResult dom = run_chromium("--dump-dom", file.string());
  EXPECT_EQ(dom.exit_code, 0) << dom.err;
  std::string text = element(dom.out, "<pre id=\"extents\">", "</pre>");
  if (text.empty()) return json();
  return json::parse(text.substr(text.find('>') + 1), nullptr, false);
}

/// The RGB(A) pixels of an 8-bit PNG (colour type 2 or 6), unfiltered; empty when unreadable.
struct Image {
  uint32_t width = 0;
  uint32_t height = 0;
  int channels = 0;
  std::vector<uint8_t> pixels;
};

uint32_t be32(const std::string& s, size_t at) {
  return (static_cast<uint32_t>(static_cast<uint8_t>(s[at])) << 24) |
         (static_cast<uint32_t>(static_cast<uint8_t>(s[at + 1])) << 16) |
         (static_cast<uint32_t>(static_cast<uint8_t>(s[at + 2])) << 8) |
         static_cast<uint32_t>(static_cast<uint8_t>(s[at + 3]));
}

uint8_t paeth(int a, int b, int c) {
  int p = a + b - c;
  int pa = std::abs(p - a);
  int pb = std::abs(p - b);
  int pc = std::abs(p - c);
  return static_cast<uint8_t>(pa <= pb && pa <= pc ? a : (pb <= pc ? b : c));
}

/// Undo the PNG filter of every scanline of `raw` into image.pixels.
bool unfilter(const std::vector<uint8_t>& raw, Image& image) {
  size_t stride = image.width * static_cast<size_t>(image.channels);
  if (raw.size() != (stride + 1) * image.height) return false;
  image.pixels.assign(stride * image.height, 0);
  size_t bpp = static_cast<size_t>(image.channels);
  for (size_t y = 0; y < image.height; ++y) {
    uint8_t filter = raw[y * (stride + 1)];
    const uint8_t* in = &raw[y * (stride + 1) + 1];
    uint8_t* row = &image.pixels[y * stride];
    const uint8_t* up = y > 0 ? row - stride : nullptr;
    for (size_t x = 0; x < stride; ++x) {
      int a = x >= bpp ? row[x - bpp] : 0;
      int b = up ? up[x] : 0;
      int c = up && x >= bpp ? up[x - bpp] : 0;
      int predictor = filter == 1   ? a
                      : filter == 2 ? b
                      : filter == 3 ? (a + b) / 2
                      : filter == 4 ? paeth(a, b, c)
                                    : 0;
      row[x] = static_cast<uint8_t>(in[x] + predictor);
    }
  }
  return true;
}

Image read_png(const std::string& bytes) {
  Image image;
  if (bytes.size() < 33 || bytes.compare(1, 3, "PNG") != 0) return image;
  std::string idat;
  for (size_t at = 8; at + 12 <= bytes.size();) {
    uint32_t length = be32(bytes, at);
    std::string type = bytes.substr(at + 4, 4);
    if (type == "IHDR") {
      image.width = be32(bytes, at + 8);
      image.height = be32(bytes, at + 12);
      int depth = static_cast<unsigned char>(bytes[at + 16]);
      int colour = static_cast<unsigned char>(bytes[at + 17]);
      image.channels = depth == 8 && colour == 6 ? 4 : (depth == 8 && colour == 2 ? 3 : 0);
    } else if (type == "IDAT") {
      idat += bytes.substr(at + 8, length);
    }
    at += 12 + length;
  }
  if (image.channels == 0) return image;
  std::vector<uint8_t> raw((image.width * static_cast<size_t>(image.channels) + 1) * image.height);
  uLongf size = raw.size();
  if (uncompress(raw.data(), &size, reinterpret_cast<const Bytef*>(idat.data()), idat.size()) !=
          Z_OK ||
      !unfilter(raw, image))
    image.pixels.clear();
  return image;
}

TEST(HtmlBrowser, ChromiumRendersTheReportAt800Pixels) {
  if (access(kChromium, X_OK) != 0)
    GTEST_SKIP() << kChromium << " is not installed (apt-get install chromium)";
  TempDir dir;
  std::string html = plan_html(dir, "--top 6");
  ASSERT_FALSE(html.empty());
  json extents = measure_in_chromium(dir, html);
  ASSERT_TRUE(extents.is_object()) << "no measurements in the DOM";
  // Nothing is wider than the 800 px window (the table scrolls inside its own box).
  EXPECT_LE(extents["page_width"].get<double>(), 800);
  for (const char* id : {"throughput-memory-chart", "step-time-chart", "memory-chart", "placement",
                         "decision-table"}) {
    ASSERT_TRUE(extents["charts"].contains(id)) << id;
    const json& b = extents["charts"][id];
    EXPECT_GT(b["width"].get<double>(), 300) << id;
    EXPECT_GT(b["height"].get<double>(), 100) << id;
    EXPECT_LE(b["right"].get<double>(), 800) << id;
  }
  // --top 6 and the recipe's own layout, which ranks below them.
  ASSERT_EQ(extents["points"].size(), 7u);
  const json& scatter = extents["charts"]["throughput-memory-chart"];
  for (const json& p : extents["points"]) {
    EXPECT_GT(p["width"].get<double>(), 4);
    EXPECT_GE(p["left"].get<double>(), scatter["left"].get<double>());
    EXPECT_LE(p["right"].get<double>(), scatter["right"].get<double>());
  }
  ASSERT_EQ(extents["err_bars"].size(), 7u);
  for (const json& bar : extents["err_bars"])
    EXPECT_GT(bar["height"].get<double>(), 2) << "an error bar is drawn";
  ASSERT_EQ(extents["bars"].size(), 7u);
  for (const json& bar : extents["bars"])
    EXPECT_GT(bar["width"].get<double>(), 50);

  // The screenshot of the page as it is, kept in the build directory to look at.
  fs::path png = fs::path(HCP_BINARY).parent_path() / "html_report_800px.png";
  fs::remove(png);
  fs::path page = dir.path / "report.html";
  CliResult shot =
      run_chromium("--hide-scrollbars --screenshot='" + png.string() + "'", page.string());
  ASSERT_EQ(shot.exit_code, 0) << shot.err;
  Image image = read_png(read_whole_file(png.string()));
  ASSERT_FALSE(image.pixels.empty()) << "unreadable PNG " << png;
  EXPECT_EQ(image.width, 800u);
  EXPECT_EQ(image.height, 1200u);
  size_t inked = 0;
  std::set<uint32_t> colours;
  for (size_t i = 0; i + 2 < image.pixels.size(); i += static_cast<size_t>(image.channels)) {
    uint32_t rgb = (uint32_t{image.pixels[i]} << 16) | (uint32_t{image.pixels[i + 1]} << 8) |
                   image.pixels[i + 2];
    if (rgb != 0xffffff) ++inked;
    if (colours.size() < 1000) colours.insert(rgb);
  }
  double total = static_cast<double>(image.width) * image.height;
  EXPECT_GT(static_cast<double>(inked) / total, 0.05) << "the screenshot is nearly blank";
  EXPECT_GT(colours.size(), 20u) << "the charts' colours are missing";
}

}  // namespace
}  // namespace hcp
