// The layout rules on plain sizes (CP001, CP002, CP004, CP005, CP013, CP020, CP081, CP090): the
// one place their conditions and texts are computed. The registry rules call them with a
// recipe's sizes; the process-group builder (layout/resolve.cpp, `hcp-plan groups`) calls them
// with a GroupOptions, so both say the same thing.
#include <algorithm>
#include <string>

#include "hcp/rules.h"

namespace hcp::size_rules {
namespace {

std::string str(int64_t v) {
  return std::to_string(v);
}

}  // namespace

std::string wide_str(Wide v) {
  if (v == 0) return "0";
  std::string s;
  while (v > 0) {
    s.insert(s.begin(), static_cast<char>('0' + static_cast<int>(v % 10)));
    v /= 10;
  }
  return s;
}

Wide wide_product(std::initializer_list<int64_t> xs) {
  Wide p = 1;
  for (int64_t x : xs)
    p *= static_cast<Wide>(x);
  return p;
}

std::optional<SizeFinding> context_parallel_positive(int64_t cp) {
  if (cp >= 1) return std::nullopt;
  return SizeFinding{"CP002",
                     "context_parallel_size must be >= 1, got " + str(cp) +
                         " (CP=0 divides by zero when the data-parallel size is computed)",
                     "model.context_parallel_size"};
}

std::optional<SizeFinding> world_divisible(int64_t world, int64_t tp, int64_t pp, int64_t cp,
                                           int64_t gtp_factor) {
  Wide model = wide_product({tp, pp, cp, gtp_factor});
  if (model == 0 || static_cast<Wide>(world) % model == 0) return std::nullopt;
  std::string gtp = gtp_factor > 1 ? " * GTP factor=" + str(gtp_factor) : "";
  return SizeFinding{
      "CP001",
      "world size (" + str(world) + ") is not divisible by total_model_size (TP=" + str(tp) +
          " * PP=" + str(pp) + " * CP=" + str(cp) + gtp + " = " + wide_str(model) + ")",
      "model.context_parallel_size"};
}

std::optional<SizeFinding> expert_world_divisible(int64_t world, int64_t etp, int64_t ep,
                                                  int64_t pp, int64_t egtp_factor) {
  Wide expert = wide_product({etp, ep, pp, egtp_factor});
  if (expert == 0 || static_cast<Wide>(world) % expert == 0) return std::nullopt;
  std::string gtp = egtp_factor > 1 ? " * GTP factor=" + str(egtp_factor) : "";
  return SizeFinding{
      "CP005",
      "world_size (" + str(world) +
          ") is not divisible by expert_tensor_model_pipeline_parallel size (ETP=" + str(etp) +
          " * EP=" + str(ep) + " * PP=" + str(pp) + gtp + " = " + wide_str(expert) + ")",
      "model.expert_model_parallel_size"};
}

std::optional<SizeFinding> rank_ordering_same_dp(bool pp_last, int64_t pp, int64_t dense_group,
                                                 int64_t expert_group) {
  if (pp_last || pp <= 1 || dense_group == expert_group) return std::nullopt;
  return SizeFinding{"CP005",
                     "When not using pp-last rank ordering, the data parallel size of the "
                     "attention and moe layers must be the same: TP*CP = " +
                         str(dense_group) + " but ETP*EP = " + str(expert_group),
                     "dist.use_tp_pp_dp_mapping"};
}

std::optional<SizeFinding> distopt_instances_divide(int64_t dp_cp, int64_t instances) {
  if (instances <= 1 || dp_cp % instances == 0) return std::nullopt;
  return SizeFinding{
      "CP004",
      "Data parallel size should be divisible by partial DistOpt shard factor: "
      "DP*CP = " +
          str(dp_cp) +
          " is not divisible by num_distributed_optimizer_instances = " + str(instances),
      "ddp.num_distributed_optimizer_instances"};
}

std::optional<SizeFinding> hcp_product(const std::vector<int64_t>& hcp, int64_t cp) {
  if (hcp.empty()) return std::nullopt;
  Wide prod = 1;
  std::string list = "[";
  for (size_t i = 0; i < hcp.size(); ++i) {
    if (hcp[i] < 1) return std::nullopt;  // CP002 / bad input
    prod *= static_cast<Wide>(hcp[i]);
    list += (i ? ", " : "") + str(hcp[i]);
  }
  list += "]";
  if (prod == static_cast<Wide>(cp)) return std::nullopt;
  return SizeFinding{"CP013",
                     "Product of hierarchical_context_parallel_sizes " + list + " (=" +
                         wide_str(prod) + ") must equal context_parallel_size (=" + str(cp) + ").",
                     "model.hierarchical_context_parallel_sizes"};
}

std::optional<SizeFinding> dynamic_domain_even(bool hybrid, int64_t dp_cp) {
  if (dp_cp % 2 == 0) return std::nullopt;
  return SizeFinding{
      "CP081",
      std::string(hybrid ? "Hybrid" : "Dynamic") +
          " context parallel requires an even number of ranks (DP*CP = " + str(dp_cp) + ")",
      hybrid ? "model.hybrid_context_parallel" : "model.dynamic_context_parallel"};
}

std::optional<SizeFinding> min_dynamic_size_positive(int64_t min) {
  if (min >= 1) return std::nullopt;
  return SizeFinding{"CP090", "min_dynamic_context_parallel_size must be >= 1, got " + str(min),
                     "model.min_dynamic_context_parallel_size"};
}

std::optional<SizeFinding> a2a_level_in_domain(int64_t tp, int64_t hcp0, int64_t domain,
                                               bool nvlink_domain, std::optional<int64_t> world) {
  int64_t span = tp * hcp0;
  if (domain < 1 || span < 1 || (span <= domain && domain % span == 0)) return std::nullopt;
  if (span <= domain && world) {
    // The a2a groups are the blocks [k*span, (k+1)*span); with the world known, only a block
    // that actually crosses a domain boundary counts (64 ranks in a 72-GPU NVL72 domain do not).
    // k*span mod domain repeats with a period of at most `domain` blocks.
    int64_t blocks = std::min(*world / span, domain);
    bool straddles = false;
    for (int64_t k = 0; k < blocks && !straddles; ++k)
      straddles = (k * span) % domain + span > domain;
    if (!straddles) return std::nullopt;
  }
  std::string unit = nvlink_domain ? "NVLink domain" : "node";
  std::string why = span > domain ? " is larger than the " + unit + " (" + str(domain) + " GPUs)"
                                  : " does not divide the " + unit + " size " + str(domain) +
                                        ", so some groups straddle two";
  return SizeFinding{"CP020",
                     "the a2a level of hierarchical CP spans TP*HCP[0] = " + str(tp) + "*" +
                         str(hcp0) + " = " + str(span) + " consecutive ranks, which" + why +
                         "; the all-to-all then runs over the network",
                     "model.hierarchical_context_parallel_sizes"};
}

}  // namespace hcp::size_rules
