// Every case of the Megatron group oracle (tests/fixtures/layout/README) against build_groups(),
// place() and the closed-form placement.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "hcp/layout.h"

namespace hcp {
namespace {

using nlohmann::json;

json load_fixture(const std::string& name) {
  std::ifstream in(std::string(HCP_FIXTURES_DIR) + "/layout/" + name);
  EXPECT_TRUE(in.good()) << name;
  return json::parse(in);
}

/// The fixture hash: FNV-1a 64 over each rank (4 bytes LE) and 0xffffffff after each group.
class GroupHash {
 public:
  void add_group(std::span<const int> g) {
    for (int r : g)
      add(static_cast<uint32_t>(r));
    add(0xffffffffu);
  }
  std::string hex() const {
    char buf[17];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h_));
    return buf;
  }

 private:
  void add(uint32_t v) {
    for (int i = 0; i < 4; ++i) {
      h_ ^= (v >> (8 * i)) & 0xffu;
      h_ *= 0x100000001b3ull;
    }
  }
  uint64_t h_ = 0xcbf29ce484222325ull;
};

json summary(const GroupSet& set) {
  GroupHash h;
  for (size_t i = 0; i < set.count(); ++i)
    h.add_group(set.group(i));
  return json::array({set.count(), set.group_size, h.hex()});
}

json summary(const std::vector<std::vector<int>>& groups) {
  GroupHash h;
  for (const auto& g : groups)
    h.add_group(g);
  return json::array({groups.size(), h.hex()});
}

GroupOptions config_of(const json& in) {
  GroupOptions c;
  c.world_size = in.at("world_size");
  c.layout.tp = in.value("tp", 1);
  c.layout.pp = in.value("pp", 1);
  c.layout.cp = in.value("cp", 1);
  c.layout.ep = in.value("ep", 1);
  if (in.contains("etp") && !in["etp"].is_null()) c.layout.etp = in["etp"].get<int64_t>();
  if (in.contains("vpp") && !in["vpp"].is_null()) c.layout.vpp = in["vpp"].get<int64_t>();
  if (in.contains("hcp") && !in["hcp"].is_null())
    c.layout.hcp = in["hcp"].get<std::vector<int64_t>>();
  c.layout.order = in.value("order", std::string("tp-cp-ep-dp-pp"));
  c.num_distributed_optimizer_instances = in.value("num_distributed_optimizer_instances", 1);
  c.gtp_remat = in.value("gtp_remat", 1);
  c.egtp_remat = in.value("egtp_remat", 1);
  c.hybrid_context_parallel = in.value("hybrid_context_parallel", false);
  c.dynamic_context_parallel = in.value("dynamic_context_parallel", false);
  c.min_dynamic_context_parallel_size = in.value("min_dynamic_context_parallel_size", 1);
  c.rank_offset = in.value("rank_offset", 0);
  return c;
}

const GroupSet* find_any(const RankGroups& g, const std::string& kind) {
  if (kind.starts_with("hcp_L")) {
    size_t level = std::stoul(kind.substr(5));
    return level < g.hcp.size() ? &g.hcp[level] : nullptr;
  }
  return g.find(kind);
}

void expect_rejected(const json& c) {
  GroupOptions config = config_of(c["input"]);
  auto problem = check_group_options(config);
  ASSERT_TRUE(problem.has_value()) << "accepted a config upstream rejects";
  EXPECT_EQ(problem->kind, LayoutError::Kind::kRejected);
  EXPECT_EQ(problem->exception, c["error"]["type"].get<std::string>());
  EXPECT_EQ(problem->message, c["error"]["message"].get<std::string>());
  auto built = build_groups(config);
  ASSERT_FALSE(built.ok());
  // build_groups() reports the rule's text (the same as validate), check_group_options() keeps
  // upstream's verbatim message above.
  EXPECT_EQ(built.error().message, problem->str());
}

void expect_groups(const json& c, const RankGroups& g) {
  const json& d = c["derived"];
  EXPECT_EQ(g.dp, d["dp"].get<int64_t>());
  EXPECT_EQ(g.expert_dp, d["expert_dp"].get<int64_t>());
  EXPECT_EQ(g.etp, d["etp"].get<int64_t>());
  EXPECT_EQ(g.decoder_order, d["decoder_order"].get<std::string>());
  EXPECT_EQ(g.expert_order, d["expert_order"].get<std::string>());
  EXPECT_EQ(g.decoder_sizes, d["decoder_parallel_size"].get<std::vector<int64_t>>());
  EXPECT_EQ(g.expert_sizes, d["expert_parallel_size"].get<std::vector<int64_t>>());

  ASSERT_EQ(g.kinds.size(), c["kinds"].size()) << "kinds differ";
  for (size_t i = 0; i < g.kinds.size(); ++i) {
    const json& want = c["kinds"][i];
    EXPECT_EQ(g.kinds[i].name, want[0].get<std::string>()) << "creation order";
    EXPECT_EQ(summary(g.kinds[i].groups), json::array({want[1], want[2], want[3]}))
        << g.kinds[i].name;
  }
  const json no_levels = json::array();
  const json& hcp = c.contains("hcp") ? c["hcp"] : no_levels;
  ASSERT_EQ(g.hcp.size(), hcp.size());
  for (size_t i = 0; i < g.hcp.size(); ++i)
    EXPECT_EQ(summary(g.hcp[i]), hcp[i]) << "level " << i;
  for (const auto& [key, got] :
       {std::pair{"hybrid_dp_cp", &g.hybrid_dp_cp}, std::pair{"dynamic_dp_cp", &g.dynamic_dp_cp}}) {
    json want = c.contains(key) ? c[key] : json::object();
    json have = json::object();
    for (const auto& [size, groups] : *got)
      have[std::to_string(size)] = summary(groups);
    EXPECT_EQ(have, want) << key;
  }
  EXPECT_EQ(json(g.warnings), c["warnings"]);
  if (c.contains("groups")) {
    for (const NamedGroups& k : g.kinds) {
      EXPECT_EQ(json(k.groups.lists()), c["groups"][k.name]) << k.name;
    }
  }
  if (c.contains("hcp_lists")) {
    for (size_t i = 0; i < g.hcp.size(); ++i)
      EXPECT_EQ(json(g.hcp[i].lists()), c["hcp_lists"][i]);
  }
}

/// Oracle node locality == place() == closed form, for the node size the case names.
void expect_locality(const json& c, const RankGroups& built) {
  const int64_t gpn = c["input"].value("gpus_per_node", 8);
  const NodeShape shape{gpn, gpn};
  for (const auto& [kind, want] : c["locality"].items()) {
    const GroupSet* set = find_any(built, kind);
    ASSERT_NE(set, nullptr) << kind;
    GroupPlacement p = place(*set, shape);
    EXPECT_EQ(json::array({p.num_groups, p.group_size, p.cross_node_groups, p.max_nodes_spanned}),
              want)
        << kind;
  }
}

/// Closed form == materialised, on nodes of 4 and 8 and NVLink domains of 8, 16, 72 and 1.
void expect_closed_form(const GroupOptions& config, const RankGroups& built) {
  for (NodeShape shape : {NodeShape{8, 8}, NodeShape{4, 72}, NodeShape{8, 16}, NodeShape{8, 1}}) {
    for (const std::string& kind : closed_form_kinds(config)) {
      const GroupSet* set = find_any(built, kind);
      ASSERT_NE(set, nullptr) << kind;
      GroupPlacement want = place(*set, shape);
      auto got = place_group_kind(config, kind, shape);
      ASSERT_TRUE(got.ok()) << got.error().message;
      EXPECT_EQ(got->group_size, want.group_size) << kind;
      EXPECT_EQ(got->num_groups, want.num_groups) << kind;
      EXPECT_EQ(got->cross_node_groups, want.cross_node_groups)
          << kind << " G" << shape.gpus_per_node;
      EXPECT_EQ(got->max_nodes_spanned, want.max_nodes_spanned) << kind;
      EXPECT_EQ(got->cross_domain_groups, want.cross_domain_groups)
          << kind << " D" << shape.nvlink_domain;
      EXPECT_EQ(got->max_domains_spanned, want.max_domains_spanned) << kind;
    }
  }
}

void run_all(const std::string& file, size_t expected_cases) {
  json doc = load_fixture(file);
  ASSERT_EQ(doc["cases"].size(), expected_cases);
  for (const json& c : doc["cases"]) {
    SCOPED_TRACE(c["name"].get<std::string>() + " " + c["input"].dump());
    if (!c["valid"].get<bool>()) {
      expect_rejected(c);
      continue;
    }
    // Built once per case; the three checks read the same groups.
    const GroupOptions config = config_of(c["input"]);
    auto built = build_groups(config);
    ASSERT_TRUE(built.ok()) << built.error().message;
    expect_groups(c, *built);
    expect_locality(c, *built);
    expect_closed_form(config, *built);
  }
}

TEST(OracleGroups, AllCannedCasesMatch) {
  run_all("oracle_cases.json", 52);
}

TEST(OracleGroups, RandomLayoutsUpTo1024RanksMatch) {
  run_all("random_cases.json", 200);
}

TEST(OracleGroups, FixturesCoverRejectedAndLargeCases) {
  json doc = load_fixture("oracle_cases.json");
  int rejected = 0;
  int64_t largest = 0;
  for (const json& c : doc["cases"]) {
    rejected += c["valid"].get<bool>() ? 0 : 1;
    largest = std::max(largest, c["input"]["world_size"].get<int64_t>());
  }
  EXPECT_EQ(rejected, 9);
  EXPECT_EQ(largest, 1024);
}

}  // namespace
}  // namespace hcp
