// JSON forms of `groups` and `simulate`, and simulate's text (see layout_report.h).
#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <span>
#include <sstream>
#include <string>
#include <vector>

#include "hcp/cp_volume.h"
#include "hcp/json_io.h"
#include "hcp/layout_report.h"
#include "hcp/rules.h"
#include "hcp/text_table.h"
#include "hcp/text_util.h"

namespace hcp {
namespace {

using ordered_json = nlohmann::ordered_json;

/// JSON with one line per group kind (and per placement entry), so large layouts stay readable
/// with line tools: objects and lists of lists at the top level are split one entry per line.
std::string dump_by_kind(const ordered_json& doc) {
  std::string out = "{";
  bool first = true;
  for (const auto& [key, value] : doc.items()) {
    out += first ? "\n" : ",\n";
    first = false;
    out += " " + json_dump(ordered_json(key)) + ": ";
    const bool split =
        !value.empty() && (value.is_object() || (value.is_array() && value.front().is_array()));
    if (!split) {
      out += json_dump(value);
      continue;
    }
    out += value.is_object() ? "{" : "[";
    bool first_item = true;
    for (const auto& [k, v] : value.items()) {
      out += first_item ? "\n  " : ",\n  ";
      first_item = false;
      if (value.is_object()) out += json_dump(ordered_json(k)) + ": ";
      out += json_dump(v);
    }
    out += value.is_object() ? "\n }" : "\n ]";
  }
  return out + "\n}\n";
}

ordered_json placement_json(const GroupPlacement& p) {
  return {{"group_size", p.group_size},
          {"num_groups", p.num_groups},
          {"cross_node_groups", p.cross_node_groups},
          {"max_nodes_spanned", p.max_nodes_spanned},
          {"cross_domain_groups", p.cross_domain_groups},
          {"max_domains_spanned", p.max_domains_spanned}};
}

ordered_json per_rank(const std::vector<int64_t>& values) {
  ordered_json j = ordered_json::object();
  for (size_t r = 0; r < values.size(); ++r)
    j[std::to_string(r)] = values[r];
  return j;
}

std::string sci(double x) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.2e", x);
  return buffer;
}

std::string list_text(const std::vector<int>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i)
    s += (i ? "," : "") + std::to_string(v[i]);
  return s + "]";
}

std::string groups_text(const std::vector<std::vector<int>>& groups) {
  std::string s;
  for (const auto& g : groups)
    s += (s.empty() ? "" : " ") + list_text(g);
  return s;
}

}  // namespace

std::string format_groups_json(const RankGroups& g, const NodeShape& shape,
                               const std::string& cluster,
                               const std::vector<GroupsWarning>& warnings) {
  ordered_json doc;
  doc["valid"] = true;
  doc["world_size"] = g.config.world_size;
  doc["order"] = g.config.layout.order;
  doc["tp"] = g.config.layout.tp;
  doc["cp"] = g.config.layout.cp;
  doc["pp"] = g.config.layout.pp;
  doc["dp"] = g.dp;
  doc["ep"] = g.config.layout.ep;
  doc["etp"] = g.etp;
  doc["expert_dp"] = g.expert_dp;
  doc["hierarchical_context_parallel_sizes"] = g.config.layout.hcp;
  doc["gpus_per_node"] = shape.gpus_per_node;
  doc["nvlink_domain"] = shape.nvlink_domain;
  if (!cluster.empty()) doc["cluster"] = cluster;
  ordered_json groups = ordered_json::object();
  ordered_json placement = ordered_json::object();
  for (const NamedGroups& k : g.kinds) {
    groups[k.name] = k.groups.lists();
    placement[k.name] = placement_json(place(k.groups, shape));
  }
  ordered_json hcp = ordered_json::array();
  for (size_t i = 0; i < g.hcp.size(); ++i) {
    hcp.push_back(g.hcp[i].lists());
    placement["hcp_L" + std::to_string(i)] = placement_json(place(g.hcp[i], shape));
  }
  doc["groups"] = std::move(groups);
  doc["hcp"] = std::move(hcp);
  for (const auto& [key, sets] :
       {std::pair{"hybrid_dp_cp", &g.hybrid_dp_cp}, std::pair{"dynamic_dp_cp", &g.dynamic_dp_cp}}) {
    if (sets->empty()) continue;
    ordered_json bysize = ordered_json::object();
    for (const auto& [size, lists] : *sets)
      bysize[std::to_string(size)] = lists;
    doc[key] = std::move(bysize);
  }
  doc["placement"] = std::move(placement);
  ordered_json w = ordered_json::array();
  for (const auto& [id, message] : warnings)
    w.push_back({{"id", id}, {"message", message}});
  doc["warnings"] = std::move(w);
  return dump_by_kind(doc);
}

namespace {

std::string join_members(std::span<const int> g) {
  std::string out = "[";
  const size_t n = g.size();
  for (size_t i = 0; i < n; ++i) {
    if (n > 8 && i == 6) {
      out += " ... " + std::to_string(g[n - 1]);
      break;
    }
    out += (i ? " " : "") + std::to_string(g[i]);
  }
  return out + "]";
}

struct KindRow {
  std::string name;
  const GroupSet* groups;
  GroupPlacement placement;
};

/// Rows in reading order: tp, cp, its HCP levels, dp, pp, the combined and expert kinds; with
/// --all every other kind follows in upstream creation order.
std::vector<KindRow> rows_of(const RankGroups& g, const NodeShape& shape, bool all_kinds) {
  static const std::vector<std::string> kMain = {
      "tp", "cp", "dp", "pp", "dp_cp", "tp_cp", "ep", "expt_tp", "expt_dp", "intra_partial_dp_cp"};
  std::vector<KindRow> rows;
  auto add = [&](const std::string& name, const GroupSet& set) {
    rows.push_back({name, &set, place(set, shape)});
  };
  for (const std::string& name : kMain) {
    if (const GroupSet* set = g.find(name)) add(name, *set);
    if (name != "cp") continue;
    for (size_t i = 0; i < g.hcp.size(); ++i)
      add("hcp_L" + std::to_string(i), g.hcp[i]);
  }
  if (!all_kinds) return rows;
  for (const NamedGroups& k : g.kinds) {
    if (std::find(kMain.begin(), kMain.end(), k.name) == kMain.end()) add(k.name, k.groups);
  }
  return rows;
}

std::string layout_line(const RankGroups& g) {
  const GroupOptions& c = g.config;
  std::ostringstream out;
  out << "world " << c.world_size << " = TP" << c.layout.tp << " x CP" << c.layout.cp << " x PP"
      << c.layout.pp << " x DP" << g.dp << " (order " << c.layout.order << ")";
  if (!c.layout.hcp.empty()) {
    out << ", HCP [";
    for (size_t i = 0; i < c.layout.hcp.size(); ++i)
      out << (i ? ", " : "") << c.layout.hcp[i];
    out << "]";
  }
  out << "; experts: ETP" << g.etp << " x EP" << c.layout.ep << " x EDP" << g.expert_dp;
  return out.str();
}

}  // namespace

std::string format_groups_text(const RankGroups& g, const NodeShape& shape,
                               const GroupsTextOptions& o,
                               const std::vector<GroupsWarning>& warnings) {
  std::ostringstream out;
  out << "Megatron rank groups: " << layout_line(g) << "\n";
  const int64_t nodes = (g.config.world_size + shape.gpus_per_node - 1) / shape.gpus_per_node;
  out << "Machine: " << nodes << " node(s) x " << shape.gpus_per_node << " GPUs, NVLink domain "
      << shape.nvlink_domain << " GPUs" << (o.cluster.empty() ? "" : " (cluster " + o.cluster + ")")
      << "\n\n";
  // The numbers keep fixed, right-aligned columns; the first groups are the notes, which go
  // below their row when they would pass the width.
  const std::vector<KindRow> rows = rows_of(g, shape, o.all_kinds);
  std::vector<std::string> names;
  int name_width = 20;  // as wide as the longest name (intra_dist_opt_instance: 23)
  for (const KindRow& row : rows) {
    std::string name = row.name;
    if (row.name == "hcp_L0" && g.hcp.size() >= 2) name += " (a2a)";
    if (row.name == "hcp_L1" && g.hcp.size() == 2) name += " (p2p)";
    name_width = std::max(name_width, static_cast<int>(std::min<size_t>(name.size(), 64)));
    names.push_back(std::move(name));
  }
  char line[160];
  std::snprintf(line, sizeof line, "%-*s %6s %7s %11s %10s %14s", name_width, "group", "size",
                "count", "cross-node", "max nodes", "leave NVLink");
  TextTable table({line}, "first groups");
  for (size_t r = 0; r < rows.size(); ++r) {
    const KindRow& row = rows[r];
    const std::string& name = names[r];
    std::string first;
    const size_t shown = std::min(row.groups->count(), static_cast<size_t>(std::max(o.show, 0)));
    for (size_t i = 0; i < shown; ++i)
      first += (i ? " " : "") + join_members(row.groups->group(i));
    if (row.groups->count() > shown) first += " ...";
    const GroupPlacement& p = row.placement;
    std::snprintf(line, sizeof line, "%-*s %6lld %7lld %11lld %10lld %14lld", name_width,
                  name.c_str(), static_cast<long long>(p.group_size),
                  static_cast<long long>(p.num_groups), static_cast<long long>(p.cross_node_groups),
                  static_cast<long long>(p.max_nodes_spanned),
                  static_cast<long long>(p.cross_domain_groups));
    table.row({line}, first);
  }
  out << table.str(o.width);
  for (const auto& [label, sets] :
       {std::pair{"hybrid", &g.hybrid_dp_cp}, std::pair{"dynamic", &g.dynamic_dp_cp}}) {
    if (sets->empty()) continue;
    out << "\n"
        << label << " DPxCP groups (the full size " << g.dp * g.config.layout.cp
        << " is the dp_cp group):";
    for (const auto& [size, groups] : *sets)
      out << " size " << size << " x" << groups.size() << ";";
    out << "\n";
  }
  if (!warnings.empty()) out << "\n";
  for (const auto& [id, message] : warnings) {
    if (id.empty()) {
      out << "warning: " << one_line(message) << "\n";
      continue;
    }
    // A rule's finding (CP020) in its catalog entry's words: severity and fix from the registry.
    Diagnostic d = finding(id, "", message);
    out << diagnostic_headline(d) << "\n";
    if (!d.fix().empty()) out << "    " << diagnostic_fix_line(d) << "\n";
  }
  return out.str();
}

std::string format_groups_invalid_json(const LayoutError& e, const Location& where) {
  ordered_json doc = {
      {"valid", false},
      {"error",
       {{"id", e.rule_id},
        {"severity", "error"},
        {"message", e.rule_message.empty() ? e.message : e.rule_message},
        {"upstream_message", e.message},
        {"key", e.key},
        {"location", {{"file", where.file}, {"line", where.line}, {"column", where.column}}},
        {"upstream_exception", e.exception}}}};
  return json_dump(doc, 1) + "\n";
}

std::string format_simulate_json(const CpSimResult& r, const CpSimOptions& o, double tolerance,
                                 bool passed) {
  ordered_json j;
  j["max_abs_error"] = r.max_abs_error;
  j["comm_bytes_per_rank"] = per_rank(r.comm_bytes_per_rank);
  j["a2a_bytes_per_rank"] = per_rank(r.a2a_bytes_per_rank);
  j["ring_bytes_per_rank"] = per_rank(r.ring_bytes_per_rank);
  j["formula_bytes_per_rank"] = {{"a2a", r.formula.a2a_forward_bytes},
                                 {"ring", r.formula.ring_forward_bytes},
                                 {"total", r.formula.forward_bytes()}};
  j["bytes_match_formula"] = r.bytes_match_formula;
  j["tolerance"] = tolerance;
  j["passed"] = passed;
  j["blocked_max_abs_error"] = r.blocked_max_abs_error;
  j["local_only"] = o.local_only;
  j["seq_length"] = o.shape.seq_length;
  j["heads"] = o.shape.heads;
  j["kv_heads"] = o.shape.kv_heads;
  j["head_dim"] = o.shape.head_dim;
  j["causal"] = o.shape.causal;
  j["cp"] = o.cp;
  j["cp_comm_type"] = cp_comm_type_name(o.comm_type);
  j["hierarchical_context_parallel_sizes"] = o.hcp;
  j["seed"] = o.seed;
  j["bytes_per_element"] = o.bytes_per_element;
  j["rank_chunks"] = r.rank_chunks;
  j["hcp_groups"] = r.hcp_groups;
  return json_dump(j, 2) + "\n";
}

std::string format_simulate_text(const CpSimResult& r, const CpSimOptions& o, double tolerance) {
  std::string t = "simulate: S=" + std::to_string(o.shape.seq_length) +
                  " heads=" + std::to_string(o.shape.heads) +
                  " kv_heads=" + std::to_string(o.shape.kv_heads) +
                  " head_dim=" + std::to_string(o.shape.head_dim) +
                  (o.shape.causal ? " causal" : " non-causal") + " cp=" + std::to_string(o.cp) +
                  " cp_comm_type=" + cp_comm_type_name(o.comm_type);
  if (!o.hcp.empty()) t += " hcp=" + std::to_string(o.hcp[0]) + "x" + std::to_string(o.hcp[1]);
  t += "\n  chunks (of " + std::to_string(2 * o.cp) + "):";
  for (size_t i = 0; i < r.rank_chunks.size(); ++i) {
    t += " rank " + std::to_string(i) + ": " + std::to_string(r.rank_chunks[i][0]) + "," +
         std::to_string(r.rank_chunks[i][1]) + (i + 1 < r.rank_chunks.size() ? ";" : "");
  }
  t += "\n";
  if (r.hcp_groups.size() == 2) {
    t += "  hcp groups: a2a " + groups_text(r.hcp_groups[0]) + "  p2p ring " +
         groups_text(r.hcp_groups[1]) + "\n";
  }
  if (o.local_only) {
    t += "  CP communication OFF (--local-only): each rank attends only its own chunks\n";
  }
  const bool ok = r.max_abs_error < tolerance;
  t += "  max abs error vs full attention: " + sci(r.max_abs_error) + " (tolerance " +
       sci(tolerance) + "): " + (ok ? "OK" : "WRONG") + "\n";
  t += "  single-device blocked online softmax vs full: " + sci(r.blocked_max_abs_error) + "\n";
  t += "  forward bytes sent per rank (" + std::to_string(o.bytes_per_element) + " B/element):";
  for (size_t i = 0; i < r.comm_bytes_per_rank.size(); ++i) {
    t += (i % 4 == 0 ? "\n    " : "  ") + std::string("rank ") + std::to_string(i) + ": " +
         std::to_string(r.comm_bytes_per_rank[i]);
  }
  t += "\n  cp_volume formula, forward per rank: a2a " +
       std::to_string(r.formula.a2a_forward_bytes) + " + ring " +
       std::to_string(r.formula.ring_forward_bytes) + " = " +
       std::to_string(r.formula.forward_bytes()) +
       (o.local_only            ? " (not sent: communication off)"
        : r.bytes_match_formula ? " (match)"
                                : " (MISMATCH)") +
       "\n";
  if (!ok && o.local_only) {
    t += "  This is what training computes when CP is configured but its communication is off "
         "(e.g. hierarchical_context_parallel_sizes unset with a2a+p2p): every rank sees only "
         "its own chunks.\n";
  }
  return t;
}

}  // namespace hcp
