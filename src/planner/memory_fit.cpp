// validate's memory finding (CP115): the recipe's own layout priced with plan's memory model on
// the cluster's GPU. The figures and the least change that makes it fit come from the functions
// plan uses (estimate(), recompute_that_fits()); this file only words the finding.
#include <string>

#include "hcp/planner.h"
#include "hcp/text_util.h"

namespace hcp {

namespace {

constexpr double kBytesPerGiB = 1024.0 * 1024.0 * 1024.0;

/// "(band 76.3-111.5 GiB: +-20% on the 87.9 GiB the allocator holds, plus 6.0 GiB reserved)".
std::string band_text(const Estimate& e) {
  double reserved = e.memory.reserved / kBytesPerGiB;
  double held = e.memory_gib() - reserved;
  double low = held * (1 - kMemoryBand) + reserved;
  double high = held * (1 + kMemoryBand) + reserved;
  std::string verdict = low > e.memory_limit_gib ? "even its low edge is over the limit"
                                                 : "its low edge fits, so the job may still run";
  return "band " + format_fixed(low, 1) + "-" + format_fixed(high, 1) + " GiB: +-" +
         format_fixed(kMemoryBand * 100, 0) + "% on the " + format_fixed(held, 1) +
         " GiB the allocator holds, plus " + format_fixed(reserved, 1) + " GiB reserved; " +
         verdict;
}

/// The key the finding is located at: the layout's CP size when the recipe states it.
std::string finding_key(const Recipe& recipe) {
  for (const char* key : {"model.context_parallel_size", "model.tensor_model_parallel_size"}) {
    if (recipe.find(key) != nullptr) return key;
  }
  return {};
}

}  // namespace

std::optional<Diagnostic> memory_fit_finding(const PlanRequest& request,
                                             const std::string& cluster) {
  if (!request.env.world_size) return std::nullopt;
  auto model = model_dims_of(request.recipe);
  if (!model) return std::nullopt;
  auto layout = layout_on(request.recipe, *request.env.world_size);
  if (!layout) return std::nullopt;
  auto e = estimate(*model, *layout, request.hardware, request.setup);
  if (!e || e->fits_memory) return std::nullopt;
  std::string message =
      "the recipe's layout " + layout->label() + " does not fit in the memory of " +
      request.hardware.gpu_name + " GPUs (" + cluster + "): plan's memory model gives " +
      format_fixed(e->memory_gib(), 1) + " of " + format_limit_gib(e->memory_limit_gib) +
      " GiB per GPU, OOM by " + format_margin_gib(e->memory_gib() - e->memory_limit_gib) +
      " GiB (" + band_text(*e) + "): " + memory_terms_text(e->memory);
  if (std::string mixed = cp_comm_type_pricing_note(request.recipe, model->windowed);
      !mixed.empty()) {
    message += "; " + mixed;
  }
  std::string key = finding_key(request.recipe);
  std::optional<std::string> fits = recompute_that_fits(*model, request, *layout);
  // Megatron-LM inputs get the fix in Megatron-LM flag names, as check_rules gives them.
  bool mlm =
      request.env.framework == Framework::kMlm || request.recipe.framework == Framework::kMlm;
  Diagnostic d = fits ? finding("CP115", key, std::move(message),
                                FindingCase(mlm ? "recompute_mlm" : "recompute", *fits))
                      : finding("CP115", key, std::move(message));
  d.location = request.recipe.where(key);
  if (mlm) spell_fix_for_mlm(d);
  return d;
}

}  // namespace hcp
