// Rank groups: upstream's worked examples, rule IDs of rejected layouts, placement on nodes and
// NVLink domains, and the closed-form helpers.
#include <gtest/gtest.h>

#include "hcp/layout.h"
#include "hcp/rules.h"

namespace hcp {
namespace {

using Lists = std::vector<std::vector<int>>;

GroupOptions cfg(int64_t world, int64_t tp, int64_t cp, int64_t pp = 1) {
  GroupOptions c;
  c.world_size = world;
  c.layout.tp = tp;
  c.layout.cp = cp;
  c.layout.pp = pp;
  return c;
}

Lists range_groups(int count, int size, int step_between, int step_within) {
  Lists out;
  for (int g = 0; g < count; ++g) {
    std::vector<int> members;
    members.reserve(static_cast<size_t>(size));
    for (int j = 0; j < size; ++j)
      members.push_back(g * step_between + j * step_within);
    out.push_back(members);
  }
  return out;
}

// groups_memory.md §1.4 worked example: 4 nodes x 8, TP1 CP16 HCP [8,2], W=32.
TEST(Groups, HierarchicalWorkedExample) {
  GroupOptions c = cfg(32, 1, 16);
  c.layout.hcp = {8, 2};
  auto g = build_groups(c);
  ASSERT_TRUE(g.ok()) << g.error().message;
  EXPECT_EQ(g->dp, 2);
  EXPECT_EQ(g->find("cp")->lists(), range_groups(2, 16, 16, 1));
  EXPECT_EQ(g->hcp[0].lists(), range_groups(4, 8, 8, 1));  // a2a: [0..7] [8..15] ...
  Lists p2p;
  for (int base : {0, 16}) {
    for (int a = 0; a < 8; ++a)
      p2p.push_back({base + a, base + a + 8});
  }
  EXPECT_EQ(g->hcp[1].lists(), p2p);
  EXPECT_EQ(g->find("dp")->lists(), range_groups(16, 2, 1, 16));
  EXPECT_EQ(g->find("expt_dp")->lists(), range_groups(1, 32, 0, 1));

  GroupPlacement a2a = place(g->hcp[0], NodeShape{8, 8});
  EXPECT_TRUE(a2a.intra_node());
  GroupPlacement ring = place(g->hcp[1], NodeShape{8, 8});
  EXPECT_EQ(ring.cross_node_groups, 16);
  EXPECT_EQ(ring.max_nodes_spanned, 2);
}

// Default order: TP contiguous, CP strided by TP; dp-last order moves DP behind PP.
TEST(Groups, DefaultAndDpLastOrders) {
  auto g = build_groups(cfg(16, 2, 2, 2));
  ASSERT_TRUE(g.ok());
  EXPECT_EQ(g->find("tp")->lists()[1], (std::vector<int>{2, 3}));
  EXPECT_EQ(g->find("cp")->lists()[0], (std::vector<int>{0, 2}));
  EXPECT_EQ(g->find("dp")->lists()[0], (std::vector<int>{0, 4}));
  EXPECT_EQ(g->find("pp")->lists()[0], (std::vector<int>{0, 8}));

  GroupOptions last = cfg(16, 2, 2, 2);
  last.layout.order = "tp-cp-ep-pp-dp";
  last.layout.etp = 4;  // upstream needs ETP*EP == TP*CP when pp is not last
  auto d = build_groups(last);
  ASSERT_TRUE(d.ok()) << d.error().message;
  EXPECT_EQ(d->find("pp")->lists()[0], (std::vector<int>{0, 4}));
  EXPECT_EQ(d->find("dp")->lists()[0], (std::vector<int>{0, 8}));
}

struct Rejected {
  const char* what;
  GroupOptions config;
  const char* rule;
  const char* message_part;
};

GroupOptions with(GroupOptions c, void (*edit)(GroupOptions&)) {
  edit(c);
  return c;
}

TEST(Groups, RejectedLayoutsCarryTheirRuleId) {
  const Rejected cases[] = {
      {"world not divisible", cfg(32, 1, 3), "CP001", "world_size (32) is not divisible by 3"},
      {"cp zero", cfg(32, 1, 0), "CP002", "positive integer"},
      {"hcp product",
       with(cfg(32, 1, 16),
            [](GroupOptions& c) {
              c.layout.hcp = {4, 2};
            }),
       "CP013", "np.prod(hierarchical_context_parallel_sizes)"},
      {"expert grid",
       with(cfg(24, 2, 3), [](GroupOptions& c) { c.layout.ep = 16, c.layout.etp = 1; }), "CP005",
       "expert_tensor_model_pipeline_parallel size (16)"},
      {"dp-last dense",
       with(cfg(64, 2, 4, 2), [](GroupOptions& c) { c.layout.order = "tp-cp-ep-pp-dp"; }), "CP005",
       "pp-last rank ordering"},
      {"distopt",
       with(cfg(24, 1, 1), [](GroupOptions& c) { c.num_distributed_optimizer_instances = 5; }),
       "CP004", "partial DistOpt shard factor"},
      {"hybrid odd", with(cfg(12, 4, 1), [](GroupOptions& c) { c.hybrid_context_parallel = true; }),
       "CP081", "Hybrid context parallel requires an even number of ranks"},
      {"dynamic odd",
       with(cfg(12, 4, 1), [](GroupOptions& c) { c.dynamic_context_parallel = true; }), "CP081",
       "Dynamic context parallel"},
      {"min dynamic",
       with(cfg(8, 1, 2), [](GroupOptions& c) { c.min_dynamic_context_parallel_size = 0; }),
       "CP090", "min_dynamic_context_parallel_size"},
      {"order lacks cp", with(cfg(16, 2, 2), [](GroupOptions& c) { c.layout.order = "tp-dp-pp"; }),
       "", "The size of (cp) is (2), but you haven'tspecified the order (tp-gtp_remat-dp-pp)."},
      {"vpp without pp", with(cfg(8, 1, 1), [](GroupOptions& c) { c.layout.vpp = 2; }), "",
       "interleaved schedule"},
      {"pp groups differ",
       with(cfg(16, 1, 2, 2),
            [](GroupOptions& c) { c.layout.order = "tp-pp-cp-dp", c.layout.etp = 2; }),
       "", "Pipeline parallel groups are expected to be the same"},
  };
  for (const Rejected& r : cases) {
    SCOPED_TRACE(r.what);
    auto problem = check_group_options(r.config);
    ASSERT_TRUE(problem.has_value());
    EXPECT_EQ(problem->kind, LayoutError::Kind::kRejected);
    EXPECT_EQ(problem->rule_id, r.rule);
    EXPECT_NE(problem->message.find(r.message_part), std::string::npos) << problem->message;
    auto built = build_groups(r.config);
    ASSERT_FALSE(built.ok());
    EXPECT_EQ(built.error().message, problem->str());
    EXPECT_EQ(built.error().key, problem->key);
    // Without a rule of ours, upstream's message is quoted as upstream's, its exception named.
    if (std::string(r.rule).empty() && !problem->exception.empty()) {
      EXPECT_EQ(problem->str(),
                "Megatron raises " + problem->exception + ": \"" + problem->message + "\"");
    }
  }
}

// Issue #15: one text per rule ID. The layout check and the registry rule that validate runs say
// the same thing for the same sizes.
TEST(Groups, RejectedLayoutsSayWhatTheRegistryRuleSays) {
  GroupOptions c = cfg(32, 1, 16);
  c.layout.hcp = {4, 2};
  auto problem = check_group_options(c);
  ASSERT_TRUE(problem.has_value());
  Recipe r;
  r.path = "mem.yaml";
  r.set("model.context_parallel_size", Value::integer(16));
  r.set("model.hierarchical_context_parallel_sizes",
        Value::list({Value::integer(4), Value::integer(2)}));
  Environment env;
  env.world_size = 32;
  std::string from_registry;
  for (const Diagnostic& d : check_rules(r, env)) {
    if (d.id() == "CP013") from_registry = d.message;
  }
  ASSERT_FALSE(from_registry.empty());
  EXPECT_EQ(problem->rule_message, from_registry);
  EXPECT_EQ(problem->str(), "[CP013] " + from_registry);

  auto world = check_group_options(cfg(32, 1, 3));
  ASSERT_TRUE(world.has_value());
  Recipe w;
  w.path = "mem.yaml";
  w.set("model.context_parallel_size", Value::integer(3));
  std::string cp001;
  for (const Diagnostic& d : check_rules(w, env)) {
    if (d.id() == "CP001") cp001 = d.message;
  }
  EXPECT_EQ(world->rule_message, cp001);
}

TEST(Groups, MalformedInputsAreBadInputNotCrashes) {
  const std::pair<const char*, GroupOptions> cases[] = {
      {"unknown order token",
       with(cfg(8, 1, 1), [](GroupOptions& c) { c.layout.order = "tp-cp-xx-dp-pp"; })},
      {"repeated axis",
       with(cfg(8, 1, 1), [](GroupOptions& c) { c.layout.order = "tp-cp-tp-dp-pp"; })},
      {"empty token", with(cfg(8, 1, 1), [](GroupOptions& c) { c.layout.order = "tp--dp-pp"; })},
      {"zero tp", cfg(8, 0, 1)},
      {"negative pp", cfg(8, 1, 1, -2)},
      {"zero world", cfg(0, 1, 1)},
      {"huge world", cfg(int64_t{1} << 40, 1, 1)},
      {"zero hcp level", with(cfg(8, 1, 2),
                              [](GroupOptions& c) {
                                c.layout.hcp = {0, 2};
                              })},
      {"huge sizes", with(cfg(8, int64_t{1} << 40, 1), [](GroupOptions& c) { c.layout.ep = 1; })},
  };
  for (const auto& [what, config] : cases) {
    SCOPED_TRACE(what);
    auto problem = check_group_options(config);
    ASSERT_TRUE(problem.has_value());
    EXPECT_EQ(problem->kind, LayoutError::Kind::kBadInput) << problem->message;
    EXPECT_FALSE(build_groups(config).ok());
  }
  // Products beyond 64 bits are still reported exactly (CP001), not wrapped around.
  GroupOptions big = cfg(1024, 1 << 22, 1 << 22, 1 << 22);
  auto problem = check_group_options(big);
  ASSERT_TRUE(problem.has_value());
  EXPECT_EQ(problem->rule_id, "CP001");
  EXPECT_NE(problem->message.find("73786976294838206464"), std::string::npos) << problem->message;
}

TEST(Groups, HybridAndDynamicGroupSizes) {
  GroupOptions h = cfg(8, 1, 2);
  h.hybrid_context_parallel = true;
  auto g = build_groups(h);
  ASSERT_TRUE(g.ok());
  ASSERT_EQ(g->hybrid_dp_cp.size(), 2u);  // sizes 2 and 4; 8 is the dp_cp group itself
  EXPECT_EQ(g->hybrid_dp_cp.at(4), (Lists{{0, 1, 2, 3}, {4, 5, 6, 7}}));
  EXPECT_TRUE(g->dynamic_dp_cp.empty());

  GroupOptions d = cfg(32, 1, 4);
  d.dynamic_context_parallel = true;
  d.min_dynamic_context_parallel_size = 2;
  auto dyn = build_groups(d);
  ASSERT_TRUE(dyn.ok());
  std::vector<int64_t> sizes;
  for (const auto& [size, groups] : dyn->dynamic_dp_cp)
    sizes.push_back(size);
  EXPECT_EQ(sizes, (std::vector<int64_t>{2, 4, 8, 16}));

  GroupOptions ten = cfg(10, 1, 1);  // DPxCP = 10: sizes 2 and 4, the last size-4 slice is short
  ten.hybrid_context_parallel = true;
  auto s = build_groups(ten);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->hybrid_dp_cp.at(2).size(), 5u);
  EXPECT_EQ(s->hybrid_dp_cp.at(4), (Lists{{0, 1, 2, 3}, {4, 5, 6, 7}, {8, 9}}));
  EXPECT_EQ(s->hybrid_dp_cp.count(8), 0u);
}

TEST(Groups, GroupsPartitionTheWorldInAscendingOrder) {
  GroupOptions c = cfg(128, 2, 4, 2);
  c.layout.ep = 4;
  c.layout.etp = 1;
  c.layout.hcp = {2, 2};
  c.num_distributed_optimizer_instances = 2;
  auto g = build_groups(c);
  ASSERT_TRUE(g.ok()) << g.error().message;
  for (const NamedGroups& k : g->kinds) {
    if (k.name == "embd" || k.name == "pos_embd") continue;
    std::vector<int> all = k.groups.ranks;
    std::sort(all.begin(), all.end());
    for (int r = 0; r < 128; ++r)
      ASSERT_EQ(all[static_cast<size_t>(r)], r) << k.name;
  }
  EXPECT_NE(g->find("intra_partial_dp_cp"), nullptr);
  EXPECT_NE(g->find("inter_partial_expt_dp"), nullptr);
}

TEST(Placement, NvlinkDomainSpansSeveralNodes) {
  // GB200 NVL72: 4-GPU trays, 72-GPU NVLink domain. CP16 with TP1 crosses 4 trays but stays on
  // NVLink; with 8-GPU nodes and 8-GPU domains the same groups leave NVLink.
  GroupOptions c = cfg(144, 1, 16);
  c.world_size = 144;
  auto g = build_groups(c);
  ASSERT_TRUE(g.ok()) << g.error().message;
  GroupPlacement nvl = place(*g->find("cp"), NodeShape{4, 72});
  EXPECT_EQ(nvl.num_groups, 9);
  EXPECT_EQ(nvl.cross_node_groups, 9);
  EXPECT_EQ(nvl.max_nodes_spanned, 4);
  EXPECT_EQ(nvl.cross_domain_groups, 1);  // ranks 64..79 straddle the rack boundary at 72
  EXPECT_EQ(nvl.max_domains_spanned, 2);
  GroupPlacement dgx = place(*g->find("cp"), NodeShape{8, 8});
  EXPECT_EQ(dgx.cross_domain_groups, 9);
  auto closed = place_group_kind(c, "cp", NodeShape{4, 72});
  ASSERT_TRUE(closed.ok());
  EXPECT_EQ(closed->cross_domain_groups, 1);
  EXPECT_EQ(closed->max_nodes_spanned, 4);
}

TEST(Placement, UnsortedMembersAndConvenienceForm) {
  GroupPlacement p = place(Lists{{9, 0, 8, 1}, {2, 3}}, 8, 16);
  EXPECT_EQ(p.num_groups, 2);
  EXPECT_EQ(p.group_size, 4);
  EXPECT_EQ(p.cross_node_groups, 1);
  EXPECT_EQ(p.max_nodes_spanned, 2);
  EXPECT_EQ(p.cross_domain_groups, 0);
  EXPECT_EQ(p.max_domains_spanned, 1);
  GroupPlacement pcie = place(Lists{{0, 1}}, 8, 1);
  EXPECT_EQ(pcie.cross_domain_groups, 1);
  EXPECT_TRUE(pcie.intra_node());
}

TEST(Placement, ClosedFormAtLargeScaleWithoutMaterialising) {
  GroupOptions c = cfg(16384, 8, 16, 4);
  c.layout.hcp = {2, 8};
  auto a2a = place_group_kind(c, "hcp_L0", NodeShape{8, 8});
  ASSERT_TRUE(a2a.ok()) << a2a.error().message;
  EXPECT_EQ(a2a->group_size, 2);
  EXPECT_EQ(a2a->num_groups, 8192);
  EXPECT_EQ(a2a->cross_node_groups, 8192);  // TP8 x a2a2 = 16 ranks > 8 per node
  auto nvl = place_group_kind(c, "hcp_L0", NodeShape{4, 72});
  ASSERT_TRUE(nvl.ok());
  EXPECT_GT(nvl->cross_domain_groups, 0);  // 16-rank spans straddle 72-rank racks sometimes
  EXPECT_LT(nvl->cross_domain_groups, nvl->num_groups);
  auto g = build_groups(c);
  ASSERT_TRUE(g.ok());
  GroupPlacement want = place(g->hcp[0], NodeShape{4, 72});
  EXPECT_EQ(nvl->cross_domain_groups, want.cross_domain_groups);
  EXPECT_EQ(nvl->max_domains_spanned, want.max_domains_spanned);
}

TEST(Placement, ClosedFormMatchesMaterialisedGroupsForLargeGroups) {
  // Groups of more than twice the block with many base residues take the gap-histogram path of
  // the closed form; every kind must still count what the materialised groups count.
  for (GroupOptions c : {cfg(2304, 1, 4, 2), cfg(4096, 2, 8, 1), cfg(3072, 4, 2, 3)}) {
    c.layout.ep = 4;
    auto g = build_groups(c);
    ASSERT_TRUE(g.ok()) << g.error().message;
    for (NodeShape shape : {NodeShape{8, 8}, NodeShape{4, 72}, NodeShape{4, 36}}) {
      for (const std::string& kind : closed_form_kinds(c)) {
        const GroupSet* set = g->find(kind);
        if (set == nullptr) continue;
        auto closed = place_group_kind(c, kind, shape);
        ASSERT_TRUE(closed.ok()) << kind;
        GroupPlacement want = place(*set, shape);
        EXPECT_EQ(closed->cross_node_groups, want.cross_node_groups) << kind;
        EXPECT_EQ(closed->cross_domain_groups, want.cross_domain_groups) << kind;
        EXPECT_EQ(closed->max_nodes_spanned, want.max_nodes_spanned) << kind;
        EXPECT_EQ(closed->max_domains_spanned, want.max_domains_spanned) << kind;
      }
    }
  }
}

TEST(Placement, ClosedFormMatchesMaterialisedGroupsForBlocksAsLargeAsTheWorld) {
  // Nodes and NVLink domains as large as the world or larger (plan --nodes 1 --gpus-per-node
  // 1048576): the closed form walks the members per residue, whose cost is bounded by the world
  // size, instead of a block x block table (2^40 entries for a block of 2^20).
  for (const GroupOptions& c : {cfg(4096, 2, 8, 1), cfg(3072, 4, 2, 3)}) {
    auto g = build_groups(c);
    ASSERT_TRUE(g.ok()) << g.error().message;
    for (NodeShape shape : {NodeShape{4096, 4096}, NodeShape{1 << 20, 1 << 20},
                            NodeShape{1536, 3072}, NodeShape{1000, 1 << 20}}) {
      for (const std::string& kind : closed_form_kinds(c)) {
        const GroupSet* set = g->find(kind);
        if (set == nullptr) continue;
        auto closed = place_group_kind(c, kind, shape);
        ASSERT_TRUE(closed.ok()) << kind;
        GroupPlacement want = place(*set, shape);
        EXPECT_EQ(closed->cross_node_groups, want.cross_node_groups) << kind;
        EXPECT_EQ(closed->cross_domain_groups, want.cross_domain_groups) << kind;
        EXPECT_EQ(closed->max_nodes_spanned, want.max_nodes_spanned) << kind;
        EXPECT_EQ(closed->max_domains_spanned, want.max_domains_spanned) << kind;
      }
    }
  }
}

TEST(Placement, LayoutLocalityAnswersThePlannersQuestions) {
  GroupOptions c = cfg(32, 1, 16);
  c.layout.hcp = {8, 2};
  auto loc = layout_locality(c, NodeShape{8, 8});
  ASSERT_TRUE(loc.ok());
  EXPECT_TRUE(loc->tp.intra_node());
  EXPECT_FALSE(loc->cp.intra_node());
  ASSERT_TRUE(loc->hcp_a2a.has_value());
  EXPECT_TRUE(loc->hcp_a2a->intra_domain());
  EXPECT_FALSE(loc->a2a_leaves_domain());
  ASSERT_TRUE(loc->hcp_p2p.has_value());
  EXPECT_EQ(loc->hcp_p2p->cross_node_groups, 16);

  c.layout.hcp = {16, 1};  // a2a over 16 ranks: two nodes
  auto wide = layout_locality(c, NodeShape{8, 8});
  ASSERT_TRUE(wide.ok());
  EXPECT_TRUE(wide->a2a_leaves_domain());
  auto rack = layout_locality(c, NodeShape{4, 72});
  ASSERT_TRUE(rack.ok());
  EXPECT_FALSE(rack->a2a_leaves_domain());

  EXPECT_FALSE(layout_locality(cfg(32, 1, 3), NodeShape{}).ok());
}

TEST(Placement, UnknownKindsAreErrors) {
  GroupOptions c = cfg(32, 2, 4);
  EXPECT_FALSE(place_group_kind(c, "embd", NodeShape{}).ok());
  EXPECT_FALSE(place_group_kind(c, "hcp_L0", NodeShape{}).ok());  // no HCP set
  EXPECT_FALSE(place_group_kind(c, "gtp_remat", NodeShape{}).ok());
  EXPECT_FALSE(place_group_kind(c, "hcp_Lx", NodeShape{}).ok());
  EXPECT_TRUE(place_group_kind(c, "tp_cp", NodeShape{}).ok());
  // Zero or negative shapes are clamped instead of dividing by zero.
  auto p = place_group_kind(c, "cp", NodeShape{0, -1});
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->max_nodes_spanned, 4);
}

TEST(ParseHcp, AcceptsCommaTimesAndBrackets) {
  for (const char* text : {"8,2", "8x2", "[8,2]", " [ 8 , 2 ] ", "8X2", "8*2"}) {
    auto v = parse_hcp_sizes(text);
    ASSERT_TRUE(v.ok()) << text;
    EXPECT_EQ(*v, (std::vector<int64_t>{8, 2})) << text;
  }
  auto three = parse_hcp_sizes("2x4x2");
  ASSERT_TRUE(three.ok());
  EXPECT_EQ(three->size(), 3u);
  for (const char* bad : {"", "[]", "8,", "a,b", "8,-2", "0x4", "8;2", "99999999999999999999"}) {
    auto v = parse_hcp_sizes(bad);
    EXPECT_FALSE(v.ok()) << bad;
  }
}

TEST(GroupOptionsOf, TakesTheRecipeLayout) {
  auto r = load_recipe_text(
      "model:\n  tensor_model_parallel_size: 2\n  context_parallel_size: 8\n"
      "  pipeline_model_parallel_size: 2\n  expert_model_parallel_size: 4\n"
      "  hierarchical_context_parallel_sizes: [4, 2]\n"
      "ddp:\n  num_distributed_optimizer_instances: 2\n"
      "dist:\n  use_tp_pp_dp_mapping: true\n",
      "t.yaml");
  ASSERT_TRUE(r) << r.error().str();
  GroupOptions c = group_options_of(*r, 256);
  EXPECT_EQ(c.world_size, 256);
  EXPECT_EQ(c.layout.tp, 2);
  EXPECT_EQ(c.layout.cp, 8);
  EXPECT_EQ(c.layout.expert_tp(), 1);  // Bridge's default with EP > 1
  EXPECT_EQ(c.layout.hcp, (std::vector<int64_t>{4, 2}));
  EXPECT_EQ(c.layout.order, "tp-cp-ep-pp-dp");
  EXPECT_EQ(c.num_distributed_optimizer_instances, 2);
}

TEST(GroupOptionsOf, ResolvesEtpAgainstTheRecipesTp) {
  auto r = load_recipe_text("model:\n  tensor_model_parallel_size: 2\n", "t.yaml");
  ASSERT_TRUE(r) << r.error().str();
  GroupOptions c = group_options_of(*r, 8);
  EXPECT_EQ(c.layout.etp, 2);
  c.layout.tp = 4;  // a later --tp
  EXPECT_EQ(c.layout.expert_tp(), 2);
}

}  // namespace
}  // namespace hcp
