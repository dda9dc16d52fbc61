// Pieces of the preflight text and JSON shared by the single-node and the cluster reports.
#pragma once

#include <optional>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "hcp/preflight.h"

namespace hcp::preflight_format {

/// "2 errors, 1 warning, 0 infos".
std::string counts_text(const Summary& s);
/// "4 nodes x 8 GPUs (world size 32), from slurm [node[01-04]]".
std::string shape_text(const LaunchShape& launch);
/// "  error: [PF201] message (key)" and an indented "fix:" line.
void append_finding(std::ostringstream& ss, const Diagnostic& d);

nlohmann::json launch_json(const LaunchShape& launch);
Result<LaunchShape> launch_from_json(const nlohmann::json& j, const std::string& where);
nlohmann::json summary_json(const Summary& s);
/// {"source","id","severity","message","key","fix"}.
nlohmann::json finding_json(const std::string& source, const Diagnostic& d);
/// Read finding_json() back; `source_out` receives its "source".
Result<Diagnostic> finding_from_json(const nlohmann::json& j, const std::string& where,
                                     std::string& source_out);

}  // namespace hcp::preflight_format
