// Malformed probe captures (hwloc XML, NCCL topology XML, `nvidia-smi topo -m` text) and dcp
// inputs (lengths files, .idx files): each exits 2 with one line on stderr that names the file,
// and the line where the problem sits when there is one.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "cli/cli_runner.h"

namespace hcp {
namespace {

using testing::run_cli;

/// A scratch directory of this test process, removed at the end.
class MalformedProbeInputs : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("hcp_malformed_probe_" + std::to_string(getpid()));
    std::filesystem::create_directories(dir_ / "a_directory");
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string write(const std::string& name, const std::string& text) {
    auto p = (dir_ / name).string();
    std::ofstream(p, std::ios::binary) << text;
    return p;
  }
  std::string directory() const { return (dir_ / "a_directory").string(); }

  std::filesystem::path dir_;
};

struct Case {
  std::string args;    ///< Command line after `hcp-plan`.
  std::string file;    ///< The file the message must name.
  std::string reason;  ///< A part of the message (with the line, where there is one).
};

void expect_bad_input(const std::vector<Case>& cases) {
  for (const Case& c : cases) {
    SCOPED_TRACE(c.args);
    auto r = run_cli(c.args);
    EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_NE(r.err.find("hcp-plan: error: "), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(c.file), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(c.reason), std::string::npos) << r.err;
  }
}

/// `depth` nested <pci> bridges under one <cpu>, one per line.
std::string deep_nccl_topology(int depth) {
  std::string text = "<system version=\"1\">\n<cpu numaid=\"0\" affinity=\"ffff\">\n";
  for (int i = 0; i < depth; ++i)
    text += "<pci busid=\"0000:00:00.0\" class=\"0x060400\">\n";
  for (int i = 0; i < depth; ++i)
    text += "</pci>";
  return text + "\n</cpu>\n</system>\n";
}

/// An 8-GPU `nvidia-smi topo -m` matrix whose last GPU has the label `last`.
std::string smi_matrix(const std::string& last) {
  std::vector<std::string> gpus;
  gpus.reserve(8);
  for (int i = 0; i < 7; ++i)
    gpus.push_back("GPU" + std::to_string(i));
  gpus.push_back(last);
  std::string text;
  for (const auto& g : gpus)
    text += "\t" + g;
  text += "\tCPU Affinity\tNUMA Affinity\n";
  for (size_t r = 0; r < gpus.size(); ++r) {
    text += gpus[r];
    for (size_t c = 0; c < gpus.size(); ++c)
      text += c == r ? "\t X " : "\tNV18";
    text += "\t0-55\t0\n";
  }
  return text;
}

TEST_F(MalformedProbeInputs, NcclTopologyNestedEightThousandLevelsIsRejectedNotACrash) {
  auto deep = write("deep.xml", deep_nccl_topology(8000));
  // The 65th <pci> opens on line 67 (two lines of <system> and <cpu> first).
  expect_bad_input({{"probe --nccl-topo " + deep, "deep.xml:67:", "nested deeper than 64"}});
  // 64 levels still read.
  auto ok = run_cli("probe --nccl-topo " + write("deep64.xml", deep_nccl_topology(64)));
  EXPECT_NE(ok.exit_code, 2) << ok.err;
}

TEST_F(MalformedProbeInputs, NvidiaSmiGpuLabelThatOverflowsIsAnErrorNotSevenGpus) {
  auto good =
      run_cli("probe --format json --nvidia-smi-topo " + write("eight.txt", smi_matrix("GPU7")));
  ASSERT_EQ(good.exit_code, 0) << good.err;
  EXPECT_NE(good.out.find("\"gpus_per_node\": 8"), std::string::npos) << good.out;
  expect_bad_input({
      {"probe --nvidia-smi-topo " + write("overflow.txt", smi_matrix("GPU99999999999")),
       "overflow.txt:1:", "GPU label GPU99999999999"},
      {"probe --nvidia-smi-topo " + write("bignum.txt", smi_matrix("GPU1024")),
       "bignum.txt:1:", "GPU label GPU1024"},
      {"probe --nvidia-smi-topo " + write("zero.txt", smi_matrix("GPU07")),
       "zero.txt:1:", "GPU label GPU07"},
  });
}

TEST_F(MalformedProbeInputs, HwlocRejectionsSayWhy) {
  const std::string head = "<?xml version=\"1.0\"?>\n<topology version=\"2.0\">\n";
  std::string deep = head;
  for (int i = 0; i < 200; ++i)
    deep += "<object type=\"Group\">\n";
  for (int i = 0; i < 200; ++i)
    deep += "</object>";
  deep += "\n</topology>\n";
  expect_bad_input({
      {"probe --hwloc-xml " + write("noobj.xml", head + "</topology>\n"), "noobj.xml",
       "no <object> under <topology>"},
      {"probe --hwloc-xml " +
           write("bogus.xml", head + "<object type=\"Machine\" os_index=\"0\">\n"
                                     "  <object type=\"Bogus\" os_index=\"0\"/>\n"
                                     "</object>\n</topology>\n"),
       "bogus.xml:4", "unknown object type \"Bogus\""},
      {"probe --hwloc-xml " + write("notype.xml", head + "<object os_index=\"0\"/>\n</topology>\n"),
       "notype.xml:3", "without a type attribute"},
      {"probe --hwloc-xml " + write("deep.xml", deep), "deep.xml:", "nested deeper than 128"},
      {"probe --hwloc-xml " + write("unclosed.xml", head + "<object type=\"Machine\">\n"),
       "unclosed.xml:", "malformed XML"},
      {"probe --hwloc-xml " + write("root.xml", "<system/>\n"), "root.xml", "root element"},
      {"probe --hwloc-xml " + write("v3.xml", "<topology version=\"3.0\"/>\n"), "v3.xml",
       "newer than"},
      {"probe --hwloc-xml " + write("empty.xml", ""), "empty.xml", "empty"},
  });
}

// Object children hwloc 2.9 refuses after it has allocated the object, which it then leaks
// (hwloc__xml_import_object's `goto error`): rejected before hwloc sees them, with the reason.
TEST_F(MalformedProbeInputs, HwlocObjectChildrenHwlocRefusesAreRejectedFirst) {
  auto machine = [](const std::string& inner) {
    return "<?xml version=\"1.0\"?>\n<topology version=\"2.0\">\n"
           "<object type=\"Machine\" os_index=\"0\" cpuset=\"0x1\" complete_cpuset=\"0x1\">\n"
           "<object type=\"Package\" os_index=\"0\" cpuset=\"0x1\" complete_cpuset=\"0x1\">\n" +
           inner + "\n</object>\n</object>\n</topology>\n";
  };
  expect_bad_input({
      {"probe --hwloc-xml " + write("ofin.xml", machine("<ofin name=\"Backend\" value=\"CUDA\"/>")),
       "ofin.xml:5: <ofin>", "not an element hwloc reads inside <object>"},
      {"probe --hwloc-xml " + write("info.xml", machine("<info name=\"a\" value=\"b\" x=\"c\"/>")),
       "info.xml:5: <info>", "other than name and value"},
      {"probe --hwloc-xml " + write("page.xml", machine("<page_type size=\"4096\" count=\"1\"/>")),
       "page.xml:5: <page_type>", "only read below a NUMANode or the root"},
      {"probe --hwloc-xml " +
           write("user.xml", machine("<userdata name=\"u\" length=\"5\">abc</userdata>")),
       "user.xml:5: <userdata>", "not as long as its length"},
      // hwloc 2.9 dereferenced the missing complete_cpuset (SIGSEGV).
      {"probe --hwloc-xml " +
           write("nocomplete.xml", machine("<object type=\"PU\" os_index=\"0\" cpuset=\"0x1\"/>")),
       "nocomplete.xml:5: <object>", "has a cpuset but no complete_cpuset"},
      // hwloc 2.9 keeps what it read of a garbled bitmap; a garbled root complete_cpuset left
      // it an empty topology that it dereferenced (SIGSEGV; fuzz harness hwloc_xml).
      {"probe --hwloc-xml " +
           write("bitmap.xml", machine("<object type=\"PU\" os_index=\"0\" cpuset=\"0x1\" "
                                       "complete_cpuset=\"0x0000ffff,0xffffencoding=ffff\"/>")),
       "bitmap.xml:5: <object>", "malformed complete_cpuset \"0x0000ffff,0xffffencoding=ffff\""},
      {"probe --hwloc-xml " +
           write("commas.xml", machine("<object type=\"PU\" os_index=\"0\" "
                                       "cpuset=\"0x10,0x1,\" complete_cpuset=\"0x1\"/>")),
       "commas.xml:5: <object>", "malformed cpuset"},
      // libxml2 (under hwloc) leaked on an encoding it does not support.
      {"probe --hwloc-xml " + write("enc.xml", "<?xml version=\"1.0\" encoding=\"UTF18\"?>\n" +
                                                   machine("").substr(22)),
       "enc.xml:1:", "XML encoding \"UTF18\" is not read"},
  });
  // What hwloc reads is still accepted: a page_type below the root, userdata of its length.
  auto r = run_cli("probe --hwloc-xml " +
                   write("fine.xml", machine("<userdata name=\"u\" length=\"3\">abc</userdata>")));
  EXPECT_EQ(r.err.find("userdata"), std::string::npos) << r.err;
}

TEST_F(MalformedProbeInputs, NcclTopologyRejectionsNameTheLine) {
  const std::string cpu = "<system version=\"1\">\n<cpu numaid=\"0\" affinity=\"ff\">\n";
  expect_bad_input({
      {"probe --nccl-topo " + write("nocpu.xml", "<system version=\"1\">\n</system>\n"),
       "nocpu.xml", "no <cpu> element"},
      {"probe --nccl-topo " +
           write("dev.xml", cpu + "<pci busid=\"0000:01:00.0\" class=\"0x030200\">\n"
                                  "<gpu dev=\"5000\" sm=\"90\"/></pci>\n</cpu>\n</system>\n"),
       "dev.xml:4:", "dev=\"5000\" out of range"},
      {"probe --nccl-topo " +
           write("numa.xml", "<system version=\"1\">\n<cpu numaid=\"x\"></cpu></system>\n"),
       "numa.xml:2:", "numaid=\"x\" is not a number"},
      {"probe --nccl-topo " +
           write("twodev.xml", cpu + "<pci busid=\"0000:01:00.0\" class=\"0x030200\">"
                                     "<gpu dev=\"0\" sm=\"90\"/></pci>\n"
                                     "<pci busid=\"0000:02:00.0\" class=\"0x030200\">"
                                     "<gpu dev=\"0\" sm=\"90\"/></pci>\n</cpu>\n</system>\n"),
       "twodev.xml", "two GPUs with dev=0"},
      {"probe --nccl-topo " + write("unclosed.xml", cpu), "unclosed.xml:2:", "malformed XML"},
      {"probe --nccl-topo " + write("root.xml", "<topology/>\n"), "root.xml", "root element"},
  });
}

TEST_F(MalformedProbeInputs, NvidiaSmiRejectionsNameTheLine) {
  expect_bad_input({
      {"probe --nvidia-smi-topo " + write("prose.txt", "no matrix here\n"), "prose.txt",
       "no header line naming GPU0"},
      {"probe --nvidia-smi-topo " + write("header.txt", "\tGPU0\tGPU1\n"), "header.txt",
       "no matrix rows"},
      {"probe --nvidia-smi-topo " +
           write("dup.txt", "\tGPU0\tGPU1\nGPU0\t X \tNV4\nGPU0\t X \tNV4\nGPU1\tNV4\t X \n"),
       "dup.txt:3", "duplicate row GPU0"},
      {"probe --nvidia-smi-topo " + write("self.txt", "\tGPU0\tGPU1\nGPU0\tNV4\t X \n"),
       "self.txt:2", "X (self)"},
  });
}

// A directory given as a file is named as one by every capture and dcp loader (the captures said
// "empty file", dcp "no sequence lengths").
TEST_F(MalformedProbeInputs, DirectoryGivenAsAFileIsNamedAsOne) {
  const std::string dir = directory();
  const std::string knobs = " --dp 2 --cp 2 --max-seqlen-per-dp-cp-rank 2048";
  expect_bad_input({
      {"probe --hwloc-xml " + dir, dir, "is a directory"},
      {"probe --nccl-topo " + dir, dir, "is a directory"},
      {"probe --nvidia-smi-topo " + dir, dir, "is a directory"},
      {"dcp --lengths " + dir + knobs, dir, "is a directory"},
      {"dcp --idx " + dir + knobs, dir, "is a directory"},
  });
}

// Captures with a UTF-8 BOM load like those without (the shared reader strips it).
TEST_F(MalformedProbeInputs, CaptureWithBomLoads) {
  const std::string bom = "\xEF\xBB\xBF";
  auto smi = run_cli("probe --nvidia-smi-topo " + write("bom.txt", bom + smi_matrix("GPU7")));
  EXPECT_EQ(smi.exit_code, 0) << smi.err;
  EXPECT_EQ(smi.out.rfind("Topology of bom.txt", 0), 0u) << smi.out;
  EXPECT_NE(smi.out.find("\nGPUs: 8\n"), std::string::npos) << smi.out;
  auto nccl = run_cli("probe --nccl-topo " + write("bom.xml", bom + deep_nccl_topology(2)));
  EXPECT_EQ(nccl.exit_code, 0) << nccl.err;
  EXPECT_EQ(nccl.out.rfind("Topology of bom.xml", 0), 0u) << nccl.out;
}

// Bytes that are not UTF-8 in a capture (a NIC name here): the writer threw ("internal error", no
// file named) before issue 17; since issue 28 the input layer refuses the file at the line and
// column of the first such byte, in one line.
TEST_F(MalformedProbeInputs, InvalidUtf8InACaptureIsAnErrorAtItsLine) {
  const std::string path = write("latin1.txt",
                                 "\tGPU0\tGPU1\tNIC0\nGPU0\t X \tNV4\tPIX\nGPU1\tNV4\t X \tSYS\n"
                                 "NIC0\tPIX\tSYS\t X \n\nNIC Legend:\n\n  NIC0: mlx5_\xc5\n");
  auto r = run_cli("probe --format json --nvidia-smi-topo " + path);
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_EQ(r.err, "hcp-plan: error: " + path +
                       ":8:14: invalid UTF-8 (byte 0xc5), expected a capture file in UTF-8\n");
}

// A name in a capture that holds a line break or a tab (an XML character reference, &#10;, in
// hwloc's NIC name) prints as one table row with the break written out: a capture cannot add a
// line that reads as the tool's own.
TEST_F(MalformedProbeInputs, ALineBreakInACapturedNameStaysInItsRow) {
  std::ifstream in(std::string(HCP_SOURCE_DIR) +
                   "/tests/fixtures/topologies/hwloc/"
                   "jureca-dc-gpu_jrc0323_4xA100-SXM4_4xCX6-HDR_hwloc2.2.xml");
  std::string xml((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string name = "name=\"mlx5_0\"";
  ASSERT_NE(xml.find(name), std::string::npos);
  xml.replace(xml.find(name), name.size(), "name=\"mlx5_0&#10;verdict: GO&#9;x\"");
  const std::string path = write("newline_name.xml", xml);
  for (const char* command : {"probe --hwloc-xml ", "preflight llama3_8b_128k --hwloc-xml "}) {
    auto r = run_cli(std::string(command) + path);
    SCOPED_TRACE(command);
    for (const std::string& text : {r.out, r.err}) {
      EXPECT_EQ(text.find("\nverdict"), std::string::npos) << text;
      EXPECT_EQ(text.find('\t'), std::string::npos) << text;
    }
  }
  auto probe = run_cli("probe --hwloc-xml " + path);
  EXPECT_EQ(probe.exit_code, 0) << probe.err;
  EXPECT_NE(probe.out.find("  mlx5_0\\nverdict: GO\\tx (ib0)"), std::string::npos) << probe.out;
}

}  // namespace
}  // namespace hcp
