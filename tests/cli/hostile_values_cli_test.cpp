// Hostile recipe values, end to end: a value upstream rejects is reported the same way by every
// command that reads it (validate, groups, plan, compare, preflight), and none of them prices it
// as some other value: GQA heads not divisible by the query groups (CP116), a null or absent
// model section, a recompute_granularity Megatron-Core rejects, a cp_comm_type TE does not take,
// and a per-layer cp_comm_type list that mixes types.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>

#include "cli/cli_runner.h"

namespace hcp {
namespace {

using testing::CliResult;
using testing::run_cli;

const std::string kRecipe = "recipes/llama3_8b_128k.yaml";
const std::string kCluster = " --nodes 4 --gpus-per-node 8";
/// CP16 with p2p and no HCP: the recipe's layout as a plain ring.
const std::string kRing = " model.cp_comm_type=p2p model.hierarchical_context_parallel_sizes=null";

/// The lines of a command's stderr.
std::ptrdiff_t lines(const std::string& text) {
  return std::count(text.begin(), text.end(), '\n');
}

// --- CP116: heads not divisible by the query groups ---------------------------------------------

TEST(HostileValues, QueryGroupsNotDividingTheHeadsAreCp116InEveryCommand) {
  for (const char* groups : {"3", "64"}) {
    const std::string bad = std::string(" model.num_query_groups=") + groups + kRing;
    CliResult v = run_cli("validate " + kRecipe + " -q --wide" + kCluster + bad);
    EXPECT_EQ(v.exit_code, 1) << v.out << v.err;
    EXPECT_NE(v.out.find("error: [CP116] num_attention_heads (32) must be a multiple of "
                         "num_query_groups (" +
                         std::string(groups) + ")"),
              std::string::npos)
        << v.out;
    // plan and compare: the model is invalid, said once (one line), nothing recommended.
    for (const std::string& cmd : {std::string("plan --top 3 --nodes 4 "),
                                   std::string("compare --nodes 4 --option tp=1,cp=1 ")}) {
      CliResult r = run_cli(cmd + kRecipe + bad);
      EXPECT_EQ(r.exit_code, 2) << cmd << r.out << r.err;
      EXPECT_EQ(r.out, "") << cmd;
      EXPECT_EQ(lines(r.err), 1) << cmd << r.err;
      EXPECT_NE(r.err.find("[CP116] num_attention_heads (32)"), std::string::npos) << r.err;
    }
    CliResult g = run_cli("groups " + kRecipe + " --world-size 32" + bad);
    EXPECT_EQ(g.exit_code, 1) << g.out << g.err;
    EXPECT_NE(g.err.find("[CP116]"), std::string::npos) << g.err;
    CliResult p = run_cli("preflight " + kRecipe + kCluster + bad);
    EXPECT_NE(p.exit_code, 0) << p.out;
    EXPECT_NE(p.out.find("[CP116]"), std::string::npos) << p.out;
  }
  // Quiet for groups dividing the heads.
  CliResult ok = run_cli("validate " + kRecipe + " -q" + kCluster + " model.num_query_groups=4" +
                         kRing + " --ignore CP115");
  EXPECT_EQ(ok.exit_code, 0) << ok.out << ok.err;
  EXPECT_EQ(ok.out.find("CP116"), std::string::npos) << ok.out;
  CliResult plan = run_cli("plan --top 1 --nodes 4 " + kRecipe + " model.num_query_groups=4");
  EXPECT_NE(plan.exit_code, 2) << plan.err;
  EXPECT_EQ(plan.err.find("CP116"), std::string::npos) << plan.err;
}

// --- The model section
// ----------------------------------------------------------------------------

TEST(HostileValues, ANullOrAbsentModelIsOneLineExit2InEveryCommand) {
  for (const std::string& cmd :
       {"validate " + kRecipe + " --world-size 32", "groups " + kRecipe + " --world-size 32",
        "plan --nodes 4 " + kRecipe, "compare --nodes 4 --option tp=1 " + kRecipe,
        "preflight " + kRecipe + kCluster}) {
    for (const char* override : {" model=null", " model=NULL"}) {
      CliResult r = run_cli(cmd + override);
      EXPECT_EQ(r.exit_code, 2) << cmd << override << "\n" << r.out << r.err;
      EXPECT_EQ(lines(r.err), 1) << cmd << override << "\n" << r.err;
      EXPECT_NE(r.err.find("the recipe has no model section"), std::string::npos)
          << cmd << override << "\n"
          << r.err;
    }
  }
  CliResult yaml = run_cli("validate - --world-size 32", "printf 'model: null\\n' |");
  EXPECT_EQ(yaml.exit_code, 2) << yaml.out << yaml.err;
  EXPECT_NE(yaml.err.find("<stdin>:1:"), std::string::npos) << yaml.err;
  EXPECT_NE(yaml.err.find("(model is null)"), std::string::npos) << yaml.err;
  CliResult absent =
      run_cli("validate - --world-size 32", "printf 'train: {global_batch_size: 32}\\n' |");
  EXPECT_EQ(absent.exit_code, 2) << absent.out << absent.err;
  EXPECT_NE(absent.err.find("(no 'model' key)"), std::string::npos) << absent.err;
}

TEST(HostileValues, RecomputeGranularityOutsideFullAndSelectiveIsAnErrorAtItsKey) {
  // (A number is the schema's type error already.)
  for (const char* value : {"FULL", "banana", "none"}) {
    const std::string bad = std::string(" model.recompute_granularity=") + value;
    for (const std::string& cmd :
         {"validate " + kRecipe + " --world-size 32", "plan --top 1 --nodes 4 " + kRecipe,
          "compare --nodes 4 --option tp=1 " + kRecipe}) {
      CliResult r = run_cli(cmd + bad);
      EXPECT_EQ(r.exit_code, 2) << cmd << bad << "\n" << r.out;
      EXPECT_EQ(r.err.find("recompute none"), std::string::npos) << r.err;
      EXPECT_NE(r.err.find("<override 1>:1:29: model.recompute_granularity must be full or "
                           "selective"),
                std::string::npos)
          << cmd << bad << "\n"
          << r.err;
    }
  }
  for (const char* value : {"full", "selective", "null"}) {
    CliResult r =
        run_cli("plan --top 1 --nodes 4 " + kRecipe + " model.recompute_granularity=" + value);
    EXPECT_NE(r.exit_code, 2) << value << r.err;
  }
}

// --- cp_comm_type
// ---------------------------------------------------------------------------------

TEST(HostileValues, ACommTypeTeRejectsIsNotPricedAsAnotherType) {
  // allgather is CP010's error; CP115 no longer prices it as all_gather, plan does not list it as
  // the recipe's own all_gather layout, and compare does not price an option that inherits it.
  const std::string bad = " model.cp_comm_type=allgather";
  CliResult v = run_cli("validate " + kRecipe + " --world-size 32" + bad);
  EXPECT_EQ(v.exit_code, 1) << v.out;
  EXPECT_NE(v.out.find("[CP010]"), std::string::npos) << v.out;
  EXPECT_EQ(v.out.find("[CP115]"), std::string::npos) << v.out;
  CliResult plan = run_cli("plan --top 1 --nodes 4 " + kRecipe + bad);
  EXPECT_EQ(plan.out.find("your layout"), std::string::npos) << plan.out;
  CliResult inherit = run_cli("compare --nodes 4 --option tp=2 " + kRecipe + bad);
  EXPECT_EQ(inherit.exit_code, 2) << inherit.out;
  EXPECT_NE(inherit.err.find("unknown cp_comm_type 'allgather'"), std::string::npos) << inherit.err;
  CliResult given = run_cli("compare --nodes 4 --option tp=2,cp_comm_type=p2p " + kRecipe + bad);
  EXPECT_EQ(given.exit_code, 0) << given.out << given.err;
  // TE's own spelling is priced.
  CliResult ok = run_cli("validate " + kRecipe + " --world-size 32 model.cp_comm_type=all_gather" +
                         " model.hierarchical_context_parallel_sizes=null");
  EXPECT_NE(ok.out.find("[CP115] the recipe's layout TP1 CP16 all_gather"), std::string::npos)
      << ok.out;
}

TEST(HostileValues, AMixedPerLayerCommListIsPricedAsItsMostCommonTypeAndSaysSo) {
  const std::string four =
      " model.num_layers=4 model.context_parallel_size=8 "
      "model.hierarchical_context_parallel_sizes=null";
  struct Case {
    const char* list;
    const char* priced;
    bool mixed;
  };
  for (const Case& c : std::vector<Case>{{"[p2p,p2p,p2p,a2a]", "p2p", true},
                                         {"[a2a,p2p,p2p,p2p]", "p2p", true},
                                         {"[a2a,a2a,a2a,p2p]", "a2a", true},
                                         {"[p2p,p2p,p2p,p2p]", "p2p", false}}) {
    const std::string args = four + " 'model.cp_comm_type=" + c.list + "'";
    CliResult plan = run_cli("plan --wide --top 1 --nodes 4 " + kRecipe + args);
    ASSERT_EQ(plan.exit_code, 0) << c.list << plan.out << plan.err;
    EXPECT_NE(plan.out.find(std::string(" TP1 CP8 ") + c.priced + " DP4, rank"), std::string::npos)
        << c.list << "\n"
        << plan.out;
    EXPECT_EQ(
        plan.out.find("cp_comm_type list priced as its most common type") != std::string::npos,
        c.mixed)
        << c.list << "\n"
        << plan.out;
    CliResult compare = run_cli("compare --wide --nodes 4 --option tp=1 " + kRecipe + args);
    EXPECT_EQ(compare.out.find("the per-layer cp_comm_type list mixes types") != std::string::npos,
              c.mixed)
        << c.list << "\n"
        << compare.out;
  }
}

}  // namespace
}  // namespace hcp
