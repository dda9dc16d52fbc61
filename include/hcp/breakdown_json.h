#pragma once
// The JSON form of an estimate's breakdown, one writer for every report that shows it (plan and
// compare options, accuracy rows).

#include <nlohmann/json.hpp>

#include "hcp/model.h"

namespace hcp {

/// Return the step time per term in seconds ("gemm_s", ..., "step_s") with the ring detail.
nlohmann::json time_breakdown_json(const TimeBreakdown& t);

/// Return the memory per GPU per term in GiB ("weights", ..., "total").
nlohmann::json memory_breakdown_json(const MemoryBreakdown& m);

}  // namespace hcp
