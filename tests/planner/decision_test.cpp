// Decisions under model error: error bands, ties and the seed's tie-break rule; the recipe's own
// layout in `plan`; VPP and EP in the search; `compare` keeps the user's order and VP.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <string>

#include "hcp/planner.h"

namespace hcp {
namespace {

PlanInputs seed_inputs() {
  // The seed's decision example (Megatron-Bridge docs/training/hybrid-context-parallel.md,
  // "Decision example"): 8 KV heads, 4 nodes x 8 GPUs, 128K sequences.
  PlanInputs in;
  in.recipe = HCP_RECIPES_DIR "/llama3_8b_128k.yaml";
  in.nodes = 4;
  in.cluster = "dgx-h100";
  // Full recompute: at 128K tokens an 8B model trains with it; without it B (TP2 CP4) holds
  // twice A's tokens per GPU and has less headroom, not more (planner_anchors.md §0 item 6).
  in.recompute = "full";
  return in;
}

const char* kOptionA = "tp=1,cp=16,cp_comm_type=a2a+p2p,hcp=8x2";
const char* kOptionB = "tp=2,cp=4,cp_comm_type=a2a";
const char* kOptionC = "tp=1,cp=16,cp_comm_type=p2p";

std::vector<CompareEntry> compare_seed(const std::vector<std::string>& options) {
  auto prepared = prepare_plan(seed_inputs());
  EXPECT_TRUE(prepared) << (prepared ? "" : prepared.error().str());
  if (!prepared) return {};
  EXPECT_NE(prepared->request.fit, nullptr) << "the shipped fit (recipes/corpus) was not found";
  std::vector<Layout> layouts;
  for (const std::string& text : options) {
    auto l = layout_from_option(prepared->request.recipe, text, prepared->request.env.world_size);
    EXPECT_TRUE(l) << (l ? "" : l.error().str());
    if (l) layouts.push_back(*l);
  }
  auto entries = compare_layouts(prepared->request, layouts);
  EXPECT_TRUE(entries) << (entries ? "" : entries.error().str());
  return entries ? *entries : std::vector<CompareEntry>{};
}

/// True when `other` lies inside the difference band of `of` (the tie rule's band).
bool inside_band(const PlanOption& of, const PlanOption& other) {
  double gap =
      std::abs(std::log(other.estimate.tokens_per_s_per_gpu / of.estimate.tokens_per_s_per_gpu));
  return gap <= of.band.relative;
}

TEST(SeedDecision, RecommendsBWithTheTieExplained) {
  auto entries = compare_seed({kOptionA, kOptionB, kOptionC});
  ASSERT_EQ(entries.size(), 3u);
  // The user's order and letters stay.
  EXPECT_EQ(entries[0].option.layout.comm, CommType::kA2aP2p);
  EXPECT_EQ(entries[1].option.layout.tp, 2);
  EXPECT_EQ(entries[2].option.layout.comm, CommType::kP2p);
  const PlanOption& a = entries[0].option;
  const PlanOption& b = entries[1].option;
  EXPECT_TRUE(b.recommended);
  EXPECT_FALSE(a.recommended);
  EXPECT_GT(a.band.relative, 0);
  EXPECT_TRUE(inside_band(a, b)) << a.estimate.tokens_per_s_per_gpu << " vs "
                                 << b.estimate.tokens_per_s_per_gpu << " band " << a.band.relative;
  EXPECT_TRUE(inside_band(b, a));
  ASSERT_FALSE(b.reasons.empty());
  const std::string& why = b.reasons.front();
  EXPECT_NE(why.find("within model error of "), std::string::npos)
      << why;  // of the fastest (C with the refit)
  EXPECT_NE(why.find("preferred for"), std::string::npos) << why;
}

/// Sizes that differ between two layouts (TP, CP, PP, cp_comm_type, HCP).
size_t changed_sizes(const Layout& a, const Layout& b) {
  return (a.tp != b.tp) + (a.cp != b.cp) + (a.pp != b.pp) +
         (a.cp > 1 && b.cp > 1 && a.comm != b.comm) +
         (a.hcp_sizes() != b.hcp_sizes() && !a.hcp_sizes().empty() && !b.hcp_sizes().empty());
}

TEST(RecipeFit, YourLayoutThatDoesNotFitGetsTheLeastChangesThatDo) {
  PlanInputs in = seed_inputs();
  in.recompute = "none";  // the recipe's own: TP1 CP16 [8,2] then needs about 94 GiB of 80
  auto prepared = prepare_plan(in);
  ASSERT_TRUE(prepared);
  auto result = plan(prepared->request);
  ASSERT_TRUE(result);
  ASSERT_TRUE(result->recipe_rank);
  const PlanOption& own = result->options[*result->recipe_rank];
  ASSERT_FALSE(own.estimate.fits_memory);
  ASSERT_EQ(result->recipe_fit.size(), 2u);
  // A stronger recompute of the same layout, priced.
  EXPECT_EQ(result->recipe_fit[0].rfind("the same layout with --recompute full: ", 0), 0u)
      << result->recipe_fit[0];
  // The option that fits with the fewest sizes changed, named by its letter.
  ASSERT_TRUE(result->recipe_fit_option);
  const PlanOption& fit = result->options[*result->recipe_fit_option];
  EXPECT_TRUE(fit.estimate.fits_memory);
  EXPECT_EQ(result->recipe_fit[1].rfind(
                option_letter(*result->recipe_fit_option) + " " + fit.layout.label() + " (", 0),
            0u)
      << result->recipe_fit[1];
  const size_t fewest = changed_sizes(own.layout, fit.layout);
  EXPECT_GE(fewest, 1u);
  for (const PlanOption& o : result->options) {
    if (!o.estimate.fits_memory) continue;
    EXPECT_GE(changed_sizes(own.layout, o.layout), fewest) << o.layout.label();
  }
}

TEST(RecipeFit, NothingToSuggestWhenYourLayoutFits) {
  auto prepared = prepare_plan(seed_inputs());  // full recompute: TP1 CP16 [8,2] fits
  ASSERT_TRUE(prepared);
  auto result = plan(prepared->request);
  ASSERT_TRUE(result);
  ASSERT_TRUE(result->recipe_rank);
  EXPECT_TRUE(result->options[*result->recipe_rank].estimate.fits_memory);
  EXPECT_TRUE(result->recipe_fit.empty());
  EXPECT_FALSE(result->recipe_fit_option);
}

TEST(SeedDecision, WithoutBandsTheFastestWins) {
  auto prepared = prepare_plan(seed_inputs());
  ASSERT_TRUE(prepared);
  PlanRequest req = prepared->request;
  req.fit = nullptr;  // no error bands: only identical predictions tie
  std::vector<Layout> layouts;
  for (const char* text : {kOptionA, kOptionB, kOptionC}) {
    layouts.push_back(*layout_from_option(req.recipe, text, req.env.world_size));
  }
  auto entries = compare_layouts(req, layouts);
  ASSERT_TRUE(entries);
  const CompareEntry* fastest = nullptr;
  for (const CompareEntry& e : *entries) {
    if (!e.valid || !e.option.estimate.fits_memory) continue;
    if (!fastest || e.option.estimate.time.step_s < fastest->option.estimate.time.step_s) {
      fastest = &e;
    }
  }
  ASSERT_NE(fastest, nullptr);
  EXPECT_TRUE(fastest->option.recommended);
}

PlanOption option_with(double tokens, double relative, double headroom_gib, CommType comm,
                       int64_t cp) {
  PlanOption o;
  o.layout.cp = cp;
  o.layout.comm = comm;
  if (comm == CommType::kA2aP2p) {
    o.layout.hcp = {2, cp / 2};
  }
  o.estimate.tokens_per_s_per_gpu = tokens;
  o.estimate.time.step_s = 1000.0 / tokens;
  o.estimate.memory_limit_gib = 80;
  o.estimate.memory.total = (80 - headroom_gib) * 1024.0 * 1024.0 * 1024.0;
  o.estimate.fits_memory = headroom_gib >= 0;
  o.band.relative = relative;
  return o;
}

TEST(TieRule, HeadroomThenTransportThenSpeed) {
  // B ties A (5 % apart, inside a difference band of 6 %) and has 13 GiB more headroom: B.
  std::vector<PlanOption> o = {option_with(1000, 0.06, 10, CommType::kA2aP2p, 8),
                               option_with(950, 0.06, 23, CommType::kA2a, 4)};
  std::vector<std::string> summary;
  explain_options(o, &summary, true);
  EXPECT_TRUE(o[1].recommended);
  EXPECT_TRUE(o[1].tie_with_best);
  EXPECT_NE(o[1].reasons.front().find("13.0 GiB more memory headroom"), std::string::npos)
      << o[1].reasons.front();
  // Why not the faster A, in one sentence after the recommendation: the tie rule, in words, naming
  // the band it uses: the difference band of two layouts of one job.
  ASSERT_GE(summary.size(), 2u);
  EXPECT_NE(summary[1].find("why not a faster option: 1 faster option (A) fits and is up to 5.3% "
                            "faster, which is within model error (inside the +-6.2% difference "
                            "band of two layouts of one job)"),
            std::string::npos)
      << summary[1];
  EXPECT_NE(summary[1].find("B is preferred to A, the fastest, for 13.0 GiB more memory headroom"),
            std::string::npos)
      << summary[1];
  // 5 % apart with a 4 % difference band: no tie (the two options' bands are not added).
  o = {option_with(1000, 0.04, 10, CommType::kA2aP2p, 8),
       option_with(950, 0.04, 23, CommType::kA2a, 4)};
  explain_options(o, &summary, true);
  EXPECT_TRUE(o[0].recommended);
  EXPECT_FALSE(o[1].tie_with_best);
  // Outside the band (bands 2 %): the fastest.
  o = {option_with(1000, 0.02, 10, CommType::kA2aP2p, 8),
       option_with(950, 0.02, 23, CommType::kA2a, 4)};
  explain_options(o, &summary, true);
  EXPECT_TRUE(o[0].recommended);
  EXPECT_FALSE(o[1].tie_with_best);
  // Same headroom: the simpler transport (a2a before a2a+p2p).
  o = {option_with(1000, 0.04, 10, CommType::kA2aP2p, 8),
       option_with(980, 0.04, 10.5, CommType::kA2a, 4)};
  explain_options(o, &summary, true);
  EXPECT_TRUE(o[1].recommended);
  EXPECT_NE(o[1].reasons.front().find("simpler transport"), std::string::npos);
  // Same headroom and transport: the faster.
  o = {option_with(980, 0.04, 10, CommType::kA2a, 4),
       option_with(1000, 0.04, 10.2, CommType::kA2a, 4)};
  explain_options(o, &summary, true);
  EXPECT_TRUE(o[1].recommended);
  // An option that does not fit is never recommended, however much it ties.
  o = {option_with(1000, 0.04, 10, CommType::kA2a, 4),
       option_with(990, 0.04, -1, CommType::kA2a, 4)};
  explain_options(o, &summary, true);
  EXPECT_TRUE(o[0].recommended);
  // `eligible` (compare: valid options) excludes an option from the recommendation.
  o = {option_with(1000, 0.06, 10, CommType::kA2aP2p, 8),
       option_with(950, 0.06, 23, CommType::kA2a, 4)};
  explain_options(o, &summary, true, {true, false});
  EXPECT_TRUE(o[0].recommended);
}

TEST(UnmeasuredExchange, NamesTheExchangesNoRunBehindTheBandsUsed) {
  PlanOption ring;
  ring.band.cp_comm_types = std::vector<std::string>{"p2p"};
  PlanOption hcp = ring;
  hcp.band.cp_comm_types_without_runs = {"a2a+p2p"};
  PlanOption gather = ring;
  gather.band.cp_comm_types_without_runs = {"all_gather"};
  // Every option's exchange has runs (or no fit says): nothing to say.
  EXPECT_EQ(unmeasured_exchange_text({&ring, nullptr}), "");
  EXPECT_EQ(unmeasured_exchange_text({}), "");
  EXPECT_EQ(unmeasured_exchange_text({&ring, &hcp, &gather, &hcp}),
            "no published run behind these bands used cp_comm_type all_gather or a2a+p2p (their "
            "CP runs used p2p), so no run has checked how those options price that exchange");
  PlanOption moe;  // a band of rows without CP
  moe.band.cp_comm_types = std::vector<std::string>{};
  moe.band.cp_comm_types_without_runs = {"a2a", "p2p"};
  EXPECT_EQ(unmeasured_exchange_text({&moe}),
            "no published run behind these bands used cp_comm_type p2p or a2a, so no run has "
            "checked how those options price that exchange");
}

TEST(TieRule, WordsNameTheCriteriaInTheOrderTheyApply) {
  // The reports print this text; it must follow HeadroomThenTransportThenSpeed's order and name
  // the headroom step the rule uses (a 0.9 GiB difference does not decide, as tested above).
  std::string words = tie_rule_text();
  size_t bands = words.find("error bands overlap");
  size_t headroom = words.find("memory headroom");
  size_t step = words.find("under 1 GiB");
  size_t transport = words.find("simpler CP transport");
  size_t domains = words.find("crossing NVLink domains");
  size_t faster = words.find("then the faster");
  ASSERT_NE(bands, std::string::npos) << words;
  ASSERT_NE(step, std::string::npos) << words;
  ASSERT_NE(faster, std::string::npos) << words;
  EXPECT_LT(bands, headroom);
  EXPECT_LT(headroom, transport);
  EXPECT_LT(transport, domains);
  EXPECT_LT(domains, faster);
}

TEST(CompareOrder, KeepsTheUsersOrderAndHonoursVp) {
  PlanInputs in;
  in.recipe = HCP_RECIPES_DIR "/llama31_70b_128k.yaml";
  in.nodes = 16;
  auto prepared = prepare_plan(in);
  ASSERT_TRUE(prepared) << prepared.error().str();
  const PlanRequest& req = prepared->request;
  std::vector<Layout> layouts;
  for (const char* text : {"tp=8,cp=2,pp=4,vp=1", "tp=8,cp=2,pp=4,vp=5", "tp=8,cp=1,pp=8"}) {
    auto l = layout_from_option(req.recipe, text, req.env.world_size);
    ASSERT_TRUE(l) << l.error().str();
    layouts.push_back(*l);
  }
  EXPECT_EQ(layouts[0].virtual_stages(), 1);
  EXPECT_EQ(layouts[1].virtual_stages(), 5);
  auto entries = compare_layouts(req, layouts);
  ASSERT_TRUE(entries);
  ASSERT_EQ(entries->size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ((*entries)[i].option.layout.pp, layouts[i].pp);
    EXPECT_EQ((*entries)[i].option.layout.virtual_stages(), layouts[i].virtual_stages());
  }
  // VP 5 shrinks the pipeline bubble: a different prediction from VP 1.
  EXPECT_NE((*entries)[0].option.estimate.time.step_s, (*entries)[1].option.estimate.time.step_s);
}

TEST(PlanSearch, HoldsTheRecipesOwnLayoutBeyondMaxPp) {
  PlanInputs in;
  in.recipe = HCP_RECIPES_DIR "/llama31_70b_128k.yaml";
  in.nodes = 16;
  auto prepared = prepare_plan(in);
  ASSERT_TRUE(prepared) << prepared.error().str();
  ASSERT_EQ(prepared->request.max_pp, 1);
  auto own = layout_on(prepared->request.recipe, *prepared->request.env.world_size);
  ASSERT_TRUE(own);
  ASSERT_GT(own->pp, 1) << "the test needs a recipe with pipeline parallelism";
  auto result = plan(prepared->request);
  ASSERT_TRUE(result) << result.error().str();
  ASSERT_TRUE(result->recipe_layout);
  ASSERT_TRUE(result->recipe_rank || result->recipe_rejected);
  if (result->recipe_rank) {
    const PlanOption& o = result->options[*result->recipe_rank];
    EXPECT_TRUE(o.recipe_layout);
    EXPECT_EQ(o.layout.pp, own->pp);
    EXPECT_EQ(o.layout.virtual_stages(), own->virtual_stages());
    EXPECT_EQ(std::count_if(result->options.begin(), result->options.end(),
                            [](const PlanOption& p) { return p.recipe_layout; }),
              1);
  }
  // VPP is searched: some option with PP > 1 interleaves.
  EXPECT_TRUE(std::any_of(result->options.begin(), result->options.end(), [](const PlanOption& p) {
    return p.layout.pp > 1 && p.layout.virtual_stages() > 1;
  }));
}

TEST(PlanSearch, SearchesExpertParallelismForMoe) {
  ModelDims m;
  m.num_layers = 8;
  m.num_experts = 8;
  SearchSpace space;
  space.max_pp = 2;
  space.ep = {1, 2, 4, 8};
  space.vpp = {1, 2, 4};
  auto layouts = search_layouts(m, 16, 8, space);
  std::set<int64_t> eps;
  std::set<int64_t> vpps;
  for (const Layout& l : layouts) {
    eps.insert(l.ep);
    vpps.insert(l.virtual_stages());
    EXPECT_EQ((l.tp * l.cp * l.dp) % (l.ep * l.expert_tp()), 0) << l.label();
    if (l.virtual_stages() > 1) {
      EXPECT_GT(l.pp, 1);
      EXPECT_EQ(m.num_layers % (l.pp * l.virtual_stages()), 0);
    }
  }
  EXPECT_EQ(eps, (std::set<int64_t>{1, 2, 4, 8}));
  EXPECT_EQ(vpps, (std::set<int64_t>{1, 2, 4}));
  // A dense model searches EP 1 only.
  m.num_experts = 0;
  for (const Layout& l : search_layouts(m, 16, 8, space))
    EXPECT_EQ(l.ep, 1);
  // `include` adds a layout the grid lacks (PP 4 beyond max_pp 2).
  Layout own;
  own.tp = 1;
  own.cp = 1;
  own.pp = 4;
  own.vpp = 2;
  own.dp = 4;
  space.include = {own};
  auto with = search_layouts(m, 16, 8, space);
  EXPECT_TRUE(std::any_of(with.begin(), with.end(),
                          [](const Layout& l) { return l.pp == 4 && l.vpp == 2; }));
}

}  // namespace
}  // namespace hcp
