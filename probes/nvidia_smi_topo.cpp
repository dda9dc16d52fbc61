// Reader for the text of `nvidia-smi topo -m` (and `-mp`): device matrix, affinity columns,
// legend and NIC legend. Tab or space separated; truncated captures give what they hold.
#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "hcp/text_util.h"
#include "topology_internal.h"

namespace hcp {
namespace {

using probe_detail::kMaxNvlinksPerPair;

std::vector<std::string> split_ws(const std::string& line) {
  std::vector<std::string> out;
  std::istringstream in(line);
  std::string tok;
  while (in >> tok)
    out.push_back(tok);
  return out;
}

/// One matrix cell: X (self), NV# (NVLink count) or a PCIe path level.
struct Cell {
  bool self = false;
  int nvlinks = 0;  ///< > 0 for NV#.
  Affinity level = Affinity::kUnknown;
};

bool all_digits(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return std::isdigit(c); });
}

/// Parse a cell token; nullopt when the token is not a cell. `error` is set for NV# out of range.
std::optional<Cell> parse_cell(const std::string& tok, std::string& error) {
  Cell c;
  if (tok == "X") {
    c.self = true;
    return c;
  }
  if (tok.size() > 2 && tok.compare(0, 2, "NV") == 0 && all_digits(tok.substr(2))) {
    long n = tok.size() > 6 ? 1000000 : std::stol(tok.substr(2));
    if (n < 1 || n > kMaxNvlinksPerPair) {
      error = "NVLink count " + tok + " out of range NV1..NV" + std::to_string(kMaxNvlinksPerPair);
      return std::nullopt;
    }
    c.nvlinks = static_cast<int>(n);
    return c;
  }
  if (tok == "PIX" || tok == "PXB" || tok == "PSB") {
    c.level = Affinity::kSameSwitch;
  } else if (tok == "PHB") {
    c.level = Affinity::kHostBridge;
  } else if (tok == "NODE") {
    c.level = Affinity::kSameNuma;
  } else if (tok == "SYS" || tok == "SOC") {
    c.level = Affinity::kCrossSocket;
  } else {
    return std::nullopt;
  }
  return c;
}

bool is_cell(const std::string& tok) {
  std::string ignored;
  return parse_cell(tok, ignored).has_value() || !ignored.empty();
}

/// Highest GPU number read from a label (the NCCL reader's <gpu dev> bound too).
constexpr int kMaxGpuNumber = 1023;

/// "GPU" followed by digits: a GPU column or row label, whatever the number.
bool gpu_like(const std::string& label) {
  return label.size() > 3 && label.compare(0, 3, "GPU") == 0 && all_digits(label.substr(3));
}

/// The number of a GPU label "GPU<n>" with n in 0..kMaxGpuNumber written without leading zeros
/// (as nvidia-smi prints it); nullopt otherwise (labels_checked() rejects the other GPU labels).
std::optional<int> gpu_number(const std::string& label) {
  if (!gpu_like(label) || label.size() > 7 || (label.size() > 4 && label[3] == '0'))
    return std::nullopt;
  int n = std::stoi(label.substr(3));
  if (n > kMaxGpuNumber) return std::nullopt;
  return n;
}

enum class AffinityColumn { kCpu, kNuma, kGpuNuma };

/// Header: device column names, then the affinity columns in order.
struct Header {
  std::vector<std::string> devices;
  std::vector<AffinityColumn> affinity;
  int line = 0;
};

std::optional<Header> parse_header(const std::vector<std::string>& toks, int line) {
  if (toks.empty() || !gpu_like(toks[0])) return std::nullopt;
  if (toks.size() > 1 && is_cell(toks[1])) return std::nullopt;  // a row, not the header
  Header h;
  h.line = line;
  size_t i = 0;
  for (; i < toks.size(); ++i) {
    const std::string& t = toks[i];
    if (t == "CPU" || t == "NUMA" || (t == "GPU" && i + 1 < toks.size() && toks[i + 1] == "NUMA"))
      break;
    if (is_cell(t)) return std::nullopt;
    h.devices.push_back(t);
  }
  for (; i < toks.size(); ++i) {
    if (toks[i] == "CPU") h.affinity.push_back(AffinityColumn::kCpu);
    if (toks[i] == "NUMA" && (i == 0 || toks[i - 1] != "GPU"))
      h.affinity.push_back(AffinityColumn::kNuma);
    if (toks[i] == "GPU") h.affinity.push_back(AffinityColumn::kGpuNuma);
  }
  return h;
}

struct Row {
  std::string label;
  std::vector<Cell> cells;            ///< One per header device column.
  std::vector<std::string> affinity;  ///< Right-aligned onto the header's affinity columns.
  int line = 0;
};

struct Parsed {
  bool pcie_only = false;  ///< `nvidia-smi topo -mp`: PCIe paths only, NVLink not shown.
  bool legend_has_nvlink = false;
  bool legend_seen = false;
  Header header;
  std::vector<Row> rows;
  std::map<std::string, std::string> nic_legend;  ///< "NIC0" -> "mlx5_0".
  std::vector<std::string> warnings;
};

std::string where(const std::string& source, int line) {
  return source + ":" + std::to_string(line);
}

/// Parse one matrix row. Returns an error for wrong sizes; `truncated` when the row is the
/// file's last line and stops short.
Result<Row> parse_row(const std::vector<std::string>& toks, const Header& h, int line,
                      bool last_line, bool& truncated, const std::string& source) {
  Row row;
  row.label = toks[0];
  row.line = line;
  size_t ncols = h.devices.size();
  size_t i = 1;
  for (; i < toks.size() && row.cells.size() < ncols; ++i) {
    std::string error;
    auto cell = parse_cell(toks[i], error);
    if (!error.empty()) return Error{where(source, line) + ": " + error, {}, {}};
    if (!cell) break;
    row.cells.push_back(*cell);
  }
  if (row.cells.size() < ncols) {
    if (last_line && i == toks.size()) {
      truncated = true;
      return row;
    }
    std::string what = i < toks.size()
                           ? "unknown link type '" + toks[i] + "' in row " + row.label
                           : "row " + row.label + " has " + std::to_string(row.cells.size()) +
                                 " entries, the header names " + std::to_string(ncols) + " devices";
    return Error{where(source, line) + ": " + what, {}, {}};
  }
  if (i < toks.size() && is_cell(toks[i])) {
    return Error{where(source, line) + ": row " + row.label + " has more than the " +
                     std::to_string(ncols) + " entries the header names",
                 {},
                 {}};
  }
  row.affinity.assign(toks.begin() + static_cast<long>(i), toks.end());
  if (row.affinity.size() > h.affinity.size()) {
    return Error{where(source, line) + ": row " + row.label + " has " +
                     std::to_string(row.affinity.size()) + " values after the matrix, the header " +
                     "names " + std::to_string(h.affinity.size()) + " affinity columns",
                 {},
                 {}};
  }
  // Fewer values than columns: an empty column (Slurm cgroups leave CPU Affinity empty) sits on
  // the left, so align the values to the right.
  row.affinity.insert(row.affinity.begin(), h.affinity.size() - row.affinity.size(), "");
  return row;
}

bool is_row_label(const std::string& tok, const Header& h) {
  if (gpu_like(tok)) return true;
  if (std::find(h.devices.begin(), h.devices.end(), tok) != h.devices.end()) return true;
  if (tok.size() > 3 && tok.compare(0, 3, "NIC") == 0 && all_digits(tok.substr(3))) return true;
  return tok.find('_') != std::string::npos && tok.back() != ':';  // mlx5_0, hfi1_0
}

Result<Parsed> scan(const std::string& text, const std::string& source) {
  Parsed p;
  std::vector<std::string> lines;
  {
    std::istringstream in(text);
    std::string l;
    while (std::getline(in, l)) {
      if (!l.empty() && l.back() == '\r') l.pop_back();
      lines.push_back(l);
    }
  }
  int last_nonblank = -1;
  for (int i = 0; i < static_cast<int>(lines.size()); ++i)
    if (!split_ws(lines[i]).empty()) last_nonblank = i;

  bool have_header = false, rows_done = false, in_nic_legend = false;
  for (int i = 0; i < static_cast<int>(lines.size()); ++i) {
    const std::string& l = lines[i];
    if (!l.empty() && l[0] == '#') continue;
    if (l.find("topo -mp") != std::string::npos || l.find("topo -p2p") != std::string::npos ||
        l.find("--matrix_pci") != std::string::npos)
      p.pcie_only = true;
    auto toks = split_ws(l);
    if (p.legend_seen && !toks.empty() && toks[0].rfind("NV#", 0) == 0) p.legend_has_nvlink = true;
    if (!have_header) {
      if (auto h = parse_header(toks, i + 1)) {
        p.header = *h;
        have_header = true;
      }
      continue;
    }
    if (toks.empty()) {
      if (!p.rows.empty()) rows_done = true;
      continue;
    }
    if (toks[0] == "Legend:") {
      rows_done = true;
      p.legend_seen = true;
      continue;
    }
    if (toks[0] == "NIC" && toks.size() > 1 && toks[1] == "Legend:") {
      rows_done = true;
      in_nic_legend = true;
      continue;
    }
    if (in_nic_legend && toks.size() >= 2 && toks[0].back() == ':') {
      p.nic_legend[toks[0].substr(0, toks[0].size() - 1)] = toks[1];
      continue;
    }
    if (rows_done || !is_row_label(toks[0], p.header)) {
      rows_done = true;
      continue;
    }
    bool truncated = false;
    auto row = parse_row(toks, p.header, i + 1, i == last_nonblank, truncated, source);
    if (!row) return row.error();
    if (truncated) {
      p.warnings.push_back(where(source, i + 1) + ": row " + row->label +
                           " is cut short (capture truncated); ignored");
      continue;
    }
    p.rows.push_back(*row);
  }
  if (!have_header)
    return Error{source + ": not an nvidia-smi topo -m text: no header line naming GPU0", {}, {}};
  if (p.rows.empty())
    return Error{source + ": nvidia-smi topo header found but no matrix rows", {}, {}};
  return p;
}

/// Device list: header columns then row labels not in the header (`topo -mp` subsets).
std::vector<std::string> device_names(const Parsed& p) {
  std::vector<std::string> names = p.header.devices;
  for (const auto& r : p.rows)
    if (std::find(names.begin(), names.end(), r.label) == names.end()) names.push_back(r.label);
  return names;
}

NicKind kind_from_name(const std::string& name) {
  if (name.rfind("rdmap", 0) == 0 || name.rfind("efa", 0) == 0) return NicKind::kEfa;
  if (name.rfind("eth", 0) == 0 || name.rfind("en", 0) == 0) return NicKind::kEthernet;
  return NicKind::kUnknown;  // mlx5_N may be InfiniBand or RoCE; nvidia-smi does not say.
}

std::optional<int> single_int(const std::string& s) {
  if (!all_digits(s) || s.size() > 6) return std::nullopt;
  return std::stoi(s);
}

void apply_affinity(Gpu& gpu, const Row& row, const Header& h, const std::string& source,
                    std::vector<std::string>& warnings) {
  for (size_t k = 0; k < h.affinity.size(); ++k) {
    const std::string& v = row.affinity[k];
    if (h.affinity[k] == AffinityColumn::kCpu) gpu.cpu_affinity = v;
    if (h.affinity[k] != AffinityColumn::kNuma || v.empty()) continue;
    gpu.numa_affinity = v;
    if (auto n = single_int(v)) {
      if (*n > probe_detail::kMaxNumaNode) {
        warnings.push_back(where(source, row.line) + ": NUMA node " + v + " ignored");
      } else {
        gpu.numa_node = *n;
      }
    }
  }
}

/// nvidia-smi prints NV# between every pair on NVSwitch systems. A GPU whose NV# sum over peers
/// exceeds what one GPU has (18 links) must reach them through a switch.
bool looks_switched(const std::vector<int>& row) {
  int sum = 0, peers = 0, first = 0;
  bool equal = true;
  for (int v : row) {
    if (v <= 0) continue;
    sum += v;
    ++peers;
    if (first == 0) first = v;
    equal = equal && v == first;
  }
  return peers >= 2 && equal && sum > 18;
}

}  // namespace

namespace {

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& i : items)
    out += (out.empty() ? "" : ", ") + i;
  return out;
}

/// The topology being built and where each matrix label landed in it.
/// Every GPU label is GPU<n> with n in range: a label such as "GPU99999999999" is an error, not
/// a device of unknown kind (it would drop a GPU from the count).
Status labels_checked(const Parsed& p, const std::string& source) {
  auto check = [&](const std::string& label, int line) -> Status {
    if (gpu_like(label) && !gpu_number(label)) {
      return Error{where(source, line) + ": GPU label " + label + " is not GPU0..GPU" +
                       std::to_string(kMaxGpuNumber) + " as nvidia-smi prints it",
                   {},
                   {}};
    }
    return Ok{};
  };
  for (const auto& d : p.header.devices)
    if (auto s = check(d, p.header.line); !s) return s;
  for (const auto& r : p.rows)
    if (auto s = check(r.label, r.line); !s) return s;
  return Ok{};
}

struct Build {
  Topology topo;
  std::map<std::string, int> gpu_pos, nic_pos;
};

/// GPUs (sorted by number) and NICs (named from the NIC legend when it has them).
void add_devices(const Parsed& p, const std::vector<std::string>& names, const std::string& source,
                 Build& b) {
  std::vector<std::pair<int, std::string>> gpu_order;
  for (const auto& n : names)
    if (auto g = gpu_number(n)) gpu_order.emplace_back(*g, n);
  std::sort(gpu_order.begin(), gpu_order.end());
  for (const auto& [idx, label] : gpu_order) {
    Gpu g;
    g.index = idx;
    b.gpu_pos[label] = static_cast<int>(b.topo.gpus.size());
    b.topo.gpus.push_back(g);
  }
  std::vector<std::string> unnamed;
  for (const auto& n : names) {
    if (gpu_number(n)) continue;
    Nic nic;
    auto legend = p.nic_legend.find(n);
    bool numbered = n.size() > 3 && n.compare(0, 3, "NIC") == 0;
    nic.name = legend != p.nic_legend.end() ? legend->second : n;
    if (numbered && legend == p.nic_legend.end()) unnamed.push_back(n);
    nic.kind = kind_from_name(nic.name);
    b.nic_pos[n] = static_cast<int>(b.topo.nics.size());
    b.topo.nics.push_back(nic);
  }
  if (!unnamed.empty())
    b.topo.warnings.push_back(source + ": NIC legend missing for " + join(unnamed) +
                              "; their device names are unknown");
  probe_detail::resize_gpu_tables(b.topo);
}

/// Put every cell into the NVLink matrix or a NIC's affinity row; check X sits on the diagonal.
Status fill_cells(const Parsed& p, bool pcie_only, const std::string& source, Build& b) {
  auto& m = b.topo.nvlink.matrix;
  std::set<std::string> have_row;
  for (const auto& row : p.rows) {
    if (!have_row.insert(row.label).second)
      return Error{where(source, row.line) + ": duplicate row " + row.label, {}, {}};
    auto rg = b.gpu_pos.find(row.label);
    for (size_t c = 0; c < row.cells.size(); ++c) {
      const std::string& col = p.header.devices[c];
      const Cell& cell = row.cells[c];
      if (cell.self != (col == row.label)) {
        return Error{where(source, row.line) + ": row " + row.label +
                         (cell.self ? " has X (self) in column " + col
                                    : " lacks X (self) in its own column"),
                     {},
                     {}};
      }
      if (cell.self) continue;
      auto cg = b.gpu_pos.find(col);
      if (rg != b.gpu_pos.end() && cg != b.gpu_pos.end()) {
        if (!pcie_only) m[rg->second][cg->second] = cell.nvlinks;
      } else if (rg != b.gpu_pos.end() && b.nic_pos.count(col)) {
        b.topo.nics[b.nic_pos[col]].gpu_affinity[rg->second] = cell.level;
      } else if (cg != b.gpu_pos.end() && b.nic_pos.count(row.label)) {
        Affinity& a = b.topo.nics[b.nic_pos[row.label]].gpu_affinity[cg->second];
        if (a == Affinity::kUnknown) a = cell.level;
      }
    }
    if (rg != b.gpu_pos.end())
      apply_affinity(b.topo.gpus[rg->second], row, p.header, source, b.topo.warnings);
  }
  // A link seen from one end is the same link seen from the other: a missing row's cell takes
  // the transposed cell (disagreeing pairs are left for the TOPO001 finding).
  size_t n = m.size();
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j < n; ++j)
      if (m[i][j] < 0 && m[j][i] >= 0) m[i][j] = m[j][i];
  return Ok{};
}

/// Warn about header devices without a row, and rows without a column (`-mp` subsets).
void warn_incomplete(const Parsed& p, const std::vector<std::string>& names,
                     const std::string& source, Topology& topo) {
  std::set<std::string> have_row;
  for (const auto& r : p.rows)
    have_row.insert(r.label);
  std::vector<std::string> missing, row_only;
  for (const auto& d : names)
    if (!have_row.count(d)) missing.push_back(d);
  for (const auto& r : p.rows)
    if (std::find(p.header.devices.begin(), p.header.devices.end(), r.label) ==
        p.header.devices.end())
      row_only.push_back(r.label);
  if (!missing.empty())
    topo.warnings.push_back(source + ": no rows for " + join(missing) +
                            " (capture truncated?): their links among themselves and NUMA " +
                            "affinity are unknown");
  if (!row_only.empty())
    topo.warnings.push_back(source + ": " + join(row_only) + " appear as rows but not as " +
                            "columns (a subset of the matrix): pairs among them are unknown");
}

/// NVSwitch or direct NVLink: switch_links per GPU (0 for direct, -1 when its row is unknown).
void classify_nvlink(NvlinkInfo& nv) {
  const auto& m = nv.matrix;
  auto full = [](const std::vector<int>& row) {
    return std::none_of(row.begin(), row.end(), [](int v) { return v < 0; });
  };
  bool switched = false;
  for (const auto& row : m)
    switched = switched || (full(row) && looks_switched(row));
  for (size_t i = 0; i < m.size(); ++i) {
    int most = *std::max_element(m[i].begin(), m[i].end());
    if (switched && most > 0) {
      nv.switch_links[i] = most;
    } else if (full(m[i])) {
      nv.switch_links[i] = 0;
    }
  }
  nv.via_switch = switched;
}

}  // namespace

Result<Topology> parse_nvidia_smi_topo(const std::string& text, const std::string& source) {
  // nvidia-smi underlines the header (ESC[4m ... ESC[0m) even when its output goes to a file; a
  // lone or broken ESC stays and check_text rejects it.
  const std::string plain = without_terminal_escapes(text);
  auto ok = probe_detail::check_text(plain, source, "nvidia-smi topo -m text");
  if (!ok) return ok.error();
  auto parsed = scan(plain, source);
  if (!parsed) return parsed.error();
  const Parsed& p = *parsed;
  if (auto labels = labels_checked(p, source); !labels) return labels.error();

  Build b;
  b.topo.sources.push_back("nvidia-smi:" + source);
  b.topo.host = probe_detail::base_name(source);
  b.topo.warnings = p.warnings;
  std::vector<std::string> names = device_names(p);
  add_devices(p, names, source, b);
  if (b.topo.gpus.empty()) return Error{source + ": no GPU in the nvidia-smi matrix", {}, {}};
  bool any_nvlink = false;
  for (const auto& row : p.rows)
    for (const auto& c : row.cells)
      any_nvlink = any_nvlink || c.nvlinks > 0;
  // `topo -mp` prints PCIe paths only: no NV# there does not mean no NVLink.
  bool pcie_only = !any_nvlink && (p.pcie_only || (p.legend_seen && !p.legend_has_nvlink));
  auto filled = fill_cells(p, pcie_only, source, b);
  if (!filled) return filled.error();
  warn_incomplete(p, names, source, b.topo);
  if (pcie_only) {
    b.topo.notes.push_back(source + ": PCIe-only view (nvidia-smi topo -mp): NVLink not shown");
  } else {
    classify_nvlink(b.topo.nvlink);
  }
  finalize_topology(b.topo);
  return b.topo;
}

Result<Topology> load_nvidia_smi_topo(const std::string& path) {
  auto text = probe_detail::read_text_file(path);
  if (!text) return text.error();
  return parse_nvidia_smi_topo(*text, path);
}

}  // namespace hcp
