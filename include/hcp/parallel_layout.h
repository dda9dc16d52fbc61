// The parallel layout of one training job: how its ranks split into tensor, context, pipeline,
// data and expert parallel groups, and how context parallelism communicates. The one type every
// module uses for it: the recipe module reads it from a recipe (layout_of) and writes it back
// (apply), the group builder lays it out, the planner enumerates and prices it, and `--option`
// text parses into it.
#pragma once

#include <algorithm>
#include <bitset>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "hcp/cp_volume.h"

namespace hcp {

/// Megatron's default rank order, and the one dist.use_tp_pp_dp_mapping selects.
inline constexpr const char* kDefaultRankOrder = "tp-cp-ep-dp-pp";
inline constexpr const char* kTpPpDpRankOrder = "tp-cp-ep-pp-dp";

/// One parallel layout. Sizes use Megatron's names; what "unset" means is said once, by the
/// accessors below (expert_tp(), virtual_stages(), hcp_sizes()).
struct Layout {
  int64_t tp = 1;  ///< tensor_model_parallel_size.
  int64_t cp = 1;  ///< context_parallel_size.
  int64_t pp = 1;  ///< pipeline_model_parallel_size.
  int64_t dp = 1;  ///< Data-parallel size, world / (tp·cp·pp): see data_parallel_size().
  /// virtual_pipeline_model_parallel_size; unset: no interleaving (see virtual_stages()).
  std::optional<int64_t> vpp;
  int64_t ep = 1;  ///< expert_model_parallel_size.
  /// expert_tensor_parallel_size; unset: follows tp (see expert_tp()).
  std::optional<int64_t> etp;
  CpCommType comm = CpCommType::kP2p;  ///< cp_comm_type of the full-attention layers.
  /// cp_comm_type of the sliding-window layers when it differs (a per-layer list).
  std::optional<CpCommType> windowed_comm;
  std::vector<int64_t> hcp;        ///< hierarchical_context_parallel_sizes; empty when unset.
  bool sequence_parallel = false;  ///< model.sequence_parallel.
  /// Rank order: kDefaultRankOrder, or kTpPpDpRankOrder with dist.use_tp_pp_dp_mapping.
  std::string order = kDefaultRankOrder;

  /// Return the expert tensor-parallel size: etp, or tp when etp is unset.
  int64_t expert_tp() const { return etp.value_or(tp); }
  /// Return the virtual pipeline stages per rank: vpp, or 1 (no interleaving) when unset or < 1.
  int64_t virtual_stages() const { return std::max<int64_t>(vpp.value_or(1), 1); }
  /// Return the a2a (inner) size of a two-level hcp, else 1.
  int64_t hcp_a2a() const { return hcp.size() == 2 ? hcp[0] : 1; }
  /// Return the p2p (ring) size of a two-level hcp, else 1.
  int64_t hcp_p2p() const { return hcp.size() == 2 ? hcp[1] : 1; }
  /// Return the hierarchical sizes a2a+p2p runs with ([hcp_a2a(), hcp_p2p()]), or empty unless
  /// some layer uses a2a+p2p.
  std::vector<int64_t> hcp_sizes() const;
  /// Return true when any layer uses `type`.
  bool uses(CpCommType type) const;
  /// Return the CP exchanges the layers run: comm, then windowed_comm when set and different;
  /// none for CP 1.
  std::vector<CpCommType> cp_exchanges() const;
  /// Return the world size tp·cp·pp·dp.
  int64_t world() const { return tp * cp * pp * dp; }
  /// Return a short label such as "TP1 CP16 a2a+p2p [8,2] DP2" ("PP4 VP5", "EP8" when used); a
  /// CP1 layout has no comm type ("TP8 CP1 DP4").
  std::string label() const;

  bool operator==(const Layout&) const = default;
};

/// Return the data-parallel size of `layout` on `world` ranks, world / (tp·cp·pp), or nullopt
/// when tp·cp·pp is below 1 or does not divide world. The one place DP is derived.
std::optional<int64_t> data_parallel_size(const Layout& layout, int64_t world);

/// The fields a `--option` text can give, in the order its canonical text writes them.
enum class LayoutField { kTp, kCp, kPp, kEp, kEtp, kDp, kVp, kCpCommType, kHcp, kCount };

/// A set of LayoutField.
using LayoutFields = std::bitset<static_cast<size_t>(LayoutField::kCount)>;

/// A layout with the fields that were actually given (the rest keep Layout's defaults and are
/// for the caller to fill, e.g. from the recipe).
struct PartialLayout {
  Layout layout;
  LayoutFields given;

  /// Return true when `field` was given.
  bool has(LayoutField field) const { return given.test(static_cast<size_t>(field)); }
  /// Mark `field` as given.
  void set(LayoutField field) { given.set(static_cast<size_t>(field)); }
};

}  // namespace hcp
